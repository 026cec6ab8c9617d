/**
 * @module Fetching one page. Ids first (the keys query: sort values and primary key only, which a
 * covering index can answer without touching rows), then the records of just those ids, their tag
 * lists included, in one statement. Two narrow queries beat one wide sorted one: sorting and
 * seeking touch only index-sized tuples, and the wide rows are read for one page only.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { Compilable, CompiledQuery } from 'kysely'
import { primaryKeyColumn } from '../catalog/index.js'
import type { Boundary } from '../compile/page.js'
import { recordsByIdsQuery, type QueryPlan } from '../compile/plan.js'
import { prefersSortWalk } from '../compile/steer.js'
import type { ExecContext } from './context.js'
import { datasetRows } from './counts.js'
import { recordMapper, type ResultRecord } from './records.js'

export interface KeyRow {
  /** The sort values then (when appended) the primary key: a page boundary when it is a page's last row. */
  readonly boundary: Boundary
  readonly id: number
}

export interface FetchedPage {
  readonly records: readonly ResultRecord[]
  /** Keys of the page's rows, in order (the last one is the boundary of the next page). */
  readonly keys: readonly KeyRow[]
}

export interface KeysRequest {
  readonly after?: Boundary | undefined
  readonly limit: number
  /** Rows to skip first (read and dropped: see `fetchKeys`). */
  readonly offset?: number
  /**
   * How many records the filter selects, when known (the query's total): lets the plan be steered
   * between walking the sort index and driving from the filter's indexes (`compile/steer.ts`).
   */
  readonly matches?: number | undefined
}

/**
 * The ordered sort keys of up to `limit` rows after `after` (or from the start), after skipping
 * `offset` rows. After a boundary the rows come from the plan's seek ranges in order
 * (`seekRanges`: the non-NULL rows after it, then the NULL tail, when the first sort key is
 * nullable), each an index range read only as far as needed: the second is read only when the
 * first runs out.
 *
 * The skip happens here, on keys read, never as SQL OFFSET: SQLite 3.51 (better-sqlite3 12)
 * counts OFFSET in the rows of its EXISTS-to-join rewrite, one per matching inner row, so
 * `... WHERE EXISTS (...) ORDER BY ... LIMIT 2 OFFSET 2` skipped into the wrong rows (a company with
 * two matching fundings counted twice). Callers bound the skip (execute/cursor.ts).
 */
export async function fetchKeys(ctx: ExecContext, plan: QueryPlan, options: KeysRequest): Promise<KeyRow[]> {
  const pk = primaryKeyColumn(plan.dataset)
  const pkKey = plan.keys.find((k) => k.column === pk)
  if (!pkKey) throw new Error('execute: the sort keys lack the primary key')
  const want = options.limit + (options.offset ?? 0)
  const walkSortIndex = plan.canWalkSortIndex && options.matches !== undefined &&
    prefersSortWalk(plan, { matches: options.matches, rows: await datasetRows(ctx, plan.dataset), limit: want })
  const rows: Record<string, unknown>[] = []
  if (!options.after) {
    rows.push(...await plan.keysQuery(ctx.db, { limit: want, walkSortIndex }).execute())
  } else {
    for (const range of plan.seekRanges(options.after)) {
      rows.push(...await plan.keysQuery(ctx.db, { range, limit: want - rows.length, walkSortIndex }).execute())
      if (rows.length >= want) break
    }
  }
  return rows.slice(options.offset ?? 0).map((row) => ({
    boundary: plan.keys.map((k) => (row[k.alias] ?? null) as Boundary[number]),
    id: Number(row[pkKey.alias]),
  }))
}

/**
 * Compiled by-ids statements, per dialect and dataset or tags field. Their SQL does not depend on
 * the ids (one JSON parameter), and building the 45-column rows query through Kysely cost more
 * than running it (0.21 ms vs 0.13 ms for 10 companies on 100,000; bench/README.md).
 */
const byIdsCache = new Map<string, CompiledQuery>()

function byIds(key: string, ids: readonly number[], build: (ids: readonly number[]) => Compilable): CompiledQuery {
  let compiled = byIdsCache.get(key)
  if (!compiled) {
    compiled = build([0]).compile()
    // The cache is only sound while the ids are the statement's one parameter.
    if (compiled.parameters.length !== 1 || compiled.parameters[0] !== '[0]') throw new Error(`execute: ${key} has parameters besides the ids`)
    byIdsCache.set(key, compiled)
  }
  return Object.freeze({ ...compiled, parameters: Object.freeze([JSON.stringify(ids)]) })
}

/** Result records for ids, in the order of `ids`: one statement, tag lists included (`recordsByIdsQuery`). */
export async function loadRecords(ctx: ExecContext, plan: QueryPlan, ids: readonly number[]): Promise<ResultRecord[]> {
  if (ids.length === 0) return []
  const { dataset } = plan
  const { columns, rows } = await readRows(ctx, byIds(`${ctx.dialect.name}:records:${dataset.name}`, ids, (x) => recordsByIdsQuery(ctx.db, ctx.dialect, dataset, x)))
  const pk = columns.indexOf(primaryKeyColumn(dataset))
  const toRecord = recordMapper(dataset, columns)
  const byId = new Map(rows.map((r) => [Number(r[pk]), r]))
  return ids.flatMap((id) => {
    const row = byId.get(id)
    return row ? [toRecord(row)] : []
  })
}

/** Raw-mode statements per SQLite handle, by SQL text (a few shapes: one per dataset). */
const rawStatements = new WeakMap<object, Map<string, { statement: BetterSqlite3.Statement; columns: readonly string[] }>>()

/**
 * A query's rows as arrays, with their column names. On SQLite the statement runs in
 * better-sqlite3's raw mode, which builds no object per row: reading a 50-company page (50
 * columns) took 0.21 ms that way against 0.47 ms as objects (1,000,000 companies). Elsewhere the
 * driver's objects are laid out as arrays.
 */
async function readRows(ctx: ExecContext, query: CompiledQuery): Promise<{ columns: readonly string[]; rows: readonly (readonly unknown[])[] }> {
  const sqlite = ctx.sqlite
  if (sqlite) {
    let cache = rawStatements.get(sqlite)
    if (!cache) rawStatements.set(sqlite, (cache = new Map()))
    let known = cache.get(query.sql)
    if (!known) {
      const statement = sqlite.prepare(query.sql).raw(true)
      cache.set(query.sql, (known = { statement, columns: Object.freeze(statement.columns().map((c) => c.name)) }))
    }
    return { columns: known.columns, rows: known.statement.all(...query.parameters) as unknown[][] }
  }
  const { rows } = await ctx.db.executeQuery<Record<string, unknown>>(query)
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : []
  return { columns, rows: rows.map((r) => columns.map((c) => r[c])) }
}

/** One page: `limit` records after `after` (or from the start), with their keys. */
export async function fetchPage(ctx: ExecContext, plan: QueryPlan, options: KeysRequest): Promise<FetchedPage> {
  const keys = await fetchKeys(ctx, plan, options)
  const records = await loadRecords(ctx, plan, keys.map((k) => k.id))
  return Object.freeze({ records: Object.freeze(records), keys: Object.freeze(keys) })
}
