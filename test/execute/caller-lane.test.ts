/**
 * Light calls on the caller's thread (src/execute/pool/caller-lane.ts): with worker threads, a key
 * check and a detail lookup (with the check it carries) are answered on the caller's connection and
 * post nothing to a worker; every other call posts exactly one. Per HTTP request: a detail lookup
 * makes no worker round trip, a listing and a search one each. Quotas stay exact (concurrent
 * requests, and a count that found the state file's write lock taken and went to a worker), a
 * revoked key is refused, and the per-tenant limits of heavy calls still hold.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveLimits } from '../../src/check/limits.js'
import { createEngine, KeyRefusedError, type Engine } from '../../src/engine.js'
import type { Operations } from '../../src/execute/operations.js'
import { withCallerLane } from '../../src/execute/pool/caller-lane.js'
import type { WorkerPool } from '../../src/execute/pool/pool.js'
import { createApp } from '../../src/http/app.js'
import { createApiKey, revokeApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { stateFileOf } from '../../src/store/state-file.js'

let dir: string
let file: string
let vdb: SqliteVentureDb
let engine: Engine
let companyId: number
const NOW = new Date()

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-caller-lane-'))
  file = join(dir, 'fixture.db')
  vdb = await createFixtureDatabase({ file, companies: 60 })
  companyId = (vdb.sqlite.prepare('select min(id) as id from companies').get() as { id: number }).id
  engine = createEngine({ database: file, workers: 2, writeWaitMs: 5_000 })
  await engine.ready()
})
afterAll(async () => {
  await engine?.close()
  await vdb.close()
  rmSync(dir, { recursive: true, force: true })
})

async function newKey(quota: number): Promise<{ key: string; keyId: number }> {
  const made = await createApiKey(vdb, { plan: 'full', quota, period: 'day' }, NOW)
  if (!made.ok) throw new Error('could not create a key')
  return { key: made.value.key, keyId: made.value.record.keyId }
}
const used = (keyId: number) => Number(vdb.sqlite.prepare('select coalesce(sum(used), 0) from quota_usage where key_id = ?').pluck().get(keyId))

function pool() {
  const stats = engine.stats().pool
  if (stats.kind !== 'workers') throw new Error(`expected worker threads, got ${stats.kind}`)
  return stats
}

/** Worker round trips (and calls answered here) that `work` caused. */
async function counted<T>(work: () => Promise<T>): Promise<{ value: T; posted: number; here: number }> {
  const before = pool()
  const value = await work()
  const after = pool()
  return { value, posted: after.posted - before.posted, here: after.onCallerThread - before.onCallerThread }
}

