/**
 * @module Total counts. Counting is the expensive part of a page (design section 8), so a stored
 * query's total is computed once per data version and kept in `query_totals`; an ingest bumps the
 * data version, which retires every cached total at once without a purge.
 */
import type { Kysely } from 'kysely'
import type { DatasetDef } from '../catalog/define.js'
import type { QueryPlan } from '../compile/plan.js'
import { noteCacheWrites } from './cache-trim.js'
import type { ExecContext } from './context.js'

/** Row counts of dataset tables per database and data version (plan steering's denominator). */
const tableRows = new WeakMap<Kysely<any>, Map<string, number>>()

/**
 * The number of records in a dataset's table, counted once per data version (an ingest is the only
 * thing that changes it). Plan steering divides the query's total by it (`compile/steer.ts`).
 */
export async function datasetRows(ctx: ExecContext, dataset: DatasetDef): Promise<number> {
  let cache = tableRows.get(ctx.db)
  if (!cache) tableRows.set(ctx.db, (cache = new Map()))
  const key = `${ctx.dataVersion}\u0000${dataset.table}`
  const known = cache.get(key)
  if (known !== undefined) return known
  const row = await ctx.db.selectFrom(dataset.table).select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()
  const rows = Number(row.count)
  cache.set(key, rows)
  return rows
}

export async function countRows(ctx: ExecContext, plan: QueryPlan): Promise<number> {
  const row = await plan.countQuery(ctx.db).executeTakeFirstOrThrow()
  // PostgreSQL's count(*) is bigint, which drivers return as a string.
  return Number(row.count)
}

/** The total of a stored query at the context's data version, from the cache or counted and cached. */
export async function cachedTotal(ctx: ExecContext, plan: QueryPlan, queryId: string): Promise<number> {
  const cached = await ctx.db
    .selectFrom('query_totals')
    .select('total')
    .where('query_id', '=', queryId)
    .where('data_version', '=', ctx.dataVersion)
    .executeTakeFirst()
  if (cached) return Number(cached.total)
  const total = await countRows(ctx, plan)
  if (ctx.readonly) return total
  await ctx.db
    .insertInto('query_totals')
    .values({ query_id: queryId, data_version: ctx.dataVersion, total })
    .onConflict((oc) => oc.columns(['query_id', 'data_version']).doNothing())
    .execute()
  await noteCacheWrites(ctx, 'query_totals', 1)
  return total
}
