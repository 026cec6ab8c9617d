import { describe, expect, test } from 'vitest'
import { companies, expectIssues, expectValid, investors } from '../harness.js'

describe('foreign-relation-exists', () => {
  test('no relation from a dataset to itself', () => {
    const [issue] = expectIssues(companies({ foreign: { dataset: 'companies', filter: { name: 'x' } } }), [{
      code: 'no_relation',
      path: '/filter/foreign/dataset',
      message: 'Dataset "companies" has no relation to "companies"; from companies, `foreign` reaches investors and fundings.',
    }])
    expect(issue?.allowed).toEqual(['investors', 'fundings'])
  })

  test('unknown foreign dataset; its filter is not checked', () => {
    expectIssues(investors({ foreign: { dataset: 'compnies', filter: { nope: 1 } } }), [{
      code: 'unknown_dataset',
      path: '/filter/foreign/dataset',
      message: 'Unknown dataset "compnies" in `foreign`; expected companies, investors, fundings. Did you mean "companies"?',
    }])
  })

  test('nested foreign changes scope twice; aliases resolve to the canonical name', () => {
    const checked = expectValid(investors({
      foreign: { dataset: 'funding', match: 'all', filter: { series: 'seed', foreign: { dataset: 'company', filter: { country: 'USA' } } } },
    }))
    expect(checked.filter).toMatchObject({
      kind: 'Foreign', dataset: 'fundings', match: 'all',
      filter: { kind: 'And', children: [{ field: 'series' }, { kind: 'Foreign', dataset: 'companies', match: 'any' }] },
    })
  })
})
