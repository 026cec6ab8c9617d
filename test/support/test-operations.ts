/**
 * The engine's operations plus a few whose cost a test controls exactly, for the pool's own tests
 * (`PoolOptions.operationsModule`): a SQLite statement that counts for as long as asked, JavaScript
 * that spins without returning to SQLite, and a worker that dies.
 */
import type { Limits } from '../../src/check/limits.js'
import { createOperations as engineOperations } from '../../src/execute/operations.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

const COUNT_TO = 'with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) from c'

export function createOperations(vdb: SqliteVentureDb, limits: Limits) {
  const counter = vdb.sqlite.prepare(COUNT_TO).pluck()
  return {
    ...engineOperations(vdb, limits),
    /** One statement that counts to `n` (about 10-30 million a second here): a slow query. */
    countTo: (n: number) => counter.get(n) as number,
    /** Pure JavaScript for `ms` milliseconds: work a statement interrupt cannot stop. */
    spinJs: (ms: number) => {
      const end = performance.now() + ms
      let x = 0
      while (performance.now() < end) x++
      return x
    },
    /** Ends the worker thread from inside a call. */
    crash: () => process.exit(3),
  }
}

export type TestOperations = ReturnType<typeof createOperations>
