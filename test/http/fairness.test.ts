/**
 * Fairness over HTTP (grammar-docs/guides/fairness.md): each request's engine calls carry its
 * tenant (a hash of the built-in key, or the host's owner); a heavy call refused to its tenant
 * (`TenantBusyError`) is 429 with Retry-After and the X-Quota-* headers, the request not counted;
 * the tenant's light requests and other keys are unaffected. The engine here refuses chosen tenants
 * (the scheduler's own refusals are tested in test/execute/pool-fairness.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TenantBusyError, type Engine } from '../../src/engine.js'
import { fail } from '../../src/errors/issue.js'
import { tenantOfKey } from '../../src/http/auth.js'
import { createApp, type AuthHook, type QuotaHook, type QuotaInfo } from '../../src/http/index.js'
import { BASE, createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness

beforeAll(async () => {
  h = await createHarness({ companies: 120 })
})

afterAll(async () => {
  await h?.close()
})

/** The harness's engine, refusing the heavy calls of `refused` tenants as the scheduler would; records every call's tenant. */
function refusing(engine: Engine, refused: ReadonlySet<string>) {
  const tenants: (string | undefined)[] = []
  const refusal = () => new TenantBusyError('allowance', 42, 30_000)
  const refuses = (tenant: string | undefined) => {
    tenants.push(tenant)
    return tenant !== undefined && refused.has(tenant)
  }
  const wrapped: Engine = {
    ...engine,
    tenantRefusal: (tenant) => (refused.has(tenant) ? refusal() : undefined),
    list: (request, o) => (refuses(o?.tenant) ? Promise.resolve(fail([refusal().issue])) : engine.list(request, o)),
    query: (request, o) => (refuses(o?.tenant) ? Promise.resolve(fail([refusal().issue])) : engine.query(request, o)),
    records: {
      ...engine.records,
      // The search carries the key check: a refused call never runs it (so it is never counted).
      search: (request, o) => (refuses(o?.tenant) ? Promise.reject(refusal()) : engine.records.search(request, o)),
      companyDetail: (id, o) => { tenants.push(o?.tenant); return engine.records.companyDetail(id, o) },
    },
  }
  return { engine: wrapped, tenants }
}

const quotaHeaders = (res: Response) => ({
  limit: res.headers.get('x-quota-limit'), remaining: res.headers.get('x-quota-remaining'), reset: res.headers.get('x-quota-reset'),
})

