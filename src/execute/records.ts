/**
 * @module Result records of a dataset, derived from the catalog: every field under its public
 * name, tags fields as arrays, booleans as true/false (stored 0/1), and `wire: 'string'` numerics
 * as strings, exactly as the spec's tables show them (spec section 2). Plus the constant fields
 * the spec's record shapes carry that are not data (spec 2.11: `resource_type: 'investor'`).
 */
import type { DatasetDef, DatasetName, FieldDef } from '../catalog/define.js'

export type ResultRecord = Readonly<Record<string, unknown>>

/** Constant members of each dataset's result records (not filterable, so not in the catalog). */
const RECORD_CONSTANTS = Object.freeze({
  companies: Object.freeze({}),
  investors: Object.freeze({ resource_type: 'investor' as const }),
  fundings: Object.freeze({}),
}) satisfies Readonly<Record<DatasetName, Readonly<Record<string, string>>>>

/** The constant members per dataset, as types (the typed records of src/typed/ include them). */
export type RecordConstants = typeof RECORD_CONSTANTS

function wireValue(field: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (field.type.kind === 'boolean') return value === 1 || value === true || value === '1'
  if (field.wire === 'string') return String(value)
  // PostgreSQL returns bigint columns as strings; the wire form of a native integer is a number.
  if ((field.type.kind === 'integer' || field.type.kind === 'number') && typeof value === 'string') return Number(value)
  return value
}

/**
 * Maps one row (columns named as in the table) and the tags of its record to a result record.
 * `tags` maps a tags field name to the record's values.
 */
export function toRecord(dataset: DatasetDef, row: Readonly<Record<string, unknown>>, tags: ReadonlyMap<string, readonly string[]>): ResultRecord {
  const out: Record<string, unknown> = {}
  for (const field of recordFields(dataset)) {
    if (field.tags) out[field.name] = [...(tags.get(field.name) ?? [])]
    else if (field.column) out[field.name] = wireValue(field, row[field.column])
  }
  Object.assign(out, RECORD_CONSTANTS[dataset.name])
  return Object.freeze(out)
}

/** The fields a record maps, listed once per dataset rather than once per record (a page maps many). */
const fieldLists = new WeakMap<DatasetDef, readonly FieldDef[]>()

function recordFields(dataset: DatasetDef): readonly FieldDef[] {
  let list = fieldLists.get(dataset)
  if (!list) fieldLists.set(dataset, (list = Object.freeze((Object.values(dataset.fields) as FieldDef[]).filter((f) => f.tags || f.column))))
  return list
}

export function tagsFields(dataset: DatasetDef): readonly FieldDef[] {
  return recordFields(dataset).filter((f) => f.tags)
}
