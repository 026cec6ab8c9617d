/**
 * Totals cheaper to count than to write (execute/counts.ts, `cachedTotal`): a total counted in
 * less than `paging.persistTotalsFromMs` (1 ms by default) is kept in the connection's memory per
 * data version, not written to query_totals; from that threshold on it is written as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { DEFAULT_PAGING } from '../../src/execute/cursor.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersion, dataVersion, type SqliteVentureDb } from '../../src/store/open.js'

let vdb: SqliteVentureDb
beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 120 }) })
afterAll(async () => { await vdb.close() })

const request = { dataset: 'companies', filter: { country: 'USA' }, per_page: 5 }
const written = () => vdb.sqlite.prepare('select count(*) from query_totals').pluck().get() as number
const usa = () => vdb.sqlite.prepare(`select count(*) from companies where country = 'USA'`).pluck().get() as number

async function withEngine(persistTotalsFromMs: number | undefined, run: (engine: Engine) => Promise<void>): Promise<void> {
  vdb.sqlite.exec('delete from query_totals')
  const engine = createEngine({ database: vdb, ...(persistTotalsFromMs === undefined ? {} : { paging: { persistTotalsFromMs } }) })
  try {
    await run(engine)
  } finally {
    await engine.close()
  }
}

describe('totals cheaper to count than to write', () => {
  it('are remembered in memory, not written: the next page and count find them there', async () => {
    // Infinity: every count is "cheap", so the test does not depend on this machine's speed.
    await withEngine(Infinity, async (engine) => {
      const first = await engine.query(request)
      if (!first.ok) throw new Error(JSON.stringify(first.issues))
      expect(first.value.meta.total_record_count).toBe(usa())
      expect(usa()).toBeGreaterThan(5)
      expect(written()).toBe(0)
      const before = engine.stats().cache
      const again = await engine.page(first.value.query.query_id, { page: 2, per_page: 5 })
      expect(again.ok && again.value.meta.total_record_count).toBe(usa())
      const after = engine.stats().cache
      expect(after.totalHits - before.totalHits).toBe(1)
      expect(after.totalMisses - before.totalMisses).toBe(0)
      // The memory is what answers: a count of the same filter with rows deleted behind the engine's
      // back (no new data version, as no ingest did it) still shows the remembered total.
      vdb.sqlite.exec('savepoint hidden')
      vdb.sqlite.prepare(`delete from companies where country = 'USA' and id in (select id from companies where country = 'USA' limit 1)`).run()
      const counted = await engine.count(request)
      vdb.sqlite.exec('rollback to hidden; release hidden')
      expect(counted.ok && counted.value).toBe(usa())
      expect(written()).toBe(0)
    })
  })

  it('are counted again at a new data version', async () => {
    await withEngine(Infinity, async (engine) => {
      const before = await engine.count(request)
      expect(before.ok && before.value).toBe(usa())
      vdb.sqlite.prepare(`insert into companies (id, name, country) values (987654, 'Late Co', 'USA')`).run()
      await bumpDataVersion(vdb)
      try {
        const after = await engine.count(request)
        expect(after.ok && after.value).toBe(usa())
        expect(after.ok && before.ok && after.value).toBe(before.ok && before.value + 1)
      } finally {
        vdb.sqlite.prepare('delete from companies where id = 987654').run()
        await bumpDataVersion(vdb)
      }
    })
  })

  it('are written from the threshold on: 0 writes every total, at the current data version', async () => {
    await withEngine(0, async (engine) => {
      const counted = await engine.count(request)
      expect(counted.ok && counted.value).toBe(usa())
      expect(vdb.sqlite.prepare('select data_version, total from query_totals').all()).toEqual([{ data_version: await dataVersion(vdb), total: usa() }])
    })
  })

  it('by default (1 ms), counts of a small fixture are not written', async () => {
    expect(DEFAULT_PAGING.persistTotalsFromMs).toBe(1)
    const countries = vdb.sqlite.prepare('select distinct country from companies where country is not null order by country limit 6').pluck().all() as string[]
    expect(countries).toHaveLength(6)
    await withEngine(undefined, async (engine) => {
      for (const country of countries) {
        const counted = await engine.count({ dataset: 'companies', filter: { country } })
        expect(counted.ok && counted.value).toBe(vdb.sqlite.prepare('select count(*) from companies where country = ?').pluck().get(country))
      }
      // 120 companies count in microseconds, far under 1 ms; a write would show here. One is
      // allowed: a garbage collection during a count can stretch it past the threshold.
      expect(written()).toBeLessThanOrEqual(1)
    })
  })
})