describe('built-in keys', () => {
  it("answers a refused tenant's heavy requests 429 with Retry-After and its quota headers, uncounted; its light requests and other keys pass", async () => {
    const busy = await h.newKey(100)
    const other = await h.newKey(100)
    const { engine, tenants } = refusing(h.engine, new Set([tenantOfKey(busy.key)]))
    const app = createApp(engine, { clock: () => HARNESS_NOW })
    const get = (path: string, key: string) => app.fetch(new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${key}` } }))
    const post = (path: string, key: string, body: unknown) => app.fetch(new Request(`${BASE}${path}`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    }))

    const before = await get('/ratelimit/usage', busy.key)
    expect(before.status).toBe(200)
    // A listing (its key check runs before the route), POST /queries (the same), a search (its key check rides with the call).
    for (const res of [
      await get('/companies?stage=a', busy.key),
      await post('/queries', busy.key, { dataset: 'companies', filter: {} }),
      await get('/search?term=a', busy.key),
    ]) {
      expect(res.status).toBe(429)
      expect(res.headers.get('retry-after')).toBe('42')
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(quotaHeaders(res)).toEqual(quotaHeaders(before))
      const body = await res.json() as { status: number; issues: { code: string }[]; retry_after: number }
      expect(body).toMatchObject({ status: 429, retry_after: 42 })
      expect(body.issues.map((i) => i.code)).toEqual(['tenant_busy'])
    }
    expect(await h.quotaUsed(busy.record.keyId)).toBe(0)

    // Its light requests still run, and count: a detail (key check carried) and an investor (checked first).
    const detail = await get('/companies/1', busy.key)
    expect(detail.status).toBe(200)
    expect(Number(detail.headers.get('x-quota-remaining'))).toBe(99)
    const investorId = Number(await h.servedValue('select min(id) from investors'))
    const investor = await get(`/investors/${investorId}`, busy.key)
    expect(investor.status).toBe(200)
    expect(Number(investor.headers.get('x-quota-remaining'))).toBe(98)
    expect(await h.quotaUsed(busy.record.keyId)).toBe(2)

    // Another key is served and counted as usual.
    for (const res of [await get('/companies?stage=a', other.key), await get('/search?term=a', other.key)]) {
      expect(res.status).toBe(200)
    }
    expect(await h.quotaUsed(other.record.keyId)).toBe(2)

    // Each call carried its key's tenant: a short hash, never the key.
    expect(new Set(tenants)).toEqual(new Set([tenantOfKey(busy.key), tenantOfKey(other.key)]))
    for (const tenant of tenants) {
      expect(tenant).not.toContain(busy.key)
      expect(tenant).not.toContain(other.key)
      expect(tenant!.length).toBeLessThan(30)
    }
  })

  it('a refused tenant whose quota is used up gets the quota refusal on a light request, and the 429 of fairness on a heavy one, uncounted', async () => {
    const busy = await h.newKey(1)
    const { engine } = refusing(h.engine, new Set([tenantOfKey(busy.key)]))
    const app = createApp(engine, { clock: () => HARNESS_NOW })
    const get = (path: string) => app.fetch(new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${busy.key}` } }))
    const investorId = Number(await h.servedValue('select min(id) from investors'))
    expect((await get(`/investors/${investorId}`)).status).toBe(200)
    const overQuota = await get(`/investors/${investorId}`)
    expect(overQuota.status).toBe(429)
    expect(overQuota.headers.get('x-quota-remaining')).toBe('0')
    expect(await overQuota.json()).not.toHaveProperty('issues')
    const heavy = await get('/companies?stage=a')
    expect(heavy.status).toBe(429)
    expect(heavy.headers.get('retry-after')).toBe('42')
    expect(await h.quotaUsed(busy.record.keyId)).toBe(1)
  })

  it('an unknown key is 403 even while its tenant is refused', async () => {
    const key = 'vql_' + 'x'.repeat(32)
    const { engine } = refusing(h.engine, new Set([tenantOfKey(key)]))
    const app = createApp(engine, { clock: () => HARNESS_NOW })
    const res = await app.fetch(new Request(`${BASE}/companies?stage=a`, { headers: { authorization: `Bearer ${key}` } }))
    expect(res.status).toBe(403)
  })
})

describe("a host's auth and quota hooks", () => {
  const auth: AuthHook = (request) => ({ ok: true, identity: { owner: request.headers.get('x-user') ?? 'nobody' } })
  function memoryQuota(limit: number): { hook: QuotaHook; counted: Map<string, number> } {
    const counted = new Map<string, number>()
    const reset = Math.floor(HARNESS_NOW.getTime() / 1000) + 3600
    const info = (u: number): QuotaInfo => ({ limit, remaining: limit - u, reset, start: reset - 3600 })
    const hook: QuotaHook = (_request, { identity, count }) => {
      const n = counted.get(identity.owner) ?? 0
      if (count) counted.set(identity.owner, n + 1)
      return { allowed: true, quota: info(count ? n + 1 : n) }
    }
    return { hook, counted }
  }

  it("the tenant is the identity's owner; a refused heavy request is 429 with Retry-After, not counted by the hook", async () => {
    const quota = memoryQuota(10)
    const { engine, tenants } = refusing(h.engine, new Set(['owner:alice']))
    const app = createApp(engine, { auth, quota: quota.hook, clock: () => HARNESS_NOW })
    const get = (path: string, user: string) => app.fetch(new Request(`${BASE}${path}`, { headers: { 'x-user': user } }))
    const refused = await get('/companies?stage=a', 'alice')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('42')
    expect(refused.headers.get('x-quota-remaining')).toBe('10')
    expect(quota.counted.get('alice') ?? 0).toBe(0)
    const light = await get('/companies/1', 'alice')
    expect(light.status).toBe(200)
    expect(light.headers.get('x-quota-remaining')).toBe('9')
    expect((await get('/companies?stage=a', 'bob')).status).toBe(200)
    expect(quota.counted.get('alice')).toBe(1)
    expect(quota.counted.get('bob')).toBe(1)
    expect(tenants).toEqual(['owner:alice', 'owner:alice', 'owner:bob'])
  })
})
