/**
 * @module The shapes of the catalog: datasets, their fields and the relations between them.
 * The catalog is data only; validation, SQL column references, row mapping, the schema of the
 * dataset tables and the grammar-docs reference pages are all derived from it.
 */
import type { FieldType, WireForm } from './field-types.js'

export type DatasetName = 'companies' | 'investors' | 'fundings'

/** Where a multi-valued (`tags`) field lives: one row per (owner, value) in its own link table. */
export interface TagStorage {
  readonly table: string
  /** Column referencing the owning dataset's primary key. */
  readonly ownerColumn: string
  readonly valueColumn: string
}

export interface FieldDef {
  /** The public name, as used in filters, sort clauses and result records. */
  readonly name: string
  readonly type: FieldType
  /** Spec 4.14 separates plain properties from aggregates (materialised at ingest). */
  readonly role: 'property' | 'aggregate'
  /** Column in the dataset table; absent for `tags` fields, which use `tags` storage. */
  readonly column?: string
  readonly tags?: TagStorage
  /** Whether NULL can occur (it can for every field except the primary key and booleans). */
  readonly nullable: boolean
  /** Whether the field may appear in `sort`. Tag fields cannot be sorted on. */
  readonly sortable: boolean
  /** Whether the loader builds an index on the column (sort and common filters). */
  readonly indexed: boolean
  /**
   * Whether a value names one record or a handful (a key, a slug, a domain): `eq`/`in` on it inside
   * a `foreign` pins the related records, and the compiler then drives the query from them
   * (compile/relations.ts). Implies `indexed`.
   */
  readonly identifying?: boolean
  /** How the value is serialised in result records (spec section 2). */
  readonly wire: WireForm
  /**
   * How the field can be counted per value (`facets`): `value` counts each value (a tags field
   * counts each record once per value it holds), `year` counts each calendar year of a date.
   * Absent: the field cannot be faceted.
   */
  readonly facet?: FacetKind
  readonly description: string
}

/** How a field is bucketed for facet counts (`FieldDef.facet`). */
export type FacetKind = 'value' | 'year'

export interface DatasetDef {
  readonly name: DatasetName
  /** Other names accepted in requests (spec 4.14 shows both `investor` and `investors`). */
  readonly aliases: readonly string[]
  readonly table: string
  /** The public name of the primary key field (also a field in `fields`). */
  readonly primaryKey: string
  readonly fields: Readonly<Record<string, FieldDef>>
  /** Order used when a request gives no sort; the primary key is appended after it in any case. */
  readonly defaultSort: readonly SortClauseDef[]
  readonly description: string
}

export interface SortClauseDef {
  readonly field: string
  readonly direction: 'asc' | 'desc'
}

/**
 * How records of `from` relate to records of `to`. Either directly (a column of one table equals a
 * column of the other) or through a link table. `foreign` compiles to a correlated EXISTS along it.
 */
export type RelationDef =
  | {
      readonly from: DatasetName
      readonly to: DatasetName
      readonly kind: 'direct'
      /** Column of the `from` table. */
      readonly fromColumn: string
      /** Column of the `to` table that equals `fromColumn`. */
      readonly toColumn: string
      readonly description: string
    }
  | {
      readonly from: DatasetName
      readonly to: DatasetName
      readonly kind: 'link'
      readonly table: string
      /** Column of the link table referencing the `from` table's primary key. */
      readonly fromKey: string
      /** Column of the link table referencing the `to` table's primary key. */
      readonly toKey: string
      readonly description: string
    }

export interface FieldOptions {
  readonly role?: 'property' | 'aggregate'
  readonly column?: string
  readonly nullable?: boolean
  readonly sortable?: boolean
  readonly indexed?: boolean
  readonly identifying?: boolean
  readonly wire?: WireForm
  /** Default: `value` for enums, `year` for dates and datetimes, none for other kinds. */
  readonly facet?: FacetKind
}

/**
 * A field definition that keeps, as literal types, what the typed API (src/typed/) derives from:
 * the name, the type (an enum's values), whether it can be null or sorted on, and its wire form.
 * It is a `FieldDef`; every stage that reads the catalog at run time sees no difference.
 */
export type TypedFieldDef<N extends string, T extends FieldType, Nullable extends boolean, Sortable extends boolean, Wire extends WireForm> = Omit<FieldDef, 'name' | 'type' | 'nullable' | 'sortable' | 'wire'> & {
  readonly name: N
  readonly type: T
  readonly nullable: Nullable
  readonly sortable: Sortable
  readonly wire: Wire
}

