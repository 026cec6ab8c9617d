/**
 * The statistics of the cost prediction (execute/statistics.ts) are read in the background, never
 * on a request's path (execute/pipeline.ts, `costOf`): a request that arrives before they are read
 * for its data version is predicted by the worst case on the data's row counts (`workOnData`,
 * `TIME_MODEL`) instead of waiting for the sample, and once the read is done the same request is
 * predicted on the statistics (`expectedWork`, `EXPECTED_TIME_MODEL`). A new data version starts
 * a new read and meanwhile predicts by the worst case again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FilterNode } from '../../src/ast/nodes.js'
import {
  COST_TABLES, estimateCost, EXPECTED_TIME_MODEL, expectedWork, predictCost, TIME_MODEL, workOnData, type PredictedCost,
} from '../../src/check/cost.js'
import { resolveLimits } from '../../src/check/limits.js'
import { DIALECTS } from '../../src/compile/index.js'
import { createPipeline, type Pipeline } from '../../src/execute/pipeline.js'
import { readStatistics } from '../../src/execute/statistics.js'
import { parseQuery } from '../../src/parse/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, dataVersionSync, type SqliteVentureDb } from '../../src/store/open.js'
import { chainFilter } from '../../bench/support/foreign-chains.js'

// A chain whose innermost condition no record meets: the probes stop at the first related row, so
// the statistics predict far less than the worst case, which visits every related row.
const REQUEST = { dataset: 'companies', filter: chainFilter(5, { name: { eq: 'no-such-name' } }, 'all') }

let vdb: SqliteVentureDb
beforeAll(async () => {
  vdb = await createFixtureDatabase({ companies: 200 })
})
afterAll(() => vdb.sqlite.close())

function filterOf(request: { dataset: string; filter: unknown }): FilterNode {
  const parsed = parseQuery(request, resolveLimits({ maxCost: Number.POSITIVE_INFINITY }))
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
  return (parsed.value as { filter: FilterNode }).filter
}

function worstCase(): PredictedCost {
  const filter = filterOf(REQUEST)
  const rows = (table: string) => vdb.sqlite.prepare(`select count(*) from ${table}`).pluck().get() as number
  return predictCost(estimateCost(filter).total, workOnData(filter, 'companies', rows), rows('companies'), 'sqlite', 'companies')
}

async function onStatistics(): Promise<PredictedCost> {
  const filter = filterOf(REQUEST)
  const stats = await readStatistics({ db: vdb.db, dialect: DIALECTS.sqlite, dataVersion: dataVersionSync(vdb.sqlite) })
  return predictCost(estimateCost(filter).total, expectedWork(filter, 'companies', stats), stats.rows('companies'), 'sqlite', 'companies', EXPECTED_TIME_MODEL.sqlite)
}

async function costOf(pipeline: Pipeline): Promise<PredictedCost> {
  const explained = await pipeline.explain(REQUEST)
  if (!explained.ok) throw new Error(JSON.stringify(explained.issues))
  return explained.value.cost
}

/** Calls `explain` once per turn of the event loop until its cost is `wanted` (at most `turns` turns); the calls made. */
async function callsUntil(pipeline: Pipeline, wanted: PredictedCost, turns = 500): Promise<number> {
  for (let calls = 1; calls <= turns; calls++) {
    if ((await costOf(pipeline)).ms === wanted.ms) return calls
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`the cost never became ${wanted.ms} ms`)
}

describe('the statistics of the cost prediction are read off the request path', () => {
  it('the worst case and the prediction on the statistics differ for the request (else the test could not tell them apart)', async () => {
    const worst = worstCase()
    const expected = await onStatistics()
    expect(COST_TABLES.length).toBeGreaterThan(3)
    expect(worst.ms).toBeGreaterThan(expected.ms)
    expect(worst.units).toBe(expected.units)
  })

  it('a request before the read is predicted by the worst case; once read, by the statistics', async () => {
    const pipeline = createPipeline(vdb, resolveLimits({ maxCost: 10_000 }))
    const worst = worstCase()
    const expected = await onStatistics()
    // The first call, made as the pipeline is created, does not wait for the sample.
    expect(await costOf(pipeline)).toEqual(worst)
    const calls = await callsUntil(pipeline, expected)
    expect(calls).toBeGreaterThan(1)
    // From then on, the statistics' prediction, kept for the data version.
    expect(await costOf(pipeline)).toEqual(expected)
    expect(await costOf(pipeline)).toEqual(expected)
  })

  it('a new data version is read in the background too: the worst case until it is read', async () => {
    const pipeline = createPipeline(vdb, resolveLimits({ maxCost: 10_000 }))
    const expected = await onStatistics()
    await callsUntil(pipeline, expected)
    bumpDataVersionSync(vdb.sqlite)
    expect(await costOf(pipeline)).toEqual(worstCase())
    expect(await callsUntil(pipeline, await onStatistics())).toBeGreaterThan(1)
  })

  it('a refusal by predicted time holds the request to the worst case until the statistics are read', async () => {
    const expected = await onStatistics()
    const worst = worstCase()
    const budgetMs = Math.floor((expected.ms + worst.ms) / 2)
    expect(budgetMs).toBeGreaterThanOrEqual(expected.ms)
    expect(budgetMs).toBeLessThan(worst.ms)
    const pipeline = createPipeline(vdb, resolveLimits({ refuseOverBudget: true, maxCost: 10_000 }))
    const early = await pipeline.count(REQUEST, { budgetMs })
    expect(early.ok).toBe(false)
    if (!early.ok) expect(early.issues[0]!.code).toBe('cost_exceeded')
    await callsUntil(pipeline, expected)
    expect((await pipeline.count(REQUEST, { budgetMs })).ok).toBe(true)
  })
})
