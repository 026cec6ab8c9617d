/**
 * @module Paging a stored query by page number without a deep OFFSET (design section 4).
 *
 * The boundary of page P is the sort key (sort values + primary key) of its last row, remembered
 * in `query_page_boundaries` per (query, per_page, data version, P). Page N is then a keyset seek
 * after the boundary of page N-1. When that boundary is not known yet (a client jumps ahead), we
 * walk forward from the nearest remembered boundary before it (or from the start), reading only
 * sort keys in chunks of whole pages and remembering every boundary on the way, so the next jump
 * near there is a seek. A new data version starts with no boundaries: rows may have moved.
 */
import type { Boundary } from '../compile/page.js'
import type { QueryPlan } from '../compile/plan.js'
import { noteCacheWrites } from './cache-trim.js'
import type { ExecContext } from './context.js'
import { fetchKeys, fetchPage, type FetchedPage } from './run.js'

/** Rows of sort keys read per query while walking to an unremembered page. */
const WALK_CHUNK_ROWS = 5_000

export interface PageRequest {
  readonly queryId: string
  readonly page: number
  readonly perPage: number
  /** The query's total when known: steers the keys queries' plans (see `run.ts`, `compile/steer.ts`). */
  readonly matches?: number
}

interface Remembered {
  readonly page: number
  readonly boundary: Boundary
}

async function nearestBoundary(ctx: ExecContext, req: PageRequest, before: number): Promise<Remembered | undefined> {
  const row = await ctx.db
    .selectFrom('query_page_boundaries')
    .select(['page', 'after_key'])
    .where('query_id', '=', req.queryId)
    .where('per_page', '=', req.perPage)
    .where('data_version', '=', ctx.dataVersion)
    .where('page', '<=', before)
    .orderBy('page', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? { page: Number(row.page), boundary: JSON.parse(String(row.after_key)) as Boundary } : undefined
}

async function remember(ctx: ExecContext, req: PageRequest, boundaries: readonly Remembered[]): Promise<void> {
  if (boundaries.length === 0 || ctx.readonly) return
  // Chunked so a long walk stays under any bind-variable ceiling (5 values per row).
  for (let i = 0; i < boundaries.length; i += 500) {
    await ctx.db
      .insertInto('query_page_boundaries')
      .values(boundaries.slice(i, i + 500).map((b) => ({
        query_id: req.queryId,
        per_page: req.perPage,
        data_version: ctx.dataVersion,
        page: b.page,
        after_key: JSON.stringify(b.boundary),
      })))
      .onConflict((oc) => oc.columns(['query_id', 'per_page', 'data_version', 'page']).doNothing())
      .execute()
  }
  await noteCacheWrites(ctx, 'query_page_boundaries', boundaries.length)
}

/**
 * The boundary after which page `page` starts: undefined for page 1, `'end'` when fewer than
 * `page - 1` full pages exist.
 */
async function boundaryBefore(ctx: ExecContext, plan: QueryPlan, req: PageRequest): Promise<Boundary | undefined | 'end'> {
  const target = req.page - 1
  if (target === 0) return undefined
  const start = await nearestBoundary(ctx, req, target)
  if (start?.page === target) return start.boundary
  let page = start?.page ?? 0
  let after = start?.boundary
  const pagesPerChunk = Math.max(1, Math.floor(WALK_CHUNK_ROWS / req.perPage))
  while (page < target) {
    const pages = Math.min(pagesPerChunk, target - page)
    const keys = await fetchKeys(ctx, plan, { after, limit: pages * req.perPage, matches: req.matches })
    const found: Remembered[] = []
    for (let i = req.perPage - 1; i < keys.length; i += req.perPage) found.push({ page: page + (i + 1) / req.perPage, boundary: keys[i]!.boundary })
    await remember(ctx, req, found)
    const last = found.at(-1)
    if (!last) return 'end'
    page = last.page
    after = last.boundary
    if (keys.length < pages * req.perPage) break
  }
  return page === target ? after : 'end'
}

/** Page `req.page` of a stored query, remembering its boundary when it is full. */
export async function pageByCursor(ctx: ExecContext, plan: QueryPlan, req: PageRequest): Promise<FetchedPage> {
  const after = await boundaryBefore(ctx, plan, req)
  if (after === 'end') return Object.freeze({ records: Object.freeze([]), keys: Object.freeze([]) })
  const fetched = await fetchPage(ctx, plan, { after, limit: req.perPage, matches: req.matches })
  const last = fetched.keys.at(-1)
  if (last && fetched.keys.length === req.perPage) await remember(ctx, req, [{ page: req.page, boundary: last.boundary }])
  return fetched
}
