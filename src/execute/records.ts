/**
 * @module Result records of a dataset, derived from the catalog: every field under its public
 * name, tags fields as arrays, booleans as true/false (stored 0/1), and `wire: 'string'` numerics
 * as strings, exactly as the spec's tables show them (spec section 2). Plus the constant fields
 * the spec's record shapes carry that are not data (spec 2.11: `resource_type: 'investor'`).
 */
import type { DatasetDef, DatasetName, FieldDef } from '../catalog/define.js'
import { tagsAlias } from '../compile/plan.js'

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

/** Maps rows of one column layout to result records. */
export type RecordMapper = (row: readonly unknown[]) => ResultRecord

const mappers = new WeakMap<DatasetDef, Map<string, RecordMapper>>()

/**
 * The mapper for rows of `recordsByIdsQuery` read as arrays in the order of `columns` (columns
 * named as in the table, each tags field's values as a JSON array under `tagsAlias(field)`): each
 * field's position is looked up once per layout, not once per record.
 */
export function recordMapper(dataset: DatasetDef, columns: readonly string[]): RecordMapper {
  let perLayout = mappers.get(dataset)
  if (!perLayout) mappers.set(dataset, (perLayout = new Map()))
  const layout = columns.join('\u0000')
  const known = perLayout.get(layout)
  if (known) return known
  const at = new Map(columns.map((c, i) => [c, i]))
  const slots = recordFields(dataset).map((field) => {
    const name = field.tags ? tagsAlias(field) : field.column!
    const index = at.get(name)
    if (index === undefined) throw new Error(`execute: the records query of ${dataset.name} lacks ${name}`)
    return { field, index }
  })
  const constants = RECORD_CONSTANTS[dataset.name]
  const mapper: RecordMapper = (row) => {
    const out: Record<string, unknown> = {}
    for (const { field, index } of slots) out[field.name] = field.tags ? tagList(row[index]) : wireValue(field, row[index])
    Object.assign(out, constants)
    return Object.freeze(out)
  }
  perLayout.set(layout, mapper)
  return mapper
}

/** SQLite returns the aggregated array as JSON text, PostgreSQL's driver as the parsed array. */
function tagList(value: unknown): string[] {
  if (value === null || value === undefined) return []
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value
  if (!Array.isArray(list)) throw new Error(`execute: a tag list is not an array: ${typeof list}`)
  return list.map(String)
}

/** The fields a record maps, listed once per dataset rather than once per record (a page maps many). */
const fieldLists = new WeakMap<DatasetDef, readonly FieldDef[]>()

function recordFields(dataset: DatasetDef): readonly FieldDef[] {
  let list = fieldLists.get(dataset)
  if (!list) fieldLists.set(dataset, (list = Object.freeze((Object.values(dataset.fields) as FieldDef[]).filter((f) => f.tags || f.column))))
  return list
}
