/**
 * @module Total counts. Counting is the expensive part of a page (design section 8), so a stored
 * query's total is computed once per data version and kept in `query_totals`; an ingest bumps the
 * data version, which retires every cached total at once without a purge.
 */
import { sql, type Compilable, type CompiledQuery, type ExpressionBuilder, type Kysely } from 'kysely'
import type { DatasetDef } from '../catalog/define.js'
import type { QueryPlan } from '../compile/plan.js'
import { completeOwners } from '../store/owner-integrity.js'
import { DATA_VERSION_KEY, META_TABLE } from '../store/schema/stored-query-tables.js'
import { noteLatestRowCount, rememberedProbes, rememberedRowCounts, rememberedTotals } from '../store/row-counts.js'
import { noteCacheWrites } from './cache-trim.js'
import { writeCache } from './cache-write.js'
import type { ExecContext } from './context.js'
import { queryShape } from '../records/query-shape.js'
import { boundQuery, isMissingIndex, readRows, withNumbers } from './statements.js'

/**
 * The number of records in a dataset's table, counted once per data version (an ingest is the only
 * thing that changes it; `copy` sets a newer version too, so another process sees new rows). Plan steering
 * divides the query's total by it (`compile/steer.ts`), and a match-all total is it (`countRows`).
 */
export async function datasetRows(ctx: ExecContext, dataset: Pick<DatasetDef, 'table'>): Promise<number> {
  const cache = rememberedRowCounts(ctx.db)
  const key = `${ctx.dataVersion}\u0000${dataset.table}`
  const known = cache.get(key)
  if (known !== undefined) return known
  const row = await ctx.db.selectFrom(dataset.table).select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()
  const rows = Number(row.count)
  cache.set(key, rows)
  noteLatestRowCount(ctx.db, dataset.table, rows)
  return rows
}

/**
 * How many records the plan's filter selects. A match-all plan (no WHERE) counts exactly what
 * `datasetRows` counts, the dataset's whole table, so it takes that number, counted once per data
 * version: on PostgreSQL `count(*)` of 100,000 companies is an index-only scan of every entry
 * (~8 ms), where SQLite counts a b-tree's pages.
 */
export async function countRows(ctx: ExecContext, plan: QueryPlan): Promise<number> {
  if (plan.where === undefined) return datasetRows(ctx, plan.dataset)
  const { ownerCount, complementCount } = plan
  if (ownerCount && (await completeOwners(ctx.db, ctx.dataVersion)).has(ownerCount.owner)) {
    const parts = ctx.dialect.localStatements ? ownerCount.byProbe : undefined
    if (parts) {
      const related = await countOf(ctx, compiledOnce(ctx.db, parts.probe, () => parts.probe(ctx.db)))
      const form = related <= 1 ? parts.single : parts.several
      return countOf(ctx, compiledOnce(ctx.db, form, () => form(ctx.db)))
    }
    return countOf(ctx, compiledOnce(ctx.db, ownerCount, () => ownerCount.query(ctx.db)))
  }
  if (complementCount) {
    const [rows, selected] = await Promise.all([datasetRows(ctx, plan.dataset), countOf(ctx, compiledOnce(ctx.db, complementCount, () => complementCount(ctx.db)))])
    return rows - selected
  }
  const { splitCount } = plan
  if (splitCount) return countOf(ctx, compiledOnce(ctx.db, splitCount, () => splitCount(ctx.db)))
  return countOf(ctx, compiledOnce(ctx.db, plan.countQuery, () => plan.countQuery(ctx.db)))
}

/**
 * A count statement of a plan, compiled once per database handle. A plan carries its filter's
 * values (plans are kept per request by the prepared-request memo), so its statements never
 * change; building and compiling one through Kysely cost more than running it for small counts
 * (fundings by one investor's link rows: ~0.3 ms of SQL).
 */
const compiledCounts = new WeakMap<object, WeakMap<object, CompiledQuery>>()

function compiledOnce(db: Kysely<any>, part: object, build: () => Compilable): CompiledQuery {
  let byDb = compiledCounts.get(part)
  if (!byDb) compiledCounts.set(part, (byDb = new WeakMap()))
  let compiled = byDb.get(db)
  if (!compiled) byDb.set(db, (compiled = build().compile()))
  return compiled
}

