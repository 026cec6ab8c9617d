/**
 * @module SQL column types per dialect for each catalog field type. Dates and datetimes are
 * ISO text on every backend so that text order is time order and values round-trip unchanged.
 * PostgreSQL text columns of the filter language use the "C" collation: byte order of UTF-8, which
 * is SQLite's default (BINARY) order, so `gt`/`lt` on strings and string sorts select and order
 * the same rows on both backends whatever the server's locale (en_US would sort `a` before `B`).
 */
import type { FieldTypeKind } from '../../catalog/field-types.js'

export type DialectName = 'sqlite' | 'postgres'

const COLUMN_TYPES: Record<DialectName, Record<Exclude<FieldTypeKind, 'tags'>, string>> = {
  sqlite: { integer: 'integer', number: 'real', string: 'text', date: 'text', datetime: 'text', boolean: 'integer', enum: 'text' },
  postgres: { integer: 'bigint', number: 'double precision', string: 'text collate "C"', date: 'text collate "C"', datetime: 'text collate "C"', boolean: 'integer', enum: 'text collate "C"' },
}

export function columnType(dialect: DialectName, kind: Exclude<FieldTypeKind, 'tags'>): string {
  return COLUMN_TYPES[dialect][kind]
}

/** The integer type of identifiers and foreign keys. */
export function idType(dialect: DialectName): string {
  return dialect === 'sqlite' ? 'integer' : 'bigint'
}

/** A text column that is compared or sorted (tag values): byte order on every backend. */
export function textType(dialect: DialectName): string {
  return dialect === 'sqlite' ? 'text' : 'text collate "C"'
}
