/**
 * @module Total counts. Counting is the expensive part of a page (design section 8), so a stored
 * query's total is computed once per data version and kept in `query_totals`; an ingest bumps the
 * data version, which retires every cached total at once without a purge.
 */
import type { QueryPlan } from '../compile/plan.js'
import type { ExecContext } from './context.js'

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
  await ctx.db
    .insertInto('query_totals')
    .values({ query_id: queryId, data_version: ctx.dataVersion, total })
    .onConflict((oc) => oc.columns(['query_id', 'data_version']).doNothing())
    .execute()
  return total
}
