/**
 * @module Paging a stored query by page number at a bounded cost per request (design section 4;
 * grammar-docs/language.md, "Paging"). Never a deep OFFSET, and never a walk whose length grows
 * with the page number.
 *
 * What is remembered: sort keys by position in the result, per query and data version
 * (`query_checkpoints`, migration 009). Position N holds the sort key (sort values, then the
 * primary key) of the result's N-th row, so the rows after it start at row N + 1, whatever the page
 * size. Rows get there two ways:
 * - the start and end of each page served: the next page of a client walking the pages, or the
 *   same page again, is a plain keyset seek;
 * - checkpoints: one pass over the result's sort keys (`QueryPlan.checkpointQuery`, the database
 *   numbering the rows in sort order) remembers the key of every `spacing`-th row, at most
 *   `maxCheckpoints` of them. It runs when a page starts more than the skip limit past the nearest
 *   remembered position, so at most once per query and data version (unless trimming evicts them):
 *   after it, every position of the result is less than `spacing` rows past a checkpoint.
 *
 * A page starting after row s is then a seek after the nearest remembered position p <= s (or the
 * start) that reads s - p + per_page sort keys (s - p is at most the skip limit, and less than
 * `spacing` once the pass has run) and the page's rows. So one request reads at most
 * max(maxSkip, spacing) + per_page sort keys, plus, once per query and data version, the pass
 * (which sends only its checkpoints to the engine); it writes at most two rows, plus the pass's
 * checkpoints once. Cache writes are best effort (`cache-write.ts`): never waited for. A new data
 * version starts with nothing remembered: rows may have moved.
 */
import type { FieldSelection } from '../check/fields.js'
import type { Boundary } from '../compile/page.js'
import type { QueryPlan } from '../compile/plan.js'
import { noteCacheWrites } from './cache-trim.js'
import { writeCache } from './cache-write.js'
import type { ExecContext } from './context.js'
import { fetchKeysAndRecords, loadRecords, type FetchedPage, type KeyRow } from './run.js'
import { queryShape } from '../records/query-shape.js'
import { boundQuery, readRows } from './statements.js'

export interface PagingPolicy {
  /** Rows between two checkpoints of a result's pass (more when it exceeds maxCheckpoints of them). */
  readonly checkpointEvery: number
  /** Most checkpoints the pass writes for one result: the spacing grows for larger results. */
  readonly maxCheckpoints: number
  /**
   * Most rows a page skips from the nearest remembered position; a page farther away runs the
   * pass first. Raised to the spacing when that is larger, so a page is never farther than that
   * from a checkpoint once the pass has run.
   */
  readonly maxSkip: number
  /**
   * Milliseconds of counting from which a total is written to `query_totals`; a total counted
   * faster is kept in this process's memory instead (per connection and data version, at most
   * 10,000): another connection counts it again, in under that time, and the first count is spared
   * a write transaction (~0.03 ms on SQLite, a round trip on
   * PostgreSQL). 0 writes every total.
   */
  readonly persistTotalsFromMs: number
}

/**
 * 64 rows between checkpoints: a page jumped to after the pass reads at most 63 sort keys besides
 * its own. Each key of a skip costs a row lookup when the filter's columns are not in the sort
 * index (on 1,000,000 companies a skip of 250 rows added 0.3-0.6 ms of SQL to a 50-row page, a
 * skip of 1,000 1.6-2 ms: the suite's cold deep pages, `npm run bench -- --size 1000000`, sorted by
 * added_date among them). 16,384 checkpoints cover results up to ~1M rows at that spacing (one pass
 * writes at most 16,384 rows, once per query and data version). A page up to 4,096 rows past
 * anything remembered is a skip (several ms at worst there) rather than the pass (0.9 s for 638,009
 * hits): paging near the start or near a page served before never runs it.
 */
export const DEFAULT_PAGING: PagingPolicy = Object.freeze({ checkpointEvery: 64, maxCheckpoints: 16_384, maxSkip: 4096, persistTotalsFromMs: 1 })

