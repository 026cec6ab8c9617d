/**
 * Hostile and arbitrary input: parse and check never throw, and refuse what they cannot accept
 * with issues (graphql-js keeps fuzz files for the same reason).
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { checkQuery } from '../../src/check/index.js'
import { resolveLimits } from '../../src/check/limits.js'
import { parseFilter, parseQuery } from '../../src/parse/index.js'

const codesOf = (r: { ok: boolean; issues?: readonly { code: string; path: string }[] }) => (r.ok ? [] : (r.issues ?? []).map((i) => [i.code, i.path]))

/** Parse then check, as every front-end does; must return a Result, never throw. */
function pipeline(input: unknown): { ok: boolean } {
  const parsed = parseQuery(input)
  return parsed.ok ? checkQuery(parsed.value) : parsed
}

describe('hostile input', () => {
  test('10,000 levels of nesting: limit_exceeded, quickly, for every logical key', () => {
    const nest = (wrap: (inner: unknown) => unknown): unknown => {
      let value: unknown = { name: 'x' }
      for (let i = 0; i < 10_000; i++) value = wrap(value)
      return value
    }
    const started = performance.now()
    expect(codesOf(parseQuery({ dataset: 'companies', filter: nest((v) => ({ not: v })) }))).toEqual([['limit_exceeded', `/filter${'/not'.repeat(12)}`]])
    expect(codesOf(parseQuery({ dataset: 'companies', filter: nest((v) => ({ and: [v] })) }))).toEqual([['limit_exceeded', `/filter${'/and/0'.repeat(12)}`]])
    expect(codesOf(parseQuery({ dataset: 'investors', filter: nest((v) => ({ foreign: { dataset: 'companies', filter: v } })) })))
      .toEqual([['limit_exceeded', `/filter${'/foreign/filter'.repeat(12)}`]])
    // Deep nesting where no recursion is expected (inside an operand) is just a wrong type.
    let deepList: unknown = 1
    for (let i = 0; i < 100_000; i++) deepList = [deepList]
    expect(codesOf(parseQuery({ dataset: 'companies', filter: { name: { in: deepList } } }))).toEqual([['invalid_type', '/filter/name/in/0']])
    expect(performance.now() - started).toBeLessThan(2000)
  })

  test('a sort longer than maxSortClauses is refused by the guard, before the schemas validate every clause', () => {
    const sort = Array.from({ length: 100_000 }, () => ({ name: 'asc' }))
    const parsed = parseQuery({ dataset: 'companies', sort })
    expect(parsed.ok ? [] : parsed.issues.map((i) => [i.code, i.path, i.message]))
      .toEqual([['limit_exceeded', '/sort', 'The sort has 100000 clauses; the limit (maxSortClauses) is 8.']])
  })

  test('a cyclic object is cut by the depth limit', () => {
    const cyclic: Record<string, unknown> = { name: 'x' }
    cyclic['not'] = cyclic
    expect(codesOf(parseFilter(cyclic))).toEqual([['limit_exceeded', `/filter${'/not'.repeat(12)}`]])
  })

  test('a 100,000-element list exceeds maxListLength; with the limit raised it parses and checks', () => {
    const list = Array.from({ length: 100_000 }, (_, i) => i)
    expect(codesOf(parseQuery({ dataset: 'companies', filter: { employees: { in: list } } }))).toEqual([['limit_exceeded', '/filter/employees/in']])
    const limits = resolveLimits({ maxListLength: 100_000 })
    const started = performance.now()
    const parsed = parseQuery({ dataset: 'companies', filter: { employees: { in: list.map(String) } } }, limits)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    const checked = checkQuery(parsed.value, limits)
    expect(checked.ok && checked.value.filter).toMatchObject({ operator: 'in', value: expect.arrayContaining([99_999]) })
    expect(performance.now() - started).toBeLessThan(3000)
  })

  test('100,000 keys or 100,000 and-children exceed maxNodes without walking them all', () => {
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`f${i}`, i]))
    expect(codesOf(parseQuery({ dataset: 'companies', filter: wide }))).toEqual([['limit_exceeded', '/filter']])
    const many = { or: Array.from({ length: 100_000 }, (_, i) => ({ employees: i })) }
    expect(codesOf(parseQuery({ dataset: 'companies', filter: many }))).toEqual([['limit_exceeded', '/filter']])
  })

  test('prototype keys are refused, and nothing is polluted', () => {
    const input = JSON.parse('{"dataset":"companies","__proto__":{"polluted":1},"filter":{"__proto__":{"gte":1},"and":[{"__proto__":1}],"name":{"__proto__":{"x":1}},"foreign":{"dataset":"fundings","filter":{"id":1},"__proto__":{}}},"sort":[{"__proto__":"asc"}]}')
    expect(codesOf(parseQuery(input))).toEqual([
      ['unknown_key', '/__proto__'],
      ['unknown_field', '/sort/0/__proto__'],
      ['unknown_field', '/filter/__proto__'],
      ['unknown_key', '/filter/foreign/__proto__'],
      ['unknown_field', '/filter/and/0/__proto__'],
    ])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(codesOf(parseQuery(JSON.parse('{"dataset":"companies","filter":{"name":{"__proto__":{"x":1}}}}')))).toEqual([['unknown_operator', '/filter/name/__proto__']])
  })

  test('values JSON cannot hold: class instances, undefined, functions, symbols, bigints, getters that throw', () => {
    expect(codesOf(parseQuery(new Map()))).toEqual([['invalid_type', '']])
    expect(codesOf(parseQuery({ dataset: 'companies', filter: new Date(0) }))).toEqual([['invalid_type', '/filter']])
    expect(codesOf(parseQuery({ dataset: 'companies', filter: { and: [new (class Filter {})()] } }))).toEqual([['invalid_type', '/filter/and/0']])
    expect(codesOf(parseQuery({ dataset: 'companies', filter: { name: undefined } }))).toEqual([['invalid_type', '/filter/name']])
    expect(codesOf(parseQuery({ dataset: 'companies', filter: { name: { eq: () => 1 }, id: { in: [1n] }, zip: Symbol('x') } }))).toHaveLength(3)
    const trap = { dataset: 'companies', get filter(): unknown { throw new Error('boom') } }
    expect(codesOf(parseQuery(trap))).toEqual([['invalid_type', '']])
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error('boom') } })
    expect(codesOf(parseFilter(proxy))).toEqual([['invalid_type', '/filter']])
  })

  test('an absent filter is every record, but `filter: undefined` inside a hash is not', () => {
    expect(parseQuery({ dataset: 'companies', filter: undefined }).ok).toBe(true)
    expect(codesOf(parseQuery({ dataset: 'companies', filter: { not: undefined } }))).toEqual([['invalid_type', '/filter/not']])
  })
})

