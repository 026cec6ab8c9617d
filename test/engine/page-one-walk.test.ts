/**
 * Page 1 without its total, read by the walk that probes (`walkKeysQuery`), against `page()`:
 * the same records for sorts with ties, descending and ascending, nullable first keys, several
 * keys, filters of every kind the walk evaluates as a column, and a field selection.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { rememberedProbes } from '../../src/store/row-counts.js'
import { deferIndexes, restoreDeferredIndexes } from '../../src/store/indexes.js'

let dir: string
let vdb: SqliteVentureDb
let engine: Engine
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-page-one-walk-'))
  const file = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file, companies: 1500 })).close()
  engine = createEngine({ database: file, workers: 0, paging: { persistTotalsFromMs: 0 } })
  vdb = engine.database as SqliteVentureDb
})
afterAll(async () => {
  await engine.close()
  rmSync(dir, { recursive: true, force: true })
})

const filters: unknown[] = [
  { employees: { gte: 1 } },
  { country: 'USA' },
  { country: { ne: 'USA' } },
  { foreign: { dataset: 'fundings', filter: { series: 'seed' }, match: 'none' } },
  { foreign: { dataset: 'fundings', filter: { series: 'seed' }, match: 'any' } },
  { total_funding: { gte: 1 } },
  { industries: { has_any: ['Software', 'Fintech'] } },
  { name: { contains: 'a' } },
  { or: [{ country: 'USA' }, { stage: { is_null: true } }] },
  { and: [{ last_funding_date: { is_null: false } }, { employees: { lt: 500 } }] },
  { industries: { is_empty: true } },
]
const sorts: unknown[] = [
  [{ svc_score: 'desc' }],
  [{ svc_score: 'asc' }],
  [{ stage: 'asc' }],
  [{ stage: 'desc' }],
  [{ country: 'asc' }, { employees: 'desc' }],
  [{ last_funding_date: 'asc' }],
  [{ last_funding_date: 'desc' }],
  [{ total_funding: 'asc' }],
  [{ location: 'desc' }],
  [{ id: 'desc' }],
  [{ name: 'asc' }],
  [{ momentum_score: 'asc' }, { stage: 'desc' }],
]

describe('page 1 without total, read by the walk', () => {
  it('equals page() for every filter, sort and page size', async () => {
    const version = Number(vdb.sqlite.prepare(`select value from meta where key = 'data_version'`).pluck().get() ?? 0)
    const probes = rememberedProbes(vdb.db)
    let walked = 0
    const proto = Object.getPrototypeOf(vdb.sqlite.prepare('select 1')) as { all: (...a: unknown[]) => unknown }
    const all = proto.all
    let sawWalk = false
    proto.all = function (this: { source: string }, ...a: unknown[]) {
      if (/indexed by/i.test(this.source) && /"hit"/.test(this.source) && !/count\(\*\)/i.test(this.source)) sawWalk = true
      return all.apply(this, a)
    }
    try {
      for (const filter of filters) {
        for (const sort of sorts) {
          const stored = await engine.store({ dataset: 'companies', filter, sort })
          if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
          const id = stored.value.query_id
          for (const perPage of [1, 3, 10, 25]) {
            for (const fields of [undefined, 'name,country']) {
              probes.delete(`${version}\u0000${id}`)
              vdb.sqlite.prepare('delete from query_totals where query_id = ?').run(id)
              sawWalk = false
              const paging = { page: 1, per_page: perPage, ...(fields ? { fields } : {}) }
              const a = await engine.pageWithoutTotal(id, paging)
              if (sawWalk) walked++
              const b = await engine.page(id, { ...paging, page: '1', per_page: String(perPage) })
              if (!a.ok || !b.ok) throw new Error(JSON.stringify([a, b]))
              expect(a.value.results, JSON.stringify({ filter, sort, perPage, fields })).toEqual(b.value.results)
            }
          }
        }
      }
    } finally {
      proto.all = all
    }
    expect(walked).toBeGreaterThan(20)
  }, 120_000)
})

describe('page 1 without total, read by the walk, on fundings and investors', () => {
  const cases: [string, unknown, unknown][] = [
    ['fundings', { amount: { gte: 1 } }, [{ series: 'asc' }]],
    ['fundings', { country: 'USA' }, [{ rounds_funding_date: 'desc' }]],
    ['fundings', { series: { ne: 'seed' } }, [{ amount: 'asc' }]],
    ['investors', { portfolio_size: { gte: 1 } }, [{ type: 'desc' }]],
    ['investors', { country: { ne: 'USA' } }, [{ most_recent_deal: 'asc' }]],
    ['investors', { type: { is_null: false } }, [{ number_of_deals: 'desc' }, { name: 'asc' }]],
  ]
  it.each(cases)('%s %j by %j equals page()', async (dataset, filter, sort) => {
    const version = Number(vdb.sqlite.prepare(`select value from meta where key = 'data_version'`).pluck().get() ?? 0)
    const stored = await engine.store({ dataset, filter, sort })
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const id = stored.value.query_id
    for (const perPage of [1, 4, 15]) {
      rememberedProbes(vdb.db).delete(`${version}\u0000${id}`)
      vdb.sqlite.prepare('delete from query_totals where query_id = ?').run(id)
      const a = await engine.pageWithoutTotal(id, { page: 1, per_page: perPage })
      const b = await engine.page(id, { page: '1', per_page: String(perPage) })
      if (!a.ok || !b.ok) throw new Error(JSON.stringify([a, b]))
      expect(a.value.results).toEqual(b.value.results)
    }
  })
})

describe('page 1 without total while a bulk load has dropped the indexes', () => {
  it('is read by the planner\'s own plan, not failed by the walk that names its index (pages 1 and 2)', async () => {
    const stored = await engine.store({ dataset: 'companies', filter: { employees: { gte: 1 } }, sort: [{ svc_score: 'desc' }] })
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const id = stored.value.query_id
    const expected = await engine.page(id, { page: '1', per_page: '10' })
    if (!expected.ok) throw new Error('page')
    const version = () => Number(vdb.sqlite.prepare(`select value from meta where key = 'data_version'`).pluck().get() ?? 0)
    const probes = rememberedProbes(vdb.db)
    expect(deferIndexes(vdb.sqlite)).toBeGreaterThan(0)
    try {
      probes.delete(`${version()}\u0000${id}`)
      vdb.sqlite.prepare('delete from query_totals where query_id = ?').run(id)
      const r = await engine.pageWithoutTotal(id, { page: 1, per_page: 10 })
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      expect(r.value.results).toEqual(expected.value.results)
      // Page 2: the walk that only counts (walkProbeQuery) names the index too.
      const expected2 = await engine.page(id, { page: '2', per_page: '10' })
      probes.delete(`${version()}\u0000${id}`)
      const r2 = await engine.pageWithoutTotal(id, { page: 2, per_page: 10 })
      if (!r2.ok || !expected2.ok) throw new Error(JSON.stringify(r2))
      expect(r2.value.results).toEqual(expected2.value.results)
    } finally {
      restoreDeferredIndexes(vdb.sqlite, { force: true })
    }
  })
})
