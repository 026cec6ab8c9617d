/**
 * createApp's hooks for the host's own authentication and quota (src/http/access.ts): a custom
 * auth replaces the API keys, a custom quota replaces the per-key counters and supplies the
 * X-Quota-* headers, the built-in keys can run with a custom quota or none, and a hook's fault is
 * a 500 reported like any other. The built-in default is covered by auth-quota.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, type AuthHook, type QuotaHook, type QuotaInfo } from '../../src/http/index.js'
import { BASE, createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness

beforeAll(async () => {
  h = await createHarness({ companies: 120 })
})

afterAll(async () => {
  await h?.close()
})

/** The host's scheme for these tests: `X-User: <name>`; `X-Plan: trial` makes a trial caller. */
const headerAuth: AuthHook = (request) => {
  const user = request.headers.get('x-user')
  if (!user) return { ok: false, status: 401, detail: 'Sign in first.', headers: { 'WWW-Authenticate': 'X-User' } }
  if (user === 'mallory') return { ok: false, detail: 'Mallory is banned.' }
  return { ok: true, identity: { owner: `user:${user}`, plan: request.headers.get('x-plan') === 'trial' ? 'trial' : 'full' } }
}

/** A host's quota: `limit` requests per caller, counted in memory; every call recorded. */
function memoryQuota(limit: number): { hook: QuotaHook; calls: { owner: string; count: boolean }[] } {
  const used = new Map<string, number>()
  const calls: { owner: string; count: boolean }[] = []
  const reset = Math.floor(HARNESS_NOW.getTime() / 1000) + 3600
  const hook: QuotaHook = (_request, { identity, count }) => {
    calls.push({ owner: identity.owner, count })
    const n = used.get(identity.owner) ?? 0
    const info = (u: number): QuotaInfo => ({ limit, remaining: Math.max(0, limit - u), reset, start: reset - 3600 })
    if (!count) return { allowed: true, quota: info(n) }
    if (n >= limit) return { allowed: false, quota: info(n), detail: `${identity.owner} used all ${limit} requests.` }
    used.set(identity.owner, n + 1)
    return { allowed: true, quota: info(n + 1) }
  }
  return { hook, calls }
}

const get = (app: ReturnType<typeof createApp>, path: string, headers: Record<string, string> = {}) =>
  app.fetch(new Request(`${BASE}${path}`, { headers }))

const postQuery = (app: ReturnType<typeof createApp>, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(new Request(`${BASE}/queries`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }))

describe('a custom auth hook', () => {
  it('decides alone: its identity passes, its refusals are 401/403 problems, API keys mean nothing', async () => {
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, auth: headerAuth })
    const ok = await get(app, '/companies?per_page=2', { 'x-user': 'alice' })
    expect(ok.status).toBe(200)
    expect((await ok.json() as { companies: unknown[] }).companies).toHaveLength(2)
    // No quota with a custom auth unless a quota hook is given.
    expect(ok.headers.get('x-quota-limit')).toBeNull()

    const missing = await get(app, `/companies?key=${h.fullKey}`)
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('X-User')
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await missing.json()).toMatchObject({ status: 401, detail: 'Sign in first.' })

    const banned = await get(app, '/companies', { 'x-user': 'mallory' })
    expect(banned.status).toBe(403)
    expect(await banned.json()).toMatchObject({ detail: 'Mallory is banned.' })

    // The public document needs no identity.
    expect((await get(app, '/openapi.json')).status).toBe(200)
    // Usage without a quota: nothing to show.
    expect((await get(app, '/ratelimit/usage', { 'x-user': 'alice' })).status).toBe(404)
  })

  it('stores queries under the identity\'s owner, and pages them by id', async () => {
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, auth: headerAuth })
    const posted = await postQuery(app, { dataset: 'companies', filter: { employees: { gte: 1 } }, per_page: 3 }, { 'x-user': 'owner-check' })
    expect(posted.status).toBe(200)
    const envelope = await posted.json() as { query_id: string; results: unknown[] }
    expect(envelope.results).toHaveLength(3)
    expect(await h.servedValue('select owner from stored_queries where query_id = ?', envelope.query_id)).toBe('user:owner-check')
    const page2 = await get(app, `/queries/${envelope.query_id}?page=2&per_page=3`, { 'x-user': 'owner-check' })
    expect(page2.status).toBe(200)
    expect((await page2.json() as { meta: { current_page: number } }).meta.current_page).toBe(2)
  })

  it('a trial identity gets the first page only', async () => {
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, auth: headerAuth })
    expect((await get(app, '/companies?page=1', { 'x-user': 'tina', 'x-plan': 'trial' })).status).toBe(200)
    const second = await get(app, '/companies?page=2', { 'x-user': 'tina', 'x-plan': 'trial' })
    expect(second.status).toBe(403)
    expect((await get(app, '/companies?page=2', { 'x-user': 'tina' })).status).toBe(200)
  })
})