/** The one value of a count statement (PostgreSQL's bigint count arrives as a string). */
async function countOf(ctx: ExecContext, query: CompiledQuery): Promise<number> {
  const { rows } = await readRows(ctx, query)
  return Number(rows[0]![0])
}

// The lookups and the insert of cached totals run on every page and count: query shapes, compiled
// once per dialect and bound per call (records/query-shape.ts), not built through Kysely each time.

const TOTAL = queryShape<{ queryId: string; dataVersion: number }, { total: number }>('cached total', (db, _d, p) =>
  db.selectFrom('query_totals').select('total').where('query_id', '=', p.queryId).where('data_version', '=', p.dataVersion))

/** The query's total cached at the data version `m.value` (a subquery of the statements below). */
function totalAtVersion(eb: ExpressionBuilder<any, any>, queryId: string) {
  return eb.selectFrom('query_totals as qt').select('qt.total')
    .where('qt.query_id', '=', queryId)
    // meta holds text; the cast is to the column's integer type on both dialects.
    .where('qt.data_version', '=', sql<number>`cast(${sql.ref('m.value')} as bigint)`)
    .as('total')
}

/** `select m.value, (select total from query_totals where query_id = ? and data_version = m.value) from meta m where m.key = ?` */
const VERSION_AND_TOTAL = queryShape<{ queryId: string }, { version: string; total: number | null }>('data version and cached total', (db, _d, p) =>
  db.selectFrom(`${META_TABLE} as m`)
    .select((eb) => ['m.value as version', totalAtVersion(eb, p.queryId)])
    .where('m.key', '=', DATA_VERSION_KEY))

/** `VERSION_AND_TOTAL` and the stored query's row (NULLs when it is not stored). */
const VERSION_TOTAL_AND_STORED = queryShape<{ queryId: string }, { version: string; total: number | null; last_used_at: string | null }>('data version, cached total and stored query', (db, _d, p) =>
  db.selectFrom(`${META_TABLE} as m`)
    .select((eb) => [
      'm.value as version',
      totalAtVersion(eb, p.queryId),
      eb.selectFrom('stored_queries as sq').select('sq.last_used_at').where('sq.query_id', '=', p.queryId).as('last_used_at'),
      eb.selectFrom('stored_queries as sq').select('sq.query_version').where('sq.query_id', '=', p.queryId).as('query_version'),
      eb.selectFrom('stored_queries as sq').select('sq.canonical').where('sq.query_id', '=', p.queryId).as('canonical'),
    ])
    .where('m.key', '=', DATA_VERSION_KEY))

const TOTAL_INSERT = queryShape<{ queryId: string; dataVersion: number; total: number }, never>('remember a total', (db, _d, p) =>
  db.insertInto('query_totals').values({ query_id: p.queryId, data_version: p.dataVersion, total: p.total })
    .onConflict((oc) => oc.columns(['query_id', 'data_version']).doNothing()))

/** The total of a stored query at the context's data version when it is cached; never counts. */
export async function knownTotal(ctx: ExecContext, queryId: string): Promise<number | undefined> {
  const { rows } = await readRows(ctx, boundQuery(ctx.dialect, TOTAL, { queryId, dataVersion: ctx.dataVersion }))
  return rows.length > 0 ? Number(rows[0]![0]) : rememberedTotal(ctx, queryId)
}

/** Most totals kept in memory per connection; the oldest go first. */
const MAX_REMEMBERED_TOTALS = 10_000
const totalKey = (ctx: Pick<ExecContext, 'dataVersion'>, queryId: string) => `${ctx.dataVersion}\u0000${queryId}`

/** A total kept in memory (counted faster than a cache write: `cachedTotal`). */
export function rememberedTotal(ctx: Pick<ExecContext, 'db' | 'dataVersion'>, queryId: string): number | undefined {
  return rememberedTotals(ctx.db).get(totalKey(ctx, queryId))
}

/** Keeps a total counted elsewhere than `countRows` (facets counted in memory, `facet-columns.ts`) in memory, and returns it. */
export function rememberCountedTotal(ctx: ExecContext, queryId: string, total: number): number {
  rememberTotal(ctx, queryId, total)
  return total
}

