/**
 * @module Converting filter values to their field's type (grammar-docs/language.md, "Values"):
 * numeric strings to numbers, date spellings to 'YYYY-MM-DD', datetimes to 'YYYY-MM-DD HH:MM:SS'
 * (UTC), 0/1 to booleans, enum spellings and aliases to the catalog's value. One function serves
 * the rules that report bad values and `./normalize.ts` that keeps the converted ones, so what is
 * accepted and what is produced cannot drift apart.
 */
import type { ConditionNode } from '../ast/nodes.js'
import type { FieldDef } from '../catalog/define.js'
import type { EnumType, FieldType } from '../catalog/field-types.js'
import { OPERATORS } from '../catalog/operators.js'
import { childPath } from '../errors/issue.js'

export type Converted = string | number | boolean

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

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const DATE = /^(\d{4})(?:-(\d{2})-|(\d{2}))(\d{2})$/
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$/i

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

/** Converts one non-null value to the field type's normal form. */
export function convertValue(type: FieldType, value: unknown): One {
  switch (type.kind) {
    case 'integer':
    case 'number': {
      const n = toNumber(value)
      if (n === undefined) return { ok: false, kind: 'type' }
      if (type.kind === 'integer' && !Number.isInteger(n)) return { ok: false, kind: 'type', reason: 'which is not a whole number' }
      if (type.kind === 'integer' && !Number.isSafeInteger(n)) return { ok: false, kind: 'type', reason: 'which is too large to compare exactly' }
      return { ok: true, value: n === 0 ? 0 : n }
    }
    case 'string':
    case 'tags':
      if (typeof value === 'string') return { ok: true, value }
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value: String(value) }
      return { ok: false, kind: 'type' }
    case 'date':
      return typeof value === 'string' ? toDate(value) : { ok: false, kind: 'type' }
    case 'datetime':
      return typeof value === 'string' ? toDatetime(value) : { ok: false, kind: 'type' }
    case 'boolean':
      if (value === true || value === 1 || value === 'true' || value === '1') return { ok: true, value: true }
      if (value === false || value === 0 || value === 'false' || value === '0') return { ok: true, value: false }
      return { ok: false, kind: 'type' }
    case 'enum': {
      if (typeof value !== 'string') return { ok: false, kind: 'type' }
      const resolved = resolveEnum(type, value)
      return resolved === undefined ? { ok: false, kind: 'enum' } : { ok: true, value: resolved }
    }
  }
}

/** The catalog spelling of an enum value or alias, matched case-insensitively. */
export function resolveEnum(type: EnumType, value: string): string | undefined {
  const lower = value.trim().toLowerCase()
  const direct = type.values.find((v) => v.toLowerCase() === lower)
  if (direct !== undefined) return direct
  for (const [alias, target] of Object.entries(type.aliases ?? {})) {
    if (alias.toLowerCase() === lower) return target
  }
  return undefined
}

/**
 * Converts a condition's operand for `field`, collecting a problem per bad element. Null handling
 * (grammar-docs/language.md, "Null"): `eq: null` is allowed (it means `is_null: true`); null
 * anywhere else is a problem.
 */
export function convertOperand(node: ConditionNode, field: FieldDef): ConvertedOperand {
  const problems: ValueProblem[] = []
  const expected = expectedFor(field.type)
  const one = (value: unknown, path: string): unknown => {
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
    case 'text':
      if (typeof value !== 'string') problems.push({ kind: 'shape', path: node.path, value, expected: 'a non-empty text (string)' })
      return { value, problems }
  }
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value !== 'string' || !NUMERIC.test(value.trim())) return undefined
  const n = Number(value.trim())
  return Number.isFinite(n) ? n : undefined
}

function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate()
  return d <= days && y >= 1
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** Year, month and day text of 'YYYY-MM-DD' or 'YYYYMMDD' (both dashes or none). */
function dateParts(text: string): [string, string, string] | undefined {
  const m = DATE.exec(text)
  return m ? [m[1]!, (m[2] ?? m[3])!, m[4]!] : undefined
}

function toDate(text: string): One {
  const m = dateParts(text.trim())
  if (!m) return { ok: false, kind: 'type' }
  const [y, mo, d] = [Number(m[0]), Number(m[1]), Number(m[2])]
  if (!isCalendarDate(y, mo, d)) return { ok: false, kind: 'type', reason: 'which is not a calendar date' }
  return { ok: true, value: `${m[0]}-${m[1]}-${m[2]}` }
}

function toDatetime(text: string): One {
  const trimmed = text.trim()
  const compact = dateParts(trimmed)
  const m = DATETIME.exec(compact ? compact.join('-') : trimmed)
  if (!m) return { ok: false, kind: 'type' }
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const [h, mi, s] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)]
  if (!isCalendarDate(y, mo, d)) return { ok: false, kind: 'type', reason: 'which is not a calendar date' }
  if (h > 23 || mi > 59 || s > 59) return { ok: false, kind: 'type', reason: 'which is not a time of day' }
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear takes the year as given.
  let ms = new Date(0).setUTCFullYear(y, mo - 1, d) + ((h * 60 + mi) * 60 + s) * 1000
  const zone = m[7]?.toUpperCase()
  if (zone && zone !== 'Z' && zone !== 'UTC') {
    const sign = zone.startsWith('-') ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2))]
    if (oh > 23 || om > 59) return { ok: false, kind: 'type', reason: 'which has no valid time zone offset' }
    ms -= sign * (oh * 60 + om) * 60_000
  }
  const t = new Date(ms)
  if (t.getUTCFullYear() < 1 || t.getUTCFullYear() > 9999) return { ok: false, kind: 'type', reason: 'which is out of range' }
  return {
    ok: true,
    value: `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`,
  }
}

/** Order of two converted values of one field: numbers numerically, text by UTF-8 bytes (as SQLite's BINARY). */
export function compareConverted(a: Converted, b: Converted): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)))
}
