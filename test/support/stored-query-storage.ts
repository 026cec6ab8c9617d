/**
 * @module The bounds on stored queries (grammar-docs/language.md, "Stored queries") as one suite
 * that runs through `createEngine` on either backend: test/execute/stored-queries.test.ts runs it
 * on SQLite, test/postgres/stored-queries.test.ts on PostgreSQL. Rows are read and back-dated
 * through Kysely, so the same statements run on both.
 */
import { describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { TOUCH_EVERY_MS } from '../../src/execute/stored-queries.js'
import type { VentureDb } from '../../src/store/open.js'

/** Opens a fresh, migrated, empty database for one test; `close` drops what it made. */
export type OpenFresh = () => Promise<{ vdb: VentureDb; close: () => Promise<void> }>

const ts = (at: Date) => at.toISOString().replace('T', ' ').slice(0, 19)

/**
 * A companies query whose canonical form is about `bytes` long: an `in` list of names of 98
 * characters (100 bytes each in the JSON list). Tags of up to 7 characters give the same size for
 * the same `bytes`.
 */
function sizedRequest(tag: string, bytes: number) {
  const names = Array.from({ length: Math.max(1, Math.floor(bytes / 100)) }, (_, i) => `${tag}-`.padEnd(8, 'x') + String(i).padStart(90, '0'))
  return { dataset: 'companies', filter: { name: { in: names } } }
}

/** 5,000 distinct domains of 17 characters: ~100 KB of canonical JSON, which must stay storable. */
const FIVE_THOUSAND_WEBSITES = { dataset: 'companies', filter: { website: { in: Array.from({ length: 5000 }, (_, i) => `company-${String(i).padStart(5, '0')}.com`) } } }

async function storedId(engine: Engine, request: unknown, owner?: string): Promise<string> {
  const r = await engine.store(request, owner === undefined ? {} : { owner })
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value.query_id
}

export function storedQueryStorageSuite(backend: string, openFresh: OpenFresh): void {
  async function withEngine(limits: Parameters<typeof createEngine>[0]['limits'], body: (engine: Engine, vdb: VentureDb) => Promise<void>) {
    const { vdb, close } = await openFresh()
    const engine = createEngine({ database: vdb, ...(limits ? { limits } : {}) })
    try {
      await body(engine, vdb)
    } finally {
      await engine.close()
      await close()
    }
  }
  const rows = async (vdb: VentureDb) =>
    (await vdb.db.selectFrom('stored_queries').select(['query_id', 'owner', 'bytes', 'created_at', 'last_used_at', 'canonical']).orderBy('query_id').execute())
      .map((r) => ({ ...r, bytes: Number(r.bytes) })) as { query_id: string; owner: string | null; bytes: number; created_at: string; last_used_at: string; canonical: string }[]
  const ids = async (vdb: VentureDb) => (await rows(vdb)).map((r) => r.query_id).sort()
  const backdate = (vdb: VentureDb, id: string, at: string) =>
    vdb.db.updateTable('stored_queries').set({ last_used_at: at }).where('query_id', '=', id).execute()

  describe(`stored queries are bounded (${backend})`, () => {
    it('stores the owner, the UTF-8 size of the canonical JSON and when it was last used', async () => {
      await withEngine(undefined, async (engine, vdb) => {
        const before = ts(new Date(Date.now() - 1000))
        const id = await storedId(engine, { dataset: 'companies', filter: { name: { eq: 'Zoë' } } }, 'key_1')
        const [row] = await rows(vdb)
        expect(row).toMatchObject({ query_id: id, owner: 'key_1', bytes: Buffer.byteLength(row!.canonical, 'utf8'), last_used_at: row!.created_at })
        // One more byte than characters: ë is two bytes in UTF-8.
        expect(row!.bytes).toBe(row!.canonical.length + 1)
        expect(row!.last_used_at >= before).toBe(true)
        // Without an owner: NULL.
        const unowned = await storedId(engine, { dataset: 'investors', filter: {} })
        expect((await rows(vdb)).find((r) => r.query_id === unowned)?.owner).toBeNull()
      })
    })

    it('refuses to store a query over maxStoredQueryBytes with limit_exceeded naming the limit; 5,000 websites fit', async () => {
      await withEngine(undefined, async (engine, vdb) => {
        expect((await engine.store(FIVE_THOUSAND_WEBSITES)).ok).toBe(true)
        const [stored] = await rows(vdb)
        expect(stored!.bytes).toBeGreaterThan(95_000)
        expect(stored!.bytes).toBeLessThanOrEqual(engine.limits.maxStoredQueryBytes)

        const huge = sizedRequest('huge', 400_000)
        for (const attempt of [await engine.store(huge), await engine.query(huge)]) {
          expect(attempt.ok).toBe(false)
          if (attempt.ok) return
          expect(attempt.issues).toHaveLength(1)
          expect(attempt.issues[0]).toMatchObject({ code: 'limit_exceeded', path: '/filter', expected: `at most ${engine.limits.maxStoredQueryBytes} bytes` })
          expect(attempt.issues[0]!.message).toMatch(/the limit \(maxStoredQueryBytes\) is 262144 bytes/)
        }
        expect(await ids(vdb)).toEqual([stored!.query_id])
        // Running it unstored is not storing it: a listing of the same filter answers.
        expect((await engine.count(huge)).ok).toBe(true)
      })
    })

    it('a configured maxStoredQueryBytes applies', async () => {
      await withEngine({ maxStoredQueryBytes: 200 }, async (engine) => {
        expect((await engine.store(sizedRequest('a', 100))).ok).toBe(true)
        const r = await engine.store(sizedRequest('b', 400))
        expect(!r.ok && r.issues[0]!.message).toMatch(/the limit \(maxStoredQueryBytes\) is 200 bytes/)
      })
    })

    it('past maxStoredBytesPerOwner, that owner\'s least recently used queries expire (with their caches); other owners keep theirs', async () => {
      const size = 2000
      await withEngine({ maxStoredBytesPerOwner: 3.5 * size, storedQueryDays: 1e6 }, async (engine, vdb) => {
        const q1 = await storedId(engine, sizedRequest('q1', size), 'alice')
        const q2 = await storedId(engine, sizedRequest('q2', size), 'alice')
        const q3 = await storedId(engine, sizedRequest('q3', size), 'alice')
        const bob = await storedId(engine, sizedRequest('bob', size), 'bob')
        const none = [await storedId(engine, sizedRequest('n1', size)), await storedId(engine, sizedRequest('n2', size))]
        const sizes = new Set((await rows(vdb)).map((row) => row.bytes))
        expect(sizes.size).toBe(1)
        const [one] = [...sizes] as [number]
        expect(one).toBeGreaterThan(size)
        expect(3 * one).toBeLessThanOrEqual(3.5 * size)
        // Least recently used first: q2, then q3, then q1; bob's and the unowned ones are older still.
        await backdate(vdb, q1, '2020-01-01 00:00:03')
        await backdate(vdb, q2, '2020-01-01 00:00:01')
        await backdate(vdb, q3, '2020-01-01 00:00:02')
        await backdate(vdb, bob, '2019-01-01 00:00:00')
        await backdate(vdb, none[0]!, '2019-01-01 00:00:00')
        await backdate(vdb, none[1]!, '2019-01-02 00:00:00')
        await vdb.db.insertInto('query_totals').values({ query_id: q2, data_version: 1, total: 7 }).execute()
        await vdb.db.insertInto('query_checkpoints').values({ query_id: q2, data_version: 1, position: 50, after_key: '[1]' }).execute()

        // A fourth query of alice's: 4 x 2000 > 7000, so her least recently used one goes.
        const q4 = await storedId(engine, sizedRequest('q4', size), 'alice')
        expect(await ids(vdb)).toEqual([q1, q3, q4, bob, ...none].sort())
        expect(await vdb.db.selectFrom('query_totals').select('query_id').where('query_id', '=', q2).execute()).toEqual([])
        expect(await vdb.db.selectFrom('query_checkpoints').select('query_id').where('query_id', '=', q2).execute()).toEqual([])

        // One twice the size: two of hers go (q3, then q1), never the one just stored.
        const q5 = await storedId(engine, sizedRequest('q5', 2 * size), 'alice')
        expect(await ids(vdb)).toEqual([q4, q5, bob, ...none].sort())

        // Storing an existing query again stores nothing new and expires nothing.
        expect(await storedId(engine, sizedRequest('q5', 2 * size), 'bob')).toBe(q5)
        expect(await ids(vdb)).toEqual([q4, q5, bob, ...none].sort())
        // It stays alice's: the first to store a query owns it.
        expect((await rows(vdb)).find((r) => r.query_id === q5)?.owner).toBe('alice')

        // Queries stored without an owner share one bound.
        const n3 = await storedId(engine, sizedRequest('n3', 2 * size))
        expect(await ids(vdb)).toEqual([q4, q5, bob, none[1]!, n3].sort())
      })
    })

    it('loading a query marks it used at most once per hour, which keeps it from expiring', async () => {
      await withEngine(undefined, async (engine, vdb) => {
        const id = await storedId(engine, { dataset: 'companies', filter: { country: 'USA' } })
        const lastUsed = async () => (await rows(vdb)).find((r) => r.query_id === id)!.last_used_at
        const recently = ts(new Date(Date.now() - TOUCH_EVERY_MS / 6))
        await backdate(vdb, id, recently)
        expect((await engine.page(id, { page: 1 })).ok).toBe(true)
        expect(await lastUsed()).toBe(recently)

        const longAgo = ts(new Date(Date.now() - 2 * TOUCH_EVERY_MS))
        await backdate(vdb, id, longAgo)
        const before = ts(new Date(Date.now() - 1000))
        expect((await engine.page(id, { page: 2 })).ok).toBe(true)
        expect(await lastUsed() >= before).toBe(true)

        // Storing it again marks it used too.
        await backdate(vdb, id, longAgo)
        await storedId(engine, { dataset: 'companies', filter: { country: 'USA' } })
        expect(await lastUsed() >= before).toBe(true)
      })
    })

    it('queries unused for storedQueryDays expire when a later store sweeps', async () => {
      await withEngine({ storedQueryDays: 30 }, async (engine, vdb) => {
        const day = 24 * 60 * 60 * 1000
        const insert = (id: string, lastUsed: Date) =>
          vdb.db.insertInto('stored_queries').values({
            query_id: id, query_version: 2001, dataset: 'companies', canonical: '{}', created_at: '2020-01-01 00:00:00',
            owner: null, bytes: 2, last_used_at: ts(lastUsed),
          }).execute()
        await insert('unused-31-days', new Date(Date.now() - 31 * day))
        await insert('unused-29-days', new Date(Date.now() - 29 * day))
        await vdb.db.insertInto('query_totals').values({ query_id: 'unused-31-days', data_version: 1, total: 3 }).execute()
        // The first store of this connection sweeps.
        const fresh = await storedId(engine, { dataset: 'fundings', filter: {} })
        expect(await ids(vdb)).toEqual([fresh, 'unused-29-days'].sort())
        expect(await vdb.db.selectFrom('query_totals').select('query_id').execute()).toEqual([])
        // An expired id is unknown from then on.
        const paged = await engine.page('unused-31-days')
        expect(!paged.ok && paged.issues[0]!.code).toBe('unknown_query')
      })
    })

    it('an owner is a non-empty string of at most 200 characters', async () => {
      await withEngine(undefined, async (engine, vdb) => {
        for (const owner of [5, '', 'x'.repeat(201), { id: 1 }]) {
          const r = await engine.store({ dataset: 'companies', filter: {} }, { owner })
          expect(!r.ok && r.issues[0]!.code, JSON.stringify(owner)).toBe('invalid_value')
        }
        expect(await ids(vdb)).toEqual([])
        expect((await engine.query({ dataset: 'companies', filter: {} }, { owner: 'x'.repeat(200) })).ok).toBe(true)
      })
    })
  })
}
