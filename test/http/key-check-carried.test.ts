/**
 * The built-in key check carried by a route's engine call (auth.ts, `carriesKeyCheck`; the engine's
 * src/execute/key-check.ts): detail lookups and search make one engine call per request instead of
 * two, and answer exactly as when the key was checked first: 403 for a missing, unknown or revoked
 * key (also when the route itself would have answered 404 or 400), X-Quota-* on every answer, 429
 * over the quota without the data, exact counts under concurrency, ETag and 304, trial caps, CORS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallOptions } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { revokeApiKey } from '../../src/store/api-keys.js'
import { createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
let companyId: number
let investorId: number
let domain: string
const internalErrors: unknown[] = []

beforeAll(async () => {
  h = await createHarness({ app: { onInternalError: (e) => { internalErrors.push(e) } } })
  companyId = (h.vdb.sqlite.prepare('select min(id) as id from companies where id in (select company_id from company_industries)').get() as { id: number }).id
  investorId = (h.vdb.sqlite.prepare('select min(id) as id from investors').get() as { id: number }).id
  domain = (h.vdb.sqlite.prepare("select website from companies where website is not null and website <> '' order by id limit 1").get() as { website: string }).website
})
afterAll(async () => {
  await h.close()
  expect(internalErrors).toEqual([])
})

const newKey = async (quota: number) => {
  const made = await h.newKey(quota)
  return { key: made.key, keyId: made.record.keyId }
}
const used = (keyId: number) => h.quotaUsed(keyId)

/** Each route that carries the check (its spec's path), with a path it answers 200 on. */
const carryingRoutes = (): Array<[string, string]> => [
  ['/companies/{id}', `/companies/${companyId}`],
  ['/domains/{domain}/companies', `/domains/${encodeURIComponent(domain)}/companies`],
  ['/companies/{id}/stories', `/companies/${companyId}/stories`],
  ['/companies/{id}/people', `/companies/${companyId}/people`],
  ['/companies/{company_id}/tech_stack', `/companies/${companyId}/tech_stack`],
  ['/search', '/search?term=a'],
]
const carrying = carryingRoutes

async function calls(path: string, key?: string): Promise<{ status: number; calls: number }> {
  const before = h.engine.stats().calls
  const res = await h.get(path, key === undefined ? {} : { key })
  await res.arrayBuffer()
  return { status: res.status, calls: h.engine.stats().calls - before }
}

