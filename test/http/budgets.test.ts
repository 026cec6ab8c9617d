/**
 * Time budgets through the HTTP layer, on an engine with worker threads over a file: a request whose
 * query runs out of its budget (here: waits for the one general worker past `queryTimeoutMs`) is a
 * 503 problem+json with the issue `query_timeout` and Retry-After, and the key check (its own,
 * longer budget, on the reserved worker) still counts it. A held write lock delays only what writes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { createApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase } from '../../src/store/open.js'
import { HARNESS_NOW } from './harness.js'

let dir: string
let file: string
let engine: Engine
let key: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-budgets-'))
  file = join(dir, 'fixture.db')
  const vdb = await createFixtureDatabase({ file })
  const made = await createApiKey(vdb, { plan: 'full', quota: 1_000_000, period: 'day' }, HARNESS_NOW)
  if (!made.ok) throw new Error('key')
  key = made.value.key
  await vdb.close()
  // One key sends hundreds of requests at once here: a backlog that takes them all (fairness.md's
  // per-key backlog would answer most of them 429), so that what is tested is the budget alone.
  engine = createEngine({ database: file, workers: 1, writeWaitMs: 300, fairness: { tenantBacklog: 1_000 } })
})

afterAll(async () => {
  await engine?.close()
  rmSync(dir, { recursive: true, force: true })
})

const get = (app: ReturnType<typeof createApp>, path: string) =>
  app.fetch(new Request(`https://api.test${path}${path.includes('?') ? '&' : '?'}key=${key}`))

describe('a query over its time budget', () => {
  it('is a 503 problem+json with query_timeout and Retry-After', async () => {
    const app = createApp(engine, { clock: () => HARNESS_NOW, queryTimeoutMs: 5 })
    const roomy = createApp(engine, { clock: () => HARNESS_NOW })
    expect((await roomy.fetch(new Request(`https://api.test/companies?per_page=1&key=${key}`))).status).toBe(200) // workers up
    // 300 listings with distinct filters (each a first count) queue on the one general worker, 5 ms allowed each.
    const responses = await Promise.all(Array.from({ length: 300 }, (_, i) => get(app, `/companies?company_name=q${i}`)))
    const statuses = responses.map((r) => r.status)
    const refused = responses.filter((r) => r.status === 503)
    expect(refused.length).toBeGreaterThan(0)
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true)
    const res = refused[0]!
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(res.headers.get('retry-after')).toBe('5')
    // Counted: the key check ran (its own budget) before the query timed out.
    expect(res.headers.get('x-quota-remaining')).toMatch(/^\d+$/)
    const body = await res.json() as { status: number; error: string; issues: { code: string; path: string; expected: string }[] }
    expect(body.status).toBe(503)
    expect(body.issues).toEqual([expect.objectContaining({ code: 'query_timeout', path: '', expected: 'at most 5 ms' })])
    expect(body.error).toMatch(/Narrow it/)
    // The same request within the budget of the other app answers.
    expect((await roomy.fetch(new Request(`https://api.test/companies?company_name=q1&key=${key}`))).status).toBe(200)
  })

  it('record lookups over budget are 503 query_timeout too', async () => {
    const app = createApp(engine, { clock: () => HARNESS_NOW, queryTimeoutMs: 5 })
    const slow = Promise.all(Array.from({ length: 200 }, (_, i) => get(app, `/companies?company_name=r${i}`)))
    const similar = await Promise.all(Array.from({ length: 40 }, (_, i) => get(app, `/companies/${i + 1}/similar`)))
    await slow
    const refused = similar.filter((r) => r.status === 503)
    expect(refused.length).toBeGreaterThan(0)
    const body = await refused[0]!.json() as { issues: { code: string }[] }
    expect(body.issues[0]!.code).toBe('query_timeout')
  })
})

describe('another process holding the write lock', () => {
  it('delays requests that write by at most the write wait, then 503; usage (read only) answers at once', async () => {
    const app = createApp(engine, { clock: () => HARNESS_NOW })
    expect((await get(app, '/ratelimit/usage')).status).toBe(200)
    // Opened as the store opens it: the state file attached, so BEGIN IMMEDIATE holds both files' write locks.
    const other = openDatabase(file, { migrate: false }).sqlite
    other.exec('BEGIN IMMEDIATE')
    try {
      const started = performance.now()
      const usage = await get(app, '/ratelimit/usage')
      const usageMs = performance.now() - started
      expect(usage.status).toBe(200)
      expect(usageMs).toBeLessThan(250)

      const counted = performance.now()
      const res = await get(app, '/companies/1')
      const countedMs = performance.now() - counted
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('1')
      // writeWaitMs is 300: waited for the lock, briefly.
      expect(countedMs).toBeGreaterThanOrEqual(250)
      expect(countedMs).toBeLessThan(3000)
    } finally {
      other.exec('COMMIT')
      other.close()
    }
    expect((await get(app, '/companies/1')).status).toBe(200)
  })

  it('never delays engine reads: a first count and a page answer while the lock is held (their cache writes are skipped)', async () => {
    // Opened as the store opens it: the state file attached, so BEGIN IMMEDIATE holds both files' write locks.
    const other = openDatabase(file, { migrate: false }).sqlite
    other.exec('BEGIN IMMEDIATE')
    try {
      const started = performance.now()
      const counted = await engine.count({ dataset: 'companies', filter: { stage: 'a', employees: { gte: 3 } } })
      const listed = await engine.list({ dataset: 'fundings', filter: { amount: { gte: 12_345 } }, page: 2, per_page: 3 })
      const ms = performance.now() - started
      // A cache write that waited for the lock would fail after writeWaitMs (SQLITE_BUSY): both answer.
      expect(counted.ok && listed.ok).toBe(true)
      expect(ms).toBeLessThan(2000)
      const reference = openDatabase(file, { readonly: true })
      try {
        const expected = reference.sqlite.prepare(`select count(*) from companies where stage = 'a' and employees >= 3`).pluck().get()
        expect(counted.ok && counted.value).toBe(expected)
      } finally {
        await reference.close()
      }
    } finally {
      other.exec('COMMIT')
      other.close()
    }
  })
})
