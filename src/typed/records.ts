/**
 * @module Result records typed per dataset, derived from the catalog the same way
 * `execute/records.ts` (`toRecord`) builds them at run time: every field under its public name,
 * tags fields as arrays of strings, booleans as booleans, `wire: 'string'` numerics as strings,
 * other numerics as numbers, enums as their values, dates and datetimes as text, `null` where the
 * field is nullable; plus the dataset's constant members (`resource_type: 'investor'`).
 * test/typed/records-runtime.test.ts checks real records against these rules.
 */
import type { Catalog, DatasetName, FieldDef } from '../catalog/index.js'
import type { RecordConstants } from '../execute/records.js'
import type { FieldName, FieldOf, DatasetRef, ResolveDataset } from './filter.js'

/** The value of one field in a result record. */
export type RecordValue<F extends FieldDef> =
  | (F['type'] extends { readonly kind: 'tags' } ? readonly string[]
    : F['type'] extends { readonly kind: 'boolean' } ? boolean
    : F['wire'] extends 'string' ? string
    : F['type'] extends { readonly kind: 'integer' | 'number' } ? number
    // Stored in the catalog's spelling (the loader resolves aliases and case).
    : F['type'] extends { readonly kind: 'enum'; readonly values: readonly (infer V)[] } ? V
    : string)
  | (F['nullable'] extends true ? null : never)

type RecordOfDataset<D extends DatasetName> = {
  readonly [F in FieldName<D>]: RecordValue<FieldOf<D, F>>
} & RecordConstants[D]

/** A result record of dataset `R` (a name or alias). */
export type RecordOf<R extends DatasetRef> = ResolveDataset<R> extends infer D extends DatasetName
  ? D extends DatasetName ? RecordOfDataset<D> : never
  : never

/** The primary key's name of a dataset (`id`, `investor_id`): always in a record, picked or not. */
export type PrimaryKeyOf<D extends DatasetName> = Catalog[D]['primaryKey']

/**
 * A record of dataset `R` with only the fields `F` and the primary key, as `fields: F` returns it
 * (`check/fields.ts`); `F` undefined: the whole record.
 */
export type PickedRecord<R extends DatasetRef, F extends readonly string[] | undefined> = ResolveDataset<R> extends infer D extends DatasetName
  ? D extends DatasetName
    ? [F] extends [readonly (infer N)[]] ? Pick<RecordOfDataset<D>, (N | PrimaryKeyOf<D>) & keyof RecordOfDataset<D>> : RecordOfDataset<D>
    : never
  : never

export type CompanyRecord = RecordOf<'companies'>
export type InvestorRecord = RecordOf<'investors'>
export type FundingRecord = RecordOf<'fundings'>
