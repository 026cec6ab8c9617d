import { describe, expect, test } from 'vitest'
import { companies, expectIssues, expectValid, investors } from '../harness.js'

describe('enum-values-known', () => {
  test('an unknown enum value is an error with suggestions and the values', () => {
    const [issue] = expectIssues(investors({ type: 'v c' }), [{
      code: 'unknown_enum_value',
      path: '/filter/type',
      message: 'Field "type" has no value "v c"; expected one of: vc, angel, accelerator, corporate, private_equity. Did you mean "vc"?',
    }])
    expect(issue?.suggestions).toEqual(['vc'])
    expect(issue?.allowed).toEqual(['vc', 'angel', 'accelerator', 'corporate', 'private_equity'])
  })

  test('each unknown value of a list at its index', () => {
    expectIssues(investors({ type: { in: ['vc', 'angle', 'family office'] } }), [
      { code: 'unknown_enum_value', path: '/filter/type/in/1', message: 'Field "type" has no value "angle"; expected one of: vc, angel, accelerator, corporate, private_equity. Did you mean "angel"?' },
      { code: 'unknown_enum_value', path: '/filter/type/in/2' },
    ])
  })

  test('values match case-insensitively and aliases resolve to the catalog spelling', () => {
    expect(expectValid(companies({ stage: { in: ['exited (IPO)', 'late', 'Pre-Series A'] } })).filter)
      .toMatchObject({ value: ['Exited', 'Late', 'Pre Series A'] })
    expect(expectValid(investors({ type: 'VC' })).filter).toMatchObject({ operator: 'eq', value: 'vc' })
  })

  test('a non-string on an enum field is a type error, not an enum error', () => {
    expectIssues(companies({ stage: 5 }), [{ code: 'invalid_value', path: '/filter/stage' }])
  })
})
