/**
 * The engine's operations plus a few whose cost a test controls exactly, for the pool's own tests
 * (`PoolOptions.operationsModule`): a SQLite statement that counts for as long as asked, JavaScript
 * that spins without returning to SQLite, and a worker that dies.
 */
import type { Limits } from '../../src/check/limits.js'
import { createOperations as engineOperations } from '../../src/execute/operations.js'
import { facetColumnState } from '../../src/execute/facet-columns.js'
import { dataVersionSync, type SqliteVentureDb } from '../../src/store/open.js'

/** Where `hold`'s release flags start in its shared log (cell 0 counts starts, cells 1.. list them). */
export const HELD_RELEASE_BASE = 512

const COUNT_TO = 'with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) from c'

export function createOperations(vdb: SqliteVentureDb, limits: Limits) {
  const counter = vdb.sqlite.prepare(COUNT_TO).pluck()
  const columnReads = () => facetColumnState(vdb.db, dataVersionSync(vdb.sqlite)).reads
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
    /**
     * Blocks its worker until the test releases it (`HeldCalls` in test/execute/pool-fairness.test.ts):
     * writes `id` to the shared start log, then waits on its own release flag. The order calls
     * start in is read from the log, never from timings.
     */
    hold: (log: SharedArrayBuffer, id: number) => {
      const cells = new Int32Array(log)
      const at = Atomics.add(cells, 0, 1)
      Atomics.store(cells, 1 + at, id)
      Atomics.notify(cells, 0)
      Atomics.wait(cells, HELD_RELEASE_BASE + id, 0)
      return id
    },
    /** The worker connection's `mmap_size` (the memory budget's share, store/memory-budget.ts). */
    mmapSize: () => Number(vdb.sqlite.pragma('mmap_size', { simple: true })),
    /** The facet column statements this worker's connection ran, and the fields it holds now. */
    columnState: () => facetColumnState(vdb.db, dataVersionSync(vdb.sqlite)),
    /**
     * A call that leaves the event loop for `ms` (a timer), then counts to `n` (0: not at all): the
     * column statements that ran on the connection while it waited.
     */
    waitThenCount: async (ms: number, n: number) => {
      const before = columnReads()
      await new Promise((resolve) => setTimeout(resolve, ms))
      const during = columnReads() - before
      if (n > 0) counter.get(n)
      return during
    },
    /** Ends the worker thread from inside a call. */
    crash: () => process.exit(3),
  }
}

export type TestOperations = ReturnType<typeof createOperations>
