/**
 * @module Maps zod issues to ours. zod knows which schema failed; only we know what that place
 * means in the language ("the list of `in` on field employees"), so each zod issue is located by
 * walking its path through the grammar, and the message is written for that place: what was
 * expected there and what was got. Codes come from src/errors/codes.ts.
 */
import type { z } from 'zod'
import { FOREIGN_MATCH_MODES, OPERATOR_NAMES, OPERATORS, type OperatorName } from '../catalog/operators.js'
import { DATASET_NAMES } from '../catalog/index.js'
import { didYouMean, suggestionList } from '../errors/did-you-mean.js'
import { previewValue, quoteName } from '../errors/format.js'
import { childPath, issue, type Issue } from '../errors/issue.js'
import type { IssueCode } from '../errors/codes.js'
import { FOREIGN_KEYS, QUERY_KEYS, type SchemaCheck } from './filter-schema.js'

/** Where in the grammar a path points. */
type Place =
  | { readonly kind: 'query' }
  | { readonly kind: 'dataset' }
  | { readonly kind: 'page'; readonly key: 'page' | 'per_page' }
  | { readonly kind: 'sort' }
  | { readonly kind: 'sort_clause' }
  | { readonly kind: 'sort_direction'; readonly field: string }
  | { readonly kind: 'filter'; readonly top: boolean }
  | { readonly kind: 'logical_list'; readonly key: 'and' | 'or' }
  | { readonly kind: 'foreign' }
  | { readonly kind: 'foreign_dataset' }
  | { readonly kind: 'foreign_match' }
  | { readonly kind: 'field'; readonly field: string }
  | { readonly kind: 'operand'; readonly field: string; readonly op: OperatorName }
  | { readonly kind: 'element'; readonly field: string; readonly op: OperatorName; readonly index: number }
  | { readonly kind: 'other' }

export type Root = 'query' | 'filter'

function locate(root: Root, segments: readonly PropertyKey[]): Place {
  let place: Place = root === 'query' ? { kind: 'query' } : { kind: 'filter', top: true }
  for (const raw of segments) {
    const seg = typeof raw === 'number' ? raw : String(raw)
    place = step(place, seg)
  }
  return place
}

function step(place: Place, seg: string | number): Place {
  switch (place.kind) {
    case 'query':
      if (seg === 'filter') return { kind: 'filter', top: true }
      if (seg === 'dataset') return { kind: 'dataset' }
      if (seg === 'sort') return { kind: 'sort' }
      if (seg === 'page' || seg === 'per_page') return { kind: 'page', key: seg }
      return { kind: 'other' }
    case 'sort':
      return { kind: 'sort_clause' }
    case 'sort_clause':
      return { kind: 'sort_direction', field: String(seg) }
    case 'filter':
      if (seg === 'and' || seg === 'or') return { kind: 'logical_list', key: seg }
      if (seg === 'not') return { kind: 'filter', top: false }
      if (seg === 'foreign') return { kind: 'foreign' }
      return { kind: 'field', field: String(seg) }
    case 'logical_list':
      return { kind: 'filter', top: false }
    case 'foreign':
      if (seg === 'filter') return { kind: 'filter', top: false }
      if (seg === 'dataset') return { kind: 'foreign_dataset' }
      if (seg === 'match') return { kind: 'foreign_match' }
      return { kind: 'other' }
    case 'field':
      return Object.prototype.hasOwnProperty.call(OPERATORS, seg)
        ? { kind: 'operand', field: place.field, op: seg as OperatorName }
        : { kind: 'other' }
    case 'operand':
      return typeof seg === 'number' ? { kind: 'element', field: place.field, op: place.op, index: seg } : { kind: 'other' }
    default:
      return { kind: 'other' }
  }
}

/** The raw input value at `segments` (own properties only), or undefined. */
function valueAt(input: unknown, segments: readonly PropertyKey[]): unknown {
  let value = input
  for (const seg of segments) {
    if (typeof value !== 'object' || value === null) return undefined
    if (!Object.prototype.hasOwnProperty.call(value, seg)) return undefined
    value = (value as Record<PropertyKey, unknown>)[seg]
  }
  return value
}

function pointer(base: string, segments: readonly PropertyKey[]): string {
  return segments.reduce<string>((path, seg) => childPath(path, typeof seg === 'symbol' ? seg.toString() : seg), base)
}

/**
 * Our issues for a zod error on `input`. `root` says what the schema validated (a whole query or
 * a filter hash), `base` is the JSON Pointer of `input` in the request.
 */
