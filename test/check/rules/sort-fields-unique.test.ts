import { describe, test } from 'vitest'
import { expectIssues } from '../harness.js'

describe('sort-fields-unique', () => {
  test('a field twice in the sort', () => {
    expectIssues({ dataset: 'companies', sort: [{ name: 'asc' }, { employees: 'desc' }, { name: 'desc' }] }, [{
      code: 'invalid_sort',
      path: '/sort/2/name',
      message: 'Field "name" appears in the sort more than once (first at /sort/0).',
    }])
  })
})
