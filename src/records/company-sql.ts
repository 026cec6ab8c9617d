/**
 * @module SQL names and lookups specific to companies (tables, ids, the funding-investor link), on
 * top of the shared helpers of sql-names.ts.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { findRelation, primaryKeyColumn } from '../catalog/index.js'
import { COMPANIES, prepared } from '../store/sql-names.js'

export const COMPANY_TABLE = `"${COMPANIES.table}"`
export const COMPANY_ID = `"${primaryKeyColumn(COMPANIES)}"`

const fundingInvestors = findRelation('fundings', 'investors')
if (!fundingInvestors || fundingInvestors.kind !== 'link') throw new Error('records: the catalog has no fundings → investors link')
/** The link table of funding events and their investors (2.3.3 investor_ids). */
export const FUNDING_INVESTORS = Object.freeze({
  table: `"${fundingInvestors.table}"`, fundingKey: `"${fundingInvestors.fromKey}"`, investorKey: `"${fundingInvestors.toKey}"`,
})

/** Whether a company with this id exists (the sub-resources answer 404 otherwise). */
export function companyExists(sqlite: BetterSqlite3.Database, id: number): boolean {
  return prepared(sqlite, `select 1 from ${COMPANY_TABLE} where ${COMPANY_ID} = ?`).pluck().get(id) !== undefined
}
