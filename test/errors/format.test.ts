import { describe, expect, test } from 'vitest'
import { formatIssues, issuesSummary, previewValue, toProblem } from '../../src/errors/format.js'
import type { Issue } from '../../src/errors/issue.js'
import { issuesOf } from '../check/harness.js'

const issues = issuesOf({ dataset: 'investors', filter: { portfolio_sise: 3, type: { contains: 'v' } } })

describe('formatIssues', () => {
  test('one block per issue: message, path, suggestions, allowed', () => {
    expect(formatIssues(issues)).toMatchInlineSnapshot(`
      "✖ Dataset "investors" has no field "portfolio_sise". Did you mean "portfolio_size"?
        → at /filter/portfolio_sise
        did you mean: portfolio_size
        allowed: investor_id, name, investor_domain, angel_platform_page, location, type, city, state, country, website, svc_slug, est_most_recent_fund_size, est_most_recent_fund_date, three_year_funds_offered, three_year_funds_sold, most_recent_deal, number_of_deals, avg_deal_size, portfolio_size, avg_growth_score, deals_per_company, industries

      ✖ Operator "contains" does not apply to field "type" (enum); it takes eq, ne, in, nin, is_null.
        → at /filter/type/contains
        allowed: eq, ne, in, nin, is_null"
    `)
  })

  test('the whole request is named as such', () => {
    expect(formatIssues([{ code: 'invalid_type', path: '', message: 'A query takes a hash.' }])).toBe('✖ A query takes a hash.\n  → at (the whole request)')
  })
})

describe('issuesSummary', () => {
  test('one issue: message and path; several: a count, then the first three', () => {
    expect(issuesSummary(issues.slice(0, 1))).toBe('Dataset "investors" has no field "portfolio_sise". Did you mean "portfolio_size"? (at /filter/portfolio_sise)')
    const many: Issue[] = Array.from({ length: 5 }, (_, i) => ({ code: 'unknown_field', path: `/filter/f${i}`, message: `No f${i}.` }))
    expect(issuesSummary(many)).toBe('5 issues: No f0. (at /filter/f0) No f1. (at /filter/f1) No f2. (at /filter/f2) …and 2 more.')
    expect(issuesSummary([])).toBe('No issues.')
  })
})

describe('toProblem', () => {
  test('an RFC 9457 body with the error string and the issues', () => {
    const problem = toProblem(issues)
    expect(problem).toMatchObject({
      type: 'urn:ventureql:problem:invalid-request',
      title: 'Invalid request',
      status: 400,
      issues,
    })
    expect(problem.error).toBe(problem.detail)
    expect(problem.error).toMatch(/^2 issues: Dataset "investors" has no field "portfolio_sise"/)
    expect(JSON.parse(JSON.stringify(problem))).toEqual(problem)
    expect(toProblem([{ code: 'unknown_query', path: '', message: 'No stored query has id "x".' }], 404)).toMatchObject({ status: 404, title: 'Not found', error: 'No stored query has id "x".' })
  })
})

describe('previewValue', () => {
  test('compact JSON, cut at the maximum', () => {
    expect(previewValue({ a: [1, 'x', null] })).toBe('{"a":[1,"x",null]}')
    expect(previewValue('x'.repeat(200), 10)).toBe('"xxxxxxxx…')
    expect(previewValue(Array.from({ length: 100_000 }, (_, i) => i), 20)).toBe('[0,1,2,3,4,5,6,7,8,…')
  })

  test('values JSON cannot show, and hostile ones, without throwing', () => {
    expect(previewValue(undefined)).toBe('nothing')
    expect(previewValue(Number.POSITIVE_INFINITY)).toBe('Infinity')
    expect(previewValue(10n)).toBe('10n')
    expect(previewValue(new Date(0))).toBe('a Date')
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(previewValue(deep)).toBe('[[[[[[[[[…]]]]]]]]]')
    const trap = { get x(): unknown { throw new Error('boom') } }
    expect(previewValue(trap)).toBe('an unreadable value')
  })
})
