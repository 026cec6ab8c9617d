/**
 * The statements a call sends to PostgreSQL, each a round trip: a listing's page 1 is two (the
 * stored query, data version and cached total in one; the keys with their records in one), a
 * company detail one. Counted at pg's `Client.query`, with the answers compared with the SQLite
 * engine's on the same copied fixture, so fewer statements never means other answers. A walked
 * page reads its stored query with the data version and cached total.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import type { PostgresVentureDb, SqliteVentureDb } from '../../src/store/open.js'
import { copiedFixture, type TestSchema } from './support.js'

let schema: TestSchema
let source: SqliteVentureDb
let target: PostgresVentureDb
let lite: Engine
let post: Engine

beforeAll(async () => {
  ;({ schema, source, target } = await copiedFixture('round_trips', 300))
  lite = createEngine({ database: source })
  post = createEngine({ database: target })
  // The cost statistics are read in the background after start; counted calls come after that read.
  await Promise.all([lite.ready(), post.ready()])
})
afterAll(async () => {
  await lite?.close()
  await post?.close()
  await source?.close()
  await schema?.drop()
})

/** The statements `call` sends, and its answer. */
async function counted<T>(call: () => Promise<T>): Promise<{ statements: string[]; answer: T }> {
  const query = pg.Client.prototype.query
  const statements: string[] = []
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0]
    statements.push(typeof first === 'string' ? first : String((first as { text?: string }).text))
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    return { statements, answer: await call() }
  } finally {
    pg.Client.prototype.query = query
  }
}

const REQUESTS = [
  { dataset: 'companies', filter: {}, per_page: 7 },
  { dataset: 'companies', filter: { country: 'USA' }, sort: [{ svc_score: 'desc' }], per_page: 5 },
  { dataset: 'companies', filter: { industries: { has_any: ['Fintech', 'Software'] } }, sort: [{ name: 'asc' }], per_page: 4 },
  { dataset: 'companies', filter: { employees: { gte: 10 } }, sort: [{ total_funding: 'desc' }], per_page: 6, fields: ['name', 'industries', 'stage'] },
  { dataset: 'investors', filter: { portfolio_size: { gte: 1 } }, sort: [{ portfolio_size: 'desc' }], per_page: 5 },
  { dataset: 'fundings', filter: {}, sort: [{ amount: 'desc' }], per_page: 8 },
] as const

describe('statements per call on PostgreSQL', () => {
  it('reads page 1 of a query in two statements, with the records SQLite answers', async () => {
    for (const request of REQUESTS) {
      const expected = await lite.query(request)
      if (!expected.ok) throw new Error(JSON.stringify(expected.issues))
      expect(expected.value.results.length).toBeGreaterThan(0)
      await post.query(request) // stores the query and remembers its total
      const { statements, answer } = await counted(() => post.query(request))
      if (!answer.ok) throw new Error(JSON.stringify(answer.issues))
      expect(answer.value.results).toEqual(expected.value.results)
      expect(answer.value.meta).toEqual(expected.value.meta)
      expect(statements, `${JSON.stringify(request)}: ${statements.join('\n')}`).toHaveLength(2)
    }
  })

  it('walks the later pages of a stored query with each page\'s keys and records in one statement, as SQLite pages them', async () => {
    for (const request of REQUESTS) {
      const [a, b] = [await lite.store(request), await post.store(request)]
      if (!a.ok || !b.ok) throw new Error('store failed')
      expect(b.value.query_id).toBe(a.value.query_id)
      for (let page = 1; page <= 6; page++) {
        const expected = await lite.page(a.value.query_id, { page })
        const { statements, answer } = await counted(() => post.page(b.value.query_id, { page }))
        if (!expected.ok || !answer.ok) throw new Error('page failed')
        expect(answer.value.results, `${JSON.stringify(request)} page ${page}`).toEqual(expected.value.results)
        // Each statement reading the dataset's table reads keys and records together (no second
        // statement reads the records by id); walked page by page, each page is a plain seek.
        const reads = statements.filter((s) => s.includes(' as "t0"'))
        if (answer.value.results.length > 0) expect(reads.length).toBeGreaterThan(0)
        for (const read of reads) expect(read).toContain('left join lateral')
        // The stored query, data version and total in one; the nearest remembered position; the
        // keys with their records; a new position remembered.
        expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(4)
        expect(statements.filter((s) => s.includes('"stored_queries"'))).toHaveLength(1)
      }
    }
  })

  it('reads a company detail in one statement, equal to SQLite\'s, and answers undefined for an unknown id', async () => {
    const ids = source.sqlite.prepare('select id from companies order by id').pluck().all() as number[]
    let withFunding = 0
    for (const id of ids.filter((_id, i) => i % 10 === 0)) {
      const expected = await lite.records.companyDetail(id)
      const { statements, answer } = await counted(() => post.records.companyDetail(id))
      expect(answer).toEqual(expected)
      expect(statements).toHaveLength(1)
      if ((expected?.funding.length ?? 0) > 0) withFunding++
    }
    // The fixture's details have parts to compare (not only empty lists).
    expect(withFunding).toBeGreaterThan(3)
    const { statements, answer } = await counted(() => post.records.companyDetail(ids.at(-1)! + 1000))
    expect(answer).toBeUndefined()
    expect(statements).toHaveLength(1)
  })
})
