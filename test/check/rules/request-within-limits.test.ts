import { describe, expect, test } from 'vitest'
import { build, type FilterNode } from '../../../src/ast/index.js'
import { checkFilter, checkQuery } from '../../../src/check/index.js'
import { resolveLimits } from '../../../src/check/limits.js'
import { expectIssues, expectValid } from '../harness.js'

const codes = (r: { ok: boolean; issues?: readonly { code: string; path: string; message: string }[] }) =>
  r.ok ? [] : (r.issues ?? []).map((i) => [i.code, i.path, i.message])

describe('request-within-limits', () => {
  test('too many sort clauses', () => {
    const sort = ['id', 'name', 'employees', 'svc_score'].map((f) => ({ [f]: 'asc' }))
    expectIssues({ dataset: 'companies', sort }, [{
      code: 'limit_exceeded',
      path: '/sort',
      message: 'The sort has 4 clauses; the limit (maxSortClauses) is 3.',
    }], { maxSortClauses: 3 })
  })

  test('string values longer than maxStringLength, alone or in a list', () => {
    expectValid({ dataset: 'companies', filter: { name: { contains: 'x'.repeat(8) } } }, { maxStringLength: 8 })
    expectIssues({ dataset: 'companies', filter: { name: { contains: 'x'.repeat(9) } } }, [{
      code: 'limit_exceeded',
      path: '/filter/name/contains',
      message: 'A value of "contains" on field "name" has 9 characters; the limit (maxStringLength) is 8.',
    }], { maxStringLength: 8 })
    expectIssues({ dataset: 'companies', filter: { industries: { has_any: ['ok', 'y'.repeat(12)] } } }, [{
      code: 'limit_exceeded',
      path: '/filter/industries/has_any',
      message: 'A value of "has_any" on field "industries" has 12 characters; the limit (maxStringLength) is 8.',
    }], { maxStringLength: 8 })
  })

  test('the default string limit keeps SQLite LIKE patterns valid: a 50,000-character %_ pattern is a 400, not a fault', async () => {
    const { createEngine } = await import('../../../src/engine.js')
    const { createFixtureDatabase } = await import('../../../src/store/generate/fixture.js')
    const vdb = await createFixtureDatabase({ companies: 20 })
    const engine = createEngine({ database: vdb })
    try {
      const r = await engine.list({ dataset: 'companies', filter: { name: { contains: '%_'.repeat(25_000) } } })
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.issues.map((i) => i.code)).toEqual(['limit_exceeded'])
      const atLimit = await engine.list({ dataset: 'companies', filter: { name: { contains: '%_'.repeat(2048) } } })
      expect(atLimit.ok).toBe(true)
    } finally {
      await engine.close()
      await vdb.close()
    }
  })

  test('depth counts and/or/not/foreign levels; the top-level filter is depth 1', () => {
    const two = { not: { name: 'x' } }
    expectValid({ dataset: 'companies', filter: two }, { maxDepth: 2 })
    expectIssues({ dataset: 'companies', filter: { not: two } }, [{
      code: 'limit_exceeded',
      path: '/filter/not/not',
      message: 'The filter nests deeper than 2 levels of and/or/not/foreign; the limit (maxDepth) is 2.',
    }], { maxDepth: 2 })
    // Several keys in one hash do not nest.
    expectValid({ dataset: 'companies', filter: { name: 'x', employees: { gte: 1, lte: 5 } } }, { maxDepth: 1 })
  })

  test('trees from other front-ends are measured too, without recursion', () => {
    let node: FilterNode = build.condition('name', 'eq', 'x', '/filter')
    for (let i = 0; i < 20_000; i++) node = build.not(node, '/filter')
    expect(codes(checkFilter(node, 'companies'))).toEqual([
      ['limit_exceeded', '/filter', 'The filter nests deeper than 12 levels of and/or/not/foreign; the limit (maxDepth) is 12.'],
    ])
    const wide = build.or(Array.from({ length: 1000 }, (_, i) => build.condition('employees', 'eq', i, `/filter/or/${i}`)), '/filter/or')
    expect(codes(checkQuery(build.query({ dataset: 'companies', filter: wide, sort: [] })))).toEqual([
      ['limit_exceeded', '/filter/or', 'The filter has more than 500 conditions and logical operators; the limit (maxNodes) is 500.'],
    ])
    const long = build.condition('employees', 'in', Array.from({ length: 11 }, (_, i) => i), '/filter/employees/in')
    expect(codes(checkFilter(long, 'companies', resolveLimits({ maxListLength: 10 })))).toEqual([
      ['limit_exceeded', '/filter/employees/in', 'The list of "in" on field "employees" has 11 values; the limit (maxListLength) is 10.'],
    ])
  })

  test('node count is the same in parse and check', () => {
    // 1 And (two keys) + 1 condition + (1 And + 2 conditions) = 5 nodes.
    const filter = { name: 'x', employees: { gte: 1, lte: 5 } }
    expectValid({ dataset: 'companies', filter }, { maxNodes: 5 })
    expectIssues({ dataset: 'companies', filter }, [{ code: 'limit_exceeded', path: '/filter' }], { maxNodes: 4 })
  })
})
