/**
 * @module Key personnel of a company (spec 2.6, 4.6), in the order the record listed them.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { prepared } from '../store/sql-names.js'

export interface PersonRow {
  readonly name: string
  readonly title: string | null
  readonly path: string | null
}

export function companyPeople(sqlite: BetterSqlite3.Database, companyId: number): PersonRow[] {
  return prepared(sqlite, `select name, title, path from ${DETAIL_TABLES.people} where company_id = ? order by position`).all(companyId) as PersonRow[]
}
