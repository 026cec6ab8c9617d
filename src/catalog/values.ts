/**
 * @module The one place where a raw JSON value becomes a value of a catalog field type: the
 * filter checker (`src/check/values.ts`, operands) and the loader (`src/store/record-schemas.ts`,
 * imported records) both call these parsers, so a value means the same thing whether it arrives
 * in a filter or in a record (spec 2: numerics are often strings, dates come as YYYYMMDD and
 * YYYY-MM-DD). The accepted forms are documented once, in grammar-docs/language.md, "Values".
 *
 * Why here, beside `field-types.ts`: what a field type accepts is part of what the type *is*;
 * check and store already depend on the catalog and on nothing of each other, so putting the
 * parsers in the catalog adds no dependency between stages.
 *
 * Why this shape: the loader calls these ~100 times per record for a million records. A parser
 * returns the value itself, or one of a few frozen `Invalid` constants (never a fresh object), so
 * success allocates nothing beyond the value and failure nothing at all; every regular expression
 * is compiled once at module load. The checker wraps the result for its messages.
 */
import type { EnumType, FieldType } from './field-types.js'

/** A value in the stored form of its field type: numbers, 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' (UTC), booleans, enum values. */
export type FieldValue = string | number | boolean

/** Why a value was refused: not of the type at all, or not one of an enum's values; `reason` adds words after the value. */
export interface Invalid {
  readonly invalid: true
  readonly kind: 'type' | 'enum'
  readonly reason?: string
}

const invalid = (kind: 'type' | 'enum', reason?: string): Invalid => Object.freeze({ invalid: true as const, kind, ...(reason ? { reason } : {}) })
const NOT_OF_TYPE = invalid('type')
const NOT_WHOLE = invalid('type', 'which is not a whole number')
const NOT_EXACT = invalid('type', 'which is too large to compare exactly')
const NOT_CALENDAR_DATE = invalid('type', 'which is not a calendar date')
const NOT_TIME_OF_DAY = invalid('type', 'which is not a time of day')
const NOT_AN_OFFSET = invalid('type', 'which has no valid time zone offset')
const OUT_OF_RANGE = invalid('type', 'which is out of range')
const NOT_IN_ENUM = invalid('enum')

/** True for a parser's refusal (values are never objects). */
export function isInvalid(result: FieldValue | Invalid): result is Invalid {
  return typeof result === 'object'
}

export type ValueParser<T extends FieldValue = FieldValue> = (value: unknown) => T | Invalid

/** An optional sign, digits with an optional decimal point, an optional exponent: what JSON and the usual serialisers (`str(1e16)`, `String(1e21)`) write. */
const NUMERIC_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** True when `text` (already trimmed) is a numeric string in the sense of `parseNumber`. */
export function isNumericText(text: string): boolean {
  return NUMERIC_TEXT.test(text)
}

/** The number written by the digits of `text` from `start` to `end`, or -1 if any is not a digit (no substring, no allocation). */
function digitsAt(text: string, start: number, end: number): number {
  let n = 0
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    n = n * 10 + c
  }
  return n
}

/** A finite number, or a numeric string (surrounding spaces ignored); -0 is 0. */
export const parseNumber: ValueParser<number> = (value) => {
  let n: number
  if (typeof value === 'number') n = value
  else if (typeof value === 'string') {
    const text = value.trim()
    if (!NUMERIC_TEXT.test(text)) return NOT_OF_TYPE
    n = Number(text)
  } else return NOT_OF_TYPE
  if (!Number.isFinite(n)) return NOT_OF_TYPE
  return n === 0 ? 0 : n
}

