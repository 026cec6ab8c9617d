/**
 * @module The value types a catalog field can have. Every other stage (check, compile, the
 * reference evaluator, the docs) switches over `FieldTypeKind`, so adding a kind fails to
 * compile until each of them handles it.
 */

export type FieldTypeKind =
  | 'integer'
  | 'number'
  | 'string'
  | 'date'
  | 'datetime'
  | 'boolean'
  | 'enum'
  | 'tags'

/**
 * A closed set of values. Matching is case-insensitive; `aliases` maps other spellings seen in the wild to a value.
 * `V` and `A` keep the values and alias spellings as literal types (`enumOf` infers them), so the
 * typed API (src/typed/) derives its enum unions from this one definition.
 */
export interface EnumType<V extends string = string, A extends string = string> {
  readonly kind: 'enum'
  readonly values: readonly V[]
  readonly aliases?: Readonly<Record<A, V>>
}

export type FieldType =
  | { readonly kind: 'integer' }
  | { readonly kind: 'number' }
  | { readonly kind: 'string' }
  /** Calendar date, stored as 'YYYY-MM-DD' text so that text order is date order. */
  | { readonly kind: 'date' }
  /** Timestamp, stored as 'YYYY-MM-DD HH:MM:SS' (UTC) text. */
  | { readonly kind: 'datetime' }
  /** Stored as 0/1. */
  | { readonly kind: 'boolean' }
  | EnumType
  /** Multi-valued strings (industries, keywords, ...), stored in a link table, one row per value. */
  | { readonly kind: 'tags' }

export const integer = { kind: 'integer' } as const satisfies FieldType
export const number = { kind: 'number' } as const satisfies FieldType
export const string = { kind: 'string' } as const satisfies FieldType
export const date = { kind: 'date' } as const satisfies FieldType
export const datetime = { kind: 'datetime' } as const satisfies FieldType
export const boolean = { kind: 'boolean' } as const satisfies FieldType
export const tags = { kind: 'tags' } as const satisfies FieldType
/** An enum type; the values and alias spellings keep their literal types, and each alias must name one of the values. */
export function enumOf<const V extends readonly string[], const A extends Readonly<Record<string, V[number]>> = Record<never, never>>(
  values: V,
  aliases?: A,
): EnumType<V[number], keyof A & string> {
  return Object.freeze({ kind: 'enum', values: Object.freeze([...values]), ...(aliases ? { aliases: Object.freeze({ ...aliases }) } : {}) })
}

/** How a field is serialised on the wire of the original service (spec section 2): many numerics are strings. */
export type WireForm = 'native' | 'string'
