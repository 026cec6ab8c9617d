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

/** A closed set of values. Matching is case-insensitive; `aliases` maps other spellings seen in the wild to a value. */
export interface EnumType {
  readonly kind: 'enum'
  readonly values: readonly string[]
  readonly aliases?: Readonly<Record<string, string>>
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
export function enumOf(values: readonly string[], aliases?: Record<string, string>): EnumType {
  return Object.freeze({ kind: 'enum', values: Object.freeze([...values]), ...(aliases ? { aliases: Object.freeze({ ...aliases }) } : {}) })
}

/** How a field is serialised on the wire of the original service (spec section 2): many numerics are strings. */
export type WireForm = 'native' | 'string'
