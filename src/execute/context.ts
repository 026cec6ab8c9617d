/**
 * @module What every execute function needs: the Kysely instance to run on, the compiler's
 * dialect hooks for it, and the data version the caches (totals, checkpoints) are keyed by.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type { SqlDialect } from '../compile/dialect.js'

export interface ExecContext {
  readonly db: Kysely<any>
  readonly dialect: SqlDialect
  /** The database's current data version (bumped by every ingest); read once per request. */
  readonly dataVersion: number
  /**
   * True on a database opened read-only: caches (totals, checkpoints) are read but never
   * written, so an engine on a read-only file still answers, just without remembering work.
   */
  readonly readonly?: boolean
  /**
   * The better-sqlite3 handle under `db`, on SQLite: cache writes use it to take the write lock
   * without waiting or skip (`cache-write.ts`). Optional; without it they wait like any write.
   */
  readonly sqlite?: Pick<BetterSqlite3.Database, 'pragma' | 'prepare' | 'transaction' | 'inTransaction'>
  /**
   * Counts this call's cache use where the caches are read (counts.ts, cursor.ts), when given: the
   * pipeline reports it with the envelope and the engine adds it to `engine.stats()`.
   */
  readonly tally?: CacheTally
  /** Totals counted faster than this are remembered in memory, not written (`PagingPolicy.persistTotalsFromMs`); default 0. */
  readonly persistTotalsFromMs?: number
}

/** Cache use of one call: totals found cached or counted, later pages started at a remembered boundary or not. */
export interface CacheTally {
  totalHits: number
  totalMisses: number
  boundaryHits: number
  boundaryMisses: number
}

export const newCacheTally = (): CacheTally => ({ totalHits: 0, totalMisses: 0, boundaryHits: 0, boundaryMisses: 0 })
