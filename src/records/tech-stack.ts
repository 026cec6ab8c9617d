/**
 * @module A company's technology stack (spec 2.8, 4.8), by title.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { prepared } from '../store/sql-names.js'

export function companyTechStack(sqlite: BetterSqlite3.Database, companyId: number): string[] {
  return prepared(sqlite, `select title from ${DETAIL_TABLES.techStack} where company_id = ? order by title`).pluck().all(companyId) as string[]
}
