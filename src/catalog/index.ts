/**
 * @module The catalog: the one declarative source of truth for datasets, fields, types,
 * operators and relations. `CATALOG_VERSION` is part of every stored query's `query_version`:
 * bump it whenever a change to the catalog could change the meaning of a stored query.
 */
import type { DatasetDef, DatasetName, FieldDef } from './define.js'
import { companies } from './datasets/companies.js'
import { fundings } from './datasets/fundings.js'
import { investors } from './datasets/investors.js'

export * from './define.js'
export * from './field-types.js'
export * from './enums.js'
export * from './operators.js'
export { relations, findRelation, type RelatedDataset } from './relations.js'

export const CATALOG_VERSION = 1

const DATASET_DEFS = { companies, investors, fundings }

/**
 * Each dataset's definition with its fields' literal types: what the typed API (src/typed/)
 * derives filters, sort clauses and records from. `datasets` is the same object, typed loosely
 * for code that looks datasets up by a name known only at run time.
 */
export type Catalog = typeof DATASET_DEFS

export const datasets: Readonly<Record<DatasetName, DatasetDef>> = Object.freeze(DATASET_DEFS)

export const DATASET_NAMES: readonly DatasetName[] = Object.freeze(['companies', 'investors', 'fundings'])

/** Resolves a dataset name or alias (`investor` → `investors`); undefined when unknown. */
export function resolveDataset(name: string): DatasetDef | undefined {
  const lower = name.toLowerCase()
  return DATASET_NAMES.map((n) => datasets[n]).find((d) => d.name === lower || d.aliases.includes(lower))
}

/** Every name a dataset can be called by, for did-you-mean suggestions. */
export function datasetNamesAndAliases(): string[] {
  return DATASET_NAMES.flatMap((n) => [n, ...datasets[n].aliases])
}

export function getField(dataset: DatasetDef, name: string): FieldDef | undefined {
  return Object.prototype.hasOwnProperty.call(dataset.fields, name) ? dataset.fields[name] : undefined
}

/** The SQL column of the dataset's primary key. */
export function primaryKeyColumn(dataset: DatasetDef): string {
  const pk = dataset.fields[dataset.primaryKey]
  if (!pk?.column) throw new Error(`catalog: ${dataset.name} primary key has no column`)
  return pk.column
}
