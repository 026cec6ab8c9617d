/**
 * @module Range parameters (`employees=50~200`, `funding_date_range=2020~2021`): a number or
 * date range becomes the comparison or `between` it stands for.
 */
import { isInvalid, parseDate } from '../../catalog/values.js'
import { type IssueCode } from '../../errors/codes.js'
import { previewValue } from '../../errors/format.js'
import { ok } from '../../errors/issue.js'
import { type FilterHash } from './table.js'

/** A parsed range: the operator it becomes and its operand(s). Exported for tests. */
export type Range<T> =
  | { readonly op: 'eq'; readonly value: T }
  | { readonly op: 'gte'; readonly value: T }
  | { readonly op: 'lte'; readonly value: T }
  | { readonly op: 'between'; readonly value: readonly [T, T] }

export type RangeResult<T> = { readonly ok: true; readonly value: Range<T> } | { readonly ok: false; readonly code: IssueCode; readonly reason: string }

export const NUMBER_TEXT = /^[+-]?[0-9]+(?:\.[0-9]+)?$/

/**
 * `from~to`, `from~`, `~to` or one number. `kind: 'integer'` refuses decimals and integers beyond
 * 2^53 (they could not be compared exactly). Never throws, whatever the text.
 */
export function parseNumericRange(text: string, kind: 'integer' | 'number'): RangeResult<number> {
  const what = kind === 'integer' ? 'a whole number' : 'a number'
  return parseRange(text, (bound) => {
    if (!NUMBER_TEXT.test(bound)) return undefined
    const n = Number(bound)
    if (kind === 'integer' ? !Number.isSafeInteger(n) : !Number.isFinite(n)) return undefined
    return n === 0 ? 0 : n
  }, what)
}

/** `from~to`, `from~`, `~to` or one date, each YYYY-MM-DD or YYYYMMDD; values as YYYY-MM-DD. */
export function parseDateRange(text: string): RangeResult<string> {
  return parseRange(text, (bound) => {
    const d = parseDate(bound)
    return isInvalid(d) ? undefined : d
  }, 'a date (YYYY-MM-DD or YYYYMMDD)')
}

export function parseRange<T extends number | string>(text: string, readBound: (bound: string) => T | undefined, what: string): RangeResult<T> {
  const parts = text.split('~')
  if (parts.length > 2) return { ok: false, code: 'invalid_value', reason: 'a range has at most one `~`' }
  const read = (bound: string): T | RangeResult<T> => {
    const value = readBound(bound.trim())
    return value === undefined ? { ok: false, code: 'invalid_value', reason: `${previewValue(bound.trim())} is not ${what}` } : value
  }
  const isFailure = (v: T | RangeResult<T>): v is RangeResult<T> => typeof v === 'object'
  if (parts.length === 1) {
    const v = read(parts[0]!)
    return isFailure(v) ? v : { ok: true, value: { op: 'eq', value: v } }
  }
  const [loText, hiText] = [parts[0]!.trim(), parts[1]!.trim()]
  if (loText === '' && hiText === '') return { ok: false, code: 'invalid_value', reason: 'a range needs at least one bound' }
  if (hiText === '') {
    const lo = read(loText)
    return isFailure(lo) ? lo : { ok: true, value: { op: 'gte', value: lo } }
  }
  if (loText === '') {
    const hi = read(hiText)
    return isFailure(hi) ? hi : { ok: true, value: { op: 'lte', value: hi } }
  }
  const lo = read(loText)
  if (isFailure(lo)) return lo
  const hi = read(hiText)
  if (isFailure(hi)) return hi
  if (lo > hi) return { ok: false, code: 'invalid_range', reason: `the lower bound ${lo} is above the upper bound ${hi}` }
  return { ok: true, value: { op: 'between', value: [lo, hi] } }
}

export function rangeOperator<T>(range: Range<T>): FilterHash {
  return { [range.op]: range.value }
}

/**
 * A `date_range` parameter's single date means "from that date" (`added_date=2020-01-01` is
 * `2020-01-01~`): the original service's PHP client sends the start date alone when its user gives
 * no end date. Ranges with a `~` stay as they are.
 */
export function fromSingleDate(range: Range<string>): Range<string> {
  return range.op === 'eq' ? { op: 'gte', value: range.value } : range
}

/** A date range on a datetime field covers whole days: `from` at 00:00:00, `to` until 23:59:59. */
export function wholeDays(range: Range<string>): Range<string> {
  const start = (d: string) => `${d} 00:00:00`
  const end = (d: string) => `${d} 23:59:59`
  switch (range.op) {
    case 'eq': return { op: 'between', value: [start(range.value), end(range.value)] }
    case 'gte': return { op: 'gte', value: start(range.value) }
    case 'lte': return { op: 'lte', value: end(range.value) }
    case 'between': return { op: 'between', value: [start(range.value[0]), end(range.value[1])] }
  }
}
