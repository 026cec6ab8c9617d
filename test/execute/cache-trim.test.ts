/**
 * The caches of totals and page boundaries are bounded: after every 1,000 writes the oldest rows
 * beyond the limit go, newest kept.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { sqliteDialect } from '../../src/compile/index.js'
import { noteCacheWrites, trimCache } from '../../src/execute/cache-trim.js'
import type { ExecContext } from '../../src/execute/context.js'
import { openDatabase } from '../../src/store/open.js'

const vdb = openDatabase(':memory:')
const ctx: ExecContext = { db: vdb.db, dialect: sqliteDialect, dataVersion: 1 }
afterAll(() => vdb.close())

const insertTotals = (from: number, n: number) => {
  const insert = vdb.sqlite.prepare('insert into query_totals (query_id, data_version, total) values (?, 1, ?)')
  for (let i = from; i < from + n; i++) insert.run(`q${i}`, i)
}
const ids = () => vdb.sqlite.prepare('select query_id from query_totals order by rowid').pluck().all() as string[]

describe('cache trimming', () => {
  it('trimCache keeps the newest rows', async () => {
    insertTotals(0, 30)
    await trimCache(ctx, 'query_totals', 10)
    expect(ids()).toEqual(Array.from({ length: 10 }, (_, i) => `q${20 + i}`))
    vdb.sqlite.exec('delete from query_totals')
  })

  it('noteCacheWrites trims only when a multiple of 1,000 writes is crossed', async () => {
    const limits = { query_totals: 50, query_checkpoints: 50 }
    insertTotals(0, 999)
    await noteCacheWrites(ctx, 'query_totals', 999, limits)
    expect(ids()).toHaveLength(999)
    insertTotals(999, 2)
    await noteCacheWrites(ctx, 'query_totals', 2, limits)
    const kept = ids()
    expect(kept).toHaveLength(50)
    expect(kept.at(-1)).toBe('q1000')
    expect(kept[0]).toBe('q951')
  })
})