/** A number as `parseNumber` reads it that is whole and exact (`"1e3"` and `"12.000"` are integers; `"12.5"` and 2^53 are not). */
export const parseInteger: ValueParser<number> = (value) => {
  // Generated and well-formed data is a plain safe integer: no trim, no regex.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value === 0 ? 0 : value
  // A string of up to 15 plain digits (the spec's numerics-as-strings) is read by character.
  if (typeof value === 'string' && value.length > 0 && value.length < 16) {
    const digits = digitsAt(value, 0, value.length)
    if (digits >= 0) return digits
  }
  const n = parseNumber(value)
  if (typeof n !== 'number') return n
  if (!Number.isInteger(n)) return NOT_WHOLE
  if (!Number.isSafeInteger(n)) return NOT_EXACT
  return n
}

/**
 * A NUL character or a UTF-16 surrogate without its pair. Neither is text every backend can hold:
 * PostgreSQL refuses both (`invalid byte sequence for encoding "UTF8": 0x00`, `unsupported Unicode
 * escape sequence` in jsonb), so a filter with one would be a driver fault there and a silent
 * non-match on SQLite. Refused as a value instead, the same on both.
 */
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const NOT_STORABLE_TEXT = invalid('type', 'which contains a NUL character or an unpaired UTF-16 surrogate')

/** Text as given (not trimmed: it is compared and stored as sent); a finite number becomes its decimal text. */
export const parseString: ValueParser<string> = (value) => {
  if (typeof value === 'string') return UNSTORABLE_TEXT.test(value) ? NOT_STORABLE_TEXT : value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return NOT_OF_TYPE
}

/** true/false, 1/0, and the strings 'true'/'false'/'1'/'0' (query strings carry `has_mobile=1`). */
export const parseBoolean: ValueParser<boolean> = (value) => {
  if (value === true || value === 1 || value === 'true' || value === '1') return true
  if (value === false || value === 0 || value === 'false' || value === '0') return false
  return NOT_OF_TYPE
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

/** A day of the proleptic Gregorian calendar from year 1 (`2023-02-30` and `0000-01-01` are not). */
function isCalendarDate(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]!)
}

const DATE_COMPACT = /^(\d{4})(\d{2})(\d{2})$/

/**
 * 'YYYY-MM-DD', or the compact 'YYYYMMDD' that spec 2.3 shows for `last_funding_date` (as a
 * string, or as the integer a naive decoder makes of it), stored as 'YYYY-MM-DD'.
 */
export const parseDate: ValueParser<string> = (value) => {
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' && Number.isInteger(value) ? String(value) : undefined
  if (text === undefined) return NOT_OF_TYPE
  if (text.length === 10 && text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45) {
    // The stored form itself, the common case: read by character, returned as is.
    const y = digitsAt(text, 0, 4)
    const m = digitsAt(text, 5, 7)
    const d = digitsAt(text, 8, 10)
    if (y < 0 || m < 0 || d < 0) return NOT_OF_TYPE
    return isCalendarDate(y, m, d) ? text : NOT_CALENDAR_DATE
  }
  const c = DATE_COMPACT.exec(text)
  if (!c) return NOT_OF_TYPE
  return isCalendarDate(Number(c[1]), Number(c[2]), Number(c[3])) ? `${c[1]}-${c[2]}-${c[3]}` : NOT_CALENDAR_DATE
}

/**
 * A dashed date, then optionally a time (`T` or a space; seconds and fractions optional), then
 * optionally a zone: `Z`, `UTC` (spec 2.3.5's ' UTC' suffix) or an offset `+HH:MM` / `+HHMM`
 * (its '+0000').
 */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$/i

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/**
 * 'YYYY-MM-DD HH:MM:SS' in UTC. Accepts `T` for the space, no seconds, fractional seconds
 * (dropped), a zone (`Z`, `UTC`, an offset such as `+02:00` or `+0000`, converted to UTC), and
 * a plain date in either form of `parseDate` (midnight UTC).
 */
