/**
 * @module SQL column types per dialect for each catalog field type. Dates and datetimes are
 * ISO text on every backend so that text order is time order and values round-trip unchanged.
 */
import type { FieldTypeKind } from '../../catalog/field-types.js'

export type DialectName = 'sqlite' | 'postgres'

const COLUMN_TYPES: Record<DialectName, Record<Exclude<FieldTypeKind, 'tags'>, string>> = {
  sqlite: { integer: 'integer', number: 'real', string: 'text', date: 'text', datetime: 'text', boolean: 'integer', enum: 'text' },
  postgres: { integer: 'bigint', number: 'double precision', string: 'text', date: 'text', datetime: 'text', boolean: 'integer', enum: 'text' },
}

export function columnType(dialect: DialectName, kind: Exclude<FieldTypeKind, 'tags'>): string {
  return COLUMN_TYPES[dialect][kind]
}

/** The integer type of identifiers and foreign keys. */
export function idType(dialect: DialectName): string {
  return dialect === 'sqlite' ? 'integer' : 'bigint'
}
