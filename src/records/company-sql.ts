/**
 * @module What the company record lookups share: statements prepared once per connection, and
 * the tables and columns they read, resolved through the catalog when this module loads (a
 * renamed field fails here, not with a query on a column that no longer exists). Values are only
 * ever bound parameters; identifiers only come from here.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { datasets, findRelation, primaryKeyColumn, type DatasetDef, type FieldDef } from '../catalog/index.js'

/** Statements per connection, keyed by SQL text: a detail lookup runs a dozen tiny queries. */
const statementCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>()

export function prepared(sqlite: BetterSqlite3.Database, sqlText: string): BetterSqlite3.Statement {
  let byText = statementCache.get(sqlite)
  if (!byText) statementCache.set(sqlite, (byText = new Map()))
  let statement = byText.get(sqlText)
  if (!statement) byText.set(sqlText, (statement = sqlite.prepare(sqlText)))
  return statement
}

/** `"column"` of a catalog field, or a load-time error naming what is missing. */
export function columnOf(ds: DatasetDef, name: string): string {
  const column = ds.fields[name]?.column
  if (!column) throw new Error(`records: ${ds.name}.${name} is not a column in the catalog`)
  return `"${column}"`
}

/** The tag storage of a multi-valued catalog field. */
export function tagTableOf(ds: DatasetDef, name: string): NonNullable<FieldDef['tags']> {
  const tags = ds.fields[name]?.tags
  if (!tags) throw new Error(`records: ${ds.name}.${name} is not a tags field in the catalog`)
  return tags
}

export const COMPANIES = datasets.companies
export const FUNDINGS = datasets.fundings
export const INVESTORS = datasets.investors
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
