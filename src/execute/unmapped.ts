/**
 * @module Reads that pass over a whole result once (an export's batches) on SQLite, made without
 * the data file's memory map. A page read through the map stays resident in the process as
 * file-backed memory until the map is dropped, so a full export grows the RSS by every page it
 * reads (850 MB and more for all 1,000,000 companies, up to `mmap_size`). Read through SQLite's
 * page cache instead (`cache_size`, a few MB), the pages stay in the kernel's page cache, outside
 * the process (`npx tsx bench/fields-export.ts --rss-only` measures both). The setting is the
 * connection's: whatever else runs on it between an export's batches (other calls on a shared
 * connection, such as the inline engine's, or a worker's background reads) runs unmapped too.
 * Other connections (the pool's other workers) keep their map.
 */
import type BetterSqlite3 from 'better-sqlite3'

type Handle = Pick<BetterSqlite3.Database, 'pragma'>

/** Per connection: how many unmapped reads are under way, and the `mmap_size` to restore after the last. */
const active = new WeakMap<Handle, { depth: number; mmapSize: number }>()

/**
 * Runs `work` with the connection's `mmap_size` at 0 (SQLite drops the map at once when no
 * statement holds a page of it), and restores it when the last unmapped read on the connection
 * ends. Without a SQLite handle (PostgreSQL) or with no map configured, just runs `work`.
 */
export async function unmapped<T>(sqlite: Handle | undefined, work: () => Promise<T>): Promise<T> {
  if (!sqlite) return work()
  let state = active.get(sqlite)
  if (!state) {
    const mmapSize = Number(sqlite.pragma('mmap_size', { simple: true }))
    if (!(mmapSize > 0)) return work()
    active.set(sqlite, (state = { depth: 0, mmapSize }))
    sqlite.pragma('mmap_size = 0')
  }
  state.depth++
  try {
    return await work()
  } finally {
    if (--state.depth === 0) {
      active.delete(sqlite)
      sqlite.pragma(`mmap_size = ${Math.floor(state.mmapSize)}`)
    }
  }
}