function rememberTotal(ctx: ExecContext, queryId: string, total: number): void {
  const totals = rememberedTotals(ctx.db)
  // Insertion order: the first key is the oldest.
  if (totals.size >= MAX_REMEMBERED_TOTALS) totals.delete(totals.keys().next().value!)
  totals.set(totalKey(ctx, queryId), total)
}

/** The data version, and a stored query's total when it is cached at that version (`knownTotal`). */
export interface VersionAndTotal {
  readonly dataVersion: number
  readonly total: number | undefined
}

/**
 * The current data version and a stored query's total cached at it, read in one statement: every
 * page of a filtered query needs both, and on PostgreSQL each statement is a round trip. One
 * statement also reads both from one snapshot. The same as `dataVersion` (store/open.ts) then
 * `knownTotal`, which it falls back to where the version was never recorded (version 0).
 */
export async function versionAndKnownTotal(ctx: Pick<ExecContext, 'db' | 'sqlite' | 'dialect'>, queryId: string): Promise<VersionAndTotal> {
  const { rows } = await readRows(ctx, boundQuery(ctx.dialect, VERSION_AND_TOTAL, { queryId }))
  if (rows.length === 0) return { dataVersion: 0, total: await knownTotal({ ...ctx, dataVersion: 0 }, queryId) }
  const [version, total] = rows[0]!
  return { dataVersion: Number(version), total: total === null || total === undefined ? undefined : Number(total) }
}

/** A stored query's row as `storeQuery` and `loadStoredQuery` read it. */
export interface StoredRow {
  readonly last_used_at: string
  readonly query_version: number
  readonly canonical: string
}

/** `VersionAndTotal`, and the stored query's row (`storeQuery`'s `existing`, `loadStoredQuery`'s `row`). */
export interface VersionTotalAndStored extends VersionAndTotal {
  /** Null when the query is not stored; undefined when it was not read (no data version recorded). */
  readonly stored: StoredRow | null | undefined
}

/**
 * `versionAndKnownTotal` and the stored query's row, in one statement: a query call stores its
 * query and a page call loads it, then both read a page with the version and total, and on
 * PostgreSQL each statement is a round trip.
 */
export async function versionTotalAndStored(ctx: Pick<ExecContext, 'db' | 'sqlite' | 'dialect'>, queryId: string): Promise<VersionTotalAndStored> {
  const { rows } = await readRows(ctx, boundQuery(ctx.dialect, VERSION_TOTAL_AND_STORED, { queryId }))
  if (rows.length === 0) return { ...(await versionAndKnownTotal(ctx, queryId)), stored: undefined }
  const [version, total, lastUsedAt, queryVersion, canonical] = rows[0]!
  return {
    dataVersion: Number(version),
    total: total === null || total === undefined ? undefined : Number(total),
    stored: lastUsedAt === null || lastUsedAt === undefined
      ? null
      : { last_used_at: String(lastUsedAt), query_version: Number(queryVersion), canonical: String(canonical) },
  }
}

/**
 * The total of a stored query at the context's data version, from the cache or counted and cached.
 * Where it is cached depends on what counting cost: from `persistTotalsFromMs` on, in
 * `query_totals` for every connection and process; faster, in this connection's memory: another
 * connection counts it again, in under 1 ms, and the first count is spared a write transaction and
 * the write lock. The gain is small: the largest investor's 4,449 funding events at 1,000,000
 * companies take ~0.1 ms to count, and writing the total added ~0.03 ms to a 0.19-0.27 ms first
 * count.
 */