export function mapZodIssues(zodIssues: readonly z.core.$ZodIssue[], input: unknown, root: Root, base: string): Issue[] {
  const out: Issue[] = []
  const seen = new Set<string>()
  const add = (i: Issue): void => {
    const key = `${i.code} ${i.path}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push(i)
    }
  }
  const visit = (zi: z.core.$ZodIssue, prefix: readonly PropertyKey[]): void => {
    const segments = [...prefix, ...zi.path]
    const place = locate(root, segments)
    const value = valueAt(input, segments)
    const path = pointer(base, segments)
    // A field value failed both "scalar" and "operator hash": report the branch its shape chose.
    if (zi.code === 'invalid_union' && place.kind === 'field' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const branchIssue of zi.errors[1] ?? []) visit(branchIssue, segments)
      return
    }
    if (zi.code === 'unrecognized_keys') {
      for (const key of zi.keys) add(unknownKey(place, childPath(path, key), key))
      return
    }
    add(describe(zi, place, value, path, segments, input))
  }
  for (const zi of zodIssues) visit(zi, [])
  return out
}

function unknownKey(place: Place, path: string, key: string): Issue {
  if (place.kind === 'field') {
    // Mongo-style `$gte` is a common slip; suggest the operator without the `$`.
    const suggestions = suggestionList(key.replace(/^\$/, ''), OPERATOR_NAMES)
    return issue({
      code: 'unknown_operator',
      path,
      message: `Unknown operator ${quoteName(key)} on field ${quoteName(place.field)}.${didYouMean(suggestions)}`,
      expected: 'an operator',
      got: previewValue(key),
      suggestions,
      allowed: OPERATOR_NAMES,
    })
  }
  const [where, keys] = place.kind === 'foreign' ? ['`foreign`', FOREIGN_KEYS] : ['the query', QUERY_KEYS]
  const suggestions = suggestionList(key, keys)
  return issue({
    code: 'unknown_key',
    path,
    message: `Unknown key ${quoteName(key)} in ${where}; expected ${orList(keys)}.${didYouMean(suggestions)}`,
    expected: orList(keys),
    got: previewValue(key),
    suggestions,
    allowed: keys,
  })
}

function describe(zi: z.core.$ZodIssue, place: Place, value: unknown, path: string, segments: readonly PropertyKey[], input: unknown): Issue {
  const got = previewValue(value)
  const make = (code: IssueCode, expected: string, message: string): Issue => issue({ code, path, message, expected, got })
  const wrong = (code: IssueCode, expected: string, subject: string): Issue =>
    make(code, expected, `${subject} takes ${expected}; got ${got}.`)
  const check = zi.code === 'custom' ? ((zi.params as { check?: SchemaCheck } | undefined)?.check) : undefined
  const missing = value === undefined && !hasOwn(valueAt(input, segments.slice(0, -1)), segments[segments.length - 1])

  switch (place.kind) {
    case 'query':
      return wrong('invalid_type', 'a hash with `dataset` and optionally `filter`, `sort`, `page`, `per_page`', 'A query')
    case 'dataset':
      if (missing) {
        return issue({
          code: 'missing_key', path, expected: orList(DATASET_NAMES), got,
          message: `The query has no \`dataset\`; expected one of: ${DATASET_NAMES.join(', ')}.`,
          allowed: DATASET_NAMES,
        })
      }
      return wrong('invalid_type', 'a dataset name (a non-empty string)', '`dataset`')
    case 'page':
      return wrong('invalid_page', 'a positive integer', `\`${place.key}\``)
    case 'sort':
      return wrong('invalid_sort', 'an array of one-key hashes like {"name": "asc"}', '`sort`')
    case 'sort_clause':
      return make('invalid_sort', 'a hash with exactly one field, like {"name": "asc"}',
        `Each sort clause must be a hash with exactly one field, like {"name": "asc"}; got ${got}.`)
    case 'sort_direction':
      return make('invalid_sort', '"asc" or "desc"', `The sort direction of "${place.field}" must be "asc" or "desc"; got ${got}.`)
    case 'filter':
      if (check === 'nested_filter_not_empty') {
        return make('empty_filter', 'a non-empty filter hash',
          'An empty filter hash {} means "every record" only as the whole filter; here it would match everything by accident.')
      }
      if (missing) return make('missing_key', 'a filter hash', '`foreign` needs `filter`: the filter that related records must match.')
      return wrong('invalid_type', 'a filter hash (a JSON object of fields and operators)', place.top ? 'The filter' : 'This filter')
    case 'logical_list':
      if (zi.code === 'too_small') {
        const outcome = place.key === 'and' ? 'everything' : 'nothing'
        return make('empty_list', 'at least one filter', `\`${place.key}\` needs at least one filter; an empty list would silently match ${outcome}.`)
      }
      return wrong('invalid_type', 'a non-empty array of filter hashes', `\`${place.key}\``)
    case 'foreign':
      return wrong('invalid_type', 'a hash {"dataset", "filter", "match"?}', '`foreign`')
    case 'foreign_dataset':
      if (missing) {
        return issue({
          code: 'missing_key', path, expected: orList(DATASET_NAMES), got, allowed: DATASET_NAMES,
          message: `\`foreign\` needs \`dataset\`: the dataset of the related records (${DATASET_NAMES.join(', ')}).`,
        })
      }
      return wrong('invalid_type', 'a dataset name (a non-empty string)', 'The `dataset` of `foreign`')
    case 'foreign_match':
      return issue({
        code: 'invalid_value', path, got, allowed: FOREIGN_MATCH_MODES,
        expected: orList(FOREIGN_MATCH_MODES.map((m) => `"${m}"`)),
        message: `The \`match\` of \`foreign\` must be "any", "none" or "all"; got ${got}.`,
      })
    case 'field': {
      if (check === 'operators_not_empty') {
        return make('empty_filter', 'at least one operator',
          `Field "${place.field}" has an empty operator hash; give at least one operator, like {"eq": ...}.`)
      }
      const hint = Array.isArray(value) ? ' To match any of several values, write {"in": [...]}.' : ''
      return make('invalid_type', 'a value (string, number, boolean or null) or a hash of operators',
        `Field "${place.field}" takes a value (string, number, boolean or null) or a hash of operators; got ${got}.${hint}`)
    }
    case 'operand':
      return operandIssue(zi, place.field, place.op, value, path, got)
    case 'element': {
      const subject = `"${place.op}" on field "${place.field}"`
      if (value === null && OPERATORS[place.op].operand === 'pair') {
        return make('invalid_value', 'a string, number or boolean',
          `The bounds of ${subject} cannot be null (item ${place.index}); for an open range use "gte" or "lte".`)
      }
      if (value === null) {
        return make('invalid_value', 'a string, number or boolean',
          `Lists cannot contain null (item ${place.index} of ${subject}); use {"is_null": true} to match missing values.`)
      }
      const expected = OPERATORS[place.op].operand === 'pair' ? 'a string, number or boolean (not null)' : 'a string, number or boolean'
      return make('invalid_type', expected, `Item ${place.index} of ${subject} must be ${expected}; got ${got}.`)
    }
    case 'other':
      return make('invalid_type', 'a valid value', `Unexpected value ${got}.`)
  }
}

