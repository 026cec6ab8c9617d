/**
 * The pipeline holds the prediction scaled by the online correction to the budget
 * (execute/pipeline.ts, execute/time-correction.ts): a run of slow requests makes a borderline
 * request refused, a run of fast ones makes it accepted; the cost it reports is the scaled one; and
 * the requests it runs feed the correction, except those whose total was found cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FilterNode } from '../../src/ast/nodes.js'
import { estimateCost, EXPECTED_TIME_MODEL, expectedWork, predictCost, type PredictedCost } from '../../src/check/cost.js'
import { resolveLimits } from '../../src/check/limits.js'
import { DIALECTS } from '../../src/compile/index.js'
import { createPipeline, type Pipeline } from '../../src/execute/pipeline.js'
import { readStatistics } from '../../src/execute/statistics.js'
import { TimeCorrection } from '../../src/execute/time-correction.js'
import { parseQuery } from '../../src/parse/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { dataVersionSync, type SqliteVentureDb } from '../../src/store/open.js'
import { chainFilter } from '../../bench/support/foreign-chains.js'

const REQUEST = { dataset: 'companies', filter: chainFilter(3, { name: { is_null: false } }, 'all') }

let vdb: SqliteVentureDb
let model: PredictedCost
beforeAll(async () => {
  vdb = await createFixtureDatabase({ companies: 200 })
  const parsed = parseQuery(REQUEST, resolveLimits({ maxCost: Number.POSITIVE_INFINITY }))
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
  const filter = (parsed.value as { filter: FilterNode }).filter
  const stats = await readStatistics({ db: vdb.db, dialect: DIALECTS.sqlite, dataVersion: dataVersionSync(vdb.sqlite) })
  model = predictCost(estimateCost(filter).total, expectedWork(filter, 'companies', stats), stats.rows('companies'), 'sqlite', 'companies', EXPECTED_TIME_MODEL.sqlite)
})
afterAll(() => vdb.sqlite.close())

/** Explains until the prediction is made on the statistics (read in the background), with no correction yet. */
async function ready(pipeline: Pipeline): Promise<void> {
  for (let turn = 0; turn < 500; turn++) {
    const explained = await pipeline.explain(REQUEST)
    if (explained.ok && explained.value.cost.ms === model.ms) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error('the statistics were never read')
}

/** `n` requests predicted at 1,000 ms that took `ratio` times that. */
const feed = (c: TimeCorrection, ratio: number, n: number) => {
  for (let i = 0; i < n; i++) c.observe({ predictedMs: 1000, tookMs: 1000 * ratio, finished: true })
}

describe('the prediction scaled by the online correction', () => {
  it('slow requests make a borderline request refused, fast ones make it accepted again', async () => {
    let t = 0
    const correction = new TimeCorrection({ now: () => t })
    const pipeline = createPipeline(vdb, resolveLimits({ refuseOverBudget: true }), {}, correction)
    await ready(pipeline)
    // The budget is the model's prediction: within it, as long as nothing was observed.
    const budgetMs = model.ms
    expect((await pipeline.count(REQUEST, { budgetMs })).ok).toBe(true)

    feed(correction, 3, 10)
    const refused = await pipeline.count(REQUEST, { budgetMs })
    expect(refused.ok).toBe(false)
    if (!refused.ok) {
      expect(refused.issues[0]!.code).toBe('cost_exceeded')
      expect(refused.issues[0]!.got).toBe(`${Math.ceil(model.ms * correction.scale())} ms`)
    }
    const explained = await pipeline.explain(REQUEST)
    expect(explained.ok && explained.value.cost.ms).toBe(Math.ceil(model.ms * correction.scale()))

    feed(correction, 0.1, correction.options.window)
    expect(correction.scale()).toBeLessThan(1)
    expect((await pipeline.count(REQUEST, { budgetMs })).ok).toBe(true)
    // Under the model's prediction, accepted only because the machine is measured faster.
    const tighter = Math.floor(model.ms * 0.9)
    expect(model.ms * correction.scale()).toBeLessThanOrEqual(tighter)
    expect((await pipeline.count(REQUEST, { budgetMs: tighter })).ok).toBe(true)
    const alone = createPipeline(vdb, resolveLimits({ refuseOverBudget: true }), {}, new TimeCorrection({ now: () => t }))
    await ready(alone)
    expect((await alone.count(REQUEST, { budgetMs: tighter })).ok).toBe(false)
  })

  it('the requests it runs feed the correction; a total found cached does not', async () => {
    let t = 0
    // Every reading of the clock advances it by a second: a run takes a whole number of seconds.
    const correction = new TimeCorrection({ now: () => (t += 1000), minPredictedMs: 0 })
    const pipeline = createPipeline(vdb, resolveLimits({}), {}, correction)
    await ready(pipeline)
    expect(correction.observations).toBe(0)
    // Requests no other test counted (totals are cached in the database).
    const fresh = { dataset: 'companies', filter: chainFilter(4, { name: { is_null: false } }, 'none') }
    const listed = await pipeline.list({ ...fresh, per_page: 5 })
    expect(listed.ok).toBe(true)
    expect(correction.observations).toBe(1)
    // The same request again: its total is cached, its time is not the work the model predicts.
    expect((await pipeline.list({ ...fresh, per_page: 5 })).ok).toBe(true)
    expect((await pipeline.count(fresh)).ok).toBe(true)
    expect(correction.observations).toBe(1)
    // Another request, counted afresh.
    expect((await pipeline.count({ dataset: 'companies', filter: chainFilter(2, { name: { is_null: false } }, 'any') })).ok).toBe(true)
    expect(correction.observations).toBe(2)
  })

  it('a request stopped at its budget is observed as at least the time it ran', async () => {
    const own = await createFixtureDatabase({ companies: 50 })
    try {
      let t = 0
      const correction = new TimeCorrection({ now: () => (t += 1000), minPredictedMs: 0, priorWeight: 1 })
      const pipeline = createPipeline(own, resolveLimits({}), {}, correction)
      // A new term each turn is counted afresh; observed once predicted on the statistics.
      const request = (term: string) => ({ dataset: 'companies', filter: { description: { contains: term } } })
      for (let turn = 0; turn < 500 && correction.observations === 0; turn++) {
        expect((await pipeline.count(request(`data${turn}`))).ok).toBe(true)
        await new Promise((resolve) => setImmediate(resolve))
      }
      expect(correction.observations).toBe(1)
      const before = correction.ratio()
      // SQLite's interrupt, as the watchdog raises it, from the statement's LIKE.
      own.sqlite.function('like', { varargs: true }, () => { throw Object.assign(new Error('interrupted'), { code: 'SQLITE_INTERRUPT' }) })
      await expect(pipeline.count(request('other'))).rejects.toThrow('interrupted')
      expect(correction.observations).toBe(2)
      expect(correction.ratio()).toBeGreaterThanOrEqual(before)
      // Any other failure says nothing of the time the request needs.
      own.sqlite.function('like', { varargs: true }, () => { throw new Error('broken') })
      await expect(pipeline.count(request('third'))).rejects.toThrow('broken')
      expect(correction.observations).toBe(2)
    } finally {
      own.sqlite.close()
    }
  })
})