export interface PageRequest {
  readonly queryId: string
  readonly page: number
  readonly perPage: number
  /**
   * The query's total when known: steers the keys queries' plans (see `run.ts`, `compile/steer.ts`)
   * and sets the checkpoint spacing. A page answered without its total may give a lower bound
   * instead (`counts.ts`, `probedMatches`): enough to steer, and a spacing no wider than the total's.
   */
  readonly matches?: number
  /** The fields to read and return (`check/fields.ts`); every field when absent. */
  readonly selection?: FieldSelection | undefined
  /**
   * Page 1's keys, `perPage` of them, when they were read already (by the walk that probed the
   * matches of a page without its total: `counts.ts`, `probedMatches`): only their records are read.
   */
  readonly firstKeys?: readonly KeyRow[] | undefined
}

/** A remembered sort key: rows after `boundary` start at row `position + 1`. */
interface Position {
  readonly position: number
  readonly boundary: Boundary | undefined
}

const ORIGIN: Position = Object.freeze({ position: 0, boundary: undefined })
const EMPTY: FetchedPage = Object.freeze({ records: Object.freeze([]), keys: Object.freeze([]) })

/** Rows between checkpoints for a result of `matches` rows. */
export function checkpointSpacing(matches: number | undefined, policy: PagingPolicy = DEFAULT_PAGING): number {
  const every = Math.max(1, Math.floor(policy.checkpointEvery))
  if (matches === undefined) return every
  return Math.max(every, Math.ceil(matches / Math.max(1, Math.floor(policy.maxCheckpoints))))
}

/** The nearest position remembered at or before a page's start (every later page runs it). */
const NEAREST = queryShape<{ queryId: string; dataVersion: number; atOrBefore: number }, { position: number; after_key: string }>('nearest position', (db, _d, p) =>
  db.selectFrom('query_checkpoints')
    .select(['position', 'after_key'])
    .where('query_id', '=', p.queryId)
    .where('data_version', '=', p.dataVersion)
    .where('position', '<=', p.atOrBefore)
    .orderBy('position', 'desc')
    .limit(1))

async function nearestPosition(ctx: ExecContext, queryId: string, atOrBefore: number): Promise<Position | undefined> {
  const { columns, rows } = await readRows(ctx, boundQuery(ctx.dialect, NEAREST, { queryId, dataVersion: ctx.dataVersion, atOrBefore }))
  const row = rows[0]
  if (!row) return undefined
  return { position: Number(row[columns.indexOf('position')]), boundary: JSON.parse(String(row[columns.indexOf('after_key')])) as Boundary }
}

/**
 * Positions this process wrote (or found already stored), per connection, most recent last:
 * serving the same page again learns the same page end, and writing it again is a write
 * transaction that changes nothing. Skipping it took a repeated 50-company page on 1,000,000
 * companies from 1.44 ms to ~0.9 ms (the suite's repeated-page row, `npm run bench -- --size 1000000`). Bounded; forgetting one only costs
 * a write that does nothing. A page end trimmed from the table while still listed here is not
 * written again until it drops out: the page then skips from an earlier position, which is
 * bounded by `maxSkip` all the same. The pass's checkpoints are always written: the pass runs only
 * when the table lacks them, so whatever this memo says of them is out of date (a trim, by this
 * connection or another process), and skipping the write would make every later deep page of the
 * query run the pass again.
 */
const REMEMBERED_PER_CONNECTION = 50_000
const rememberedPositions = new WeakMap<object, Set<string>>()

function rememberedSet(ctx: ExecContext): Set<string> {
  let set = rememberedPositions.get(ctx.db)
  if (!set) rememberedPositions.set(ctx.db, (set = new Set()))
  return set
}

const positionKey = (ctx: ExecContext, queryId: string, position: number) => `${ctx.dataVersion}\u0000${queryId}\u0000${position}`

