import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { build } from '../../src/ast/index.js'
import { printFilter, printQuery, stripPaths } from '../../src/ast/print.js'
import { checkQuery } from '../../src/check/index.js'
import { parseFilter, parseQuery } from '../../src/parse/index.js'

const parsed = (input: unknown) => {
  const r = parseFilter(input)
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value
}

describe('printFilter', () => {
  test('prints sugar in its plainest spelling', () => {
    expect(printFilter(parsed({ country: 'USA', employees: { gte: 50, lt: 200 }, state: null }))).toEqual({
      and: [{ country: 'USA' }, { and: [{ employees: { gte: 50 } }, { employees: { lt: 200 } }] }, { state: null }],
    })
    expect(printFilter(parsed({}))).toEqual({})
    expect(printFilter(parsed({ foreign: { dataset: 'companies', filter: { name: 'x' }, match: 'any' } }))).toEqual({
      foreign: { dataset: 'companies', filter: { name: 'x' } },
    })
    expect(printFilter(parsed({ not: { or: [{ a: { between: [1, 2] } }, { b: { in: ['x'] } }] } }))).toEqual({
      not: { or: [{ a: { between: [1, 2] } }, { b: { in: ['x'] } }] },
    })
  })

  test('keys like __proto__ are printed as own properties', () => {
    const printed = printFilter(build.condition('__proto__', 'gt', 1, '/filter/__proto__/gt'))
    expect(Object.keys(printed)).toEqual(['__proto__'])
    expect(JSON.stringify(printed)).toBe('{"__proto__":{"gt":1}}')
  })

  test('printQuery prints the envelope', () => {
    const q = parseQuery({ dataset: 'investor', filter: { type: 'vc' }, sort: [{ name: 'ASC' }], page: '2', per_page: 5 })
    if (!q.ok) throw new Error('parse')
    expect(printQuery(q.value)).toEqual({ dataset: 'investor', filter: { type: 'vc' }, sort: [{ name: 'asc' }], page: 2, per_page: 5 })
    const again = parseQuery(printQuery(q.value))
    expect(again.ok && stripPaths(again.value.filter)).toEqual(stripPaths(q.value.filter))
  })

  test('the checked normal form prints to a request that checks to the same normal form', () => {
    const q = parseQuery({ dataset: 'companies', filter: { stage: { nin: ['exited (ipo)'] }, industries: 'AI', employees: { ne: '5', between: ['1', 9] }, state: null } })
    if (!q.ok) throw new Error('parse')
    const checked = checkQuery(q.value)
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues))
    const printed = printFilter(checked.value.filter)
    expect(printed).toEqual({
      and: [
        { not: { stage: { in: ['Exited'] } } },
        { industries: { has_any: ['AI'] } },
        { and: [{ not: { employees: 5 } }, { employees: { between: [1, 9] } }] },
        { state: { is_null: true } },
      ],
    })
    const recheck = parseQuery({ dataset: 'companies', filter: printed })
    const second = recheck.ok ? checkQuery(recheck.value) : recheck
    expect(second.ok && stripPaths(second.value.filter)).toEqual(stripPaths(checked.value.filter))
  })
})

describe('stripPaths', () => {
  test('removes every path and nothing else', () => {
    const node = parsed({ and: [{ a: 1 }, { not: { foreign: { dataset: 'd', filter: { b: { in: [1] } }, match: 'all' } } }] })
    const stripped = stripPaths(node)
    expect(JSON.stringify(stripped)).not.toContain('path')
    expect(stripped).toEqual({
      kind: 'And', children: [
        { kind: 'Condition', field: 'a', operator: 'eq', value: 1 },
        { kind: 'Not', child: { kind: 'Foreign', dataset: 'd', match: 'all', filter: { kind: 'Condition', field: 'b', operator: 'in', value: [1] } } },
      ],
    })
  })
})

describe('round trip on generated language JSON', () => {
  const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean())
  const field = fc.constantFrom('name', 'employees', 'a/b', 'x~y', 'stage')
  const operand = fc.oneof(
    fc.record({ gte: scalar }), fc.record({ in: fc.array(scalar, { minLength: 1, maxLength: 3 }) }),
    fc.record({ between: fc.tuple(scalar, scalar) }), fc.record({ is_null: fc.boolean() }),
    fc.record({ contains: fc.string({ minLength: 1, maxLength: 3 }) }), fc.record({ lt: scalar, ne: fc.oneof(scalar, fc.constant(null)) }),
  )
  const filter = fc.letrec((tie) => ({
    hash: fc.oneof({ depthSize: 'small', withCrossShrink: true },
      fc.dictionary(field, fc.oneof(scalar, fc.constant(null), operand), { minKeys: 1, maxKeys: 3 }),
      fc.record({ and: fc.array(tie('hash'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ or: fc.array(tie('hash'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ not: tie('hash') }),
      fc.record({ foreign: fc.record({ dataset: fc.constantFrom('companies', 'fundings'), filter: tie('hash'), match: fc.constantFrom('any', 'none', 'all') }) }),
    ),
  })).hash

  test('parse(print(parse(x))) equals parse(x) up to paths', () => {
    let roundTripped = 0
    fc.assert(fc.property(filter, (json) => {
      const first = parseFilter(json)
      if (!first.ok) return // limits or shapes the generator does not avoid
      roundTripped++
      const second = parseFilter(JSON.parse(JSON.stringify(printFilter(first.value))))
      expect(second.ok && stripPaths(second.value)).toEqual(stripPaths(first.value))
    }), { numRuns: 500 })
    // The property is only worth something if most generated filters parse.
    expect(roundTripped).toBeGreaterThan(400)
  })
})
