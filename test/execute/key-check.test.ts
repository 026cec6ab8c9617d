/**
 * A key check carried by the call it guards (src/execute/key-check.ts): one backend call instead of
 * two, the operation run only for a key that passes, the quota counted exactly once whichever way
 * the check ran, and a failed carrying call leaving the check's outcome a rejection nobody has to
 * catch. Inline (the caller's connection) and on worker threads (arguments and answers cloned).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, KeyRefusedError, QueryCancelledError, type Engine } from '../../src/engine.js'
import { createApiKey, revokeApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { createOperations } from '../../src/execute/operations.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

const NOW = new Date('2026-06-15T12:00:00Z')
let dir: string
let file: string
let vdb: SqliteVentureDb
const engines: Engine[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-key-check-'))
  file = join(dir, 'fixture.db')
  vdb = await createFixtureDatabase({ file, companies: 60 })
})
afterAll(async () => {
  for (const engine of engines) await engine.close()
  await vdb.close()
  rmSync(dir, { recursive: true, force: true })
})

async function newKey(quota: number, plan: 'full' | 'trial' = 'full'): Promise<{ key: string; keyId: number }> {
  const made = await createApiKey(vdb, { plan, quota, period: 'day' }, NOW)
  if (!made.ok) throw new Error('could not create a key')
  return { key: made.value.key, keyId: made.value.record.keyId }
}

const used = (keyId: number): number => (vdb.sqlite.prepare('select coalesce(sum(used), 0) as n from quota_usage where key_id = ?').get(keyId) as { n: number }).n
const storedQueries = (): number => (vdb.sqlite.prepare('select count(*) as n from stored_queries').get() as { n: number }).n
const firstCompany = (): number => (vdb.sqlite.prepare('select min(id) as id from companies').get() as { id: number }).id

describe('the authorized operation', () => {
  it('guards only the table\'s own operations, never the check itself or an inherited name', async () => {
    const ops = createOperations(vdb, DEFAULT_LIMITS)
    const { key } = await newKey(10)
    const check = { key, nowMs: NOW.getTime(), count: false, withDataVersion: false }
    for (const op of ['authorize', 'authorized', 'toString', '__proto__', 'constructor']) {
      await expect(ops.authorized(check, op as never, [])).rejects.toThrow(TypeError)
    }
    expect(await ops.authorized(check, 'companyExists', [firstCompany()])).toMatchObject({ ran: true, value: true })
  })
})

describe.each([
  ['inline', () => createEngine({ database: vdb, workers: 0 })],
  ['on worker threads', () => createEngine({ database: file, workers: 2 })],
])('a deferred key check (%s)', (_name, make) => {
  let engine: Engine
  beforeAll(() => {
    engine = make()
    engines.push(engine)
  })

  it('rides with the operation: one backend call, the value, and the check settled from it, counted once', async () => {
    const { key, keyId } = await newKey(10)
    const id = firstCompany()
    const before = engine.stats().calls
    const check = engine.access.defer(key, NOW, true, { withDataVersion: true })
    const record = await engine.records.companyDetail(id, { keyCheck: check })
    expect(record?.company.id).toBe(id)
    expect(engine.stats().calls - before).toBe(1)
    expect(check.carried).toBe(true)
    const outcome = await check.outcome()
    if (!outcome.ok) throw new Error('expected the key to pass')
    expect(outcome.key.keyId).toBe(keyId)
    expect(outcome.quota).toMatchObject({ limit: 10, remaining: 9, allowed: true })
    expect(outcome.dataVersion).toBeTypeOf('number')
    // Asking again runs nothing more.
    await check.outcome()
    expect(engine.stats().calls - before).toBe(1)
    expect(used(keyId)).toBe(1)
  })

  it('a second call made with a refused check, even at once, does not run either', async () => {
    const { key } = await newKey(10)
    await revokeApiKey(vdb, key)
    const check = engine.access.defer(key, NOW, true)
    const stored = storedQueries()
    const [first, second] = await Promise.all([
      engine.records.companyExists(firstCompany(), { keyCheck: check }).catch((e: unknown) => e),
      engine.store({ dataset: 'companies', filter: { country: 'DEU' } }, { keyCheck: check }).catch((e: unknown) => e),
    ])
    expect(first).toBeInstanceOf(KeyRefusedError)
    expect(second).toBeInstanceOf(KeyRefusedError)
    expect(storedQueries()).toBe(stored)
  })

  it('is carried by the first call only: a second call with it waits for the outcome, runs, and counts nothing', async () => {
    const { key, keyId } = await newKey(10)
    const check = engine.access.defer(key, NOW, true)
    const before = engine.stats().calls
    await engine.records.companyExists(firstCompany(), { keyCheck: check })
    await engine.records.companyExists(firstCompany(), { keyCheck: check })
    expect(engine.stats().calls - before).toBe(2)
    expect(used(keyId)).toBe(1)
  })

  it('an unknown or revoked key: KeyRefusedError, and the operation did not run (no query stored)', async () => {
    const { key } = await newKey(10)
    await revokeApiKey(vdb, key)
    const stored = storedQueries()
    for (const [presented, reason] of [['vql_not-a-key-at-all-0000000000000000', 'unknown'], [key, 'revoked']] as const) {
      const check = engine.access.defer(presented, NOW, true)
      const error = await engine.store({ dataset: 'companies', filter: { country: 'USA' } }, { keyCheck: check }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(KeyRefusedError)
      expect((error as KeyRefusedError).authorization).toEqual({ ok: false, reason })
      expect(await check.outcome()).toEqual({ ok: false, reason })
    }
    expect(storedQueries()).toBe(stored)
  })

  it('a counted call over the quota is refused without running; an uncounted one runs', async () => {
    const { key, keyId } = await newKey(2)
    const id = firstCompany()
    expect(await engine.records.companyDetail(id, { keyCheck: engine.access.defer(key, NOW, true) })).toBeDefined()
    expect(await engine.records.companyDetail(id, { keyCheck: engine.access.defer(key, NOW, true) })).toBeDefined()
    const over = engine.access.defer(key, NOW, true)
    const error = await engine.records.companyDetail(id, { keyCheck: over }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KeyRefusedError)
    expect((error as KeyRefusedError).authorization).toMatchObject({ ok: true, quota: { allowed: false, remaining: 0 } })
    // Not counted (GET /ratelimit/usage): reads the state and runs.
    const status = engine.access.defer(key, NOW, false)
    expect(await engine.records.companyDetail(id, { keyCheck: status })).toBeDefined()
    expect(await status.outcome()).toMatchObject({ ok: true, quota: { allowed: false, remaining: 0 } })
    expect(used(keyId)).toBe(2)
  })

  it('is exact under concurrency: N carried calls against R remaining run exactly R operations', async () => {
    const { key, keyId } = await newKey(13)
    const id = firstCompany()
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0
      ? engine.records.companyDetail(id, { keyCheck: engine.access.defer(key, NOW, true) })
      : engine.records.search({ term: 'a', objectTypes: ['company'], limit: 3 }, { keyCheck: engine.access.defer(key, NOW, true) })
    ).then(() => 'ran', (e: unknown) => (e instanceof KeyRefusedError ? 'refused' : e))))
    expect(outcomes.filter((o) => o === 'ran')).toHaveLength(13)
    expect(outcomes.filter((o) => o === 'refused')).toHaveLength(27)
    expect(used(keyId)).toBe(13)
  })

  it('no call carried it: outcome() runs it on its own, once', async () => {
    const { key, keyId } = await newKey(10)
    const before = engine.stats().calls
    const check = engine.access.defer(key, NOW, true)
    expect(check.carried).toBe(false)
    const [a, b] = await Promise.all([check.outcome(), check.outcome()])
    expect(check.carried).toBe(false)
    expect(a).toBe(b)
    expect(a).toMatchObject({ ok: true, quota: { remaining: 9 } })
    expect(engine.stats().calls - before).toBe(1)
    // A call made with it afterwards runs plainly.
    expect(await engine.records.companyExists(firstCompany(), { keyCheck: check })).toBe(true)
    expect(used(keyId)).toBe(1)
  })

  it('the carrying call failed (cancelled before it ran): the call rejects, the outcome rejects with it, nothing counted', async () => {
    const { key, keyId } = await newKey(10)
    const check = engine.access.defer(key, NOW, true)
    const error = await engine.records.companyDetail(firstCompany(), { keyCheck: check, signal: AbortSignal.abort() }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(QueryCancelledError)
    await expect(check.outcome()).rejects.toBe(error)
    expect(used(keyId)).toBe(0)
  })

  it('a failed carrying call whose outcome nobody asks for raises no unhandled rejection', async () => {
    const { key } = await newKey(10)
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await engine.records.companyDetail(firstCompany(), { keyCheck: engine.access.defer(key, NOW, true), signal: AbortSignal.abort() }).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 20))
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
    expect(unhandled).toEqual([])
  })
})
