/**
 * The fault barrier and the error statuses of spec section 7 through the fetch handler: an internal
 * fault is a 500 problem+json that reveals nothing but an error id, reported once through
 * onInternalError (or stderr, without the key); a closed or busy database is a 503 with Retry-After;
 * unknown routes and methods are 404 JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { createApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase } from '../../src/store/open.js'
import { createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
let dir: string
beforeAll(async () => {
  h = await createHarness({ companies: 60 })
  dir = mkdtempSync(join(tmpdir(), 'ventureql-errors-'))
})
afterAll(async () => {
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

const SECRET = 'secret-internal-detail-4711'

async function problem(res: Response, status: number) {
  const text = await res.text()
  expect(res.status, text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = problemSchema.parse(JSON.parse(text)) as any
  expect(body.status).toBe(status)
  expect(body.error.length).toBeGreaterThan(0)
  return { body, text }
}

/** The harness engine with one method replaced by a fault. */
function faultyEngine(method: 'query' | 'page' | 'list', fault: () => unknown): Engine {
  return Object.freeze({ ...h.engine, [method]: fault }) as Engine
}

type Report = { error: unknown; where: { method: string; path: string; errorId: string; requestId?: string | undefined } }

function appWith(engine: Engine, reports: Report[]) {
  return createApp(engine, { clock: () => HARNESS_NOW, onInternalError: (error, where) => { reports.push({ error, where }) } })
}

const postQuery = (body: unknown, key: string) =>
  new Request(`https://api.test/queries?key=${key}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })

describe('an internal fault', () => {
  const thrownError = new Error(SECRET)
  const rejection = new RangeError(SECRET)
  const notAnError = { message: SECRET }
  const faults: Array<[string, 'query' | 'page', () => unknown, () => Request, (reported: unknown) => boolean]> = [
    ['a thrown Error in engine.query', 'query', () => { throw thrownError }, () => postQuery({ dataset: 'investors' }, h.fullKey), (e) => e === thrownError],
    ['a rejected promise in engine.query', 'query', () => Promise.reject(rejection), () => postQuery({ dataset: 'investors' }, h.fullKey), (e) => e === rejection],
    ['a thrown non-Error in engine.page', 'page', () => { throw notAnError }, () => new Request(`https://api.test/queries/abc?key=${h.fullKey}`), (e) => e === notAnError],
    ['a TypeError from a broken result', 'page', () => Promise.resolve({ ok: true, value: null }), () => new Request(`https://api.test/queries/abc?key=${h.fullKey}`), (e) => e instanceof TypeError],
  ]
  it.each(faults)('%s is a 500 that reveals nothing but an error id, reported once', async (_name, method, fault, request, isTheFault) => {
    const reports: Report[] = []
    const res = await appWith(faultyEngine(method, fault), reports).fetch(request())
    const { body, text } = await problem(res, 500)
    expect(body.error_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(body.error).toContain(body.error_id)
    expect(text).not.toContain(SECRET)
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/) // no stack frame
    expect(text).not.toContain('TypeError')
    expect(text).not.toContain(h.fullKey)
    expect(reports).toHaveLength(1)
    // The request id the client got too, so the report and the request log line can be matched.
    expect(reports[0]!.where).toEqual({ method: request().method, path: new URL(request().url).pathname, errorId: body.error_id, requestId: res.headers.get('x-request-id') })
    // The operator gets the fault itself.
    expect(isTheFault(reports[0]!.error)).toBe(true)
  })

  it('is reported on stderr by default with the path and the stack, never the query string or its key', async () => {
    let stderr = ''
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
    try {
      const app = createApp(faultyEngine('query', () => { throw new Error(SECRET) }), { clock: () => HARNESS_NOW })
      const res = await app.fetch(postQuery({ dataset: 'investors' }, h.fullKey))
      const { body } = await problem(res, 500)
      expect(stderr).toContain(`internal error ${body.error_id} on POST /queries`)
      expect(stderr).toContain(SECRET)
      expect(stderr).not.toContain(h.fullKey)
      expect(stderr).not.toContain('key=')
    } finally {
      spy.mockRestore()
    }
  })

  it('still counts against the quota and carries the X-Quota-* headers of the request that faulted', async () => {
    const made = await createApiKey(h.vdb, { plan: 'full', quota: 5, period: 'day' }, HARNESS_NOW)
    if (!made.ok) throw new Error('key')
    const res = await appWith(faultyEngine('query', () => { throw new Error(SECRET) }), []).fetch(postQuery({ dataset: 'investors' }, made.value.key))
    expect(res.status).toBe(500)
    expect(res.headers.get('x-quota-remaining')).toBe('4')
  })
})

