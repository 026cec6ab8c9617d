/**
 * @module Bounds on the caches of totals and page boundaries. Every distinct listing request
 * (GET /companies, GET /fundings with any parameters) caches its total and the boundaries of the
 * pages walked, so without a bound the caches grow with the number of distinct requests ever made.
 * After every `TRIM_EVERY` writes to a cache table, its oldest rows beyond `MAX_ROWS` are deleted
 * (oldest by insertion: rowid order). An evicted total or boundary is simply computed again.
 */
import { sql } from 'kysely'
import type { ExecContext } from './context.js'

export const CACHE_LIMITS = Object.freeze({
  /** Cached totals kept: one per query per data version. */
  query_totals: 100_000,
  /** Remembered page boundaries kept: one per page walked of each query and page size. */
  query_page_boundaries: 1_000_000,
})
export type CacheTable = keyof typeof CACHE_LIMITS

const TRIM_EVERY = 1000
const writes = new WeakMap<object, Map<CacheTable, number>>()

/** Records `rows` writes to `table` and trims it when a multiple of TRIM_EVERY is crossed. */
export async function noteCacheWrites(ctx: ExecContext, table: CacheTable, rows: number, limits: Readonly<Record<CacheTable, number>> = CACHE_LIMITS): Promise<void> {
  // rowid order is SQLite's; PostgreSQL would need an insertion-order column: not trimmed there
  // yet (README, "PostgreSQL"), so its caches grow until the next data version.
  if (ctx.dialect.name !== 'sqlite') return
  let counts = writes.get(ctx.db)
  if (!counts) writes.set(ctx.db, (counts = new Map()))
  const before = counts.get(table) ?? 0
  const after = before + rows
  counts.set(table, after)
  if (Math.floor(before / TRIM_EVERY) === Math.floor(after / TRIM_EVERY)) return
  await trimCache(ctx, table, limits[table])
}

/** Deletes the oldest rows of `table` beyond the newest `keep`. */
export async function trimCache(ctx: ExecContext, table: CacheTable, keep: number): Promise<void> {
  await sql`delete from ${sql.table(table)} where rowid <= (select max(rowid) from ${sql.table(table)}) - ${keep}`.execute(ctx.db)
}