describe('light calls on the caller thread', () => {
  it('a batched count asked for in the turn the lane closes is committed before its connection closes', async () => {
    const { key, keyId } = await newKey(10)
    // A pool with no worker that closes at once: the lane's close then ends in the count's turn.
    const noWorkers = {
      kind: 'pool', workers: 0, interruptible: false,
      call: () => Promise.reject(new Error('no worker in this test')),
      close: async () => {},
      stats: () => ({}),
    } as unknown as WorkerPool<Operations>
    const lane = withCallerLane(noWorkers, { file, readonly: false, limits: resolveLimits({}) })
    const authorize = () => lane.call('authorize', [key, NOW.getTime(), true], { light: true, timeoutMs: 0 })
    // The first count remembers the key; the next ones wait for their turn's batch.
    expect((await authorize()).ok).toBe(true)
    const counts = [authorize(), authorize()]
    await lane.close()
    const answers = await Promise.all(counts)
    expect(answers.map((a) => a.ok && a.quota.remaining)).toEqual([8, 7])
    expect(used(keyId)).toBe(3)
  })

  it('a key check and a detail lookup post nothing to a worker; a listing and a search post one call each', async () => {
    const { key, keyId } = await newKey(100)
    const check = await counted(() => engine.access.authorize(key, NOW, true))
    expect(check.value.ok).toBe(true)
    expect([check.posted, check.here]).toEqual([0, 1])
    const detail = await counted(() => engine.records.companyDetail(companyId, { keyCheck: engine.access.defer(key, NOW, true) }))
    expect(detail.value?.company.id).toBe(companyId)
    expect([detail.posted, detail.here]).toEqual([0, 1])
    const listing = await counted(() => engine.list({ dataset: 'companies', per_page: 3 }))
    expect(listing.value.ok).toBe(true)
    expect([listing.posted, listing.here]).toEqual([1, 0])
    const search = await counted(() => engine.records.search({ objectTypes: ['company'], term: 'a', limit: 5 }, { keyCheck: engine.access.defer(key, NOW, true) }))
    expect(search.value?.length).toBeGreaterThan(0)
    expect([search.posted, search.here]).toEqual([1, 0])
    // Counted once each: the check, the detail's and the search's carried checks.
    expect(used(keyId)).toBe(3)
  })

  it('over HTTP: one worker round trip at most per request, quotas exact under concurrency', async () => {
    const app = createApp(engine, { baseUrl: 'https://lane.test' })
    const { key, keyId } = await newKey(1_000)
    const get = (path: string) => app.fetch(new Request(`https://lane.test${path}`, { headers: { authorization: `Bearer ${key}` } }))
    for (const [path, posted] of [[`/companies/${companyId}`, 0], ['/companies?per_page=3', 1], ['/search?term=a', 1], ['/ratelimit/usage', 0]] as const) {
      const r = await counted(async () => {
        const res = await get(path)
        await res.arrayBuffer()
        return res.status
      })
      expect([path, r.value, r.posted]).toEqual([path, 200, posted])
    }
    expect(used(keyId)).toBe(3)
    // 40 concurrent detail lookups and 10 listings: each counted exactly once.
    const answers = await Promise.all([
      ...Array.from({ length: 40 }, () => get(`/companies/${companyId}`)),
      ...Array.from({ length: 10 }, () => get('/companies?per_page=2')),
    ])
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200))
    expect(used(keyId)).toBe(53)
    // Over the quota: refused without the data.
    const { key: small, keyId: smallId } = await newKey(2)
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const res = await app.fetch(new Request(`https://lane.test/companies/${companyId}`, { headers: { authorization: `Bearer ${small}` } }))
      statuses.push(res.status)
      await res.arrayBuffer()
    }
    expect(statuses).toEqual([200, 200, 429, 429])
    expect(used(smallId)).toBe(2)
  })

  it('refuses a revoked key on the caller thread, without running the lookup', async () => {
    const { key, keyId } = await newKey(100)
    await revokeApiKey(vdb, String(keyId))
    const refused = await counted(() => engine.records.companyDetail(companyId, { keyCheck: engine.access.defer(key, NOW, true) }).then(() => undefined, (e: unknown) => e))
    expect(refused.value).toBeInstanceOf(KeyRefusedError)
    expect((refused.value as KeyRefusedError).authorization).toEqual({ ok: false, reason: 'revoked' })
    expect([refused.posted, refused.here]).toEqual([0, 1])
    const app = createApp(engine, { baseUrl: 'https://lane.test' })
    const res = await app.fetch(new Request(`https://lane.test/companies/${companyId}`, { headers: { authorization: `Bearer ${key}` } }))
    expect(res.status).toBe(403)
    expect(await res.text()).toMatch(/revoked/)
    expect(used(keyId)).toBe(0)
  })

  it('a key the caller thread has counted before is refused at once when another connection revokes it', async () => {
    const { key, keyId } = await newKey(100)
    const app = createApp(engine, { baseUrl: 'https://lane.test' })
    const get = async () => {
      const res = await app.fetch(new Request(`https://lane.test/companies/${companyId}`, { headers: { authorization: `Bearer ${key}` } }))
      await res.arrayBuffer()
      return res.status
    }
    expect([await get(), await get()]).toEqual([200, 200])
    await revokeApiKey(vdb, String(keyId))
    expect(await get()).toBe(403)
    expect((await engine.access.authorize(key, NOW, true))).toEqual({ ok: false, reason: 'revoked' })
    expect(used(keyId)).toBe(2)
  })

  it('two engines on one file (each remembering the key) never count past the quota together', async () => {
    const other = createEngine({ database: file, workers: 1 })
    await other.ready()
    try {
      const { key, keyId } = await newKey(25)
      // Both remember the key before the race.
      expect((await engine.access.authorize(key, NOW, true)).ok).toBe(true)
      expect((await other.access.authorize(key, NOW, true)).ok).toBe(true)
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) =>
        (i % 2 === 0 ? engine : other).records.companyDetail(companyId, { keyCheck: (i % 2 === 0 ? engine : other).access.defer(key, NOW, true) })
          .then(() => 'ran', (e: unknown) => (e instanceof KeyRefusedError && e.authorization.ok && !e.authorization.quota.allowed ? 'over quota' : String(e)))))
      expect(answers.filter((a) => a === 'ran').length).toBe(23)
      expect(answers.filter((a) => a === 'over quota').length).toBe(37)
      expect(used(keyId)).toBe(25)
    } finally {
      await other.close()
    }
  })

  it('a count that finds the write lock taken goes to a worker, which waits for it: counted once, the event loop never held', async () => {
    const { key, keyId } = await newKey(100)
    const holder = new Database(stateFileOf(file))
    holder.exec('begin immediate')
    let ticks = 0
    const ticker = setInterval(() => { ticks++ }, 5)
    try {
      const before = pool()
      const pending = engine.records.companyDetail(companyId, { keyCheck: engine.access.defer(key, NOW, true) })
      await new Promise((r) => setTimeout(r, 150))
      // The lookup waits on a worker for the lock; this thread went on meanwhile.
      expect(ticks).toBeGreaterThan(5)
      expect(pool().posted - before.posted).toBe(1)
      holder.exec('commit')
      expect((await pending)?.company.id).toBe(companyId)
      expect(used(keyId)).toBe(1)
      expect(pool().onCallerThread - before.onCallerThread).toBe(1)
    } finally {
      clearInterval(ticker)
      if (holder.inTransaction) holder.exec('rollback')
      holder.close()
    }
  })

  it('keeps the per-tenant limits of heavy calls while light calls of the same tenant still run', async () => {
    const tenant = 'tenant-a'
    const engine = createEngine({ database: file, workers: 2, fairness: { tenantConcurrency: 1, tenantBacklog: 0, tenantAllowanceMs: 0 } })
    await engine.ready()
    const counted = async <T>(work: () => Promise<T>) => {
      const before = engine.stats().pool
      const value = await work()
      const after = engine.stats().pool
      if (before.kind !== 'workers' || after.kind !== 'workers') throw new Error('expected worker threads')
      return { value, posted: after.posted - before.posted }
    }
    try {
      // tenantConcurrency 1, no backlog: a second heavy call of the tenant is refused while the first runs.
      const first = engine.count({ dataset: 'companies', filter: { country: 'USA' } }, { tenant })
      const second = await engine.count({ dataset: 'companies' }, { tenant })
      expect(second.ok).toBe(false)
      if (!second.ok) expect(second.issues[0]?.code).toBe('tenant_busy')
      const light = await counted(() => engine.records.companyDetail(companyId, { tenant }))
      expect(light.value?.company.id).toBe(companyId)
      expect(light.posted).toBe(0)
      expect((await first).ok).toBe(true)
      // Another tenant is not affected.
      expect((await engine.count({ dataset: 'companies' }, { tenant: 'tenant-b' })).ok).toBe(true)
    } finally {
      await engine.close()
    }
  })
})
