/**
 * The HTTP core: authentication (403, never 401), quota headers and 429, problem+json errors, the
 * 404 for unknown routes and the fault barrier (500 reveals nothing, busy database 503).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey, revokeApiKey } from '../../src/store/api-keys.js'
import { createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness() })
afterAll(async () => { await h.close() })

async function problemOf(res: Response) {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body: any = await res.json()
  expect(typeof body.error).toBe('string')
  expect(body.error.length).toBeGreaterThan(0)
  expect(body.status).toBe(res.status)
  return body
}

describe('authentication', () => {
  it('refuses a request without a key with 403 and a JSON body', async () => {
    const res = await h.get('/ratelimit/usage', { key: null })
    expect(res.status).toBe(403)
    expect((await problemOf(res)).error).toMatch(/API key is required/)
  })

  it('refuses an unknown key with 403 and does not echo it', async () => {
    const res = await h.get('/ratelimit/usage', { key: 'vql_not-a-real-key-0123456789' })
    expect(res.status).toBe(403)
    const text = JSON.stringify(await problemOf(res))
    expect(text).not.toContain('not-a-real-key')
  })

  it('refuses a revoked key with 403 saying so', async () => {
    const made = await createApiKey(h.served, { plan: 'full', quota: 10, period: 'day' })
    if (!made.ok) throw new Error('key')
    expect((await h.get('/ratelimit/usage', { key: made.value.key })).status).not.toBe(403)
    expect(await revokeApiKey(h.served, made.value.record.prefix)).toHaveLength(1)
    const res = await h.get('/ratelimit/usage', { key: made.value.key })
    expect(res.status).toBe(403)
    expect((await problemOf(res)).error).toMatch(/revoked/)
  })

  it('accepts the key as a Bearer token', async () => {
    const res = await h.get('/ratelimit/usage', { bearer: true })
    expect(res.status).toBe(200)
  })
})

describe('quota', () => {
  it('puts X-Quota-* headers on an authenticated response, error or not, and counts it', async () => {
    const made = await createApiKey(h.served, { plan: 'full', quota: 3, period: 'hour' }, HARNESS_NOW)
    if (!made.ok) throw new Error('key')
    const first = await h.get('/queries/no-such-query', { key: made.value.key })
    expect(first.status).toBe(404)
    expect(first.headers.get('x-quota-limit')).toBe('3')
    expect(first.headers.get('x-quota-remaining')).toBe('2')
    const reset = Number(first.headers.get('x-quota-reset'))
    expect(reset).toBe(Math.floor(HARNESS_NOW.getTime() / 1000 / 3600) * 3600 + 3600)
    await h.get('/queries/no-such-query', { key: made.value.key })
    await h.get('/queries/no-such-query', { key: made.value.key })
    const over = await h.get('/queries/no-such-query', { key: made.value.key })
    expect(over.status).toBe(429)
    expect(over.headers.get('x-quota-remaining')).toBe('0')
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await problemOf(over)).error).toMatch(/quota/)
  })
})

describe('errors', () => {
  it('answers an unknown route with a JSON 404', async () => {
    const res = await h.get('/nothing/here')
    expect(res.status).toBe(404)
    expect((await problemOf(res)).error).toMatch(/No endpoint/)
  })

  it('answers an unknown route 404 without a key too, and does not count it against the quota', async () => {
    for (const [path, method] of [['/nothing/here', 'GET'], ['/companies', 'DELETE'], ['/ratelimit/quotas', 'GET'], ['/queries', 'GET']] as const) {
      const res = await h.request(path, { key: null, init: { method } })
      expect(res.status, path).toBe(404)
      expect((await problemOf(res)).error).toMatch(/^No endpoint answers/)
      expect(res.headers.get('x-quota-limit')).toBeNull()
    }
    const made = await createApiKey(h.served, { plan: 'full', quota: 3, period: 'hour' }, HARNESS_NOW)
    if (!made.ok) throw new Error('key')
    for (let i = 0; i < 5; i++) expect((await h.get('/nothing/here', { key: made.value.key })).status).toBe(404)
    expect(await h.quotaUsed(made.value.record.keyId)).toBe(0)
    // A known path still checks the key first, and counts.
    expect((await h.get('/companies', { key: null })).status).toBe(403)
    expect((await h.get('/queries/no-such-query', { key: made.value.key })).status).toBe(404)
    expect(await h.quotaUsed(made.value.record.keyId)).toBe(1)
  })
})
