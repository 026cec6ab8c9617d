/**
 * @module Filters, sort clauses and query requests typed per dataset, derived from the catalog
 * (`Catalog`, `OperatorTable`, `RelatedDataset`): nothing here lists a field, an operator or an
 * enum value. A typo in a dataset, a field, an operator, an enum value, a value's type or a
 * `foreign` target's field fails to compile. The language itself is grammar-docs/language.md; the
 * types accept a subset of it (the spellings a program writes), never more:
 *
 * - numbers on `integer`/`number` fields, or numeric strings (`"50"`, as the service sends them);
 * - dates as `YYYY-MM-DD` (or the compact `YYYYMMDD`), datetimes as `YYYY-MM-DD...`;
 * - enum values as the catalog spells them, and their listed aliases (the engine also accepts any
 *   letter case; the types do not);
 * - dataset names and their aliases (`investor`) in lower case.
 *
 * What the types cannot express (a non-empty `in` list, `between` with lo <= hi, a non-empty
 * operator hash) the engine still checks and answers with an issue; `engine.query` keeps taking
 * `unknown` for input from elsewhere.
 */
import type { Catalog, DatasetName, FieldDef, FieldType, ForeignMatch, OperatorTable, RelatedDataset } from '../catalog/index.js'

//// datasets ////

/** A dataset by name or alias (`'investors'` or `'investor'`). */
export type DatasetRef = { [D in DatasetName]: D | Catalog[D]['aliases'][number] }[DatasetName]

/** The dataset a name or alias means: `ResolveDataset<'investor'>` is `'investors'`. */
export type ResolveDataset<R extends DatasetRef> = { [D in DatasetName]: R extends D | Catalog[D]['aliases'][number] ? D : never }[DatasetName]

/** The fields of a dataset by name, each with its literal definition. */
export type FieldsOf<D extends DatasetName> = Catalog[D]['fields']

/** The definition of field `F` of dataset `D`. */
export type FieldOf<D extends DatasetName, F extends string> = Extract<FieldsOf<D>[F & keyof FieldsOf<D>], FieldDef>

/** The public field names of a dataset. */
export type FieldName<R extends DatasetRef> = keyof FieldsOf<ResolveDataset<R>> & string

/** The fields of a dataset that may appear in `sort` (tags fields may not). */
export type SortableField<R extends DatasetRef> = {
  [F in FieldName<R>]: FieldsOf<ResolveDataset<R>>[F] extends { readonly sortable: true } ? F : never
}[FieldName<R>]

//// values ////

/** A numeric string as the service serialises numbers (`"87"`, `"-12.5"`, `"1e3"`). */
export type NumericText = `${number}`
/** `YYYY-MM-DD`; the compact `YYYYMMDD` is a `NumericText`. */
export type DateText = `${number}-${number}-${number}`
/** `YYYY-MM-DD HH:MM:SS`, with `T`, a zone or an offset, or a plain date (grammar-docs, "Dates and datetimes"). */
export type DateTimeText = DateText | `${DateText} ${string}` | `${DateText}T${string}`

/** The values of an enum type: its values and the alias spellings the catalog lists. */
export type EnumValue<T> = T extends { readonly values: readonly (infer V)[]; readonly aliases?: infer A }
  ? V | (undefined extends A ? never : keyof NonNullable<A> & string)
  : never

/** What a filter may compare a field of type `T` with. */
export type FilterValue<T extends FieldType> = {
  integer: number | NumericText
  number: number | NumericText
  string: string
  date: DateText | NumericText
  datetime: DateTimeText
  boolean: boolean
  enum: EnumValue<T>
  tags: string
}[T['kind']]

//// operators ////

type OperatorEntry = OperatorTable[number]

/** An operator's operand for a field whose values are `V` (the shapes of grammar-docs, "Grammar"). */
type Operand<O extends OperatorEntry, V> = {
  // `eq: null` means `is_null: true`; no other scalar operand may be null.
  scalar: O['name'] extends 'eq' ? V | null
  : V
  pair: readonly [V, V]
  // Non-empty at run time (`empty_list` otherwise); a list typed `V[]` is accepted as is.
  list: readonly V[]
  boolean: boolean
  text: string
}[O['operand']]

/** The operator hash of a field of type `T`: exactly the operators the catalog allows on its kind. */
export type OperatorHash<T extends FieldType> = {
  readonly [O in OperatorEntry as T['kind'] extends O['appliesTo'][number] ? O['name'] : never]?: Operand<O, FilterValue<T>>
}

/** What a field key of a filter holds: a value (equality), `null` (`is_null: true`; on tags `is_empty: true`) or an operator hash. */
export type FieldCondition<F extends FieldDef> = FilterValue<F['type']> | null | OperatorHash<F['type']>

//// filters ////

/** `foreign`: records related to records of another dataset (one of those the catalog relates `D` to) matching its filter. */
export type ForeignCondition<R extends DatasetRef> = {
  [T in RelatedDataset<ResolveDataset<R>>]: {
    readonly dataset: T | Catalog[T]['aliases'][number]
    readonly filter: Filter<T>
    readonly match?: ForeignMatch
  }
}[RelatedDataset<ResolveDataset<R>>]

/**
 * A filter over dataset `R`: logical keys and fields of `R`, several keys AND together.
 *
 * @example
 * const fintechInvestors: Filter<'investors'> = {
 *   portfolio_size: { gte: 10 },
 *   type: { in: ['vc', 'accelerator'] },
 *   foreign: { dataset: 'companies', filter: { industries: 'Fintech' } },
 * }
 */
export type Filter<R extends DatasetRef> = {
  readonly and?: readonly Filter<R>[]
  readonly or?: readonly Filter<R>[]
  readonly not?: Filter<R>
  readonly foreign?: ForeignCondition<R>
} & {
  readonly [F in FieldName<R>]?: FieldCondition<FieldOf<ResolveDataset<R>, F>>
}

//// sort and request ////

export type SortDirection = 'asc' | 'desc'

/** One sort clause: exactly one sortable field of `R` and its direction. */
export type SortClause<R extends DatasetRef> = {
  [F in SortableField<R>]: { readonly [K in F]: SortDirection } & { readonly [K in Exclude<SortableField<R>, F>]?: never }
}[SortableField<R>]

/** The request of `engine.query` and POST /queries (grammar-docs, "Request"), typed for dataset `R`. */
export interface QueryRequest<R extends DatasetRef> {
  readonly dataset: R
  readonly filter?: Filter<R>
  readonly sort?: readonly SortClause<R>[]
  readonly page?: number
  readonly per_page?: number
}
