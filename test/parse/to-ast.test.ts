import { describe, expect, test } from 'vitest'
import { stripPaths } from '../../src/ast/print.js'
import { parseFilter, parseQuery } from '../../src/parse/index.js'

const filterOf = (input: unknown) => {
  const r = parseFilter(input)
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value
}

describe('parse: the AST', () => {
  test('the spec 4.14 example', () => {
    const r = parseQuery({
      dataset: 'investors',
      filter: { and: [{ portfolio_size: { gte: 10 } }, { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech'] } } } }] },
      sort: [{ portfolio_size: 'desc' }],
      per_page: 25,
      page: 1,
    })
    expect(r).toEqual({
      ok: true,
      value: {
        dataset: 'investors',
        filter: {
          kind: 'And', path: '/filter/and', children: [
            { kind: 'Condition', field: 'portfolio_size', operator: 'gte', value: 10, path: '/filter/and/0/portfolio_size/gte' },
            {
              kind: 'Foreign', dataset: 'companies', match: 'any', path: '/filter/and/1/foreign',
              filter: { kind: 'Condition', field: 'industries', operator: 'in', value: ['Fintech'], path: '/filter/and/1/foreign/filter/industries/in' },
            },
          ],
        },
        sort: [{ field: 'portfolio_size', direction: 'desc', path: '/sort/0' }],
        page: 1,
        per_page: 25,
      },
    })
  })

  test('several keys of one hash AND together at the hash\'s path; several operators at the field\'s', () => {
    const node = filterOf({ country: 'USA', employees: { gte: 50, lt: 200 } })
    expect(node).toMatchObject({
      kind: 'And', path: '/filter', children: [
        { kind: 'Condition', field: 'country', operator: 'eq', value: 'USA', path: '/filter/country' },
        { kind: 'And', path: '/filter/employees', children: [{ operator: 'gte', path: '/filter/employees/gte' }, { operator: 'lt', path: '/filter/employees/lt' }] },
      ],
    })
  })

  test('a scalar means eq, null too; top-level {} and an absent filter are MatchAll', () => {
    expect(stripPaths(filterOf({ state: null }))).toEqual({ kind: 'Condition', field: 'state', operator: 'eq', value: null })
    expect(filterOf({})).toEqual({ kind: 'MatchAll', path: '/filter' })
    const q = parseQuery({ dataset: 'companies' })
    expect(q.ok && q.value.filter).toEqual({ kind: 'MatchAll', path: '/filter' })
  })

  test('not, or, foreign with match', () => {
    expect(stripPaths(filterOf({ not: { or: [{ a: 1 }, { b: 2 }] }, foreign: { dataset: 'x', filter: { c: 3 }, match: 'none' } }))).toEqual({
      kind: 'And', children: [
        { kind: 'Not', child: { kind: 'Or', children: [
          { kind: 'Condition', field: 'a', operator: 'eq', value: 1 },
          { kind: 'Condition', field: 'b', operator: 'eq', value: 2 },
        ] } },
        { kind: 'Foreign', dataset: 'x', match: 'none', filter: { kind: 'Condition', field: 'c', operator: 'eq', value: 3 } },
      ],
    })
  })

  test('nodes and their lists are frozen', () => {
    const node = filterOf({ a: { in: [1, 2] }, b: 1 })
    expect(Object.isFrozen(node)).toBe(true)
    if (node.kind !== 'And') throw new Error('expected And')
    expect(Object.isFrozen(node.children)).toBe(true)
    expect(Object.isFrozen((node.children[0] as { value: unknown }).value)).toBe(true)
  })

  test('parseFilter prefixes paths with where the filter sits', () => {
    expect(parseFilter({ a: { gt: 1 } }, '/query/filter')).toMatchObject({ ok: true, value: { path: '/query/filter/a/gt' } })
    expect(parseFilter({ a: [] }, '/q')).toMatchObject({ ok: false, issues: [{ path: '/q/a' }] })
  })

  test('page and per_page as numeric strings; sort direction case-insensitive', () => {
    const r = parseQuery({ dataset: 'companies', page: '2', per_page: '10', sort: [{ name: 'DESC' }] })
    expect(r).toMatchObject({ ok: true, value: { page: 2, per_page: 10, sort: [{ field: 'name', direction: 'desc' }] } })
  })
})
