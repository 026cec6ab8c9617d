/**
 * Every issue the parser reports, with its exact code, path and message.
 */
import { describe, expect, test } from 'vitest'
import type { Issue } from '../../src/errors/issue.js'
import { parseQuery } from '../../src/parse/index.js'

function issues(input: unknown): Pick<Issue, 'code' | 'path' | 'message'>[] {
  const r = parseQuery(input)
  return r.ok ? [] : r.issues.map(({ code, path, message }) => ({ code, path, message }))
}
const f = (filter: unknown) => ({ dataset: 'companies', filter })

describe('parse issues: the envelope', () => {
  test('not a hash', () => {
    expect(issues([1])).toEqual([{ code: 'invalid_type', path: '', message: 'A query takes a hash with `dataset` and optionally `filter`, `sort`, `page`, `per_page`; got [1].' }])
    expect(issues(null)).toHaveLength(1)
  })

  test('missing and mistyped dataset', () => {
    expect(issues({})).toEqual([{ code: 'missing_key', path: '/dataset', message: 'The query has no `dataset`; expected one of: companies, investors, fundings.' }])
    expect(issues({ dataset: 3 })).toEqual([{ code: 'invalid_type', path: '/dataset', message: '`dataset` takes a dataset name (a non-empty string); got 3.' }])
  })

  test('unknown keys with did-you-mean', () => {
    const r = parseQuery({ dataset: 'companies', filtr: {} })
    expect(r.ok ? [] : r.issues).toEqual([{
      code: 'unknown_key', path: '/filtr', expected: 'dataset, filter, sort, page or per_page', got: '"filtr"',
      message: 'Unknown key "filtr" in the query; expected dataset, filter, sort, page or per_page. Did you mean "filter"?',
      suggestions: ['filter'], allowed: ['dataset', 'filter', 'sort', 'page', 'per_page'],
    }])
  })

  test('page and per_page', () => {
    expect(issues({ dataset: 'companies', page: 0, per_page: '1.5' })).toEqual([
      { code: 'invalid_page', path: '/page', message: '`page` takes a positive integer; got 0.' },
      { code: 'invalid_page', path: '/per_page', message: '`per_page` takes a positive integer; got "1.5".' },
    ])
    expect(issues({ dataset: 'companies', page: 1e300 })).toMatchObject([{ code: 'invalid_page' }])
  })

  test('sort', () => {
    expect(issues({ dataset: 'companies', sort: { name: 'asc' } })).toEqual([
      { code: 'invalid_sort', path: '/sort', message: '`sort` takes an array of one-key hashes like {"name": "asc"}; got {"name":"asc"}.' },
    ])
    expect(issues({ dataset: 'companies', sort: [{ name: 'up' }, { a: 'asc', b: 'desc' }, 'name'] })).toEqual([
      { code: 'invalid_sort', path: '/sort/0/name', message: 'The sort direction of "name" must be "asc" or "desc"; got "up".' },
      { code: 'invalid_sort', path: '/sort/1', message: 'Each sort clause must be a hash with exactly one field, like {"name": "asc"}; got {"a":"asc","b":"desc"}.' },
      { code: 'invalid_sort', path: '/sort/2', message: 'Each sort clause must be a hash with exactly one field, like {"name": "asc"}; got "name".' },
    ])
  })
})