describe('a custom quota hook', () => {
  it('counts, refuses with 429 and Retry-After, and supplies the X-Quota-* headers and usage', async () => {
    const { hook, calls } = memoryQuota(2)
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, auth: headerAuth, quota: hook })
    const first = await get(app, '/fundings?per_page=1', { 'x-user': 'bob' })
    expect(first.status).toBe(200)
    expect([first.headers.get('x-quota-limit'), first.headers.get('x-quota-remaining')]).toEqual(['2', '1'])
    expect((await get(app, '/fundings?per_page=1', { 'x-user': 'bob' })).headers.get('x-quota-remaining')).toBe('0')

    const usage = await get(app, '/ratelimit/usage', { 'x-user': 'bob' })
    expect(usage.status).toBe(200)
    expect(await usage.json()).toEqual([{ quota_limit: 2, quota_remaining: 0, quota_reset: expect.any(Number), quota_period: expect.any(Number) }])

    const third = await get(app, '/fundings', { 'x-user': 'bob' })
    expect(third.status).toBe(429)
    expect(Number(third.headers.get('retry-after'))).toBe(3600)
    expect(third.headers.get('x-quota-remaining')).toBe('0')
    expect(await third.json()).toMatchObject({ detail: 'user:bob used all 2 requests.' })

    // Another caller has its own count; usage was asked without counting.
    expect((await get(app, '/fundings?per_page=1', { 'x-user': 'carol' })).status).toBe(200)
    expect(calls).toEqual([
      { owner: 'user:bob', count: true }, { owner: 'user:bob', count: true }, { owner: 'user:bob', count: false },
      { owner: 'user:bob', count: true }, { owner: 'user:carol', count: true },
    ])
  })

  it('runs after the built-in API keys when only quota is given: keys checked, not counted by the database', async () => {
    const { hook, calls } = memoryQuota(5)
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, quota: hook })
    const usedBefore = await h.servedValue('select coalesce(sum(used), 0) from quota_usage')
    const res = await get(app, `/companies?per_page=1&key=${h.fullKey}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-quota-limit')).toBe('5')
    expect(await h.servedValue('select coalesce(sum(used), 0) from quota_usage')).toBe(usedBefore)
    expect(calls).toHaveLength(1)
    expect(calls[0]!.owner).toMatch(/^\d+$/)
    expect((await get(app, '/companies?key=not-a-key')).status).toBe(403)
    expect(calls).toHaveLength(1)
  })

  it('quota: false keeps the keys and drops the quota', async () => {
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, quota: false })
    const usedBefore = await h.servedValue('select coalesce(sum(used), 0) from quota_usage')
    const res = await get(app, `/companies?per_page=1&key=${h.fullKey}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-quota-limit')).toBeNull()
    expect(await h.servedValue('select coalesce(sum(used), 0) from quota_usage')).toBe(usedBefore)
    expect((await get(app, '/companies')).status).toBe(403)
    expect((await get(app, `/ratelimit/usage?key=${h.fullKey}`)).status).toBe(404)
  })
})

describe('hook faults', () => {
  it('a hook that throws, or answers out of contract, is a 500 with an error id, reported', async () => {
    const reported: unknown[] = []
    const onInternalError = (error: unknown) => void reported.push(error)
    const throwing = createApp(h.engine, { clock: () => HARNESS_NOW, onInternalError, auth: () => { throw new Error('session store down') } })
    const res = await get(throwing, '/companies')
    expect(res.status).toBe(500)
    expect(await res.json()).toMatchObject({ error_id: expect.any(String) })
    expect(String(reported[0])).toContain('session store down')

    const noOwner = createApp(h.engine, { clock: () => HARNESS_NOW, onInternalError, auth: () => ({ ok: true, identity: { owner: '' } }) })
    expect((await get(noOwner, '/companies')).status).toBe(500)
    expect(String(reported[1])).toContain('identity.owner must be a non-empty string')

    const badQuota = createApp(h.engine, { clock: () => HARNESS_NOW, onInternalError, quota: async () => { throw new Error('redis down') } })
    expect((await get(badQuota, `/companies?key=${h.fullKey}`)).status).toBe(500)
    expect(String(reported[2])).toContain('redis down')

    const bareRefusal = createApp(h.engine, { clock: () => HARNESS_NOW, onInternalError, quota: () => ({ allowed: false }) as never })
    expect((await get(bareRefusal, `/companies?key=${h.fullKey}`)).status).toBe(500)
    expect(String(reported[3])).toContain('a refusal must carry its quota')
  })

  it('options that are not hooks are refused at createApp', () => {
    expect(() => createApp(h.engine, { auth: 'yes' as never })).toThrow(/auth must be a function/)
    expect(() => createApp(h.engine, { quota: true as never })).toThrow(/quota must be a function/)
  })
})