describe('arbitrary input never throws', () => {
  const anything = fc.anything({
    withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true,
    withObjectString: true, withSparseArray: true, withTypedArray: true, maxDepth: 6,
  })

  test('fc.jsonValue() as the request and as the filter', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      expect(pipeline(value)).toHaveProperty('ok')
      expect(pipeline({ dataset: 'companies', filter: value })).toHaveProperty('ok')
      expect(parseFilter(value)).toHaveProperty('ok')
    }), { numRuns: 500 })
  })

  test('fc.anything() as the request, the filter and a field value', () => {
    fc.assert(fc.property(anything, fc.constantFrom('companies', 'investors', 'fundings'), (value, dataset) => {
      expect(pipeline(value)).toHaveProperty('ok')
      expect(pipeline({ dataset, filter: value, sort: value })).toHaveProperty('ok')
      expect(pipeline({ dataset, filter: { and: [{ name: value }, { employees: { in: [value] } }] } })).toHaveProperty('ok')
    }), { numRuns: 500 })
  })

  test('language-shaped JSON (known keys and operators, random values) never throws, and is sometimes valid', () => {
    const key = fc.constantFrom('and', 'or', 'not', 'foreign', 'name', 'employees', 'stage', 'industries', 'last_funding_date', 'dataset', 'filter', 'match', 'portfolio_size', 'eq', 'in', 'between', 'has_any', 'is_null', 'contains')
    const tree = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(key, tie('value'), { maxKeys: 3 })),
    })).value
    let valid = 0
    fc.assert(fc.property(fc.constantFrom('companies', 'investors', 'fundings'), tree, (dataset, filter) => {
      const result = pipeline({ dataset, filter })
      if (result.ok) valid++
    }), { numRuns: 1000 })
    expect(valid).toBeGreaterThan(10)
  })
})
