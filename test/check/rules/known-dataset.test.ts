import { describe, expect, test } from 'vitest'
import { expectIssues, expectValid } from '../harness.js'

describe('known-dataset', () => {
  test('unknown dataset, with suggestions reported as canonical names', () => {
    const [issue] = expectIssues({ dataset: 'companys' }, [{
      code: 'unknown_dataset',
      path: '/dataset',
      message: 'Unknown dataset "companys"; expected companies, investors, fundings. Did you mean "companies"?',
    }])
    expect(issue?.suggestions).toEqual(['companies'])
    expect(issue?.allowed).toEqual(['companies', 'investors', 'fundings'])
  })

  test('aliases and case are accepted and resolved', () => {
    expect(expectValid({ dataset: 'investor' }).dataset.name).toBe('investors')
    expect(expectValid({ dataset: 'Companies' }).dataset.name).toBe('companies')
  })

  test('with an unknown dataset, fields are not checked (nothing to check them against)', () => {
    expectIssues({ dataset: 'people', filter: { nmae: 'x' }, sort: [{ foo: 'asc' }] }, [
      { code: 'unknown_dataset', path: '/dataset' },
    ])
  })
})
