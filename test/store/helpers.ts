/** @module Test helpers for the store: a content digest of every table, independent of insertion order. */
import { createHash } from 'node:crypto'
import type { SqliteVentureDb } from '../../src/store/open.js'

/** Tables holding data (the migration bookkeeping is excluded: it records wall-clock times). */
export function dataTables(vdb: SqliteVentureDb): string[] {
  return (vdb.sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'kysely_%' and name not like 'sqlite_%' order by name").pluck().all() as string[])
}

export function tableDigest(vdb: SqliteVentureDb, table: string): string {
  const cols = (vdb.sqlite.prepare(`select name from pragma_table_info(?)`).pluck().all(table) as string[])
  const order = cols.map((_, i) => String(i + 1)).join(', ')
  const rows = vdb.sqlite.prepare(`select * from "${table}" order by ${order}`).raw().all()
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex')
}

export function databaseDigest(vdb: SqliteVentureDb, tables = dataTables(vdb)): Record<string, string> {
  return Object.fromEntries(tables.map((t) => [t, tableDigest(vdb, t)]))
}

export function count(vdb: SqliteVentureDb, sql: string, ...params: unknown[]): number {
  return Number(vdb.sqlite.prepare(sql).pluck().get(...params))
}
