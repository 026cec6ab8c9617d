/**
 * @module Fetching one page. Ids first (the keys query: sort values and primary key only, which a
 * covering index can answer without touching rows), then the records of just those ids, their tag
 * lists included, in one statement. Two narrow queries beat one wide sorted one: sorting and
 * seeking touch only index-sized tuples, and the wide rows are read for one page only.
 */
import { CompiledQuery, type Compilable, type Kysely } from 'kysely'
import { primaryKeyColumn } from '../catalog/index.js'
import type { Boundary } from '../compile/page.js'
import { bindable } from '../compile/values.js'
import { recordOfKeyQuery, recordsByIdsQuery, type QueryPlan } from '../compile/plan.js'
import { prefersSortWalk } from '../compile/steer.js'
import type { ExecContext } from './context.js'
import { datasetRows } from './counts.js'
import type { FieldSelection } from '../check/fields.js'
import { recordMapper, type ResultRecord } from './records.js'
import { isMissingIndex, readRows, withNumbers, withParameters, type RowArrays } from './statements.js'

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
  return keyRowsOf(plan, await readKeys(ctx, plan, options), options.offset ?? 0)
}

/** The keys statements' rows (see `fetchKeys`); `withRecords` turns each statement into one that also reads each key's record. */
async function readKeys(ctx: ExecContext, plan: QueryPlan, options: KeysRequest, withRecords?: (keys: CompiledQuery) => CompiledQuery): Promise<RowArrays[]> {
  const want = options.limit + (options.offset ?? 0)
  const walkSortIndex = plan.canWalkSortIndex && options.matches !== undefined &&
    prefersSortWalk(plan, { matches: options.matches, rows: await datasetRows(ctx, plan.dataset), limit: want })
  const read = (query: CompiledQuery) => readRows(ctx, withRecords ? withRecords(query) : query)
  const readAll = async (walk: boolean): Promise<RowArrays[]> => {
    if (!options.after) return [await read(keysFromStart(ctx.db, plan, walk, want))]
    const parts: RowArrays[] = []
    let rows = 0
    const statements = seekStatements(ctx.db, plan, walk, options.after)
    for (const statement of statements) {
      const part = await read(statement(want - rows))
      parts.push(part)
      rows += part.rows.length
      if (rows >= want) break
    }
    return parts
  }
  try {
    return await readAll(walkSortIndex)
  } catch (error) {
    // A walk names its sort index (compile/plan.ts, `walkFrom`), and a bulk load drops every index
    // until it ends (store/indexes.ts, `deferIndexes`): then the planner's own plan reads the keys,
    // slowly but the same rows, as it did before the walk named its index.
    if (!walkSortIndex || !isMissingIndex(error)) throw error
    return await readAll(false)
  }
}

/**
 * The keys of the first `limit` matches among the first `reads` rows of the sort order
 * (`QueryPlan.walkKeysQuery`, compiled once per plan): all of page 1's keys when `limit` of them
 * are found, fewer when the walk ends first. Empty where the plan has no such walk.
 */
export async function walkedKeys(ctx: ExecContext, plan: QueryPlan, reads: number, limit: number): Promise<KeyRow[]> {
  const { walkKeysQuery } = plan
  if (!walkKeysQuery) return []
  const query = withNumbers(ctx.db, plan, 'walk keys', (r, l) => walkKeysQuery(ctx.db, r!, l!), [reads, limit])
  return keyRowsOf(plan, [await readRows(ctx, query)], 0)
}

/** The key rows of `read`, in order, the first `skip` dropped. */
function keyRowsOf(plan: QueryPlan, read: readonly RowArrays[], skip: number): KeyRow[] {
  const pk = primaryKeyColumn(plan.dataset)
  const pkKey = plan.keys.find((k) => k.column === pk)
  if (!pkKey) throw new Error('execute: the sort keys lack the primary key')
  const keyRows: KeyRow[] = []
  for (const { columns, rows } of read) {
    if (rows.length === 0) continue
    const at = plan.keys.map((k) => columns.indexOf(k.alias))
    const pkAt = columns.indexOf(pkKey.alias)
    if (pkAt < 0 || at.includes(-1)) throw new Error('execute: the keys query lacks a sort key column')
    for (const row of rows) {
      if (skip > 0) {
        skip--
        continue
      }
      keyRows.push({ boundary: at.map((i) => (row[i] ?? null) as Boundary[number]), id: Number(row[pkAt]) })
    }
  }
  return keyRows
}

/**
 * The compiled keys statement of `limit` rows from the start: built and compiled through Kysely
 * once per Kysely instance, plan and walk choice (`withNumbers`), then reused with the limit put in
 * as its parameter. Its SQL depends on nothing else: the filter's values are parameters, and the
 * data version only steers the walk choice, which is part of the key.
 */
export function keysFromStart(db: Kysely<any>, plan: QueryPlan, walkSortIndex: boolean, limit: number): CompiledQuery {
  return withNumbers(db, plan, walkSortIndex ? 'keys, walked' : 'keys', (n) => plan.keysQuery(db, { limit: n!, walkSortIndex }), [limit])
}

