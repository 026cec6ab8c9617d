/**
 * Authentication, quotas and trial access through the fetch handler (spec sections 1, 5, 8):
 * the key as `?key=` or Bearer; 403 with a JSON body for a missing, wrong or revoked key that never
 * echoes the key (nor writes it to stderr); X-Quota-* on every authenticated response; 429 over the
 * quota; counters that survive a restart and stay exact under concurrent requests, in one app, in
 * two apps on one database file, and in two OS processes; trial keys capped and held to page 1.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { companyListSchema, fundingListSchema } from '../../src/http/schemas/listings.js'
import { queryEnvelopeSchema } from '../../src/http/schemas/queries.js'
import { createApiKey, revokeApiKey, type ApiKeyRecord } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { createHarness, HARNESS_NOW, type Harness } from './harness.js'

const run = promisify(execFile)

let h: Harness
let dir: string
let stderr = ''
const internalErrors: unknown[] = []

beforeAll(async () => {
  h = await createHarness({ app: { onInternalError: (e) => { internalErrors.push(e) } } })
  dir = mkdtempSync(join(tmpdir(), 'ventureql-quota-'))
  // Everything this file's requests write to stderr, to prove no key reaches a log.
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
})
afterAll(async () => {
  vi.restoreAllMocks()
  await h.close()
  rmSync(dir, { recursive: true, force: true })
  expect(internalErrors).toEqual([])
})

async function newKey(quota: number, options: { period?: string; plan?: 'full' | 'trial'; on?: Harness['vdb'] } = {}): Promise<{ key: string; record: ApiKeyRecord }> {
  const made = await createApiKey(options.on ?? h.served, { plan: options.plan ?? 'full', quota, period: options.period ?? 'day' }, HARNESS_NOW)
  if (!made.ok) throw new Error('could not create a key')
  return made.value
}

async function problem(res: Response, status: number) {
  const text = await res.text()
  expect(res.status, text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return { body: problemSchema.parse(JSON.parse(text)) as any, text }
}

const expectQuotaHeaders = (res: Response, limit: number, remaining: number) => {
  expect(res.headers.get('x-quota-limit')).toBe(String(limit))
  expect(res.headers.get('x-quota-remaining')).toBe(String(remaining))
  expect(Number(res.headers.get('x-quota-reset'))).toBeGreaterThan(Math.floor(HARNESS_NOW.getTime() / 1000))
}

describe('the key', () => {
  it('is accepted as ?key=, as Authorization: Bearer (any case), and the header wins over the parameter', async () => {
    expect((await h.get('/ratelimit/usage')).status).toBe(200)
    expect((await h.get('/ratelimit/usage', { bearer: true })).status).toBe(200)
    const lower = await h.get('/ratelimit/usage', { key: null, init: { headers: { authorization: `bearer   ${h.fullKey}  ` } } })
    expect(lower.status).toBe(200)
    const both = await h.get('/ratelimit/usage?key=vql_wrong', { bearer: true })
    expect(both.status).toBe(200)
  })

  const refused: Array<[string, () => Promise<Response>, RegExp]> = [
    ['no key', () => h.get('/companies', { key: null }), /API key is required/],
    ['an empty ?key=', () => h.get('/companies?key=', { key: null }), /API key is required/],
    ['a Basic authorization header', () => h.get('/companies', { key: null, init: { headers: { authorization: 'Basic dXNlcjpwYXNz' } } }), /API key is required/],
    ['a wrong key in the query', () => h.get('/companies', { key: 'vql_secret-wrong-key-AAAAAAAAAAAAAAAAAAA' }), /not valid/],
    ['a wrong Bearer key', () => h.get('/companies', { key: 'vql_secret-wrong-key-AAAAAAAAAAAAAAAAAAA', bearer: true }), /not valid/],
    ['a 10,000-character key', () => h.get('/companies', { key: `vql_secret-${'k'.repeat(10_000)}` }), /not valid/],
    ['SQL as the key', () => h.get('/companies', { key: "vql_secret' or '1'='1" }), /not valid/],
    ['a NUL byte in the key', () => h.get('/companies?key=vql_secret%00x', { key: null }), /not valid/],
    ['bad percent-encoding in the key', () => h.get('/companies?key=vql_secret%E0%A4%A', { key: null }), /not valid/],
  ]
  it.each(refused)('%s: 403 with a JSON body that does not echo the key', async (_name, call, message) => {
    const before = stderr.length
    const res = await call()
    const { body, text } = await problem(res, 403)
    expect(body.error).toMatch(message)
    expect(text).not.toContain('secret')
    expect(res.headers.get('x-quota-limit')).toBeNull() // no key, no quota
    expect(stderr.slice(before)).not.toContain('secret')
  })

  it('a revoked key: 403 saying so, not echoed, on every endpoint', async () => {
    const { key, record } = await newKey(100)
    expect((await h.get('/companies', { key })).status).toBe(200)
    await revokeApiKey(h.served, String(record.keyId))
    for (const path of ['/companies', '/ratelimit/usage', '/queries/x']) {
      const { body, text } = await problem(await h.get(path, { key }), 403)
      expect(body.error).toMatch(/revoked/)
      expect(text).not.toContain(key)
    }
    const post = await h.request('/queries', { key, init: { method: 'POST', body: '{"dataset":"investors"}', headers: { 'content-type': 'application/json' } } })
    expect(post.status).toBe(403)
  })

  it('never reaches stderr, whatever the request did', () => {
    expect(stderr).not.toContain(h.fullKey)
    expect(stderr).not.toContain(h.trialKey)
  })
})

describe('quota', () => {
  it('puts X-Quota-* on every authenticated response: 200, 400, 403 (trial paging), 404, 413 and 429', async () => {
    const { key } = await newKey(7)
    expectQuotaHeaders(await h.get('/companies', { key }), 7, 6)
    expectQuotaHeaders(await h.get('/companies?stage=zzz', { key }), 7, 5)
    expectQuotaHeaders(await h.get('/queries/unknown-id', { key }), 7, 4)
    const big = await h.request('/queries', { key, init: { method: 'POST', body: 'x'.repeat(h.engine.limits.maxBodyBytes + 1), headers: { 'content-type': 'application/json' } } })
    expect(big.status).toBe(413)
    expectQuotaHeaders(big, 7, 3)
    const trial = await newKey(7, { plan: 'trial' })
    const page2 = await h.get('/companies?page=2', { key: trial.key })
    expect(page2.status).toBe(403)
    expectQuotaHeaders(page2, 7, 6)
    for (let i = 0; i < 3; i++) await h.get('/companies', { key })
    const over = await h.get('/companies', { key })
    await problem(over.clone(), 429)
    expectQuotaHeaders(over, 7, 0)
  })

  it('over the quota: 429 with a JSON body, Retry-After up to the reset, and the data is not served', async () => {
    const { key } = await newKey(2, { period: 'hour' })
    expect((await h.get('/companies', { key })).status).toBe(200)
    expect((await h.get('/companies', { key })).status).toBe(200)
    const over = await h.get('/companies', { key })
    const { body } = await problem(over.clone(), 429)
    expect(body.error).toMatch(/quota of 2 requests/)
    const reset = Number(over.headers.get('x-quota-reset'))
    expect(body.quota_reset).toBe(reset)
    expect(Number(over.headers.get('retry-after'))).toBe(reset - Math.floor(HARNESS_NOW.getTime() / 1000))
    expect(body).not.toHaveProperty('companies')
  })

  it('starts afresh in the next period', async () => {
    const { key, record } = await newKey(1, { period: 'minute' })
    expect((await h.get('/companies', { key })).status).toBe(200)
    expect((await h.get('/companies', { key })).status).toBe(429)
    const later = createApp(h.engine, { clock: () => new Date(HARNESS_NOW.getTime() + 60_000) })
    const res = await later.fetch(new Request(`https://api.test/companies?key=${key}`))
    expect(res.status).toBe(200)
    expect(res.headers.get('x-quota-remaining')).toBe('0')
    expect(await h.servedValue('select count(*) from quota_usage where key_id = ?', record.keyId)).toBe(2)
  })

  it('persists across a restart: a new engine and app on the same file continue the count', async () => {
    const file = join(dir, 'restart.db')
    await (await createFixtureDatabase({ file, companies: 20 })).close()
    const first = createEngine({ database: file })
    const { key } = await newKey(5, { on: first.database })
    const app1 = createApp(first, { clock: () => HARNESS_NOW })
    for (let i = 0; i < 3; i++) expect((await app1.fetch(new Request(`https://api.test/companies?key=${key}`))).status).toBe(200)
    await first.close()
    const second = createEngine({ database: file })
    try {
      const app2 = createApp(second, { clock: () => HARNESS_NOW })
      const usage = await (await app2.fetch(new Request(`https://api.test/ratelimit/usage?key=${key}`))).json() as [{ quota_remaining: number }]
      expect(usage[0].quota_remaining).toBe(2)
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((await app2.fetch(new Request(`https://api.test/companies?key=${key}`))).status)
      expect(statuses).toEqual([200, 200, 429])
    } finally {
      await second.close()
    }
  })

  it('is exact under concurrency: N requests at once against R remaining give exactly R successes', async () => {
    const { key, record } = await newKey(30)
    for (let i = 0; i < 5; i++) await h.get('/companies', { key }) // R = 25 remaining
    const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      h.get(i % 2 === 0 ? '/companies?per_page=5' : '/fundings?per_page=5', { key }).then((r) => r.status)))
    expect(statuses.filter((s) => s === 200)).toHaveLength(25)
    expect(statuses.filter((s) => s === 429)).toHaveLength(35)
    expect(await h.servedValue('select used from quota_usage where key_id = ?', record.keyId)).toBe(30)
  })

  it('is exact across two apps and engines on one database file (two connections)', async () => {
    const file = join(dir, 'shared.db')
    await (await createFixtureDatabase({ file, companies: 20 })).close()
    const a = createEngine({ database: file })
    const b = createEngine({ database: file })
    try {
      const { key } = await newKey(17, { on: a.database })
      const apps = [createApp(a, { clock: () => HARNESS_NOW }), createApp(b, { clock: () => HARNESS_NOW })]
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) =>
        apps[i % 2]!.fetch(new Request(`https://api.test/companies?per_page=3&key=${key}`)).then((r) => r.status)))
      expect(statuses.filter((s) => s === 200)).toHaveLength(17)
      expect(statuses.filter((s) => s === 429)).toHaveLength(23)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('is exact across two OS processes on one database file', async () => {
    const file = join(dir, 'processes.db')
    const setup = await createFixtureDatabase({ file, companies: 10 })
    const { key, record } = await newKey(45, { on: setup })
    await setup.close()
    const worker = join(import.meta.dirname, 'support', 'quota-worker.ts')
    const start = String(Date.now() + 2500)
    const outputs = await Promise.all([0, 1].map(() =>
      run(process.execPath, ['--import', 'tsx', worker, file, key, '40', start], { cwd: process.cwd(), timeout: 60_000 })))
    const statuses = outputs.flatMap((o) => JSON.parse(o.stdout.trim()) as number[])
    expect(statuses).toHaveLength(80)
    expect(statuses.filter((s) => s === 404)).toHaveLength(45) // counted, then no such stored query
    expect(statuses.filter((s) => s === 429)).toHaveLength(35)
    const check = createEngine({ database: file })
    try {
      expect(check.database.sqlite.prepare('select used from quota_usage where key_id = ?').pluck().get(record.keyId)).toBe(45)
    } finally {
      await check.close()
    }
  })
})

describe('trial keys', () => {
  let trial: Harness
  beforeAll(async () => { trial = await createHarness({ companies: 120, app: { trialMaxResults: 20 } }) })
  afterAll(async () => { await trial.close() })

  it('get at most trialMaxResults per page on every paged endpoint, full keys the normal cap', async () => {
    const companies = companyListSchema.parse(await trial.json('/companies?per_page=50', { key: trial.trialKey }))
    expect(companies.companies).toHaveLength(20)
    expect(companies.meta.per_page).toBe(20)
    const fundings = fundingListSchema.parse(await trial.json('/fundings?per_page=500', { key: trial.trialKey }))
    expect(fundings.fundings).toHaveLength(20)
    const res = await trial.request('/queries', { key: trial.trialKey, init: { method: 'POST', body: JSON.stringify({ dataset: 'companies', per_page: 50 }), headers: { 'content-type': 'application/json' } } })
    const query = queryEnvelopeSchema.parse(await res.json()) as any
    expect(query.results).toHaveLength(20)
    const full = companyListSchema.parse(await trial.json('/companies?per_page=500'))
    expect(full.companies).toHaveLength(trial.engine.limits.maxPerPage)
  })

  it('with the default limits get 50, and page 2 is a 403 that says why, on every paged endpoint', async () => {
    const companies = companyListSchema.parse(await h.json('/companies?per_page=200', { key: h.trialKey }))
    expect(companies.companies).toHaveLength(50)
    const posted = queryEnvelopeSchema.parse(await (await h.request('/queries', {
      key: h.trialKey, init: { method: 'POST', body: 'dataset=investors', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    })).json()) as any
    const investorId = h.vdb.sqlite.prepare('select id from investors order by portfolio_size desc limit 1').pluck().get()
    for (const path of ['/companies?page=2', '/companies/?page=3&per_page=5', '/fundings?page=2', `/queries/${posted.query_id}?page=2`, `/investors/${investorId}/portfolio?page=2`]) {
      const { body } = await problem(await h.get(path, { key: h.trialKey }), 403)
      expect(body.error).toMatch(/Trial keys receive the first page only \(at most 50 results\); page \d needs a full key\./)
      expect(body.plan).toBe('trial')
      // The same request with a full key is served.
      expect((await h.get(path)).status).toBe(200)
    }
  })
})
