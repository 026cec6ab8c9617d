/**
 * The normal form of src/check/checked.ts, which compile and the reference evaluator rely on.
 */
import { describe, expect, test } from 'vitest'
import { stripPaths } from '../../src/ast/print.js'
import { build } from '../../src/ast/index.js'
import { checkFilter } from '../../src/check/index.js'
import { companies, expectIssues, expectValid, investors } from './harness.js'

const normal = (request: unknown) => stripPaths(expectValid(request).filter)
const cond = (field: string, operator: string, value: unknown) => ({ kind: 'Condition', field, operator, value })

describe('normal form', () => {
  test('ne, nin, has_none become Not of eq, in, has_any, keeping the path', () => {
    expect(normal(companies({ name: { ne: 'x' } }))).toEqual({ kind: 'Not', child: cond('name', 'eq', 'x') })
    expect(normal(companies({ employees: { nin: ['1', 2] } }))).toEqual({ kind: 'Not', child: cond('employees', 'in', [1, 2]) })
    expect(normal(companies({ industries: { has_none: ['AI'] } }))).toEqual({ kind: 'Not', child: cond('industries', 'has_any', ['AI']) })
    const checked = expectValid(companies({ name: { ne: 'x' } }))
    expect(checked.filter).toMatchObject({ path: '/filter/name/ne', child: { path: '/filter/name/ne' } })
  })

  test('eq null is is_null; on tags, eq is has_any and eq null is is_empty', () => {
    expect(normal(companies({ state: null }))).toEqual(cond('state', 'is_null', true))
    expect(normal(companies({ state: { eq: null } }))).toEqual(cond('state', 'is_null', true))
    expect(normal(companies({ industries: 'AI' }))).toEqual(cond('industries', 'has_any', ['AI']))
    expect(normal(companies({ industries: null }))).toEqual(cond('industries', 'is_empty', true))
  })

  test('foreign datasets are canonical; match modes are kept', () => {
    expect(normal(investors({ foreign: { dataset: 'Company', filter: { name: 'x' }, match: 'none' } })))
      .toEqual({ kind: 'Foreign', dataset: 'companies', match: 'none', filter: cond('name', 'eq', 'x') })
  })

  test('the result is frozen', () => {
    const checked = expectValid(companies({ employees: { in: ['1'] } }))
    expect(Object.isFrozen(checked)).toBe(true)
    expect(Object.isFrozen(checked.filter)).toBe(true)
    expect(Object.isFrozen(checked.sort)).toBe(true)
  })
})

describe('checkFilter', () => {
  test('checks and normalises a filter on its own, by dataset name or definition', () => {
    const r = checkFilter(build.condition('stage', 'in', ['late'], '/stage'), 'company')
    expect(r.ok && stripPaths(r.value)).toEqual(cond('stage', 'in', ['Late']))
    expect(checkFilter(build.matchAll(), 'nope')).toMatchObject({ ok: false, issues: [{ code: 'unknown_dataset', path: '/dataset' }] })
  })

  test('a malformed tree is an issue, not an exception', () => {
    expect(checkFilter({ kind: 'Nope' } as never, 'companies')).toMatchObject({ ok: false, issues: [{ code: 'invalid_type', path: '' }] })
  })
})

describe('collecting issues', () => {
  test('every issue at once, capped at maxIssues and then one too_many_issues', () => {
    const filter = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`nope${i}`, 1]))
    const issues = expectIssues(companies(filter), [
      ...Array.from({ length: 5 }, (_, i) => ({ code: 'unknown_field' as const, path: `/filter/nope${i}` })),
      { code: 'too_many_issues', path: '', message: 'More than 5 issues; only the first 5 are reported (limit maxIssues).' },
    ], { maxIssues: 5 })
    expect(issues).toHaveLength(6)
  })
})