/**
 * The keys statements after a boundary (one per seek range), per Kysely instance, plan, walk choice
 * and boundary shape (which of its values are NULL, the only thing the SQL's text depends on):
 * `null` when the boundary's values and the limit could not be shown to be parameters of their
 * own (then compiled per call). Building and compiling the two ranges of a seek after a descending
 * first key through Kysely took ~0.3 ms per deep page on a loaded machine, a quarter of a page
 * (the suite's deep pages, `npm run bench`).
 */
const seekTemplates = new WeakMap<object, WeakMap<QueryPlan, Map<string, readonly SeekTemplate[] | null>>>()

interface SeekTemplate {
  readonly compiled: CompiledQuery
  /** Per parameter: the boundary value's index, 'limit', or undefined for a value of the filter. */
  readonly slots: readonly (number | 'limit' | undefined)[]
}

/** Two limits no request uses (pages are at most `maxPerPage` plus a bounded skip), told apart from the filter's values. */
const PROBE_LIMITS = [2_000_000_011, 2_000_000_013] as const

/**
 * Placeholder boundaries of a shape, two sets: each non-NULL value is a text no filter value is
 * (it starts with a NUL character, which the checker refuses in values and PostgreSQL in text).
 */
function probeBoundary(after: Boundary, set: 0 | 1): Boundary {
  return after.map((v, i) => (v === null ? null : `\u0000vql-seek-${set}-${i}`))
}

function seekTemplatesOf(db: Kysely<any>, plan: QueryPlan, walk: boolean, after: Boundary): readonly SeekTemplate[] | null {
  const compileAll = (set: 0 | 1) => plan.seekRanges(probeBoundary(after, set)).map((range) => plan.keysQuery(db, { range, limit: PROBE_LIMITS[set], walkSortIndex: walk }).compile())
  const a = compileAll(0)
  const b = compileAll(1)
  if (a.length !== b.length) return null
  const templates: SeekTemplate[] = []
  for (let r = 0; r < a.length; r++) {
    const x = a[r]!
    const y = b[r]!
    if (x.sql !== y.sql || x.parameters.length !== y.parameters.length) return null
    const slots: (number | 'limit' | undefined)[] = []
    for (let i = 0; i < x.parameters.length; i++) {
      const u = x.parameters[i]
      const v = y.parameters[i]
      if (u === v) {
        // A filter value equal to a placeholder would be taken for the filter's: refuse the template.
        if (typeof u === 'string' && u.startsWith('\u0000vql-seek-')) return null
        slots.push(undefined)
      } else if (u === PROBE_LIMITS[0] && v === PROBE_LIMITS[1]) {
        slots.push('limit')
      } else {
        const m = typeof u === 'string' && typeof v === 'string' ? /^\u0000vql-seek-0-(\d+)$/.exec(u) : null
        if (!m || v !== `\u0000vql-seek-1-${m[1]}`) return null
        slots.push(Number(m[1]))
      }
    }
    templates.push({ compiled: x, slots })
  }
  return templates
}

/**
 * The keys statements of the ranges after `after`, each a function of the limit: the plan's
 * `keysQuery` per `seekRanges` range, compiled once per boundary shape and reused with the
 * boundary's values and the limit put in (`seekTemplates`), or compiled per call where that could
 * not be shown sound.
 */
export function seekStatements(db: Kysely<any>, plan: QueryPlan, walk: boolean, after: Boundary): ((limit: number) => CompiledQuery)[] {
  let perPlan = seekTemplates.get(db)
  if (!perPlan) seekTemplates.set(db, (perPlan = new WeakMap()))
  let byShape = perPlan.get(plan)
  if (!byShape) perPlan.set(plan, (byShape = new Map()))
  const shape = `${walk ? 'w' : 'p'}${after.map((v) => (v === null ? 'n' : 'v')).join('')}`
  let templates = byShape.get(shape)
  if (templates === undefined) {
    templates = seekTemplatesOf(db, plan, walk, after)
    byShape.set(shape, templates)
  }
  if (templates === null) {
    return plan.seekRanges(after).map((range) => (limit: number) => plan.keysQuery(db, { range, limit, walkSortIndex: walk }).compile())
  }
  return templates.map(({ compiled, slots }) => (limit: number) =>
    withParameters(compiled, compiled.parameters.map((value, i) => {
      const slot = slots[i]
      return slot === undefined ? value : slot === 'limit' ? limit : bindable(after[slot] ?? null)
    })))
}

/**
 * Compiled by-ids statements, per dialect and dataset or tags field. Their SQL does not depend on
 * the ids (one JSON parameter), and building the 45-column rows query through Kysely cost more
 * than running it (0.21 ms vs 0.13 ms for 10 companies on 100,000).
 */
const byIdsCache = new Map<string, CompiledQuery>()
const BY_IDS_CACHED = 512

