/**
 * GET /healthz and GET /readyz (issue 11, item 1): answered without a key, never counted against a
 * quota; /readyz is 503 when the database cannot answer or lacks a migration of this release.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { dataVersion } from '../../src/store/open.js'
import { MIGRATIONS } from '../../src/store/migrations.js'
import { BASE, createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness({ companies: 50 }) })
afterAll(async () => { await h.close() })

/** Requests counted against every key so far, as stored. */
const used = async () => Number(await h.servedValue('select coalesce(sum(used), 0) from quota_usage'))

describe('GET /healthz', () => {
  it('is 200 without a key, with or without a trailing slash, and counts against no quota', async () => {
    const before = await used()
    for (const path of ['/healthz', '/healthz/']) {
      const res = await h.get(path, { key: null })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ status: 'ok' })
      expect(res.headers.get('x-quota-remaining')).toBeNull()
    }
    // With a key too: still not counted (the key is not even looked at).
    expect((await h.get('/healthz')).status).toBe(200)
    expect(await used()).toBe(before)
  })
})

describe('GET /readyz', () => {
  it('is 200 with the data version when the database answers and is migrated, without a key or a count', async () => {
    const before = await used()
    const res = await h.get('/readyz', { key: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await res.json()).toEqual({ status: 'ready', data_version: await dataVersion(h.served) })
    expect(await used()).toBe(before)
  })

  it('is 503 naming the migration when the database lacks one of this release', async () => {
    const last = MIGRATIONS.at(-1)!.name
    const stamp = await h.servedValue('select timestamp from kysely_migration where name = ?', last)
    await h.mutate('delete from kysely_migration where name = ?', last)
    try {
      const res = await h.get('/readyz', { key: null })
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('5')
      const body = await res.json() as { status: string; pending_migrations: string[]; error: string }
      expect(body).toMatchObject({ status: 'not ready', pending_migrations: [last] })
      expect(body.error).toMatch(/migration/)
    } finally {
      await h.mutate('insert into kysely_migration (name, timestamp) values (?, ?)', last, stamp)
    }
    expect((await h.get('/readyz', { key: null })).status).toBe(200)
  })

  it('is 503 when the database cannot be reached (the engine is closed), while /healthz stays 200', async () => {
    const engine = createEngine({ database: h.served })
    const app = createApp(engine)
    await engine.close()
    const ready = await app.fetch(new Request(`${BASE}/readyz`))
    expect(ready.status).toBe(503)
    expect((await ready.json() as { status: string }).status).toBe('not ready')
    expect((await app.fetch(new Request(`${BASE}/healthz`))).status).toBe(200)
  })
})
