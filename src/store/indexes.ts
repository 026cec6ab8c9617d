/**
 * @module Secondary indexes during bulk loads. Loading into indexed tables is several times slower
 * than indexing afterwards (design 8: indexes for 1M companies build in ~15 s), so a bulk load
 * drops them first and recreates them at the end. The dropped definitions are written to `meta`
 * before dropping, so a load that dies half-way leaves a note the next open acts on.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { META_TABLE } from './schema/stored-query-tables.js'

const DEFERRED_KEY = 'deferred_indexes'

/** Drops every explicitly created index (not primary keys) and remembers its SQL. */
export function deferIndexes(sqlite: BetterSqlite3.Database): number {
  const rows = sqlite.prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name not like 'kysely_%'`).all() as { name: string; sql: string }[]
  if (rows.length === 0) return 0
  const already = readDeferred(sqlite)
  sqlite.transaction(() => {
    sqlite.prepare(`insert into ${META_TABLE} (key, value) values (?, ?) on conflict (key) do update set value = excluded.value`)
      .run(DEFERRED_KEY, JSON.stringify([...already, ...rows.map((r) => r.sql)]))
    for (const r of rows) sqlite.exec(`drop index "${r.name.replace(/"/g, '""')}"`)
  })()
  return rows.length
}

/** Recreates the indexes a bulk load dropped; returns how many. */
export function restoreDeferredIndexes(sqlite: BetterSqlite3.Database): number {
  const statements = readDeferred(sqlite)
  if (statements.length === 0) return 0
  for (const statement of statements) sqlite.exec(statement.replace(/^create index (?!if not exists)/i, 'create index if not exists '))
  sqlite.prepare(`delete from ${META_TABLE} where key = ?`).run(DEFERRED_KEY)
  return statements.length
}

function readDeferred(sqlite: BetterSqlite3.Database): string[] {
  const exists = sqlite.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(META_TABLE)
  if (!exists) return []
  const value = sqlite.prepare(`select value from ${META_TABLE} where key = ?`).pluck().get(DEFERRED_KEY) as string | undefined
  return value ? (JSON.parse(value) as string[]) : []
}