describe('parse issues: the filter', () => {
  test('a filter that is not a hash', () => {
    expect(issues(f([]))).toEqual([{ code: 'invalid_type', path: '/filter', message: 'The filter takes a filter hash (a JSON object of fields and operators); got [].' }])
    expect(issues(f({ not: 5 }))).toEqual([{ code: 'invalid_type', path: '/filter/not', message: 'This filter takes a filter hash (a JSON object of fields and operators); got 5.' }])
  })

  test('no accidental match-all: empty and/or, {} below the top, empty operator hash', () => {
    expect(issues(f({ and: [], or: [{}], employees: {} }))).toEqual([
      { code: 'empty_list', path: '/filter/and', message: '`and` needs at least one filter; an empty list would silently match everything.' },
      { code: 'empty_filter', path: '/filter/or/0', message: 'An empty filter hash {} means "every record" only as the whole filter; here it would match everything by accident.' },
      { code: 'empty_filter', path: '/filter/employees', message: 'Field "employees" has an empty operator hash; give at least one operator, like {"eq": ...}.' },
    ])
    expect(issues(f({ or: [] }))).toEqual([{ code: 'empty_list', path: '/filter/or', message: '`or` needs at least one filter; an empty list would silently match nothing.' }])
    expect(issues(f({ not: {} }))).toMatchObject([{ code: 'empty_filter', path: '/filter/not' }])
    expect(issues(f({ foreign: { dataset: 'fundings', filter: {} } }))).toMatchObject([{ code: 'empty_filter', path: '/filter/foreign/filter' }])
  })

  test('and/or that are not arrays', () => {
    expect(issues(f({ and: { a: 1 } }))).toEqual([{ code: 'invalid_type', path: '/filter/and', message: '`and` takes a non-empty array of filter hashes; got {"a":1}.' }])
  })

  test('unknown operators with did-you-mean', () => {
    const r = parseQuery(f({ employees: { gtee: 5 } }))
    expect(r.ok ? [] : r.issues).toEqual([{
      code: 'unknown_operator', path: '/filter/employees/gtee', expected: 'an operator', got: '"gtee"',
      message: 'Unknown operator "gtee" on field "employees". Did you mean "gte", "gt" or "lte"?',
      suggestions: ['gte', 'gt', 'lte'],
      allowed: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'is_null', 'contains', 'starts_with', 'ends_with', 'has_any', 'has_all', 'has_none', 'is_empty'],
    }])
    expect(issues(f({ name: { $eq: 'x', IN: ['x'] } }))).toMatchObject([
      { code: 'unknown_operator', path: '/filter/name/$eq', message: 'Unknown operator "$eq" on field "name". Did you mean "eq"?' },
      { code: 'unknown_operator', path: '/filter/name/IN', message: 'Unknown operator "IN" on field "name". Did you mean "in"?' },
    ])
  })

  test('a field value that is neither a scalar nor an operator hash', () => {
    expect(issues(f({ stage: ['a', 'b'] }))).toEqual([{
      code: 'invalid_type', path: '/filter/stage',
      message: 'Field "stage" takes a value (string, number, boolean or null) or a hash of operators; got ["a","b"]. To match any of several values, write {"in": [...]}.',
    }])
  })

  test('operand shapes', () => {
    expect(issues(f({ a: { gt: [1] }, b: { between: [1] }, c: { between: 5 }, d: { in: 'x' }, e: { is_null: 'yes' }, g: { contains: 5 } }))).toEqual([
      { code: 'invalid_type', path: '/filter/a/gt', message: 'Operator "gt" on field "a" takes one value (string, number, boolean or null); got [1].' },
      { code: 'invalid_value', path: '/filter/b/between', message: 'Operator "between" on field "b" takes a pair [lo, hi]; got [1].' },
      { code: 'invalid_type', path: '/filter/c/between', message: 'Operator "between" on field "c" takes a pair [lo, hi]; got 5.' },
      { code: 'invalid_type', path: '/filter/d/in', message: 'Operator "in" on field "d" takes a non-empty array of values; got "x".' },
      { code: 'invalid_type', path: '/filter/e/is_null', message: 'Operator "is_null" on field "e" takes true or false; got "yes".' },
      { code: 'invalid_type', path: '/filter/g/contains', message: 'Operator "contains" on field "g" takes a non-empty text (string); got 5.' },
    ])
  })

  test('empty lists, null in lists, null bounds, empty text', () => {
    expect(issues(f({ a: { in: [] }, b: { nin: ['x', null] }, c: { between: [null, 5] }, d: { has_all: [{}] }, e: { starts_with: '' } }))).toEqual([
      { code: 'empty_list', path: '/filter/a/in', message: 'Operator "in" on field "a" needs at least one value; an empty list would silently match nothing.' },
      { code: 'invalid_value', path: '/filter/b/nin/1', message: 'Lists cannot contain null (item 1 of "nin" on field "b"); use {"is_null": true} to match missing values.' },
      { code: 'invalid_value', path: '/filter/c/between/0', message: 'The bounds of "between" on field "c" cannot be null (item 0); for an open range use "gte" or "lte".' },
      { code: 'invalid_type', path: '/filter/d/has_all/0', message: 'Item 0 of "has_all" on field "d" must be a string, number or boolean; got {}.' },
      { code: 'invalid_value', path: '/filter/e/starts_with', message: 'Operator "starts_with" on field "e" needs a non-empty text; an empty one would match every value.' },
    ])
  })

  test('foreign: missing and unknown keys, bad match', () => {
    expect(issues(f({ foreign: { datset: 'x', match: 'some' } }))).toEqual([
      { code: 'missing_key', path: '/filter/foreign/dataset', message: '`foreign` needs `dataset`: the dataset of the related records (companies, investors, fundings).' },
      { code: 'missing_key', path: '/filter/foreign/filter', message: '`foreign` needs `filter`: the filter that related records must match.' },
      { code: 'invalid_value', path: '/filter/foreign/match', message: 'The `match` of `foreign` must be "any", "none" or "all"; got "some".' },
      { code: 'unknown_key', path: '/filter/foreign/datset', message: 'Unknown key "datset" in `foreign`; expected dataset, filter or match. Did you mean "dataset"?' },
    ])
    expect(issues(f({ foreign: [] }))).toEqual([{ code: 'invalid_type', path: '/filter/foreign', message: '`foreign` takes a hash {"dataset", "filter", "match"?}; got [].' }])
  })

  test('non-finite numbers are not JSON values', () => {
    expect(issues(f({ a: Infinity, b: { in: [Number.NaN] } }))).toMatchObject([
      { code: 'invalid_type', path: '/filter/a', message: 'Field "a" takes a value (string, number, boolean or null) or a hash of operators; got Infinity.' },
      { code: 'invalid_type', path: '/filter/b/in/0' },
    ])
  })

  test('issues are capped at maxIssues, then too_many_issues', () => {
    const filter = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, {}]))
    const r = parseQuery(f(filter))
    expect(r.ok ? [] : r.issues).toHaveLength(101)
    expect(r.ok ? undefined : r.issues[100]).toEqual({
      code: 'too_many_issues', path: '', message: 'Found 150 issues; only the first 100 are reported (limit maxIssues).',
    })
  })
})
