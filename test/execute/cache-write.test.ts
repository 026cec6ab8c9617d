/**
 * Cache writes never stall a read (execute/cache-write.ts): while another connection holds
 * SQLite's write lock (`BEGIN IMMEDIATE`), engine calls that would cache a total, remember sort
 * keys, run the checkpoint pass or mark a stored query used answer promptly and correctly, writing
 * nothing; once the lock is released the same calls write again. Without the skip each of them
 * would wait out the 5 s busy timeout and then fail with SQLITE_BUSY.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { writeCache } from '../../src/execute/cache-write.js'
import { sqliteDialect } from '../../src/compile/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

let dir: string
let vdb: SqliteVentureDb
let engine: Engine
let other: Database.Database
const FILTER = { employees: { gte: 5 } }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-lock-'))
  const file = join(dir, 'lock.db')
  vdb = await createFixtureDatabase({ file, companies: 300 })
  // Small checkpoint spacing, so that a jump on 300 companies runs the pass.
  engine = createEngine({ database: vdb, paging: { checkpointEvery: 4, maxSkip: 8 } })
  other = new Database(file)
})
afterAll(async () => {
  if (other?.inTransaction) other.exec('rollback')
  other?.close()
  await engine?.close()
  await vdb?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The ids of rows [from, from + n) of the filter in the default order (svc_score desc, NULLs last, id), read by the other connection. */
const expectedIds = (from: number, n: number) =>
  (other.prepare('select id from companies where employees >= 5 order by svc_score desc nulls last, id limit ? offset ?').pluck().all(n, from) as number[])

const cacheRows = () => vdb.sqlite.prepare('select (select count(*) from query_totals) + (select count(*) from query_checkpoints) as n').pluck().get() as number

async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await call()
  return { value, ms: performance.now() - started }
}

describe('cache writes while another connection holds the write lock', () => {
  it('engine calls answer promptly with the right rows and write nothing; after the lock they write', async () => {
    const stored = await engine.store({ dataset: 'companies', filter: FILTER })
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const id = stored.value.query_id
    const total = (other.prepare('select count(*) from companies where employees >= 5').pluck().get() as number)
    expect(total).toBeGreaterThan(100)
    // Old enough that loading it marks it used (a write).
    vdb.sqlite.prepare(`update stored_queries set last_used_at = '2020-01-01 00:00:00' where query_id = ?`).run(id)
    vdb.sqlite.exec('delete from query_totals; delete from query_checkpoints')

    other.exec('begin immediate')
    try {
      // Page 1, page 2 (a seek after page 1's end, had it been remembered), a far jump (the
      // checkpoint pass), a listing, a count and storing the same query again.
      const calls: [string, () => Promise<unknown>, unknown][] = [
        ['page 1', async () => ids(await engine.page(id, { page: 1, per_page: 10 })), expectedIds(0, 10)],
        ['page 2', async () => ids(await engine.page(id, { page: 2, per_page: 10 })), expectedIds(10, 10)],
        ['far jump', async () => ids(await engine.page(id, { page: 20, per_page: 7 })), expectedIds(133, 7)],
        ['list', async () => ids(await engine.list({ dataset: 'companies', filter: FILTER, page: 3, per_page: 9 })), expectedIds(18, 9)],
        ['count', async () => value(await engine.count({ dataset: 'companies', filter: FILTER })), total],
        ['query, stored already', async () => ids(await engine.query({ dataset: 'companies', filter: FILTER, page: 4, per_page: 6 })), expectedIds(18, 6)],
      ]
      for (const [name, call, expected] of calls) {
        const { value: got, ms } = await timed(call)
        expect(got, name).toEqual(expected)
        // The busy timeout is 5 s: a wait for the lock would show.
        expect(ms, name).toBeLessThan(1000)
      }
      expect(cacheRows()).toBe(0)
      expect(vdb.sqlite.prepare('select last_used_at from stored_queries where query_id = ?').pluck().get(id)).toBe('2020-01-01 00:00:00')
    } finally {
      other.exec('rollback')
    }

    expect(ids(await engine.page(id, { page: 20, per_page: 7 }))).toEqual(expectedIds(133, 7))
    expect(cacheRows()).toBeGreaterThan(Math.floor(total / 4))
    expect(vdb.sqlite.prepare('select last_used_at from stored_queries where query_id = ?').pluck().get(id)).not.toBe('2020-01-01 00:00:00')
  })

  it('writeCache reports a skipped write as false and leaves the connection\'s busy timeout as it was', async () => {
    const ctx = { db: vdb.db, dialect: sqliteDialect, dataVersion: 1, sqlite: vdb.sqlite }
    const insert = () => [vdb.db.insertInto('query_totals').values({ query_id: 'w', data_version: 1, total: 1 }).onConflict((oc) => oc.doNothing())]
    vdb.sqlite.pragma('busy_timeout = 1234')
    try {
      other.exec('begin immediate')
      try {
        const { value: written, ms } = await timed(() => writeCache(ctx, insert()))
        expect(written).toBe(false)
        expect(ms).toBeLessThan(500)
      } finally {
        other.exec('rollback')
      }
      // Every other statement of the connection still waits for a lock as configured.
      expect(vdb.sqlite.pragma('busy_timeout', { simple: true })).toBe(1234)
      expect(await writeCache(ctx, insert())).toBe(true)
      expect(vdb.sqlite.prepare(`select total from query_totals where query_id = 'w'`).pluck().get()).toBe(1)
      expect(await writeCache({ ...ctx, readonly: true }, insert())).toBe(false)
    } finally {
      vdb.sqlite.pragma('busy_timeout = 5000')
    }
  })
})

function ids(r: { ok: boolean; value?: { results: readonly Record<string, unknown>[] }; issues?: unknown }): number[] {
  if (!r.ok || !r.value) throw new Error(JSON.stringify(r.issues))
  return r.value.results.map((x) => Number(x.id))
}

function value<T>(r: { ok: true; value: T } | { ok: false; issues: unknown }): T {
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value
}
