import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { estimateCost, FAN_OUT, SET_PASS, VISIT } from '../../../src/check/cost.js'
import { DEFAULT_LIMITS, resolveLimits } from '../../../src/check/limits.js'
import { parseQuery } from '../../../src/parse/index.js'
import { companies, expectIssues, expectValid, investors } from '../harness.js'

/** `companies -> investors -> companies -> ...` with `levels` nested foreign, ending in `innermost`. */
function chain(levels: number, innermost: unknown = { name: { eq: 'no-such-name' } }, match = 'any'): unknown {
  let filter = innermost
  for (let level = levels; level >= 1; level--) filter = { foreign: { dataset: level % 2 === 1 ? 'investors' : 'companies', filter, match } }
  return filter
}

const orOf = (width: number, match: string) =>
  ({ or: Array.from({ length: width }, (_, i) => ({ foreign: { dataset: 'investors', filter: { name: `n-${i}` }, match } })) })

function costOf(request: unknown): number {
  const parsed = parseQuery(request, resolveLimits({ maxNodes: 100_000 }))
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
  return estimateCost(parsed.value.filter).total
}

describe('cost-within-limit', () => {
  test('the model: conditions add, probes multiply by the fan-out, sets add once', () => {
    expect(costOf(companies({ name: 'x', employees: { gte: 5 } }))).toBe(2)
    // One correlated probe: every related row reached (VISIT) and the inner condition tested on it.
    expect(costOf(companies({ foreign: { dataset: 'investors', filter: { name: 'x' } } }))).toBe(FAN_OUT * (VISIT + 1))
    // A nested foreign is a set: a lookup per related row, and one pass with its condition, once.
    expect(costOf(companies(chain(2)))).toBe(FAN_OUT * (VISIT + VISIT) + SET_PASS + 1)
    // Each further level adds a set; as probes the same chain would multiply by FAN_OUT per level.
    expect(costOf(companies(chain(3))) - costOf(companies(chain(2)))).toBe(SET_PASS + VISIT)
  })

  test('the chain of the issue at 3, 5 and 11 levels is accepted (11 levels fit maxDepth 12)', () => {
    for (const levels of [3, 5, 11]) expectValid(companies(chain(levels)))
    expect([3, 5, 11].map((levels) => costOf(companies(chain(levels))))).toEqual([711, 1231, 2791])
    expect(costOf(companies(chain(11)))).toBeLessThan(DEFAULT_LIMITS.maxCost)
  })

  test('an or of 249 foreign on one dataset is accepted: they merge into one foreign', () => {
    expectValid(companies(orOf(249, 'any')))
    expect(costOf(companies(orOf(249, 'any')))).toBe(VISIT + SET_PASS + 249)
  })

  test('an or of as many plain conditions as maxNodes allows is accepted', () => {
    expectValid(companies({ or: Array.from({ length: 499 }, (_, i) => ({ name: `n-${i}` })) }))
  })

  test('realistic queries: the spec 4.14 example and every valid grammar-docs example cost little', () => {
    const spec = investors({
      and: [
        { portfolio_size: { gte: 2 } },
        { type: { in: ['vc', 'accelerator'] } },
        { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech', 'Software'] } } } },
      ],
    })
    expectValid(spec)
    expect(costOf(spec)).toBe(2 + FAN_OUT * (VISIT + 1))
    const dir = join(import.meta.dirname, '..', '..', '..', 'grammar-docs', 'examples')
    const valid = readdirSync(dir)
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { request: unknown; expect: { ok: boolean } })
      .filter((ex) => ex.expect.ok)
    expect(valid.length).toBeGreaterThan(5)
    for (const ex of valid) expect(costOf(ex.request)).toBeLessThan(DEFAULT_LIMITS.maxCost / 5)
  })

  test('foreign side by side that cannot share one: refused with the path of their or', () => {
    expectValid(companies(orOf(11, 'none')))
    expectIssues(companies(orOf(12, 'none')), [{
      code: 'cost_exceeded',
      path: '/filter/or',
      message:
        'The filter may visit up to 3,132 rows per companies record; the limit (maxCost) is 3,000. ' +
        'Most of that is an `or` of 12 alternatives, with 12 `foreign` conditions. Narrow the query: fewer alternatives in an `or`, ' +
        'fewer `foreign` conditions side by side (those on one dataset can share one `foreign` with an `or` inside), fewer conditions inside a `foreign`, ' +
        'or fewer nested `foreign` levels.',
      expected: 'a cost of at most 3000',
      got: '3132',
    }])
  })

  test('the path follows the cost down to where it sits', () => {
    const hot = companies({ and: [{ name: 'x' }, { country: 'USA' }, orOf(20, 'all')] })
    expect(expectIssuesPaths(hot)).toEqual([['cost_exceeded', '/filter/and/2/or']])
    // A chain is reported at its top: every level adds to it.
    const chained = companies({ and: [{ name: 'x' }, chain(10, { name: 'x' }, 'all')] })
    const issues = expectIssuesPaths(chained)
    expect(issues).toEqual([['cost_exceeded', '/filter/and/1/foreign']])
  })

  test('names a foreign and its nested foreign when one foreign is the cost', () => {
    expectIssues(companies(chain(5)), [{
      code: 'cost_exceeded',
      path: '/filter/foreign',
      message:
        'The filter may visit up to 1,231 rows per companies record; the limit (maxCost) is 1,000. ' +
        'Most of that is a `foreign` on investors with 4 more `foreign` inside. Narrow the query: fewer alternatives in an `or`, ' +
        'fewer `foreign` conditions side by side (those on one dataset can share one `foreign` with an `or` inside), fewer conditions inside a `foreign`, ' +
        'or fewer nested `foreign` levels.',
    }], { maxCost: 1000 })
  })

  test('the limit is configurable', () => {
    expectValid(companies(chain(5)), { maxCost: 1231 })
    expectIssues(companies(chain(5)), [{ code: 'cost_exceeded', got: '1231', expected: 'a cost of at most 1230' }], { maxCost: 1230 })
  })

  test('the filter of a stored query is checked the same way, whatever the spelling', () => {
    // Aliases (`investor`) and `not any` merge like their canonical spelling.
    const spelled = companies({ and: Array.from({ length: 20 }, (_, i) => ({ not: { foreign: { dataset: i % 2 ? 'investor' : 'investors', filter: { name: `n-${i}` } } } })) })
    expectValid(spelled)
    expect(costOf(spelled)).toBe(VISIT + SET_PASS + 20)
  })
})

function expectIssuesPaths(request: unknown): [string, string][] {
  const issues = expectIssues(request, [{ code: 'cost_exceeded' }])
  return issues.map((i) => [i.code, i.path])
}
