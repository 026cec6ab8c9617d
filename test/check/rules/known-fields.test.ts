import { describe, expect, test } from 'vitest'
import { companies, expectIssues, investors } from '../harness.js'

describe('known-fields', () => {
  test('unknown field with did-you-mean and the dataset\'s fields as allowed', () => {
    const [issue] = expectIssues(investors({ and: [{ portfolio_sise: { gte: 10 } }] }), [{
      code: 'unknown_field',
      path: '/filter/and/0/portfolio_sise',
      message: 'Dataset "investors" has no field "portfolio_sise". Did you mean "portfolio_size"?',
    }])
    expect(issue?.suggestions).toEqual(['portfolio_size'])
    expect(issue?.allowed).toContain('investor_id')
    expect(issue?.allowed).toHaveLength(22)
    expect(issue?.got).toBe('"portfolio_sise"')
  })

  test('several operators on one unknown field are reported once, at the field', () => {
    expectIssues(companies({ emplyees: { gte: 5, lt: 9 } }), [
      { code: 'unknown_field', path: '/filter/emplyees' },
    ])
  })

  test('a bare scalar on an unknown field points at the field', () => {
    expectIssues(companies({ Name: 'Acme' }), [{
      code: 'unknown_field',
      path: '/filter/Name',
      message: 'Dataset "companies" has no field "Name". Did you mean "name"?',
    }])
  })

  test('inside foreign, fields are those of the foreign dataset', () => {
    expectIssues(investors({ foreign: { dataset: 'companies', filter: { portfolio_size: 3, industries: 'Fintech' } } }), [{
      code: 'unknown_field',
      path: '/filter/foreign/filter/portfolio_size',
      message: 'Dataset "companies" has no field "portfolio_size".',
    }])
  })

  test('prototype names are not fields', () => {
    expectIssues(companies({ constructor: 1, toString: { eq: 1 } }), [
      { code: 'unknown_field', path: '/filter/constructor' },
      { code: 'unknown_field', path: '/filter/toString' },
    ])
  })

  test('field names with / and ~ are escaped in the path', () => {
    expectIssues(companies({ 'a/b~c': 1 }), [{ code: 'unknown_field', path: '/filter/a~1b~0c' }])
  })
})
