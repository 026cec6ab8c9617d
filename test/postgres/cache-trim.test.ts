/**
 * Cache trimming on PostgreSQL: the cache tables get an insertion-order identity column (migrations
 * 008, 009) and the oldest rows beyond the limit are deleted by it, as SQLite does by rowid.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresDialect } from '../../src/compile/index.js'
import { noteCacheWrites, trimCache } from '../../src/execute/cache-trim.js'
import type { ExecContext } from '../../src/execute/context.js'
import type { PostgresVentureDb } from '../../src/store/open.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let pgdb: PostgresVentureDb
let ctx: ExecContext
beforeAll(async () => {
  schema = await testSchema('cache_trim')
  pgdb = await schema.open()
  ctx = { db: pgdb.db, dialect: postgresDialect, dataVersion: 1 }
})
afterAll(async () => {
  await schema?.drop()
})

// One statement per call: the identity column numbers rows in insertion order.
const insertTotals = (from: number, n: number) =>
  pgdb.db.insertInto('query_totals').values(Array.from({ length: n }, (_, i) => ({ query_id: `q${from + i}`, data_version: 1, total: from + i }))).execute()
const insertCheckpoints = (from: number, n: number) =>
  pgdb.db.insertInto('query_checkpoints').values(Array.from({ length: n }, (_, i) => ({ query_id: 'q', data_version: 1, position: from + i, after_key: '[]' }))).execute()
const totals = async () => (await sql<{ query_id: string }>`select query_id from query_totals order by insert_seq`.execute(pgdb.db)).rows.map((r) => r.query_id)

describe('cache trimming on PostgreSQL', () => {
  it('trimCache keeps the newest rows of each cache table', async () => {
    await insertTotals(0, 30)
    await trimCache(ctx, 'query_totals', 10)
    expect(await totals()).toEqual(Array.from({ length: 10 }, (_, i) => `q${20 + i}`))
    await insertCheckpoints(2, 20)
    await trimCache(ctx, 'query_checkpoints', 5)
    const positions = await pgdb.db.selectFrom('query_checkpoints').select('position').orderBy('position').execute()
    expect(positions.map((p) => p.position)).toEqual([17, 18, 19, 20, 21])
    await sql`delete from query_totals`.execute(pgdb.db)
  })

  it('noteCacheWrites trims only when a multiple of 1,000 writes is crossed', async () => {
    const limits = { query_totals: 50, query_checkpoints: 50 }
    await insertTotals(0, 999)
    await noteCacheWrites(ctx, 'query_totals', 999, limits)
    expect(await totals()).toHaveLength(999)
    await insertTotals(999, 2)
    await noteCacheWrites(ctx, 'query_totals', 2, limits)
    const kept = await totals()
    expect(kept).toHaveLength(50)
    expect(kept.at(-1)).toBe('q1000')
    expect(kept[0]).toBe('q951')
  })
})
