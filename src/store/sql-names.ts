/**
 * @module SQL names resolved through the catalog when a module loads (a renamed field fails at
 * import, not with a query on a column that no longer exists): unquoted for the Kysely builders of
 * the record lookups (src/records), quoted for the hand-written SQL of `materialise` and the search
 * index build, plus the per-connection statement cache those and the record lookups' SQLite
 * runner share. Values are only ever bound parameters; identifiers only come from here (design
 * section 2: nothing outside the catalog hard-codes a field name).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { datasets, findRelation, type DatasetDef, type DatasetName, type FieldDef } from '../catalog/index.js'

export const COMPANIES = datasets.companies
export const INVESTORS = datasets.investors
export const FUNDINGS = datasets.fundings

/** A double-quoted SQL identifier. */
export const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`

/** The column of a scalar field (unquoted); a missing one is a programming error caught at import. */
export function columnName(ds: DatasetDef, field: string): string {
  const column = ds.fields[field]?.column
  if (!column) throw new Error(`sql-names: ${ds.name}.${field} is not a column in the catalog`)
  return column
}

/** The quoted column of a scalar field. */
export function columnOf(ds: DatasetDef, field: string): string {
  return quote(columnName(ds, field))
}

/** The tag storage of a multi-valued field, as the catalog declares it (unquoted names). */
export function tagTableOf(ds: DatasetDef, field: string): NonNullable<FieldDef['tags']> {
  const tags = ds.fields[field]?.tags
  if (!tags) throw new Error(`sql-names: ${ds.name}.${field} is not a tags field in the catalog`)
  return tags
}

/** The link table of a relation and its two key columns (unquoted). */
export function linkNames(from: DatasetName, to: DatasetName): { table: string; fromKey: string; toKey: string } {
  const relation = findRelation(from, to)
  if (relation?.kind !== 'link') throw new Error(`sql-names: no link relation ${from} → ${to} in the catalog`)
  return Object.freeze({ table: relation.table, fromKey: relation.fromKey, toKey: relation.toKey })
}

/** The quoted link table of a relation and its two key columns. */
export function linkOf(from: DatasetName, to: DatasetName): { table: string; fromKey: string; toKey: string } {
  const link = linkNames(from, to)
  return { table: quote(link.table), fromKey: quote(link.fromKey), toKey: quote(link.toKey) }
}

/**
 * Statements per connection, keyed by SQL text: a detail lookup runs a dozen tiny queries, and
 * preparing one costs about as much as running it. Callers never change a cached statement's mode
 * (`pluck`, `raw`), since every user of the same text would see it.
 */
const statementCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>()

export function prepared(sqlite: BetterSqlite3.Database, sqlText: string): BetterSqlite3.Statement {
  let byText = statementCache.get(sqlite)
  if (!byText) statementCache.set(sqlite, (byText = new Map()))
  let statement = byText.get(sqlText)
  if (!statement) byText.set(sqlText, (statement = sqlite.prepare(sqlText)))
  return statement
}