function byIds(key: string, ids: readonly number[], build: (ids: readonly number[]) => Compilable): CompiledQuery {
  let compiled = byIdsCache.get(key)
  if (!compiled) {
    compiled = build([0]).compile()
    // The cache is only sound while the ids are the statement's one parameter.
    if (compiled.parameters.length !== 1 || compiled.parameters[0] !== '[0]') throw new Error(`execute: ${key} has parameters besides the ids`)
    // Field selections make the keys many (any subset, in any order): the oldest goes beyond a bound.
    if (byIdsCache.size >= BY_IDS_CACHED) byIdsCache.delete(byIdsCache.keys().next().value as string)
    byIdsCache.set(key, compiled)
  }
  return Object.freeze({ ...compiled, parameters: Object.freeze([JSON.stringify(ids)]) })
}

/** Result records for ids, in the order of `ids`: one statement, tag lists included (`recordsByIdsQuery`). */
export async function loadRecords(ctx: ExecContext, plan: QueryPlan, ids: readonly number[], selection?: FieldSelection): Promise<ResultRecord[]> {
  if (ids.length === 0) return []
  const { dataset } = plan
  const only = selection?.fields
  const key = `${ctx.dialect.name}:records:${dataset.name}${selection === undefined ? '' : `:${selection.key}`}`
  const { columns, rows } = await readRows(ctx, byIds(key, ids, (x) => recordsByIdsQuery(ctx.db, ctx.dialect, dataset, x, only)))
  const pk = columns.indexOf(primaryKeyColumn(dataset))
  const toRecord = recordMapper(dataset, columns, only)
  const byId = new Map(rows.map((r) => [Number(r[pk]), r]))
  return ids.flatMap((id) => {
    const row = byId.get(id)
    return row ? [toRecord(row)] : []
  })
}

/**
 * Per dialect, dataset, field selection and key alias: the statement reading the record of one
 * key (`recordOfKeyQuery`), compiled once; null when it has parameters (then not combinable).
 */
const recordOfKeyCache = new Map<string, string | null>()

function recordOfKeySql(ctx: ExecContext, plan: QueryPlan, keyAlias: string, selection?: FieldSelection): string | null {
  const key = `${ctx.dialect.name}:${plan.dataset.name}:${keyAlias}${selection === undefined ? '' : `:${selection.key}`}`
  let text = recordOfKeyCache.get(key)
  if (text === undefined) {
    const compiled = recordOfKeyQuery(ctx.db, ctx.dialect, plan.dataset, `k.${keyAlias}`, selection?.fields).compile()
    text = compiled.parameters.length === 0 ? compiled.sql : null
    if (recordOfKeyCache.size >= BY_IDS_CACHED) recordOfKeyCache.delete(recordOfKeyCache.keys().next().value as string)
    recordOfKeyCache.set(key, text)
  }
  return text
}

/**
 * `limit` keys after `after` (as `fetchKeys`) and the records of those from the `recordsFrom`-th
 * on, in key order. Where the dialect reads both in one statement (`keysWithRecords`: PostgreSQL,
 * where each statement is a round trip) and nothing is skipped, each keys statement carries its
 * keys' records; otherwise the keys, then the records of their ids (`loadRecords`).
 */
export async function fetchKeysAndRecords(ctx: ExecContext, plan: QueryPlan, options: KeysRequest, selection?: FieldSelection, recordsFrom = 0): Promise<FetchedPage> {
  const combine = ctx.dialect.keysWithRecords
  const pkKey = plan.keys.find((k) => k.column === primaryKeyColumn(plan.dataset))
  const record = combine && pkKey && !options.offset ? recordOfKeySql(ctx, plan, pkKey.alias, selection) : null
  if (!combine || record === null) {
    const keys = await fetchKeys(ctx, plan, options)
    const records = await loadRecords(ctx, plan, keys.slice(recordsFrom).map((k) => k.id), selection)
    return Object.freeze({ records: Object.freeze(records), keys: Object.freeze(keys) })
  }
  const read = await readKeys(ctx, plan, options, (keys) => CompiledQuery.raw(combine(keys.sql, record), [...keys.parameters]))
  const keys = keyRowsOf(plan, read, 0)
  const records: ResultRecord[] = []
  let at = 0
  for (const { columns, rows } of read) {
    if (rows.length === 0) continue
    const pk = columns.indexOf(primaryKeyColumn(plan.dataset))
    const toRecord = recordMapper(plan.dataset, columns, selection?.fields)
    // A key whose record was deleted since (NULL columns) has no record, as with `loadRecords`.
    for (const row of rows) if (at++ >= recordsFrom && row[pk] !== null && row[pk] !== undefined) records.push(toRecord(row))
  }
  return Object.freeze({ records: Object.freeze(records), keys: Object.freeze(keys) })
}

/** One page: `limit` records after `after` (or from the start), with their keys. */
export async function fetchPage(ctx: ExecContext, plan: QueryPlan, options: KeysRequest, selection?: FieldSelection): Promise<FetchedPage> {
  return fetchKeysAndRecords(ctx, plan, options, selection)
}
