import { describe, expect, test } from 'vitest'
import { expectIssues, expectValid } from '../harness.js'

describe('sort-fields-sortable', () => {
  test('a tags field cannot be sorted on', () => {
    const [issue] = expectIssues({ dataset: 'companies', sort: [{ industries: 'asc' }] }, [{
      code: 'not_sortable',
      path: '/sort/0/industries',
      message: 'Field "industries" cannot be sorted on (it holds several values).',
    }])
    expect(issue?.allowed).not.toContain('industries')
    expect(issue?.allowed).toContain('svc_score')
  })

  test('an unknown sort field has suggestions', () => {
    const [issue] = expectIssues({ dataset: 'investors', sort: [{ portfolio_sise: 'desc' }] }, [{
      code: 'unknown_field',
      path: '/sort/0/portfolio_sise',
      message: 'Dataset "investors" has no field "portfolio_sise" to sort on. Did you mean "portfolio_size"?',
    }])
    expect(issue?.suggestions).toEqual(['portfolio_size'])
  })

  test('the requested sort in order; the default sort without one', () => {
    const sorted = expectValid({ dataset: 'investors', sort: [{ type: 'ASC' }, { portfolio_size: 'desc' }] })
    expect(sorted.sort.map((s) => [s.field.name, s.direction])).toEqual([['type', 'asc'], ['portfolio_size', 'desc']])
    expect(expectValid({ dataset: 'companies' }).sort.map((s) => [s.field.name, s.direction])).toEqual([['svc_score', 'desc']])
    expect(expectValid({ dataset: 'fundings', sort: [] }).sort.map((s) => s.field.name)).toEqual(['rounds_funding_date'])
  })
})
