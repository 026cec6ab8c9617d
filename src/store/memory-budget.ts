/**
 * @module The memory a SQLite-backed engine may hold, and how it is shared out.
 *
 * What grows with the data is the mapped data file: each connection maps up to its `mmap_size` of
 * the file, and a process's resident set counts the pages every mapping touched, once per
 * connection (a worker pool at 1,000,000 companies showed 2.7-3.0 GB of RSS under load with 1 GiB
 * mapped per connection, of which 300-390 MB was anonymous memory). A budget caps the sum: half of
 * it is shared out as the connections' `mmap_size`, and the other half is left for what does not
 * scale with the file (the JavaScript heaps of the main thread and the workers, SQLite's page
 * caches, the statement and result caches). Reads beyond a connection's mapping go through SQLite's
 * page cache and the operating system's file cache instead, which is slower for scans of a file
 * larger than the mapping: `npx tsx bench/serve-memory.ts` measures both the memory and the
 * throughput of a budget against a larger one.
 */

/** 1 GiB: what `ventureql serve` and an engine over a SQLite file hold by default. */
export const DEFAULT_MEMORY_BUDGET_BYTES = 1024 * 1024 * 1024

/** The share of a budget that the connections may map of the data file, together. */
export const MAPPED_SHARE = 0.5

/** The smallest budget accepted: below it the engine's own heaps alone exceed it. */
export const MIN_MEMORY_BUDGET_BYTES = 64 * 1024 * 1024

export interface MemoryPlan {
  /** The budget, in bytes. */
  readonly budgetBytes: number
  /** SQLite connections to the data file the budget is shared by (the caller's, and each worker's). */
  readonly connections: number
  /** Each connection's `mmap_size`, in bytes. */
  readonly mmapBytesPerConnection: number
}

/** Shares `budgetBytes` among `connections` connections to one data file. */
export function planMemory(budgetBytes: number, connections: number): MemoryPlan {
  if (!(Number.isFinite(budgetBytes) && budgetBytes >= MIN_MEMORY_BUDGET_BYTES)) {
    throw new RangeError(`memoryBudget must be a number of bytes, at least ${MIN_MEMORY_BUDGET_BYTES} (64 MiB), got ${String(budgetBytes)}`)
  }
  const n = Math.max(1, Math.floor(connections))
  // Rounded down to whole 4 KiB pages.
  const perConnection = Math.floor((budgetBytes * MAPPED_SHARE) / n / 4096) * 4096
  return Object.freeze({ budgetBytes, connections: n, mmapBytesPerConnection: perConnection })
}