describe('an unavailable database', () => {
  it('closed under the app: 503 with Retry-After, not 500, and nothing reported as a bug', async () => {
    const vdb = await createFixtureDatabase({ companies: 10 })
    const made = await createApiKey(vdb, { plan: 'full', quota: 100, period: 'day' }, HARNESS_NOW)
    if (!made.ok) throw new Error('key')
    const reports: Report[] = []
    const app = appWith(createEngine({ database: vdb }), reports)
    expect((await app.fetch(new Request(`https://api.test/ratelimit/usage?key=${made.value.key}`))).status).toBe(200)
    vdb.sqlite.close()
    for (const request of [
      new Request(`https://api.test/companies?key=${made.value.key}`),
      postQuery({ dataset: 'investors' }, made.value.key),
      new Request(`https://api.test/ratelimit/usage?key=${made.value.key}`),
    ]) {
      const res = await app.fetch(request)
      const { body } = await problem(res, 503)
      expect(body.error).toMatch(/busy or unavailable/)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    expect(reports).toEqual([])
  })

  it('locked by another connection (SQLITE_BUSY with busy_timeout 0): 503 with Retry-After; served again once released', async () => {
    const file = join(dir, 'busy.db')
    await (await createFixtureDatabase({ file, companies: 10 })).close()
    const vdb = openDatabase(file, { busyTimeoutMs: 0 })
    const engine = createEngine({ database: vdb })
    const made = await createApiKey(vdb, { plan: 'full', quota: 100, period: 'day' }, HARNESS_NOW)
    if (!made.ok) throw new Error('key')
    const reports: Report[] = []
    const app = appWith(engine, reports)
    // Another connection as the store opens one: the state file (keys, quota counts) attached.
    const other = openDatabase(file, { migrate: false }).sqlite
    const dataOnly = new Database(file)
    try {
      // A writer holding only the data file (an import) leaves the quota count, in the state file, alone.
      dataOnly.exec('BEGIN EXCLUSIVE')
      expect((await app.fetch(new Request(`https://api.test/companies?key=${made.value.key}`))).status).toBe(200)
      dataOnly.exec('ROLLBACK')
      // Another writer holds the write lock of both files: counting the request (a write) cannot proceed.
      other.exec('BEGIN EXCLUSIVE')
      const res = await app.fetch(new Request(`https://api.test/companies?key=${made.value.key}`))
      const { body } = await problem(res, 503)
      expect(body.error).toMatch(/retry/i)
      expect(res.headers.get('retry-after')).toBe('1')
      other.exec('COMMIT')
      expect((await app.fetch(new Request(`https://api.test/companies?key=${made.value.key}`))).status).toBe(200)
      expect(reports).toEqual([])
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      if (dataOnly.inTransaction) dataOnly.exec('ROLLBACK')
      other.close()
      dataOnly.close()
      await vdb.close()
    }
  })
})

describe('unknown routes', () => {
  const routes: Array<[string, string]> = [
    ['GET', '/nothing/here'],
    ['GET', '/companies/1/nonsense'],
    ['GET', '/queries'],
    ['POST', '/companies'],
    ['DELETE', '/queries/abc'],
    ['PUT', '/ratelimit/usage'],
    ['PATCH', '/queries'],
    ['GET', '/%E0%A4%A'],
    ['GET', `/${'x'.repeat(10_000)}`],
    ['GET', "/companies'%20or%201=1--/stories/x"],
  ]
  it.each(routes)('%s %s is a JSON 404 naming the endpoint that does not exist', async (method, path) => {
    const res = await h.request(path, { init: { method } })
    const { body } = await problem(res, 404)
    expect(body.error).toMatch(/^No endpoint answers /)
    expect(body.error).toContain(method)
  })

  it('answers JSON whatever the Accept header says', async () => {
    const res = await h.get('/nothing', { init: { headers: { accept: 'text/html' } } })
    await problem(res, 404)
    const ok = await h.get('/ratelimit/usage', { init: { headers: { accept: 'text/html' } } })
    expect(ok.headers.get('content-type')).toMatch(/^application\/json/)
  })
})