/** Remembers sort keys by position, best effort (skipped, not waited for, when SQLite's write lock is held elsewhere). */
async function remember(ctx: ExecContext, queryId: string, positions: readonly Position[], memo: 'trust memo' | 'write all' = 'trust memo'): Promise<void> {
  if (ctx.readonly) return
  const seen = rememberedSet(ctx)
  const known = positions.filter((p) => p.boundary !== undefined && p.position > 0 && (memo === 'write all' || !seen.has(positionKey(ctx, queryId, p.position))))
  if (known.length === 0) return
  // Chunked under any bind-variable ceiling (4 values per row); one transaction on SQLite.
  const statements = []
  for (let i = 0; i < known.length; i += 500) {
    statements.push(ctx.db
      .insertInto('query_checkpoints')
      .values(known.slice(i, i + 500).map((p) => ({
        query_id: queryId,
        data_version: ctx.dataVersion,
        position: p.position,
        after_key: JSON.stringify(p.boundary),
      })))
      .onConflict((oc) => oc.columns(['query_id', 'data_version', 'position']).doNothing()))
  }
  if (!(await writeCache(ctx, statements))) return
  for (const p of known) {
    const key = positionKey(ctx, queryId, p.position)
    seen.delete(key)
    seen.add(key)
    if (seen.size > REMEMBERED_PER_CONNECTION) seen.delete(seen.values().next().value as string)
  }
  await noteCacheWrites(ctx, 'query_checkpoints', known.length)
}

/**
 * The pass: the sort key of every `spacing`-th row of the whole result, in one statement that
 * returns only those rows. Remembered for later requests, and returned for this one (which uses
 * them even when the write was skipped).
 */
async function checkpointPass(ctx: ExecContext, plan: QueryPlan, queryId: string, spacing: number): Promise<Position[]> {
  const rows = await plan.checkpointQuery(ctx.db, spacing).execute()
  const checkpoints = rows.map((row) => ({
    position: Number(row.position),
    boundary: plan.keys.map((k) => (row[k.alias] ?? null) as Boundary[number]),
  }))
  await remember(ctx, queryId, checkpoints, 'write all')
  return checkpoints
}

/** The last of `positions` (ascending) at or before `start`. */
function lastAtOrBefore(positions: readonly Position[], start: number): Position | undefined {
  let lo = 0
  let hi = positions.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (positions[mid]!.position <= start) lo = mid + 1
    else hi = mid
  }
  return lo > 0 ? positions[lo - 1] : undefined
}

/** Page `req.page` of a stored query: a seek from the nearest remembered position plus a bounded skip. */
export async function pageByCursor(ctx: ExecContext, plan: QueryPlan, req: PageRequest, policy: PagingPolicy = DEFAULT_PAGING): Promise<FetchedPage> {
  const start = (req.page - 1) * req.perPage
  const spacing = checkpointSpacing(req.matches, policy)
  const skipLimit = Math.max(Math.floor(policy.maxSkip), spacing)
  let from = start === 0 ? ORIGIN : ((await nearestPosition(ctx, req.queryId, start)) ?? ORIGIN)
  // A later page is a cache hit when it starts exactly at a remembered boundary (a plain seek).
  if (start > 0 && ctx.tally) {
    if (from.position === start) ctx.tally.boundaryHits++
    else ctx.tally.boundaryMisses++
  }
  if (start - from.position > skipLimit) {
    const checkpoint = lastAtOrBefore(await checkpointPass(ctx, plan, req.queryId, spacing), start)
    if (checkpoint && checkpoint.position > from.position) from = checkpoint
    // The pass saw the whole result, whose last row is less than `spacing` past its last checkpoint.
    if (start - from.position > skipLimit) return EMPTY
  }
  const skip = start - from.position
  const { firstKeys } = req
  // With a skip, the row before the page comes too: its key is where the page starts, remembered
  // so that asking for this page again is a plain seek.
  const read: FetchedPage = start === 0 && firstKeys !== undefined && firstKeys.length === req.perPage
    ? { keys: firstKeys, records: await loadRecords(ctx, plan, firstKeys.map((k) => k.id), req.selection) }
    : await fetchKeysAndRecords(ctx, plan, {
      after: from.boundary,
      limit: req.perPage + (skip > 0 ? 1 : 0),
      offset: Math.max(0, skip - 1),
      matches: req.matches,
    }, req.selection, skip > 0 ? 1 : 0)
  const keys: readonly KeyRow[] = read.keys
  const learned: Position[] = []
  if (skip > 0 && keys.length > 0) learned.push({ position: start, boundary: keys[0]!.boundary })
  const pageKeys = skip > 0 ? keys.slice(1) : keys
  if (pageKeys.length === req.perPage) learned.push({ position: start + req.perPage, boundary: pageKeys.at(-1)!.boundary })
  await remember(ctx, req.queryId, learned)
  return Object.freeze({ records: read.records, keys: Object.freeze(pageKeys) })
}
