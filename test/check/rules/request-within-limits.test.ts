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
