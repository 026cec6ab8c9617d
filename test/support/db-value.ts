/** @module One value of one statement on a SQLite database file, opened read-only and closed (CLI tests read what a command wrote). */
import { openDatabase } from '../../src/store/open.js'

export function dbValue(file: string, statement: string): unknown {
  const vdb = openDatabase(file, { readonly: true })
  try {
    return vdb.sqlite.prepare(statement).pluck().get()
  } finally {
    vdb.sqlite.close()
  }
}