export const parseDatetime: ValueParser<string> = (value) => {
  if (typeof value !== 'string') return NOT_OF_TYPE
  const text = value.trim()
  if (text.length === 19 && text.charCodeAt(10) === 32 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58) {
    // The stored form itself (every generated record, most imported ones): read by character,
    // returned as is, no match object. Anything else near it falls through to the full grammar.
    const y = text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 ? digitsAt(text, 0, 4) : -1
    const mo = digitsAt(text, 5, 7)
    const d = digitsAt(text, 8, 10)
    const h = digitsAt(text, 11, 13)
    const mi = digitsAt(text, 14, 16)
    const s = digitsAt(text, 17, 19)
    if (y >= 0 && mo >= 0 && d >= 0 && h >= 0 && mi >= 0 && s >= 0) {
      if (!isCalendarDate(y, mo, d)) return NOT_CALENDAR_DATE
      return h > 23 || mi > 59 || s > 59 ? NOT_TIME_OF_DAY : text
    }
  }
  const m = DATETIME.exec(text)
  if (!m) {
    const day = DATE_COMPACT.test(text) ? parseDate(text) : NOT_OF_TYPE
    return typeof day === 'string' ? `${day} 00:00:00` : day
  }
  const y = Number(m[1])
  const mo = Number(m[2])
  const d = Number(m[3])
  const h = m[4] === undefined ? 0 : Number(m[4])
  const mi = m[5] === undefined ? 0 : Number(m[5])
  const s = m[6] === undefined ? 0 : Number(m[6])
  if (!isCalendarDate(y, mo, d)) return NOT_CALENDAR_DATE
  if (h > 23 || mi > 59 || s > 59) return NOT_TIME_OF_DAY
  const zone = m[7]
  let offsetMinutes = 0
  if (zone !== undefined && zone.length > 3) {
    const oh = Number(zone.slice(1, 3))
    const om = Number(zone.slice(zone.length - 2))
    if (oh > 23 || om > 59) return NOT_AN_OFFSET
    offsetMinutes = (zone.charCodeAt(0) === 45 ? -1 : 1) * (oh * 60 + om)
  }
  if (offsetMinutes === 0) {
    // UTC already (the loader's case): the text's own digits, no Date.
    return `${m[1]}-${m[2]}-${m[3]} ${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}`
  }
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear takes the year as given.
  const t = new Date(new Date(0).setUTCFullYear(y, mo - 1, d) + ((h * 60 + mi - offsetMinutes) * 60 + s) * 1000)
  const ty = t.getUTCFullYear()
  if (ty < 1 || ty > 9999) return OUT_OF_RANGE
  return `${pad(ty, 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`
}

const enumParsers = new WeakMap<EnumType, ValueParser<string>>()

/**
 * The parser of an enum type (built once per type): a value or a listed alias, matched
 * case-insensitively with surrounding spaces ignored, gives the catalog's spelling. A value wins
 * over an alias of the same spelling.
 */
export function enumParser(type: EnumType): ValueParser<string> {
  const known = enumParsers.get(type)
  if (known) return known
  const lookup = new Map<string, string>()
  for (const [alias, target] of Object.entries(type.aliases ?? {})) lookup.set(alias.trim().toLowerCase(), target)
  for (const v of type.values) lookup.set(v.toLowerCase(), v)
  // Exact spellings first: generated and well-formed data never pays for trim and lower-casing.
  const exact = new Map<string, string>(type.values.map((v) => [v, v]))
  const parse: ValueParser<string> = (value) => {
    if (typeof value !== 'string') return NOT_OF_TYPE
    return exact.get(value) ?? lookup.get(value.trim().toLowerCase()) ?? NOT_IN_ENUM
  }
  enumParsers.set(type, parse)
  return parse
}

/** The parser of one value of a field type; for `tags`, of one tag (a string). */
export function parserFor(type: FieldType): ValueParser {
  switch (type.kind) {
    case 'integer': return parseInteger
    case 'number': return parseNumber
    case 'string':
    case 'tags': return parseString
    case 'date': return parseDate
    case 'datetime': return parseDatetime
    case 'boolean': return parseBoolean
    case 'enum': return enumParser(type)
  }
}

/** Parses one non-null value of a field type (see `parserFor`). */
export function parseValue(type: FieldType, value: unknown): FieldValue | Invalid {
  return parserFor(type)(value)
}
