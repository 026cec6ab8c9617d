/**
 * @module What the hand-written SQL shares (the record lookups of src/records, `materialise`, the
 * search index build): SQL names resolved through the catalog when a module
 * loads (a renamed field fails at import, not with a query on a column that no longer exists) and
 * statements prepared once per connection. Values are only ever bound parameters; identifiers only
 * come from here (design section 2: nothing outside the catalog hard-codes a field name).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { datasets, findRelation, type DatasetDef, type DatasetName, type FieldDef } from '../catalog/index.js'

export const COMPANIES = datasets.companies
export const INVESTORS = datasets.investors
export const FUNDINGS = datasets.fundings

/** A double-quoted SQL identifier. */
export const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`

/** The quoted column of a scalar field; a missing one is a programming error caught at import. */
export function columnOf(ds: DatasetDef, field: string): string {
  const column = ds.fields[field]?.column
  if (!column) throw new Error(`sql-names: ${ds.name}.${field} is not a column in the catalog`)
  return quote(column)
}

/** The tag storage of a multi-valued field, as the catalog declares it (unquoted names). */
export function tagTableOf(ds: DatasetDef, field: string): NonNullable<FieldDef['tags']> {
  const tags = ds.fields[field]?.tags
  if (!tags) throw new Error(`sql-names: ${ds.name}.${field} is not a tags field in the catalog`)
  return tags
}

/** The quoted table, owner column and value column of a tags field. */
export function tagsOf(ds: DatasetDef, field: string): { table: string; owner: string; value: string } {
  const tags = tagTableOf(ds, field)
  return { table: quote(tags.table), owner: quote(tags.ownerColumn), value: quote(tags.valueColumn) }
}

/** The quoted link table of a relation and its two key columns. */
export function linkOf(from: DatasetName, to: DatasetName): { table: string; fromKey: string; toKey: string } {
  const relation = findRelation(from, to)
  if (relation?.kind !== 'link') throw new Error(`sql-names: no link relation ${from} → ${to} in the catalog`)
  return { table: quote(relation.table), fromKey: quote(relation.fromKey), toKey: quote(relation.toKey) }
}

/** Statements per connection, keyed by SQL text: a detail lookup runs a dozen tiny queries. */
const statementCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>()

export function prepared(sqlite: BetterSqlite3.Database, sqlText: string): BetterSqlite3.Statement {
  let byText = statementCache.get(sqlite)
  if (!byText) statementCache.set(sqlite, (byText = new Map()))
  let statement = byText.get(sqlText)
  if (!statement) byText.set(sqlText, (statement = sqlite.prepare(sqlText)))
  return statement
}

/**
 * A set of statements built once per connection and kept: preparing them afresh would cost about as
 * much as running them for a small record.
 */
export function preparedCache<T>(build: (sqlite: BetterSqlite3.Database) => T): (sqlite: BetterSqlite3.Database) => T {
  const cache = new WeakMap<BetterSqlite3.Database, T>()
  return (sqlite) => {
    let statements = cache.get(sqlite)
    if (!statements) cache.set(sqlite, (statements = build(sqlite)))
    return statements
  }
}