describe('routes that carry the key check', () => {
  it('are exactly the routes whose spec says so (a new one must be added here)', () => {
    expect(carryingRoutes().map(([spec]) => spec).sort()).toEqual(h.app.routes.filter((r) => r.carriesKeyCheck).map((r) => r.path).sort())
  })

  it('make one engine call per request; a route that does not makes two (the check, then its own)', async () => {
    for (const [name, path] of carrying()) {
      expect(await calls(path), name).toEqual({ status: 200, calls: 1 })
    }
    // Listings, and the slower lookups (similar companies, an investor's aggregates), whose own
    // call dwarfs a key check, check the key first in a call of its own.
    expect(await calls('/companies?per_page=3')).toEqual({ status: 200, calls: 2 })
    expect(await calls(`/companies/${companyId}/similar`)).toEqual({ status: 200, calls: 2 })
    expect(await calls(`/investors/${investorId}`)).toEqual({ status: 200, calls: 2 })
  })

  it('refuse a missing, unknown or revoked key with 403 and no data, also where the route would answer 404 or 400', async () => {
    const { key, keyId } = await newKey(100)
    await revokeApiKey(h.served, String(keyId))
    const paths = [...carrying().map(([, p]) => p), '/companies/999999999', '/companies/not-a-number', '/search?term=', '/search?term=a&per_page=x']
    for (const path of paths) {
      for (const [presented, message] of [[null, /API key is required/], ['vql_secret-wrong-key-AAAAAAAAAAAAAAAAAAA', /not valid/], [key, /revoked/]] as const) {
        const res = await h.get(path, { key: presented })
        const text = await res.text()
        expect(res.status, `${path} ${text}`).toBe(403)
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
        expect(problemSchema.parse(JSON.parse(text)).error).toMatch(message)
        expect(text).not.toContain('secret')
        expect(res.headers.get('etag')).toBeNull()
        expect(res.headers.get('x-quota-limit')).toBeNull()
      }
    }
  })

  it('count every request once and put X-Quota-* on 200, 404 and 400 answers', async () => {
    const { key, keyId } = await newKey(20)
    const statuses: number[] = []
    for (const path of [`/companies/${companyId}`, '/companies/999999999', '/companies/not-a-number', '/search?term=a', '/search?term=', `/companies/${companyId}/people`]) {
      const res = await h.get(path, { key })
      statuses.push(res.status)
      expect(res.headers.get('x-quota-limit'), path).toBe('20')
      expect(res.headers.get('x-quota-remaining'), path).toBe(String(20 - statuses.length))
    }
    expect(statuses).toEqual([200, 404, 404, 200, 400, 200])
    expect(await used(keyId)).toBe(6)
  })

  it('over the quota: 429 with Retry-After and quota headers, and the data is not served', async () => {
    const { key } = await newKey(1)
    expect((await h.get(`/companies/${companyId}`, { key })).status).toBe(200)
    for (const [name, path] of carrying()) {
      const res = await h.get(path, { key })
      const text = await res.text()
      expect(res.status, name).toBe(429)
      expect(problemSchema.parse(JSON.parse(text)).error).toMatch(/quota of 1 request/)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(res.headers.get('x-quota-remaining')).toBe('0')
      expect(res.headers.get('etag')).toBeNull()
      expect(text).not.toContain('"name"')
    }
  })

  it('is exact under concurrency: N requests against R remaining give exactly R successes', async () => {
    const { key, keyId } = await newKey(25)
    const paths = carrying().map(([, p]) => p)
    const statuses = await Promise.all(Array.from({ length: 64 }, (_, i) => h.get(paths[i % paths.length]!, { key }).then(async (r) => (await r.arrayBuffer(), r.status))))
    expect(statuses.filter((s) => s === 200)).toHaveLength(25)
    expect(statuses.filter((s) => s === 429)).toHaveLength(39)
    expect(await used(keyId)).toBe(25)
  })

  it('answer 304 to a held ETag (counted, with quota headers), and the ETag depends on the plan', async () => {
    const { key, keyId } = await newKey(10)
    const first = await h.get(`/companies/${companyId}`, { key })
    expect(first.status).toBe(200)
    const tag = first.headers.get('etag')
    expect(tag).toMatch(/^W\/"v\d+-/)
    expect(first.headers.get('cache-control')).toBe('private, no-cache')
    const again = await h.get(`/companies/${companyId}`, { key, init: { headers: { 'if-none-match': tag! } } })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(tag)
    expect(again.headers.get('x-quota-remaining')).toBe('8')
    expect(await again.text()).toBe('')
    expect(await used(keyId)).toBe(2)
    const trial = await h.get(`/companies/${companyId}`, { key: h.trialKey, init: { headers: { 'if-none-match': tag! } } })
    expect(trial.status).toBe(200)
    expect(trial.headers.get('etag')).not.toBe(tag)
    // HEAD gets the same tag.
    const head = await h.request(`/companies/${companyId}`, { key, init: { method: 'HEAD' } })
    expect(head.headers.get('etag')).toBe(tag)
  })

  it('search: a trial cap below the search\'s own is applied (the check then runs before the search)', async () => {
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, trialMaxResults: 2 })
    const search = async (key: string) => {
      const res = await app.fetch(new Request(`https://api.test/search?term=a&per_page=20&key=${key}`))
      expect(res.status).toBe(200)
      return (await res.json() as unknown[]).length
    }
    const before = h.engine.stats().calls
    expect(await search(h.trialKey)).toBe(2)
    // The key is checked on its own first, then the search: two calls.
    expect(h.engine.stats().calls - before).toBe(2)
    expect(await search(h.fullKey)).toBeGreaterThan(2)
    expect((await app.fetch(new Request('https://api.test/search?term=a&key=vql_wrong-key-AAAAAAAAAAAAAAAAAAAAAAAA'))).status).toBe(403)
  })

  it('a carrying call that fails keeps its 503, with the key\'s quota headers read uncounted, or a 403 for a bad key', async () => {
    const { key, keyId } = await newKey(10)
    // An engine whose detail lookups are stopped before they run (as a budget spent in the queue
    // would): the call carrying the check fails, the check with it.
    const failing = { ...h.engine, records: { ...h.engine.records, companyDetail: (id: number, o?: CallOptions) => h.engine.records.companyDetail(id, { ...o, signal: AbortSignal.abort() }) } }
    const app = createApp(failing, { clock: () => HARNESS_NOW })
    const res = await app.fetch(new Request(`https://api.test/companies/${companyId}?key=${key}`))
    expect(res.status).toBe(503)
    expect(res.headers.get('x-quota-limit')).toBe('10')
    expect(res.headers.get('x-quota-remaining')).toBe('10')
    expect(await used(keyId)).toBe(0)
    const bad = await app.fetch(new Request(`https://api.test/companies/${companyId}?key=vql_wrong-key-AAAAAAAAAAAAAAAAAAAAAAAA`))
    expect(bad.status).toBe(403)
  })

  it('a client gone before its carrying call ran: 503, not counted', async () => {
    const { key, keyId } = await newKey(10)
    const res = await h.app.fetch(new Request(`https://api.test/companies/${companyId}?key=${key}`, { signal: AbortSignal.abort() }))
    expect(res.status).toBe(503)
    expect(await used(keyId)).toBe(0)
  })

  it('a check run on its own after the route that fails is a 503, not the route\'s unchecked answer', async () => {
    const { key } = await newKey(10)
    const closing = await createHarness({ companies: 20 })
    try {
      const app = createApp(closing.engine, { clock: () => HARNESS_NOW })
      await closing.engine.close()
      // A malformed id answers 404 without an engine call; the key check after it finds the engine closed.
      const res = await app.fetch(new Request(`https://api.test/companies/not-a-number?key=${key}`))
      expect(res.status).toBe(503)
    } finally {
      await closing.close().catch(() => undefined)
    }
  })

  it('a refusal keeps the CORS headers', async () => {
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, corsOrigins: ['https://app.example.com'] })
    const res = await app.fetch(new Request(`https://api.test/companies/${companyId}?key=vql_wrong-key-AAAAAAAAAAAAAAAAAAAAAAAA`, { headers: { origin: 'https://app.example.com' } }))
    expect(res.status).toBe(403)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(res.headers.get('vary')).toMatch(/Origin/)
  })
})
