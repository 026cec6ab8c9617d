import { describe, expect, test } from 'vitest'
import { companies, expectIssues, expectValid } from '../harness.js'

describe('between-bounds-ordered', () => {
  test('lo > hi is an error', () => {
    const [issue] = expectIssues(companies({ employees: { between: [200, 50] } }), [{
      code: 'invalid_range',
      path: '/filter/employees/between',
      message: '"between" on field "employees" needs lo <= hi; got [200,50]. Swap the bounds.',
    }])
    expect(issue?.got).toBe('[200,50]')
  })

  test('bounds are compared after conversion', () => {
    expectIssues(companies({ employees: { between: ['100', 20] } }), [{ code: 'invalid_range', path: '/filter/employees/between' }])
    expectIssues(companies({ last_funding_date: { between: ['2024-01-01', '20231231'] } }), [{ code: 'invalid_range' }])
    // '9' > '10' as text, but 9 < 10 as numbers.
    expect(expectValid(companies({ employees: { between: ['9', '10'] } })).filter).toMatchObject({ value: [9, 10] })
  })

  test('equal bounds are fine; bad bounds are reported by the value rule, not here', () => {
    expectValid(companies({ employees: { between: [5, 5] } }))
    expectIssues(companies({ employees: { between: ['x', 5] } }), [{ code: 'invalid_value', path: '/filter/employees/between/0' }])
  })
})
