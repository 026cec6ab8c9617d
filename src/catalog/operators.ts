/**
 * @module The operators of the filter language (grammar-docs/language.md, "Operators"): which
 * value each takes and which field types allow it. The parser, the checker and the generated
 * operator reference all read this table.
 */
import type { FieldTypeKind } from './field-types.js'

export type OperatorName =
  | 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'in' | 'nin' | 'is_null'
  | 'contains' | 'starts_with' | 'ends_with'
  | 'has_any' | 'has_all' | 'has_none' | 'is_empty'

/** The JSON shape of an operator's operand, checked by the parser before any field is known. */
export type OperandShape = 'scalar' | 'pair' | 'list' | 'boolean' | 'text'

export interface OperatorDef {
  readonly name: OperatorName
  readonly operand: OperandShape
  readonly appliesTo: readonly FieldTypeKind[]
  readonly description: string
  /** Whether this operator is the exact complement of another (null-inclusive negation). */
  readonly negationOf?: OperatorName
}

const SCALAR_KINDS = ['integer', 'number', 'string', 'date', 'datetime', 'boolean', 'enum'] as const satisfies readonly FieldTypeKind[]
const ORDERED = ['integer', 'number', 'string', 'date', 'datetime'] as const satisfies readonly FieldTypeKind[]

/**
 * The table with its literal types (each operator's name, operand shape and field kinds), from which
 * the typed API (src/typed/) derives which operators a field takes and the shape of their values.
 */
const OPERATOR_DEFS = [
  { name: 'eq', operand: 'scalar', appliesTo: [...SCALAR_KINDS, 'tags'], description: 'Equal to the value. A bare scalar means `eq`; `eq: null` means `is_null: true`. On a tags field: has this value.' },
  { name: 'ne', operand: 'scalar', appliesTo: SCALAR_KINDS, description: 'Not equal to the value; records whose field is null are included (exact complement of `eq`).', negationOf: 'eq' },
  { name: 'gt', operand: 'scalar', appliesTo: ORDERED, description: 'Greater than the value.' },
  { name: 'gte', operand: 'scalar', appliesTo: ORDERED, description: 'Greater than or equal to the value.' },
  { name: 'lt', operand: 'scalar', appliesTo: ORDERED, description: 'Less than the value.' },
  { name: 'lte', operand: 'scalar', appliesTo: ORDERED, description: 'Less than or equal to the value.' },
  { name: 'between', operand: 'pair', appliesTo: ORDERED, description: 'Between `[lo, hi]`, both inclusive; lo must not exceed hi.' },
  { name: 'in', operand: 'list', appliesTo: [...SCALAR_KINDS, 'tags'], description: 'Equal to one of the listed values (non-empty, no null). On a tags field: same as `has_any`.' },
  { name: 'nin', operand: 'list', appliesTo: SCALAR_KINDS, description: 'Equal to none of the listed values; records whose field is null are included (exact complement of `in`).', negationOf: 'in' },
  { name: 'is_null', operand: 'boolean', appliesTo: SCALAR_KINDS, description: '`true`: the field has no value; `false`: it has one.' },
  { name: 'contains', operand: 'text', appliesTo: ['string'], description: 'Contains the text, literally (no wildcards), case-insensitive.' },
  { name: 'starts_with', operand: 'text', appliesTo: ['string'], description: 'Starts with the text, literally, case-insensitive.' },
  { name: 'ends_with', operand: 'text', appliesTo: ['string'], description: 'Ends with the text, literally, case-insensitive.' },
  { name: 'has_any', operand: 'list', appliesTo: ['tags'], description: 'Has at least one of the listed values.' },
  { name: 'has_all', operand: 'list', appliesTo: ['tags'], description: 'Has every one of the listed values.' },
  { name: 'has_none', operand: 'list', appliesTo: ['tags'], description: 'Has none of the listed values (exact complement of `has_any`).', negationOf: 'has_any' },
  { name: 'is_empty', operand: 'boolean', appliesTo: ['tags'], description: '`true`: the field has no values; `false`: it has at least one.' },
] as const satisfies readonly OperatorDef[]

export type OperatorTable = typeof OPERATOR_DEFS

const defs: readonly OperatorDef[] = OPERATOR_DEFS

export const OPERATORS: Readonly<Record<OperatorName, OperatorDef>> = Object.freeze(
  Object.fromEntries(defs.map((d) => [d.name, Object.freeze(d)])) as Record<OperatorName, OperatorDef>,
)

export const OPERATOR_NAMES: readonly OperatorName[] = Object.freeze(defs.map((d) => d.name))

export function isOperatorName(name: string): name is OperatorName {
  return Object.prototype.hasOwnProperty.call(OPERATORS, name)
}

/** The operators a field of this type accepts, in table order. */
export function operatorsFor(kind: FieldTypeKind): OperatorName[] {
  return defs.filter((d) => d.appliesTo.includes(kind)).map((d) => d.name)
}

/** The keys of a filter hash that are not field names. */
export const LOGICAL_KEYS = Object.freeze(['and', 'or', 'not', 'foreign'] as const)
export type LogicalKey = (typeof LOGICAL_KEYS)[number]

export const FOREIGN_MATCH_MODES = Object.freeze(['any', 'none', 'all'] as const)
export type ForeignMatch = (typeof FOREIGN_MATCH_MODES)[number]
