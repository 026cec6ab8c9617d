/**
 * The key check and the quota count on SQLite (store/api-keys.ts): prepared statements when the
 * connection is free, Kysely's path when another call holds a transaction on it. Both answer the
 * same; the count never joins someone else's transaction (so it is not lost with its rollback)
 * and never overspends. A remembered live key (`LiveKeys`) is counted in one statement that also
 * reads its revocation: exact up to the quota, and a key revoked elsewhere is not counted.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { BatchedLiveCounts, consumeQuota, countLiveKey, createApiKey, findApiKey, hashApiKey, LiveKeys, quotaStatus, revokeApiKey } from '../../src/store/api-keys.js'
import Database from 'better-sqlite3'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { stateFileOf } from '../../src/store/state-file.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SqliteVentureDb } from '../../src/store/open.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })

async function withKey(quota: number) {
  const vdb = await createFixtureDatabase()
  open.push(vdb)
  const created = await createApiKey(vdb, { plan: 'full', quota, period: 'day' })
  if (!created.ok) throw new Error('key')
  return { vdb, ...created.value }
}

const NOW = new Date('2026-01-02T03:04:05Z')

describe('API keys on SQLite', () => {
  test('finds a key by its text (not by another text), and counts exactly up to the quota', async () => {
    const { vdb, key, record } = await withKey(3)
    expect(await findApiKey(vdb, key)).toEqual(record)
    expect(await findApiKey(vdb, key + 'x')).toBeUndefined()
    expect(await findApiKey(vdb, '')).toBeUndefined()
    const states = []
    for (let i = 0; i < 5; i++) states.push(await consumeQuota(vdb, record, NOW))
    expect(states.map((s) => [s.allowed, s.remaining])).toEqual([[true, 2], [true, 1], [true, 0], [false, 0], [false, 0]])
    expect(await quotaStatus(vdb, record, NOW)).toMatchObject({ allowed: false, remaining: 0, limit: 3 })
    expect(vdb.sqlite.prepare('select used from quota_usage where key_id = ?').pluck().get(record.keyId)).toBe(3)
  })

  test('while another call holds a transaction on the connection, the count waits for it and survives its rollback', async () => {
    const { vdb, key, record } = await withKey(10)
    await consumeQuota(vdb, record, NOW)
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    const transaction = vdb.db.transaction().execute(async (trx) => {
      await trx.selectFrom('api_keys').select('key_id').execute()
      await held
      throw new Error('rolled back on purpose')
    }).catch((error: Error) => error.message)
    // Let the transaction begin.
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(vdb.sqlite.inTransaction).toBe(true)
    let counted = false
    const counting = consumeQuota(vdb, record, NOW).then((state) => { counted = true; return state })
    const found = findApiKey(vdb, key)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(counted).toBe(false)
    release()
    expect(await transaction).toBe('rolled back on purpose')
    expect(await counting).toMatchObject({ allowed: true, remaining: 8 })
    expect(await found).toEqual(record)
    expect((await quotaStatus(vdb, record, NOW)).remaining).toBe(8)
  })
})

describe('counting a remembered live key (LiveKeys, countLiveKey)', () => {
  test('counts exactly up to the quota, then says nothing and forgets the key; the full count agrees', async () => {
    const { vdb, key, record } = await withKey(3)
    const keys = new LiveKeys()
    const hash = hashApiKey(key)
    expect(countLiveKey(vdb, keys, hash, NOW)).toBeUndefined()
    keys.remember(hash, record)
    const states = []
    for (let i = 0; i < 4; i++) states.push(countLiveKey(vdb, keys, hash, NOW)?.quota)
    expect(states.map((s) => s && [s.allowed, s.remaining])).toEqual([[true, 2], [true, 1], [true, 0], undefined])
    expect(keys.get(hash)).toBeUndefined()
    expect(await consumeQuota(vdb, record, NOW)).toMatchObject({ allowed: false, remaining: 0 })
    expect(vdb.sqlite.prepare('select used from quota_usage where key_id = ?').pluck().get(record.keyId)).toBe(3)
  })

  test('a key revoked by another connection is not counted and is forgotten', async () => {
    const { vdb, key, record } = await withKey(10)
    const keys = new LiveKeys()
    const hash = hashApiKey(key)
    keys.remember(hash, record)
    expect(countLiveKey(vdb, keys, hash, NOW)?.quota.remaining).toBe(9)
    await revokeApiKey(vdb, String(record.keyId))
    expect(countLiveKey(vdb, keys, hash, NOW)).toBeUndefined()
    expect(keys.size).toBe(0)
    expect(vdb.sqlite.prepare('select used from quota_usage where key_id = ?').pluck().get(record.keyId)).toBe(1)
  })

  test('keeps no revoked record, evicts the least recently used past its capacity, refuses a bad capacity', async () => {
    const keys = new LiveKeys(2)
    const base = { prefix: 'vql_x', plan: 'full' as const, quotaLimit: 5, quotaPeriod: 'day', label: null, createdAt: NOW.toISOString() }
    keys.remember('r', { ...base, keyId: 9, revokedAt: NOW.toISOString() })
    expect(keys.get('r')).toBeUndefined()
    keys.remember('a', { ...base, keyId: 1, revokedAt: null })
    keys.remember('b', { ...base, keyId: 2, revokedAt: null })
    expect(keys.get('a')?.keyId).toBe(1)
    keys.remember('c', { ...base, keyId: 3, revokedAt: null })
    expect([keys.get('a')?.keyId, keys.get('b'), keys.get('c')?.keyId, keys.size]).toEqual([1, undefined, 3, 2])
    expect(() => new LiveKeys(0)).toThrow(RangeError)
  })
})

describe('counts of one turn committed together (BatchedLiveCounts)', () => {
  test('the counts asked for in one turn commit in one transaction, exactly up to the quota, each with its own state', async () => {
    const { vdb, key, record } = await withKey(5)
    const keys = new LiveKeys()
    const hash = hashApiKey(key)
    keys.remember(hash, record)
    const batched = new BatchedLiveCounts(vdb.sqlite, keys)
    const counts = await Promise.all(Array.from({ length: 8 }, () => batched.count(hash, NOW)))
    expect(counts.map((c) => c?.quota.remaining)).toEqual([4, 3, 2, 1, 0, undefined, undefined, undefined])
    expect(batched.stats).toEqual({ batches: 1, counts: 8 })
    expect(vdb.sqlite.prepare('select used from quota_usage where key_id = ?').pluck().get(record.keyId)).toBe(5)
    // Not remembered (forgotten once over quota): answered at once, no transaction.
    expect(await batched.count(hash, NOW)).toBeUndefined()
    expect(batched.stats.batches).toBe(1)
  })

  test('drain commits the waiting counts at once, and the scheduled flush then finds nothing to commit', async () => {
    const { vdb, key, record } = await withKey(5)
    const keys = new LiveKeys()
    const hash = hashApiKey(key)
    keys.remember(hash, record)
    const batched = new BatchedLiveCounts(vdb.sqlite, keys)
    const counts = [batched.count(hash, NOW), batched.count(hash, NOW)]
    batched.drain()
    // Committed within this turn, before the scheduled flush and before the connection could close.
    expect(vdb.sqlite.prepare('select used from quota_usage where key_id = ?').pluck().get(record.keyId)).toBe(2)
    vdb.sqlite.close()
    expect((await Promise.all(counts)).map((c) => c?.quota.remaining)).toEqual([4, 3])
    expect(batched.stats).toEqual({ batches: 1, counts: 2 })
    batched.drain()
  })

  test('a batch is cut at maxBatch; a key revoked between turns is not counted', async () => {
    const { vdb, key, record } = await withKey(100)
    const keys = new LiveKeys()
    const hash = hashApiKey(key)
    keys.remember(hash, record)
    const batched = new BatchedLiveCounts(vdb.sqlite, keys, 3)
    const counts = await Promise.all(Array.from({ length: 7 }, () => batched.count(hash, NOW)))
    expect(counts.map((c) => c?.quota.remaining)).toEqual([99, 98, 97, 96, 95, 94, 93])
    expect(batched.stats).toEqual({ batches: 3, counts: 7 })
    await revokeApiKey(vdb, String(record.keyId))
    expect(await batched.count(hash, NOW)).toBeUndefined()
    expect(vdb.sqlite.prepare('select used from quota_usage where key_id = ?').pluck().get(record.keyId)).toBe(7)
    expect(() => new BatchedLiveCounts(vdb.sqlite, keys, 0)).toThrow(RangeError)
  })

  test('with the write lock taken elsewhere and no busy wait, the whole batch fails with SQLITE_BUSY and counts nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ventureql-batched-counts-'))
    const vdb = await createFixtureDatabase({ file: join(dir, 'f.db'), companies: 5 })
    try {
      const made = await createApiKey(vdb, { plan: 'full', quota: 10, period: 'day' })
      if (!made.ok) throw new Error('key')
      vdb.sqlite.pragma('busy_timeout = 0')
      const keys = new LiveKeys()
      const hash = hashApiKey(made.value.key)
      keys.remember(hash, made.value.record)
      const batched = new BatchedLiveCounts(vdb.sqlite, keys)
      const holder = new Database(stateFileOf(join(dir, 'f.db')))
      holder.exec('begin immediate')
      const outcomes = await Promise.all([batched.count(hash, NOW), batched.count(hash, NOW)].map((p) => p.then(() => 'counted', (e: { code?: string }) => e.code)))
      holder.exec('rollback')
      holder.close()
      expect(outcomes).toEqual(['SQLITE_BUSY', 'SQLITE_BUSY'])
      expect((await quotaStatus(vdb, made.value.record, NOW)).remaining).toBe(10)
      expect((await batched.count(hash, NOW))?.quota.remaining).toBe(9)
    } finally {
      await vdb.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
