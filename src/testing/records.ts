/**
 * @module Arbitraries of import lines (grammar-docs/records.md): `{type, record}` envelopes whose
 * records carry every catalog field of their dataset, each valued in one of the forms the loader
 * accepts for its type (or absent or null when the field may be NULL), derived from the catalog
 * so a new field is generated without touching this file. `importLinesArbitrary` makes a
 * consistent load: funding events name companies and investors of the same load.
 */
import fc from 'fast-check'
import type { DatasetName, FieldDef } from '../catalog/define.js'
import { DATASET_NAMES, datasets } from '../catalog/index.js'
import { distinctValues, type Snapshot } from '../reference/index.js'

/** The record type of each dataset in the JSON Lines format. */
export const RECORD_TYPE_OF = Object.freeze({ companies: 'company', investors: 'investor', fundings: 'funding' } as const satisfies Record<DatasetName, string>)

/** One line of the JSON Lines format, before `JSON.stringify`. */
export interface ImportLine {
  readonly type: (typeof RECORD_TYPE_OF)[DatasetName]
  readonly record: Readonly<Record<string, unknown>>
}

/** Options of `recordArbitrary`. */
export interface RecordArbitraryOptions {
  /** Data whose values text and tags fields are mostly drawn from (`loadSnapshot`); without it, short generated text. */
  readonly values?: Snapshot
  /** The primary key's range (default 1 to 1,000,000). */
  readonly ids?: { readonly min: number; readonly max: number }
  /** Funding records: the company ids to draw `company_id` from (default the `ids` range). */
  readonly companyIds?: readonly number[]
  /** Funding records: the investor ids to draw `investor_ids` from (default none). */
  readonly investorIds?: readonly number[]
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')
const day = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2030-12-31T23:59:59Z'), noInvalidDate: true })
const isoDate = (d: Date): string => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 -.'), minLength: 1, maxLength: 16 }).filter((s) => s.trim() !== '')

/** A value of one field in one of the forms the loader accepts for its type. */
function fieldValue(dataset: DatasetName, field: FieldDef, options: RecordArbitraryOptions): fc.Arbitrary<unknown> {
  const occurring = options.values ? distinctValues(options.values, dataset, field.name).map(String) : []
  const text = occurring.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...occurring), weight: 3 }, { arbitrary: word, weight: 1 }) : word
  switch (field.type.kind) {
    case 'integer': {
      const n = fc.integer({ min: 0, max: 5_000_000 })
      return fc.oneof({ arbitrary: n, weight: 3 }, { arbitrary: n.map(String), weight: 1 })
    }
    case 'number': {
      const n = fc.integer({ min: -100_000, max: 100_000 }).map((x) => x / 8)
      return fc.oneof({ arbitrary: n, weight: 3 }, { arbitrary: n.map(String), weight: 1 })
    }
    case 'string':
      return text
    case 'date':
      return fc.tuple(day, fc.boolean()).map(([d, compact]) => (compact ? isoDate(d).replace(/-/g, '') : isoDate(d)))
    case 'datetime':
      return day.map((d) => `${isoDate(d)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`)
    case 'boolean':
      return fc.constantFrom(true, false, 0, 1)
    case 'enum': {
      const type = field.type
      return fc.constantFrom(...type.values, ...Object.keys(type.aliases ?? {}))
    }
    case 'tags':
      return fc.uniqueArray(text, { maxLength: 4 }).chain((tags) =>
        // The loader also takes one comma-separated string (when no tag holds a comma).
        tags.some((t) => t.includes(',')) ? fc.constant(tags) : fc.constantFrom(tags, tags.join(',')))
  }
}

/**
 * Import lines of records of `dataset`: every field present, absent or null as it may be. Each
 * line passes the loader's record schema.
 */
export function recordArbitrary(dataset: DatasetName, options: RecordArbitraryOptions = {}): fc.Arbitrary<ImportLine> {
  if (!(DATASET_NAMES as readonly string[]).includes(dataset)) throw new Error(`recordArbitrary: dataset: expected one of ${DATASET_NAMES.join(', ')}, got ${JSON.stringify(dataset)}`)
  const def = datasets[dataset]
  const ids = options.ids ?? { min: 1, max: 1_000_000 }
  if (!Number.isInteger(ids.min) || !Number.isInteger(ids.max) || ids.min < 1 || ids.max < ids.min) {
    throw new Error(`recordArbitrary: ids: expected integers 1 <= min <= max, got ${JSON.stringify(ids)}`)
  }
  const parts: Record<string, fc.Arbitrary<unknown>> = {}
  for (const field of Object.values(def.fields) as FieldDef[]) {
    if (field.name === def.primaryKey) continue
    const value = fieldValue(dataset, field, options)
    // Absent, null, or a value: the loader reads the first two as NULL.
    parts[field.name] = field.nullable ? fc.oneof({ arbitrary: value, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.constant(undefined), weight: 1 }) : value
  }
  parts[def.primaryKey] = fc.integer(ids)
  if (dataset === 'fundings') {
    parts.company_id = options.companyIds?.length ? fc.constantFrom(...options.companyIds) : fc.integer(ids)
    if (options.investorIds?.length) parts.investor_ids = fc.uniqueArray(fc.constantFrom(...options.investorIds), { maxLength: 3 })
  }
  return fc.record(parts).map((record) => ({
    type: RECORD_TYPE_OF[dataset],
    record: Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)),
  }))
}

/** Options of `importLinesArbitrary`. */
export interface ImportLinesOptions {
  /** Data whose values text and tags fields are mostly drawn from. */
  readonly values?: Snapshot
  /** Most records of each dataset (default 8). */
  readonly maxPerDataset?: number
}

/**
 * A consistent load: investors, then companies, then funding events of those companies naming
 * those investors, each with distinct ids. Loading the lines in order stores every record.
 */
export function importLinesArbitrary(options: ImportLinesOptions = {}): fc.Arbitrary<ImportLine[]> {
  const max = options.maxPerDataset ?? 8
  if (!Number.isInteger(max) || max < 1) throw new Error(`importLinesArbitrary: maxPerDataset: expected a positive integer, got ${JSON.stringify(max)}`)
  const distinctIds = fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: max })
  const withIds = (dataset: DatasetName, ids: number[], more: RecordArbitraryOptions = {}): fc.Arbitrary<ImportLine[]> =>
    fc.tuple(...ids.map((id) => recordArbitrary(dataset, { ...options.values ? { values: options.values } : {}, ids: { min: id, max: id }, ...more })))
  return fc.tuple(distinctIds, distinctIds, distinctIds).chain(([investorIds, companyIds, fundingIds]) =>
    fc.tuple(
      withIds('investors', investorIds),
      withIds('companies', companyIds),
      withIds('fundings', fundingIds, { companyIds, investorIds }),
    ).map(([investors, companies, fundings]) => [...investors, ...companies, ...fundings]))
}
