/**
 * The cost prediction (check/cost.ts, `predictCost` on `workOnData`): with the row counts of a
 * database injected rather than a database built, the issue's two expensive requests are refused
 * at 200,000 companies under serve's 10 s budget, common legitimate filters are not, and adding a
 * condition or a `foreign` level never lowers the cost.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { FilterNode } from '../../src/ast/nodes.js'
import { estimateCost, predictCost, workOnData, type PredictedCost } from '../../src/check/cost.js'
import { resolveLimits } from '../../src/check/limits.js'
import { parseQuery } from '../../src/parse/index.js'
import { DEFAULT_QUERY_TIMEOUT_MS } from '../../src/cli/serve.js'
import { chainFilter } from '../../bench/support/foreign-chains.js'
import { numRuns } from '../support/num-runs.js'

/** The generator's shape (bench database of 100,000 companies, bench/cost-calibration.ts) scaled to `companies`. */
const rowsAt = (companies: number) => (table: string): number => {
  const per100k: Record<string, number> = { companies: 100_000, investors: 5_000, fundings: 151_026, investments: 292_338, funding_investors: 345_785 }
  return Math.round(((per100k[table] ?? 0) * companies) / 100_000)
}

function predicted(request: { dataset: string; filter: unknown }, companies: number, backend: 'sqlite' | 'postgres' = 'sqlite'): PredictedCost {
  const parsed = parseQuery(request, resolveLimits({ maxCost: Number.POSITIVE_INFINITY }))
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
  const filter = (parsed.value as { filter: FilterNode }).filter
  const rows = rowsAt(companies)
  const table = request.dataset === 'fundings' ? 'fundings' : request.dataset
  return predictCost(estimateCost(filter).total, workOnData(filter, request.dataset, rows), rows(table), backend, request.dataset)
}

const BUDGET = DEFAULT_QUERY_TIMEOUT_MS

describe('the issue\'s expensive requests, at 200,000 companies', () => {
  const fiveAll = { dataset: 'companies', filter: chainFilter(5, { name: { eq: 'no-such-name' } }, 'all') }
  const elevenBroad = { dataset: 'companies', filter: chainFilter(11, { name: { is_null: false } }) }

  it('are within the static maxCost (so only the prediction can refuse them)', () => {
    expect(predicted(fiveAll, 200_000).units).toBeLessThanOrEqual(3000)
    expect(predicted(elevenBroad, 200_000).units).toBeLessThanOrEqual(3000)
  })

  it.each([['sqlite'], ['postgres']] as const)('are predicted over serve\'s budget on %s', (backend) => {
    expect(predicted(fiveAll, 200_000, backend).ms).toBeGreaterThan(BUDGET)
    expect(predicted(elevenBroad, 200_000, backend).ms).toBeGreaterThan(BUDGET)
  })

  it('and the prediction grows with the data', () => {
    expect(predicted(fiveAll, 1_000_000).ms).toBeGreaterThan(predicted(fiveAll, 200_000).ms)
    expect(predicted(fiveAll, 5_000).ms).toBeLessThan(BUDGET)
  })
})

describe('legitimate filters stay accepted at 200,000 companies', () => {
  const cases: [string, { dataset: string; filter: unknown }][] = [
    ['multi-field (design 8)', { dataset: 'companies', filter: { country: 'USA', stage: { in: ['a', 'b'] }, employees: { between: [50, 200] } } }],
    ['tags', { dataset: 'companies', filter: { industries: { has_any: ['Fintech'] } } }],
    ['investors via foreign (spec 4.14)', { dataset: 'investors', filter: { and: [{ portfolio_size: { gte: 2 } }, { type: { in: ['vc', 'accelerator'] } }, { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech', 'Software'] } } } }] } }],
    ['companies by investor', { dataset: 'companies', filter: { foreign: { dataset: 'investors', filter: { svc_slug: 'sequoia' } } } }],
    ['fundings of a series', { dataset: 'fundings', filter: { series: 'a', amount: { gte: 1_000_000 } } }],
    ['an `or` of 499 conditions (maxNodes)', { dataset: 'companies', filter: { or: Array.from({ length: 499 }, (_, i) => ({ name: `company-${i}` })) } }],
    ['match all', { dataset: 'companies', filter: {} }],
  ]
  it.each(cases)('%s', (_name, request) => {
    expect(predicted(request, 200_000).ms).toBeLessThanOrEqual(BUDGET)
  })
})

describe('monotone', () => {
  const conditions = fc.constantFrom<unknown>({ name: { eq: 'x' } }, { country: 'USA' }, { employees: { gte: 10 } }, { stage: { in: ['a', 'b'] } })
  const investorConditions = fc.constantFrom<unknown>({ name: { eq: 'x' } }, { type: 'vc' }, { portfolio_size: { gte: 3 } })
  const match = fc.constantFrom('any', 'none', 'all')
  /** A filter over companies: conditions, and a chain through investors of 0-4 levels. */
  const filters = fc.record({ conditions: fc.array(conditions, { maxLength: 6 }), levels: fc.integer({ min: 0, max: 4 }), inner: investorConditions, match, connective: fc.constantFrom('and', 'or') })
  const build = (f: { conditions: unknown[]; levels: number; inner: unknown; match: string; connective: string }) => {
    const chain = f.levels === 0 ? [] : [chainFilter(f.levels, f.levels % 2 === 1 ? f.inner : { name: { eq: 'x' } }, f.match as 'any')]
    const children = [...f.conditions, ...chain]
    return { dataset: 'companies', filter: children.length === 0 ? {} : { [f.connective]: children } }
  }

  it('adding a condition or a `foreign` level never lowers the units or the predicted time', () => {
    let grewOnce = 0
    fc.assert(fc.property(filters, conditions, fc.boolean(), fc.integer({ min: 5_000, max: 1_000_000 }), (f, extra, addLevel, companies) => {
      const before = predicted(build(f), companies)
      const more = addLevel && f.levels < 9 ? { ...f, levels: f.levels + 1 } : { ...f, conditions: [...f.conditions, extra] }
      const after = predicted(build(more), companies)
      expect(after.units).toBeGreaterThanOrEqual(before.units)
      expect(after.ms).toBeGreaterThanOrEqual(before.ms)
      if (after.ms > before.ms) grewOnce++
    }), { numRuns: numRuns(200) })
    // The generator makes cases where the extra part costs something (not only equal costs).
    expect(grewOnce).toBeGreaterThan(10)
  })
})