export async function cachedTotal(ctx: ExecContext, plan: QueryPlan, queryId: string, lookedUp?: VersionAndTotal): Promise<number> {
  // A match-all total is the table's row count, remembered in memory per data version: a cache row
  // would cost a write (most of a first count at 1,000,000 companies: 0.73 ms against 0.22 ms).
  if (plan.where === undefined) return datasetRows(ctx, plan.dataset)
  // Already read with the data version (`versionAndKnownTotal`) when it is the context's.
  const cached = lookedUp !== undefined && lookedUp.dataVersion === ctx.dataVersion ? lookedUp.total ?? rememberedTotal(ctx, queryId) : await knownTotal(ctx, queryId)
  if (cached !== undefined) {
    if (ctx.tally) ctx.tally.totalHits++
    return cached
  }
  if (ctx.tally) ctx.tally.totalMisses++
  const started = performance.now()
  const total = await countRows(ctx, plan)
  if (ctx.readonly || performance.now() - started < (ctx.persistTotalsFromMs ?? 0)) {
    // A read-only database cannot hold it; a cheap total is not worth a write.
    rememberTotal(ctx, queryId, total)
    return total
  }
  // Best effort: a total not remembered is counted again next time (cache-write.ts).
  const insert = boundQuery(ctx.dialect, TOTAL_INSERT, { queryId, dataVersion: ctx.dataVersion, total })
  const written = await writeCache(ctx, [{ compile: () => insert }])
  if (written) await noteCacheWrites(ctx, 'query_totals', 1)
  return total
}

/**
 * What a page read without its total steers by (`run.ts`, `prefersSortWalk`), when no total is
 * cached: the matches, counted only up to the fewest that make walking the sort index the better
 * plan (walk reads `limit * rows / matches` ≤ `walkFactor * matches`, so `sqrt(limit * rows /
 * walkFactor)`). Below that bound the answer is the number of matches; at it, a lower bound that
 * is enough to choose the walk. It only steers, it is never a total.
 *
 * Where the plan can tell (`walkProbeQuery`) and the walk factor is below 1, the walk itself is tried first: `limit` matches
 * within the first `walkFactor * bound` rows of the sort order mean at least `bound` matches at
 * that density, and cost what the walk costs (78 rows for US companies with 5+ employees at
 * 100,000 companies), where the count reads up to `bound` index entries (7,072 there: a few
 * times the page). Either answer is remembered per data version and query id, so the next page of
 * the query steers without a probe while the bound it needs is no larger
 * (`npx tsx bench/facets.ts`, the `total=none` rows).
 *
 * `walk`, when given, runs that walk instead of `walkProbeQuery` and returns the matches it found
 * (up to `limit`): a first page reads its own keys that way (`QueryPlan.walkKeysQuery`), so the
 * walk that steers is also the page's keys query. The probes are compiled once per plan
 * (`withNumbers`).
 */
export async function probedMatches(ctx: ExecContext, plan: QueryPlan, queryId: string, limit: number, walk?: (reads: number) => Promise<number>): Promise<number> {
  const rows = await datasetRows(ctx, plan.dataset)
  const bound = Math.max(1, Math.ceil(Math.sqrt((limit * rows) / plan.walkFactor)))
  const probes = rememberedProbes(ctx.db)
  const key = totalKey(ctx, queryId)
  const known = probes.get(key)
  // All the matches (counted below the bound of their probe), or at least as many as this bound.
  if (known !== undefined && (known.counted < known.bound || known.counted >= bound)) return known.counted
  const remember = (counted: number) => {
    if (probes.size >= MAX_REMEMBERED_TOTALS) probes.delete(probes.keys().next().value!)
    probes.set(key, { counted, bound })
    return counted
  }
  const reads = Math.ceil(plan.walkFactor * bound)
  // Only where the walk reads fewer rows than the count would (a filter a composite index covers,
  // `COVERED_WALK_FACTOR`): elsewhere a walk that misses costs up to `walkFactor` times the count.
  const { walkProbeQuery, probeQuery } = plan
  if (walkProbeQuery && reads >= limit && reads <= bound && reads < rows) {
    try {
      const found = walk
        ? await walk(reads)
        : await countOf(ctx, withNumbers(ctx.db, plan, 'walk probe', (r, h) => walkProbeQuery(ctx.db, r!, h!), [reads, limit]))
      if (found >= limit) return remember(bound)
    } catch (error) {
      // The walk names its sort index, which a bulk load drops until it ends (store/indexes.ts,
      // `deferIndexes`): then the plain probe below counts, as the keys query falls back (run.ts).
      if (!isMissingIndex(error)) throw error
    }
  }
  return remember(await countOf(ctx, withNumbers(ctx.db, plan, 'probe', (b) => probeQuery(ctx.db, b!), [bound])))
}
