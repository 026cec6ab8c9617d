/** @module Test helpers for the store: a content digest of every table, independent of insertion order. */
import { createHash } from 'node:crypto'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { STATE_SCHEMA } from '../../src/store/state-file.js'

/**
 * Tables holding data, in the data file and in the state file when one is attached (store/state-file.ts).
 * Bookkeeping is excluded: the migrations' (wall-clock times) and the state file's own (`meta`'s
 * copy of the state tables' definitions and the database id, `state_owner`: only a file database has them),
 * and the generator's note of its "today" (`meta.generated_as_of`).
 */
export function dataTables(vdb: SqliteVentureDb): string[] {
  const attached = (vdb.sqlite.prepare('select name from pragma_database_list').pluck().all() as string[]).includes(STATE_SCHEMA)
  const from = attached ? `(select name, type from main.sqlite_master union all select name, type from ${STATE_SCHEMA}.sqlite_master)` : 'sqlite_master'
  return (vdb.sqlite.prepare(`select name from ${from} where type = 'table' and name not like 'kysely_%' and name not like 'sqlite_%' and name <> 'state_owner' order by name`).pluck().all() as string[])
}

export function tableDigest(vdb: SqliteVentureDb, table: string): string {
  const cols = (vdb.sqlite.prepare(`select name from pragma_table_info(?)`).pluck().all(table) as string[])
  const order = cols.map((_, i) => String(i + 1)).join(', ')
  // `generated_as_of` too: a generated database records its "today", a JSON Lines file of the same records cannot.
  const where = table === 'meta' ? ` where key not in ('state_schema', 'database_id', 'generated_as_of')` : ''
  const rows = vdb.sqlite.prepare(`select * from "${table}"${where} order by ${order}`).raw().all()
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex')
}

export function databaseDigest(vdb: SqliteVentureDb, tables = dataTables(vdb)): Record<string, string> {
  return Object.fromEntries(tables.map((t) => [t, tableDigest(vdb, t)]))
}

export function count(vdb: SqliteVentureDb, sql: string, ...params: unknown[]): number {
  return Number(vdb.sqlite.prepare(sql).pluck().get(...params))
}
