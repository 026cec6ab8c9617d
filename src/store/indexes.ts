/**
 * @module Secondary indexes during bulk loads. Loading into indexed tables is several times slower
 * than indexing afterwards (design 8: indexes for 1M companies build in ~15 s), so a bulk load
 * drops them first and recreates them at the end. The dropped definitions are written to `meta`
 * before dropping, so a load that dies half-way leaves a note the next open acts on. The note names
 * the loading process: while that process is alive (a `generate` running next to a `query`), an
 * open leaves the indexes to it rather than rebuilding them under its feet.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { META_TABLE } from './schema/stored-query-tables.js'

const DEFERRED_KEY = 'deferred_indexes'

/** Drops every explicitly created index (not primary keys) and remembers its SQL. */
export function deferIndexes(sqlite: BetterSqlite3.Database): number {
  const rows = sqlite.prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name not like 'kysely_%'`).all() as { name: string; sql: string }[]
  if (rows.length === 0) return 0
  const already = readDeferred(sqlite).statements
  const note: DeferredNote = { pid: process.pid, statements: [...already, ...rows.map((r) => r.sql)] }
  sqlite.transaction(() => {
    sqlite.prepare(`insert into ${META_TABLE} (key, value) values (?, ?) on conflict (key) do update set value = excluded.value`)
      .run(DEFERRED_KEY, JSON.stringify(note))
    for (const r of rows) sqlite.exec(`drop index "${r.name.replace(/"/g, '""')}"`)
  })()
  return rows.length
}

/**
 * Recreates the indexes a bulk load dropped; returns how many. Unless `force` (the loader itself
 * finishing), a note left by another process that is still running is left alone.
 */
export function restoreDeferredIndexes(sqlite: BetterSqlite3.Database, options: { force?: boolean } = {}): number {
  const { pid, statements } = readDeferred(sqlite)
  if (statements.length === 0) return 0
  if (!options.force && pid !== undefined && pid !== process.pid && isAlive(pid)) return 0
  for (const statement of statements) sqlite.exec(statement.replace(/^create index (?!if not exists)/i, 'create index if not exists '))
  sqlite.prepare(`delete from ${META_TABLE} where key = ?`).run(DEFERRED_KEY)
  return statements.length
}

interface DeferredNote {
  /** The process that dropped the indexes (absent in notes written before it was recorded). */
  readonly pid?: number
  readonly statements: readonly string[]
}

function readDeferred(sqlite: BetterSqlite3.Database): DeferredNote {
  const exists = sqlite.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(META_TABLE)
  if (!exists) return { statements: [] }
  const value = sqlite.prepare(`select value from ${META_TABLE} where key = ?`).pluck().get(DEFERRED_KEY) as string | undefined
  if (!value) return { statements: [] }
  const parsed = JSON.parse(value) as DeferredNote | string[]
  return Array.isArray(parsed) ? { statements: parsed } : parsed
}

/** Whether a process with this id runs on this machine (signal 0 only checks). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
