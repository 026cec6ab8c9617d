/**
 * The prediction on the data's statistics (execute/statistics.ts, check/cost.ts `expectedWork`):
 * a condition's selectivity is the fraction of the sample it holds for; the expected work sees
 * selectivity (a chain ending in a condition nothing meets costs less than one everything meets,
 * an index on a selective condition narrows the scan) and never exceeds the worst case on the
 * same row counts.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConditionNode, FilterNode } from '../../src/ast/nodes.js'
import { expectedWork, MAX_SAMPLED_CONDITIONS, workOnData, type DataStatistics } from '../../src/check/cost.js'
import { resolveLimits } from '../../src/check/limits.js'
import { DIALECTS } from '../../src/compile/index.js'
import { readStatistics, SAMPLE_SIZE, statisticsOf } from '../../src/execute/statistics.js'
import { parseQuery } from '../../src/parse/index.js'
import { createSnapshot } from '../../src/reference/snapshot.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { dataVersion, type SqliteVentureDb } from '../../src/store/open.js'
import { chainFilter } from '../../bench/support/foreign-chains.js'
import { numRuns } from '../support/num-runs.js'

function filterOf(request: { dataset: string; filter: unknown }): FilterNode {
  const parsed = parseQuery(request, resolveLimits({ maxCost: Number.POSITIVE_INFINITY }))
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
  return (parsed.value as { filter: FilterNode }).filter
}

describe('statisticsOf: selectivity from a sample', () => {
  const companies = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `c${i}`, country: i < 3 ? 'DEU' : 'USA', industries: i % 2 === 0 ? ['Fintech'] : [] }))
  const stats = statisticsOf(() => 10, createSnapshot({ companies }))
  const condition = (filter: unknown) => filterOf({ dataset: 'companies', filter }) as ConditionNode

  it('is the fraction of the sampled records a condition holds for, tags included', () => {
    expect(stats.sampled('companies')).toBe(10)
    expect(stats.sampled('investors')).toBe(0)
    expect(stats.selectivity(condition({ country: 'DEU' }), 'companies')).toBeCloseTo(0.3)
    expect(stats.selectivity(condition({ country: { in: ['DEU', 'USA'] } }), 'companies')).toBeCloseTo(1)
    expect(stats.selectivity(condition({ name: 'nobody' }), 'companies')).toBe(0)
    expect(stats.selectivity(condition({ industries: { has_any: ['Fintech'] } }), 'companies')).toBeCloseTo(0.5)
  })

  it('knows nothing of a dataset it has no sample of', () => {
    const onInvestors = filterOf({ dataset: 'investors', filter: { type: 'vc' } }) as ConditionNode
    expect(stats.selectivity(onInvestors, 'investors')).toBeUndefined()
  })
})

describe('expectedWork measures at most MAX_SAMPLED_CONDITIONS conditions of one filter', () => {
  it('the first ones the walk meets; the same request is predicted the same every time', () => {
    const asked = new Set<ConditionNode>()
    const stats: DataStatistics = { rows: () => 1000, sampled: () => 100, selectivity: (node) => { asked.add(node); return 0.01 } }
    const wide = filterOf({ dataset: 'companies', filter: { or: Array.from({ length: 100 }, (_, i) => ({ name: `n${i}` })) } })
    const first = expectedWork(wide, 'companies', stats)
    expect(asked.size).toBe(MAX_SAMPLED_CONDITIONS)
    expect(expectedWork(wide, 'companies', stats)).toEqual(first)
    const narrow = filterOf({ dataset: 'companies', filter: { or: Array.from({ length: 10 }, (_, i) => ({ name: `n${i}` })) } })
    asked.clear()
    expectedWork(narrow, 'companies', stats)
    expect(asked.size).toBe(10)
  })
})

describe('expectedWork on the fixture\'s statistics', () => {
  let vdb: SqliteVentureDb
  let stats: DataStatistics
  beforeAll(async () => {
    vdb = await createFixtureDatabase({ companies: 400 })
    stats = await readStatistics({ db: vdb.db, dialect: DIALECTS.sqlite, dataVersion: await dataVersion(vdb) })
  })
  afterAll(() => vdb.sqlite.close())

  const work = (request: { dataset: string; filter: unknown }) => expectedWork(filterOf(request), request.dataset, stats)
  const total = (w: { tests: number; visits: number }) => w.tests + w.visits

  it('samples every record of a small table, spread over its keys', () => {
    expect(stats.sampled('companies')).toBe(Math.min(SAMPLE_SIZE, stats.rows('companies')))
    expect(stats.rows('companies')).toBe(400)
    expect(stats.rows('investments')).toBeGreaterThan(0)
  })

  it('a chain of `any` ending in a condition nothing meets is cheaper than one everything meets', () => {
    for (const levels of [1, 3, 5]) {
      const none = work({ dataset: 'companies', filter: chainFilter(levels, { name: { eq: 'no-such-name' } }) })
      const every = work({ dataset: 'companies', filter: chainFilter(levels, { name: { is_null: false } }) })
      expect(total(none)).toBeLessThan(total(every))
    }
  })

  it('an index on a selective condition narrows the scan; an unindexed or unselective one does not', () => {
    expect(work({ dataset: 'companies', filter: { name: 'no-such-name' } }).scan).toBeLessThan(0.01)
    expect(work({ dataset: 'companies', filter: { description: { contains: 'data' } } }).scan).toBe(1)
    expect(work({ dataset: 'companies', filter: { employees: { gte: 0 } } }).scan).toBeGreaterThan(0.9)
    expect(work({ dataset: 'companies', filter: {} })).toEqual({ tests: 0, visits: 0, scan: 0 })
  })

  it('an `and` stops at a false child: a selective condition before a `foreign` saves its probes', () => {
    const probe = { foreign: { dataset: 'investors', filter: { type: 'vc' }, match: 'none' } }
    const alone = work({ dataset: 'companies', filter: probe })
    const narrowed = work({ dataset: 'companies', filter: { and: [{ description: { contains: 'no-such-text' } }, probe] } })
    expect(narrowed.visits).toBeLessThan(alone.visits / 10)
  })

  it('never exceeds the worst case on the same row counts', () => {
    const datasets = ['companies', 'investors', 'fundings'] as const
    const conditions: Record<(typeof datasets)[number], unknown[]> = {
      companies: [{ name: { eq: 'x' } }, { country: 'USA' }, { employees: { gte: 10 } }, { description: { contains: 'data' } }, { name: { is_null: false } }],
      investors: [{ name: { eq: 'x' } }, { type: 'vc' }, { portfolio_size: { gte: 3 } }, { name: { is_null: false } }],
      fundings: [{ series: 'a' }, { amount: { gte: 1_000_000 } }, { company_name: { eq: 'x' } }],
    }
    const related = { companies: ['investors', 'fundings'], investors: ['companies', 'fundings'], fundings: ['companies', 'investors'] } as const
    const tree = (dataset: (typeof datasets)[number], depth: number): fc.Arbitrary<unknown> => {
      const leaf = fc.constantFrom(...conditions[dataset])
      if (depth === 0) return leaf
      return fc.oneof(
        leaf,
        fc.record({ to: fc.constantFrom(...related[dataset]), match: fc.constantFrom('any', 'none', 'all') })
          .chain(({ to, match }) => tree(to, depth - 1).map((filter) => ({ foreign: { dataset: to, filter, match } }))),
        fc.tuple(fc.constantFrom('and', 'or'), fc.array(tree(dataset, depth - 1), { minLength: 2, maxLength: 4 })).map(([k, cs]) => ({ [k]: cs })),
        tree(dataset, depth - 1).map((f) => ({ not: f })),
      )
    }
    let cheaper = 0
    fc.assert(fc.property(fc.constantFrom(...datasets).chain((d) => tree(d, 4).map((filter) => ({ dataset: d, filter }))), (request) => {
      const f = filterOf(request)
      const expected = work(request)
      const worst = workOnData(f, request.dataset, (t) => stats.rows(t))
      expect(expected.tests).toBeLessThanOrEqual(worst.tests + 1e-9)
      expect(expected.tests + expected.visits).toBeLessThanOrEqual(worst.tests + worst.visits + 1e-9)
      expect(expected.scan ?? 1).toBeLessThanOrEqual(1)
      if (total(expected) < 0.5 * total(worst)) cheaper++
    }), { numRuns: numRuns(200) })
    // The generator makes filters whose data makes them much cheaper than the worst case.
    expect(cheaper).toBeGreaterThan(10)
  })
})
