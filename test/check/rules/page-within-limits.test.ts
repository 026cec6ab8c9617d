import { describe, expect, test } from 'vitest'
import { expectIssues, expectValid } from '../harness.js'
import { checkQuery } from '../../../src/check/index.js'
import { build } from '../../../src/ast/index.js'

describe('page-within-limits', () => {
  test('per_page above the limit names the limit', () => {
    expectIssues({ dataset: 'companies', per_page: 51 }, [{
      code: 'limit_exceeded',
      path: '/per_page',
      message: '`per_page` is 51; the limit (maxPerPage) is 50.',
    }])
    expect(expectValid({ dataset: 'companies', per_page: 200 }, { maxPerPage: 200 }).perPage).toBe(200)
  })

  test('defaults: page 1 and the defaultPerPage limit; numeric strings accepted', () => {
    const checked = expectValid({ dataset: 'companies' }, { defaultPerPage: 10 })
    expect([checked.page, checked.perPage]).toEqual([1, 10])
    const paged = expectValid({ dataset: 'companies', page: '3', per_page: '25' })
    expect([paged.page, paged.perPage]).toEqual([3, 25])
  })

  test('a tree from another front-end with a bad page is an issue too', () => {
    const result = checkQuery(build.query({ dataset: 'companies', filter: build.matchAll(), sort: [], page: 0, per_page: 2.5 }))
    expect(result.ok ? [] : result.issues.map((i) => [i.code, i.path, i.message])).toEqual([
      ['invalid_page', '/page', '`page` takes a positive integer; got 0.'],
      ['invalid_page', '/per_page', '`per_page` takes a positive integer; got 2.5.'],
    ])
  })
})
