/**
 * @module Bounds on the caches of totals and checkpoints. Every distinct listing request
 * (GET /companies, GET /fundings with any parameters) caches its total and the sort keys it
 * learns (page ends, checkpoints), so without a bound the caches grow with the number of distinct
 * requests ever made. After every `TRIM_EVERY` writes to a cache table, its oldest rows beyond its
 * limit are deleted (oldest by insertion: rowid order on SQLite, the `insert_seq` identity column
 * on PostgreSQL, migrations 008 and 009). An evicted total or checkpoint is simply computed again.
 * A trim is a cache write like the others: skipped when SQLite's write lock is held elsewhere
 * (`cache-write.ts`), and tried again at the next multiple of TRIM_EVERY.
 */
import { sql } from 'kysely'
import { CACHE_ORDER_COLUMN } from '../store/schema/stored-query-tables.js'
import { writeCache } from './cache-write.js'
import type { ExecContext } from './context.js'

export const CACHE_LIMITS = Object.freeze({
  /** Cached totals kept: one per query per data version. */
  query_totals: 100_000,
  /**
   * Remembered sort keys kept: the end of each page served, and the checkpoints of each result
   * jumped into (at most `PagingPolicy.maxCheckpoints` per query and data version).
   */
  query_checkpoints: 1_000_000,
})
export type CacheTable = keyof typeof CACHE_LIMITS

const TRIM_EVERY = 1000
const writes = new WeakMap<object, Map<CacheTable, number>>()

/** Records `rows` writes to `table` and trims it when a multiple of TRIM_EVERY is crossed. */
export async function noteCacheWrites(ctx: ExecContext, table: CacheTable, rows: number, limits: Readonly<Record<CacheTable, number>> = CACHE_LIMITS): Promise<void> {
  let counts = writes.get(ctx.db)
  if (!counts) writes.set(ctx.db, (counts = new Map()))
  const before = counts.get(table) ?? 0
  const after = before + rows
  counts.set(table, after)
  if (Math.floor(before / TRIM_EVERY) === Math.floor(after / TRIM_EVERY)) return
  await trimCache(ctx, table, limits[table])
}

/**
 * Deletes the oldest rows of `table` beyond the newest `keep` (by insertion order; ids lost to
 * deleted rows or rolled-back inserts make it keep fewer, never more). False when skipped.
 */
export async function trimCache(ctx: ExecContext, table: CacheTable, keep: number): Promise<boolean> {
  const order = ctx.dialect.name === 'sqlite' ? sql.raw('rowid') : sql.ref(CACHE_ORDER_COLUMN)
  const trim = sql`delete from ${sql.table(table)} where ${order} <= (select max(${order}) from ${sql.table(table)}) - ${keep}`
  return writeCache(ctx, [{ compile: () => trim.compile(ctx.db) }])
}
