/**
 * @module Converting filter operands to their field's type (grammar-docs/language.md, "Values").
 * What one value becomes is decided by `src/catalog/values.ts`, which the loader uses for imported
 * records too, so a value means the same in a filter and in a record; this module applies it to an
 * operand's shape (scalar, pair, list), handles null, and says in words what was expected. One
 * function serves the rules that report bad values and `./normalize.ts` that keeps the converted
 * ones, so what is accepted and what is produced cannot drift apart.
 */
import type { ConditionNode } from '../ast/nodes.js'
import type { FieldDef } from '../catalog/define.js'
import type { EnumType, FieldType } from '../catalog/field-types.js'
import { OPERATORS } from '../catalog/operators.js'
import { enumParser, isInvalid, parseString, parseValue, type FieldValue } from '../catalog/values.js'
import { childPath } from '../errors/issue.js'

export type Converted = FieldValue

/** Why a value was refused: its type (`type`), not an enum value (`enum`), null where none is allowed, or a malformed operand. */
export interface ValueProblem {
  readonly kind: 'type' | 'enum' | 'null' | 'shape'
  readonly path: string
  readonly value: unknown
  readonly expected: string
  /** Extra words after the value, e.g. "which is not a calendar date". */
  readonly reason?: string
}

export interface ConvertedOperand {
  /** The operand with every convertible element converted (same shape as the input). */
  readonly value: unknown
  readonly problems: readonly ValueProblem[]
}

type One = { ok: true; value: Converted } | { ok: false; kind: 'type' | 'enum'; reason?: string }

/** What a field of this type takes, in words (the `expected` of issues). */
export function expectedFor(type: FieldType): string {
  switch (type.kind) {
    case 'integer':
      return 'an integer (a number or a string of digits)'
    case 'number':
      return 'a number (or a numeric string)'
    case 'string':
    case 'tags':
      return 'a string'
    case 'date':
      return 'a date "YYYY-MM-DD"'
    case 'datetime':
      return 'a datetime "YYYY-MM-DD HH:MM:SS"'
    case 'boolean':
      return 'true or false'
    case 'enum':
      return `one of: ${type.values.join(', ')}`
  }
}

/** Converts one non-null value to the field type's normal form (the catalog's parser, as a result for messages). */
export function convertValue(type: FieldType, value: unknown): One {
  const result = parseValue(type, value)
  return isInvalid(result) ? { ok: false, kind: result.kind, ...(result.reason ? { reason: result.reason } : {}) } : { ok: true, value: result }
}

/** The catalog spelling of an enum value or alias, matched case-insensitively. */
export function resolveEnum(type: EnumType, value: string): string | undefined {
  const result = enumParser(type)(value)
  return isInvalid(result) ? undefined : result
}

/**
 * The operators under which a blank text (`""`, `"  "`) on a string or enum field means "no value"
 * (grammar-docs/language.md, "Null"): every view shows an unknown text as `""`, so a filter on the
 * value shown must find the record. The order operators compare text as written.
 */
const BLANK_IS_NULL_OPERATORS: ReadonlySet<string> = new Set(['eq', 'ne', 'in', 'nin'])

function isBlankText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() === ''
}

/**
 * Converts a condition's operand for `field`, collecting a problem per bad element. Null handling
 * (grammar-docs/language.md, "Null"): `eq: null` is allowed (it means `is_null: true`); null
 * anywhere else is a problem. On a string or enum field a blank text under `eq`, `ne`, `in` or
 * `nin` converts to null, "no value" (`normalize.ts` writes it as `is_null`).
 */
export function convertOperand(node: ConditionNode, field: FieldDef): ConvertedOperand {
  const problems: ValueProblem[] = []
  const expected = expectedFor(field.type)
  const blankIsNull = BLANK_IS_NULL_OPERATORS.has(node.operator) && (field.type.kind === 'string' || field.type.kind === 'enum')
  const one = (value: unknown, path: string): unknown => {
    // An unknown text is shown as "" (grammar-docs/guides/serving.md, "Missing values"): "" selects the records without a value.
    if (blankIsNull && isBlankText(value)) return null
    if (value === null) {
      problems.push({ kind: 'null', path, value, expected })
      return value
    }
    const result = convertValue(field.type, value)
    if (result.ok) return result.value
    problems.push({ kind: result.kind, path, value, expected, ...(result.reason ? { reason: result.reason } : {}) })
    return value
  }
  const shape = OPERATORS[node.operator].operand
  const value: unknown = node.value
  switch (shape) {
    case 'scalar':
      if (value === null && node.operator === 'eq') return { value, problems }
      return { value: one(value, node.path), problems }
    case 'pair':
    case 'list': {
      if (!Array.isArray(value) || (shape === 'pair' && value.length !== 2)) {
        problems.push({ kind: 'shape', path: node.path, value, expected: shape === 'pair' ? 'a pair [lo, hi]' : 'a non-empty list of values' })
        return { value, problems }
      }
      return { value: value.map((v, i) => one(v, childPath(node.path, i))), problems }
    }
    case 'boolean':
      if (typeof value !== 'boolean') problems.push({ kind: 'shape', path: node.path, value, expected: 'true or false' })
      return { value, problems }
    case 'text': {
      if (typeof value !== 'string') {
        problems.push({ kind: 'shape', path: node.path, value, expected: 'a non-empty text (string)' })
        return { value, problems }
      }
      // The same text rule as every string value (catalog/values.ts): no NUL, no unpaired surrogate.
      const text = parseString(value)
      if (isInvalid(text)) problems.push({ kind: text.kind, path: node.path, value, expected: 'a non-empty text (string)', ...(text.reason ? { reason: text.reason } : {}) })
      return { value, problems }
    }
  }
}

/** Order of two converted values of one field: numbers numerically, text by UTF-8 bytes (as SQLite's BINARY). */
export function compareConverted(a: Converted, b: Converted): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)))
}