/** `field`'s result type: the options given, else the defaults `field` applies at run time. */
export type FieldDefOf<N extends string, T extends FieldType, O extends FieldOptions> = TypedFieldDef<
  N,
  T,
  O extends { readonly nullable: infer B extends boolean } ? B : T extends { readonly kind: 'boolean' } ? false : true,
  O extends { readonly sortable: infer B extends boolean } ? B : T extends { readonly kind: 'tags' } ? false : true,
  O extends { readonly wire: infer W extends WireForm } ? W : 'native'
> & { readonly facet: FacetOf<T, O> }

/** A field's facet kind as a literal type (undefined: not facetable), by the same defaults as `field`. */
export type FacetOf<T extends FieldType, O extends FieldOptions> =
  O extends { readonly facet: infer K extends FacetKind } ? K
    : T extends { readonly kind: 'enum' | 'tags' } ? 'value'
      : T extends { readonly kind: 'date' | 'datetime' } ? 'year'
        : undefined

/** The facet kind `field` gives a type when its options name none. */
function defaultFacet(type: FieldType): FacetKind | undefined {
  switch (type.kind) {
    case 'enum':
    case 'tags':
      return 'value'
    case 'date':
    case 'datetime':
      return 'year'
    case 'integer':
    case 'number':
    case 'string':
    case 'boolean':
      return undefined
  }
}

/** Builds a field definition with the defaults (property, column = name, nullable, sortable unless tags). */
export function field<const N extends string, const T extends FieldType, const O extends FieldOptions = Record<never, never>>(
  name: N,
  type: T,
  description: string,
  options: O = {} as O,
): FieldDefOf<N, T, O> {
  const isTags = type.kind === 'tags'
  const facet = options.facet ?? defaultFacet(type)
  return Object.freeze({
    name,
    type,
    role: options.role ?? 'property',
    ...(isTags ? {} : { column: options.column ?? name }),
    nullable: options.nullable ?? type.kind !== 'boolean',
    sortable: options.sortable ?? !isTags,
    indexed: (options.indexed ?? false) || (options.identifying ?? false),
    ...(options.identifying ? { identifying: true } : {}),
    wire: options.wire ?? 'native',
    ...(facet ? { facet } : {}),
    description,
  }) as FieldDefOf<N, T, O>
}

/** A multi-valued field stored in link table `table` with columns (`ownerColumn`, `value`). */
export function tagsField<const N extends string>(name: N, table: string, ownerColumn: string, description: string): TypedFieldDef<N, { readonly kind: 'tags' }, false, false, 'native'> & { readonly facet: 'value' } {
  return Object.freeze({
    name,
    type: Object.freeze({ kind: 'tags' as const }),
    role: 'property' as const,
    tags: Object.freeze({ table, ownerColumn, valueColumn: 'value' }),
    nullable: false,
    sortable: false,
    indexed: true,
    wire: 'native' as const,
    facet: 'value' as const,
    description,
  })
}

/**
 * A dataset definition that keeps each field's literal type under its name (and the name, aliases
 * and primary key as literals) for the typed API. It is a `DatasetDef`: code that looks fields up by
 * a name known only at run time uses `datasets` (catalog/index.ts), typed as `DatasetDef`.
 */
export type TypedDatasetDef<N extends DatasetName, A extends readonly string[], K extends string, F extends readonly FieldDef[]> = Omit<DatasetDef, 'name' | 'aliases' | 'primaryKey' | 'fields'> & {
  readonly name: N
  readonly aliases: A
  readonly primaryKey: K
  readonly fields: { readonly [D in F[number] as D['name']]: D }
}

export function dataset<const N extends DatasetName, const A extends readonly string[], const K extends string, const F extends readonly FieldDef[]>(
  def: Omit<DatasetDef, 'fields' | 'name' | 'aliases' | 'primaryKey'> & { name: N; aliases: A; primaryKey: K; fields: F },
): TypedDatasetDef<N, A, K, F> {
  const fields: Record<string, FieldDef> = {}
  for (const f of def.fields) {
    if (fields[f.name]) throw new Error(`catalog: field ${def.name}.${f.name} defined twice`)
    fields[f.name] = f
  }
  if (!fields[def.primaryKey]) throw new Error(`catalog: primary key ${def.name}.${def.primaryKey} is not a field`)
  return Object.freeze({ ...def, aliases: Object.freeze([...def.aliases]), fields: Object.freeze(fields), defaultSort: Object.freeze([...def.defaultSort]) }) as TypedDatasetDef<N, A, K, F>
}