function operandIssue(zi: z.core.$ZodIssue, field: string, op: OperatorName, value: unknown, path: string, got: string): Issue {
  const subject = `Operator "${op}" on field "${field}"`
  const make = (code: IssueCode, expected: string, message: string): Issue => issue({ code, path, message, expected, got })
  switch (OPERATORS[op].operand) {
    case 'scalar':
      return make('invalid_type', 'one value (string, number, boolean or null)', `${subject} takes one value (string, number, boolean or null); got ${got}.`)
    case 'pair':
      return make(Array.isArray(value) ? 'invalid_value' : 'invalid_type', 'a pair [lo, hi]', `${subject} takes a pair [lo, hi]; got ${got}.`)
    case 'list':
      if (zi.code === 'too_small') {
        const outcome = op === 'in' || op === 'has_any' ? 'nothing' : 'everything'
        return make('empty_list', 'a non-empty array of values', `${subject} needs at least one value; an empty list would silently match ${outcome}.`)
      }
      return make('invalid_type', 'a non-empty array of values', `${subject} takes a non-empty array of values; got ${got}.`)
    case 'boolean':
      return make('invalid_type', 'true or false', `${subject} takes true or false; got ${got}.`)
    case 'text':
      if (value === '') return make('invalid_value', 'a non-empty text', `${subject} needs a non-empty text; an empty one would match every value.`)
      return make('invalid_type', 'a non-empty text (string)', `${subject} takes a non-empty text (string); got ${got}.`)
  }
}

function hasOwn(value: unknown, key: PropertyKey | undefined): boolean {
  return typeof value === 'object' && value !== null && key !== undefined && Object.prototype.hasOwnProperty.call(value, key)
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`
}
