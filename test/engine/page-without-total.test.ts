/**
 * `engine.pageWithoutTotal`: the pages of a stored query without counting. Same records as
 * `engine.page`, page after page, on a worker pool and inline; no total is counted or cached; the
 * same paging rules and issues as `page`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { rememberedProbes } from '../../src/store/row-counts.js'

let dir: string
let vdb: SqliteVentureDb
const engines: Record<string, Engine> = {}
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-no-total-'))
  const file = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file, companies: 300 })).close()
  // Every total written to query_totals (the default keeps totals counted in under 1 ms in memory).
  engines.pool = createEngine({ database: file, workers: 1, paging: { persistTotalsFromMs: 0 } })
  engines.inline = createEngine({ database: file, workers: 0, paging: { persistTotalsFromMs: 0 } })
  vdb = engines.inline.database as SqliteVentureDb
})
afterAll(async () => {
  for (const e of Object.values(engines)) await e.close()
  rmSync(dir, { recursive: true, force: true })
})

const request = { dataset: 'companies', filter: { foreign: { dataset: 'fundings', filter: { series: 'seed' }, match: 'none' } }, sort: [{ total_funding: 'desc' }] }

describe.each(['pool', 'inline'])('pageWithoutTotal (%s)', (kind) => {
  it('returns the pages of page(), without counting', async () => {
    const engine = engines[kind]!
    const stored = await engine.store(request)
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const id = stored.value.query_id
    const totals = () => vdb.sqlite.prepare('select count(*) from query_totals where query_id = ?').pluck().get(id)
    vdb.sqlite.prepare('delete from query_totals where query_id = ?').run(id)
    const seen: unknown[] = []
    for (let page = 1; ; page++) {
      const r = await engine.pageWithoutTotal(id, { page, per_page: 40 })
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      expect(r.value.meta).toEqual({ current_page: page, per_page: 40 })
      expect(r.value.query_id).toBe(id)
      expect(r.value.query.filter).toEqual(stored.value.canonical.filter)
      seen.push(...r.value.results.map((x) => x.id))
      if (r.value.results.length < 40) break
    }
    expect(totals()).toBe(0)
    const counted: unknown[] = []
    for (let page = 1; ; page++) {
      const r = await engine.page(id, { page: String(page), per_page: '40' })
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      counted.push(...r.value.results.map((x) => x.id))
      if (page >= r.value.meta.total_pages) {
        expect(seen.length).toBe(r.value.meta.total_record_count)
        break
      }
    }
    expect(seen).toEqual(counted)
    expect(seen.length).toBeGreaterThan(40)
    expect(totals()).toBe(1)
  })

  it('answers bad paging and unknown ids with the issues page() gives', async () => {
    const engine = engines[kind]!
    for (const [id, paging] of [['nope', {}], ['AAAAAAAAAAAAAAAAAAAAAA', {}], ['x y', { page: 1 }]] as const) {
      const a = await engine.pageWithoutTotal(id, paging)
      const b = await engine.page(id, paging)
      expect(a.ok).toBe(false)
      expect(a).toEqual(b)
    }
    const stored = await engine.store(request)
    if (!stored.ok) throw new Error('store')
    for (const paging of [{ page: 0 }, { per_page: 100_000 }, { page: 'two' }, { page: null }]) {
      const a = await engine.pageWithoutTotal(stored.value.query_id, paging)
      expect(a.ok).toBe(false)
      expect(a).toEqual(await engine.page(stored.value.query_id, paging))
    }
  })
})

describe('the probe that steers a page without total', () => {
  it('is remembered per data version and query, and probed again when a page needs a larger bound', async () => {
    const engine = engines.inline!
    const stored = await engine.store({ dataset: 'companies', filter: { country: 'USA' } })
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const id = stored.value.query_id
    const version = Number(vdb.sqlite.prepare(`select value from meta where key = 'data_version'`).pluck().get() ?? 0)
    const key = `${version}\u0000${id}`
    const probes = rememberedProbes(vdb.db)
    probes.delete(key)
    vdb.sqlite.prepare('delete from query_totals where query_id = ?').run(id)
    const page = async (n: number) => {
      const r = await engine.pageWithoutTotal(id, { page: n, per_page: 10 })
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      return r.value.results.map((x) => x.id)
    }
    const first = await page(1)
    expect(first).toHaveLength(10)
    const probed = probes.get(key)
    expect(probed).toBeDefined()
    expect(probed!.bound).toBeGreaterThan(1)
    // A bound at least as large as the page needs is used as it is (a probe would overwrite it).
    const marker = { counted: probed!.bound + 7, bound: probed!.bound }
    probes.set(key, marker)
    expect(await page(1)).toEqual(first)
    expect(probes.get(key)).toBe(marker)
    // A lower bound below what page 1 needs is probed again.
    probes.set(key, { counted: 2, bound: 1 })
    expect(await page(1)).toEqual(first)
    expect(probes.get(key)).toEqual(probed)
    // Steering never changes the records: the counted pages agree.
    const counted = await engine.page(id, { page: 1, per_page: 10 })
    if (!counted.ok) throw new Error('page')
    expect(counted.value.results.map((x) => x.id)).toEqual(first)
  })

  it('reads page 1 by the walk that probes, when it finds the page: no probe, then keys query, apart', async () => {
    const engine = engines.inline!
    // Covered by the composite index on (country, stage, employees, svc_score): the probe walks the sort index.
    const stored = await engine.store({ dataset: 'companies', filter: { employees: { gte: 1 } }, sort: [{ svc_score: 'desc' }] })
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const id = stored.value.query_id
    const version = Number(vdb.sqlite.prepare(`select value from meta where key = 'data_version'`).pluck().get() ?? 0)
    const probes = rememberedProbes(vdb.db)
    const statements: string[] = []
    const proto = Object.getPrototypeOf(vdb.sqlite.prepare('select 1')) as { all: (...a: unknown[]) => unknown }
    const all = proto.all
    proto.all = function (this: { source: string }, ...a: unknown[]) {
      statements.push(this.source)
      return all.apply(this, a)
    }
    let first: unknown[]
    try {
      probes.delete(`${version}\u0000${id}`)
      const r = await engine.pageWithoutTotal(id, { page: 1, per_page: 10 })
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      first = r.value.results.map((x) => x.id)
    } finally {
      proto.all = all
    }
    const probed = probes.get(`${version}\u0000${id}`)
    // The walk found the page: the bound is remembered as reached.
    expect(probed).toBeDefined()
    expect(probed!.counted).toBe(probed!.bound)
    const walks = statements.filter((s) => /indexed by/i.test(s))
    expect(walks).toHaveLength(1)
    expect(walks[0]).toMatch(/"hit"/)
    expect(statements.filter((s) => /count\(\*\)/i.test(s))).toEqual([])
    expect(first).toHaveLength(10)
    const counted = await engine.page(id, { page: 1, per_page: 10 })
    if (!counted.ok) throw new Error('page')
    expect(counted.value.results.map((x) => x.id)).toEqual(first)
    // Page 2 starts where page 1 ended.
    const second = await engine.pageWithoutTotal(id, { page: 2, per_page: 10 })
    const countedSecond = await engine.page(id, { page: 2, per_page: 10 })
    if (!second.ok || !countedSecond.ok) throw new Error('page 2')
    expect(second.value.results.map((x) => x.id)).toEqual(countedSecond.value.results.map((x) => x.id))
  })
})

describe('listWithoutTotal', () => {
  it('reads the data version once per page, for the cost check and the page both', async () => {
    const engine = engines.inline!
    const proto = Object.getPrototypeOf(vdb.sqlite.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>
    const reads: string[] = []
    const originals = Object.fromEntries(['all', 'get'].map((m) => [m, proto[m]!]))
    for (const m of ['all', 'get']) {
      proto[m] = function (this: { source: string }, ...a: unknown[]) {
        if (/\bmeta\b/.test(this.source)) reads.push(this.source)
        return originals[m]!.apply(this, a)
      }
    }
    const listed: unknown[][] = []
    try {
      for (const filter of [{ country: 'USA' }, {}]) {
        const list = { dataset: 'companies', filter, per_page: 10 }
        for (let i = 0; i < 2; i++) {
          reads.length = 0
          const r = await engine.listWithoutTotal(list)
          if (!r.ok) throw new Error(JSON.stringify(r.issues))
          expect(reads, `${JSON.stringify(filter)}, call ${i + 1}`).toHaveLength(1)
          listed.push(r.value.results.map((x) => x.id))
        }
      }
    } finally {
      for (const m of ['all', 'get']) proto[m] = originals[m]!
    }
    // The same records as the page with its total.
    for (const [i, filter] of [{ country: 'USA' }, {}].entries()) {
      const counted = await engine.list({ dataset: 'companies', filter, per_page: 10 })
      if (!counted.ok) throw new Error(JSON.stringify(counted.issues))
      expect(listed[2 * i]).toEqual(counted.value.results.map((x) => x.id))
      expect(listed[2 * i + 1]).toEqual(listed[2 * i])
    }
  })
})
