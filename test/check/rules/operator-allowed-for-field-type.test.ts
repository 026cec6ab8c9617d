import { describe, expect, test } from 'vitest'
import { companies, expectIssues, expectValid } from '../harness.js'

describe('operator-allowed-for-field-type', () => {
  test('a text operator on an integer field lists the operators the type takes', () => {
    const [issue] = expectIssues(companies({ employees: { contains: '5' } }), [{
      code: 'operator_not_allowed',
      path: '/filter/employees/contains',
      message: 'Operator "contains" does not apply to field "employees" (integer); it takes eq, ne, gt, gte, lt, lte, between, in, nin, is_null.',
    }])
    expect(issue?.allowed).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin', 'is_null'])
  })

  test('order operators are not defined on tags or enums', () => {
    expectIssues(companies({ industries: { gt: 'a' }, stage: { lt: 'b' } }), [
      { code: 'operator_not_allowed', path: '/filter/industries/gt' },
      { code: 'operator_not_allowed', path: '/filter/stage/lt' },
    ])
  })

  test('ne and nin on tags point to has_none', () => {
    expectIssues(companies({ industries: { nin: ['Fintech'] } }), [{
      code: 'operator_not_allowed',
      path: '/filter/industries/nin',
      message: 'Operator "nin" does not apply to field "industries" (tags); it takes eq, in, has_any, has_all, has_none, is_empty. For "none of these values" on a tags field use "has_none".',
    }])
  })

  test('is_null on tags points to is_empty', () => {
    expectIssues(companies({ keywords: { is_null: true } }), [{
      code: 'operator_not_allowed',
      path: '/filter/keywords/is_null',
      message: 'Operator "is_null" does not apply to field "keywords" (tags); it takes eq, in, has_any, has_all, has_none, is_empty. A tags field is never null; use "is_empty".',
    }])
  })

  test('in on a tags field is accepted (spec 4.14 uses it) and becomes has_any', () => {
    const checked = expectValid(companies({ industries: { in: ['Fintech'] } }))
    expect(checked.filter).toMatchObject({ kind: 'Condition', operator: 'has_any', value: ['Fintech'] })
  })

  test('a value that does not fit is not reported again when the operator is not allowed', () => {
    expectIssues(companies({ employees: { has_any: ['x'] } }), [{ code: 'operator_not_allowed', path: '/filter/employees/has_any' }])
  })
})
