/**
 * The cost against the call's time budget (execute/pipeline.ts, `costWithinBudget`): with
 * `refuseOverBudget`, `query`, `list` and `count` refuse with `cost_exceeded`, before running or storing anything, a filter
 * predicted to take longer than the call's budget, and accept it within the budget; `explain`
 * reports the same cost, and the CLI's `explain` prints it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TIME_MODEL } from '../../src/check/cost.js'
import { createEngine, type Engine } from '../../src/engine.js'
import { formatExplain } from '../../src/cli/explain.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { chainFilter } from '../../bench/support/foreign-chains.js'

let vdb: SqliteVentureDb
let engine: Engine
beforeAll(async () => {
  vdb = await createFixtureDatabase({ companies: 150 })
  engine = createEngine({ database: vdb, limits: { refuseOverBudget: true } })
  await engine.ready()
})
afterAll(async () => {
  await engine.close()
  vdb.sqlite.close()
})

const CHAIN = { dataset: 'companies', filter: chainFilter(5, { name: { eq: 'no-such-name' } }, 'all') }

async function costOf(request: unknown) {
  const explained = await engine.explain(request)
  if (!explained.ok) throw new Error(JSON.stringify(explained.issues))
  return explained.value.cost
}

describe('the cost and the call\'s budget', () => {
  it('explain reports units (the static estimate), the records and the predicted ms', async () => {
    const cost = await costOf(CHAIN)
    expect(cost.units).toBe(2461)
    expect(cost.rows).toBe(150)
    expect(cost.ms).toBeGreaterThan(TIME_MODEL.sqlite.baseMs)
    expect(formatExplain((await engine.explain(CHAIN) as { ok: true; value: any }).value)).toContain(`cost: 2461 units per record, 150 records, predicted ${cost.ms} ms`)
  })

  it.each(['query', 'list', 'count'] as const)('%s: refused one millisecond under the prediction, run at it', async (method) => {
    const { ms } = await costOf(CHAIN)
    const refused = await engine[method](CHAIN, { timeoutMs: ms - 1 })
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect(refused.issues).toHaveLength(1)
    expect(refused.issues[0]).toMatchObject({ code: 'cost_exceeded', path: '/filter/foreign', expected: `a predicted time of at most ${ms - 1} ms`, got: `${ms} ms` })
    expect(refused.issues[0]!.message).toMatch(/predicted to take about [\d,]+ ms here \(2,461 units per companies record, 150 records\), over this call's time budget/)
    expect(refused.issues[0]!.message).toMatch(/nested `foreign` levels/)
    // At the prediction it is not refused (it may still run over so small a budget on a loaded machine).
    const at = await engine[method](CHAIN, { timeoutMs: ms })
    expect(at.ok || at.issues[0]!.code).not.toBe('cost_exceeded')
    expect((await engine[method](CHAIN, { timeoutMs: Math.max(ms, 60_000) })).ok).toBe(true)
  })

  it('a refused query is not stored', async () => {
    const request = { ...CHAIN, filter: chainFilter(3, { name: { eq: 'never-stored' } }, 'all') }
    const { ms } = await costOf(request)
    const before = vdb.sqlite.prepare('select count(*) from stored_queries').pluck().get()
    expect((await engine.query(request, { timeoutMs: ms - 1 })).ok).toBe(false)
    expect(vdb.sqlite.prepare('select count(*) from stored_queries').pluck().get()).toBe(before)
  })

  it('without refuseOverBudget (the default) the prediction is reported, never refused', async () => {
    const reporting = createEngine({ database: vdb })
    try {
      await reporting.ready()
      const { ms } = await costOf(CHAIN)
      const ran = await reporting.list(CHAIN, { timeoutMs: ms - 1 })
      expect(ran.ok).toBe(true)
      if (ran.ok) expect(ran.value.cost.ms).toBe(ms)
    } finally {
      await reporting.close()
    }
  })

  it('no budget (0), or maxCost Infinity, turns the time check off', async () => {
    expect((await engine.list(CHAIN, { timeoutMs: 1 })).ok).toBe(false)
    expect((await engine.list(CHAIN, { timeoutMs: 0 })).ok).toBe(true)
    const unlimited = createEngine({ database: vdb, limits: { maxCost: Number.POSITIVE_INFINITY, refuseOverBudget: true } })
    try {
      await unlimited.ready()
      expect((await unlimited.list(CHAIN, { timeoutMs: 1 })).ok).toBe(true)
    } finally {
      await unlimited.close()
    }
  })

  it('query and list return the cost', async () => {
    const listed = await engine.list(CHAIN)
    const queried = await engine.query(CHAIN)
    if (!listed.ok || !queried.ok) throw new Error('refused')
    expect(listed.value.cost.units).toBe(2461)
    expect(listed.value.cost).toEqual(await costOf(CHAIN))
    expect(queried.value.cost).toEqual(await costOf(CHAIN))
  })
})
