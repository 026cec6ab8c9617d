/**
 * Checkpoints removed under a live connection (the cache trim, by this connection or another
 * process) are written again by the next pass, so one pass serves the deep pages after it. The
 * connection's memo of positions it already wrote must not keep the pass from writing them.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { matchAll } from '../../src/ast/factory.js'
import { planQuery, sqliteDialect, type QueryPlan } from '../../src/compile/index.js'
import { pageByCursor, type ExecContext, type PagingPolicy } from '../../src/execute/index.js'
import { checked } from '../compile/helpers.js'
import { seedDatabase } from './seed-db.js'

const seed = seedDatabase({ companies: 150 })
afterAll(() => seed.vdb.close())
const ctx: ExecContext = { db: seed.vdb.db, dialect: sqliteDialect, dataVersion: 1 }
const POLICY: PagingPolicy = { checkpointEvery: 4, maxCheckpoints: 100, maxSkip: 8, persistTotalsFromMs: 0 }

/** The plan with its checkpoint pass counted. */
function countingPlan(plan: QueryPlan): { plan: QueryPlan; passes: () => number } {
  let passes = 0
  const counted: QueryPlan = { ...plan, checkpointQuery: (...args: Parameters<QueryPlan['checkpointQuery']>) => (passes++, plan.checkpointQuery(...args)) }
  return { plan: counted, passes: () => passes }
}
const stored = (queryId: string) => Number(seed.vdb.sqlite.prepare('select count(*) from query_checkpoints where query_id = ?').pluck().get(queryId))

describe('checkpoints removed under a live connection', () => {
  it('the next pass writes them again, and later deep pages seek from them without another pass', async () => {
    const { plan, passes } = countingPlan(planQuery(checked('companies', matchAll(), [['name', 'asc']]), sqliteDialect))
    const queryId = 'trimmed-checkpoints'
    const matches = 150
    const page = (n: number) => pageByCursor(ctx, plan, { queryId, page: n, perPage: 2, matches }, POLICY)

    const first = await page(30)
    expect(first.records).toHaveLength(2)
    expect(passes()).toBe(1)
    const written = stored(queryId)
    expect(written).toBeGreaterThan(30)

    await page(50)
    expect(passes()).toBe(1)

    seed.vdb.sqlite.prepare('delete from query_checkpoints where query_id = ?').run(queryId)
    const again = await page(40)
    expect(passes()).toBe(2)
    expect(again.records).toHaveLength(2)
    // Every checkpoint of the pass is back, not only the page ends this request learned.
    expect(stored(queryId)).toBeGreaterThanOrEqual(written)

    const later = await page(70)
    expect(passes()).toBe(2)
    expect(later.records.map((r) => r.id)).toEqual((await pageByCursor(ctx, plan, { queryId: 'fresh', page: 70, perPage: 2, matches }, POLICY)).records.map((r) => r.id))
  })
})
