/**
 * GET /metrics (issue 11, item 2): Prometheus text, only when the app is given metrics, without a
 * key; requests by route pattern (never the raw path) and status, latency histograms, quota
 * refusals, query timeouts, cache hits of totals and page boundaries, and the pool's state.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createApp, type VentureApp } from '../../src/http/app.js'
import { createMetrics } from '../../src/http/metrics.js'
import { createApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { BASE, createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
let app: VentureApp
beforeAll(async () => {
  h = await createHarness({ companies: 120 })
  app = createApp(h.engine, { clock: () => HARNESS_NOW, metrics: createMetrics(h.engine, { processMetrics: false }) })
})
afterAll(async () => { await h.close() })

const call = (path: string, key: string | null = h.fullKey, init: RequestInit = {}) =>
  app.fetch(new Request(`${BASE}${path}${key === null ? '' : `${path.includes('?') ? '&' : '?'}key=${key}`}`, init))

/** The value of one sample (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (.+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const have = (m[2] ?? '').split(/,(?=[a-zA-Z_]+=")/).filter((s) => s !== '')
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(m[3])
  }
  return 0
}

const scrape = async () => {
  const res = await call('/metrics', null)
  expect(res.status).toBe(200)
  return res.text()
}

describe('GET /metrics', () => {
  it('is not there unless the app is given metrics', async () => {
    expect((await h.get('/metrics')).status).toBe(404)
  })

  it('is Prometheus text, without a key and uncounted, with requests by route pattern and status and a latency histogram', async () => {
    const res = await call('/metrics', null)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const before = await res.text()
    const ids = (await (await call('/companies?per_page=3')).json() as { companies: { id: number }[] }).companies.map((c) => c.id)
    for (const id of ids) expect((await call(`/companies/${id}`)).status).toBe(200)
    expect((await call('/companies/999999999')).status).toBe(404)
    expect((await call('/no/such/endpoint')).status).toBe(404)
    const after = await scrape()
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels)
    expect(delta('ventureql_http_requests_total', { method: 'GET', route: '/companies/:id', status: '200' })).toBe(3)
    expect(delta('ventureql_http_requests_total', { method: 'GET', route: '/companies/:id', status: '404' })).toBe(1)
    expect(delta('ventureql_http_requests_total', { method: 'GET', route: '(none)', status: '404' })).toBe(1)
    expect(delta('ventureql_http_request_duration_seconds_count', { method: 'GET', route: '/companies/:id' })).toBe(4)
    expect(delta('ventureql_http_request_duration_seconds_bucket', { method: 'GET', route: '/companies/:id', le: '+Inf' })).toBe(4)
    // Never a raw path (ids would make a label value per record).
    for (const id of ids) expect(after).not.toContain(`/companies/${id}"`)
    // The pool: PostgreSQL's connections (an inline SQLite engine has no pool to show).
    if (h.engine.stats().pool.kind === 'postgres') expect(after).toMatch(/^ventureql_pool_workers\{state="idle"\} \d+$/m)
  })

  it('counts quota refusals (429)', async () => {
    const made = await createApiKey(h.served, { plan: 'full', quota: 1, period: 'day' }, HARNESS_NOW)
    if (!made.ok) throw new Error('key')
    const before = sample(await scrape(), 'ventureql_quota_refusals_total')
    expect((await call('/companies?per_page=1', made.value.key)).status).toBe(200)
    expect((await call('/companies?per_page=1', made.value.key)).status).toBe(429)
    expect((await call('/companies?per_page=1', made.value.key)).status).toBe(429)
    expect(sample(await scrape(), 'ventureql_quota_refusals_total') - before).toBe(2)
  })

  it('counts engine calls: one per company detail (its key check rides along), two per listing', async () => {
    const id = (h.vdb.sqlite.prepare('select min(id) as id from companies').get() as { id: number }).id
    const before = sample(await scrape(), 'ventureql_engine_calls_total')
    expect(before).toBe(h.engine.stats().calls)
    for (let i = 0; i < 5; i++) expect((await call(`/companies/${id}`)).status).toBe(200)
    expect((await call('/companies?per_page=1')).status).toBe(200)
    expect(sample(await scrape(), 'ventureql_engine_calls_total') - before).toBe(7)
  })

  it('counts cache hits and misses of totals and page boundaries', async () => {
    const text = await scrape()
    const base = {
      totalHit: sample(text, 'ventureql_cache_total', { cache: 'total', result: 'hit' }),
      totalMiss: sample(text, 'ventureql_cache_total', { cache: 'total', result: 'miss' }),
      boundaryHit: sample(text, 'ventureql_cache_total', { cache: 'page_boundary', result: 'hit' }),
      boundaryMiss: sample(text, 'ventureql_cache_total', { cache: 'page_boundary', result: 'miss' }),
    }
    const posted = await call('/queries', h.fullKey, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dataset: 'companies', filter: { employees: { gte: 1 } }, sort: [{ name: 'asc' }], per_page: 5 }),
    })
    expect(posted.status).toBe(200)
    const id = (await posted.json() as { query_id: string }).query_id
    // Total: counted once (miss), then cached (hit) on every page. Page 3 after page 1: no boundary at 10 yet (miss); again: a plain seek (hit).
    for (const page of [1, 3, 3]) expect((await call(`/queries/${id}?page=${page}&per_page=5`)).status).toBe(200)
    const after = await scrape()
    expect(sample(after, 'ventureql_cache_total', { cache: 'total', result: 'miss' }) - base.totalMiss).toBe(1)
    expect(sample(after, 'ventureql_cache_total', { cache: 'total', result: 'hit' }) - base.totalHit).toBe(3)
    expect(sample(after, 'ventureql_cache_total', { cache: 'page_boundary', result: 'miss' }) - base.boundaryMiss).toBe(1)
    expect(sample(after, 'ventureql_cache_total', { cache: 'page_boundary', result: 'hit' }) - base.boundaryHit).toBe(1)
    // The counters never reach the wire.
    const page = await (await call(`/queries/${id}?page=1&per_page=5`)).json() as Record<string, unknown>
    expect(Object.keys(page).sort()).toEqual(['meta', 'query', 'query_id', 'results'])
  })
})

describe.runIf(process.env.VENTUREQL_TEST_BACKEND !== 'postgres')('GET /metrics on an engine with worker threads', () => {
  let dir: string
  let engine: Engine
  let key: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vql-metrics-'))
    const file = join(dir, 'fixture.db')
    const vdb = await createFixtureDatabase({ file })
    const made = await createApiKey(vdb, { plan: 'full', quota: 1_000_000, period: 'day' }, HARNESS_NOW)
    if (!made.ok) throw new Error('key')
    key = made.value.key
    await vdb.close()
    // 200 requests of one key at once below: a backlog that takes them all, so the 503s of budgets are what is counted.
    engine = createEngine({ database: file, workers: 1, fairness: { tenantBacklog: 1_000 } })
  })
  afterAll(async () => {
    await engine?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('counts query timeouts and shows the worker pool', async () => {
    const metrics = createMetrics(engine, { processMetrics: false })
    const tight = createApp(engine, { clock: () => HARNESS_NOW, queryTimeoutMs: 5, metrics })
    const roomy = createApp(engine, { clock: () => HARNESS_NOW, metrics })
    expect((await roomy.fetch(new Request(`${BASE}/companies?per_page=1&key=${key}`))).status).toBe(200) // workers up
    // Distinct filters (each a first count) queue on the one general worker with 5 ms each: some time out.
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => tight.fetch(new Request(`${BASE}/companies?company_name=m${i}&key=${key}`))))
    const timedOut = responses.filter((r) => r.status === 503).length
    expect(timedOut).toBeGreaterThan(0)
    const text = await (await roomy.fetch(new Request(`${BASE}/metrics`))).text()
    expect(sample(text, 'ventureql_query_timeouts_total')).toBe(timedOut)
    expect(sample(text, 'ventureql_http_requests_total', { method: 'GET', route: '/companies', status: '503' })).toBe(timedOut)
    const { pool } = engine.stats()
    if (pool.kind !== 'workers') throw new Error(`expected a worker pool, got ${pool.kind}`)
    expect(sample(text, 'ventureql_pool_workers', { state: 'busy' }) + sample(text, 'ventureql_pool_workers', { state: 'idle' })).toBe(pool.workers)
    expect(text).toMatch(/^ventureql_pool_waiting \d+$/m)
    // Timed-out calls are interrupted or skipped, not paid for with a new thread.
    expect(sample(text, 'ventureql_pool_workers_replaced_total')).toBe(pool.replaced)
    expect(pool.replaced).toBe(0)
  })
})
