/**
 * Keyset paging, the subtle part: for generated sorts (mixed asc/desc on nullable fields with many
 * ties) and page sizes, walking every page through the cursor returns every matching row exactly
 * once, in the order of one unpaged query; that order is itself checked against a JS sort (NULLs
 * last in both directions, primary key as tiebreaker); jumping straight to page N (walking from
 * remembered boundaries) gives the same page; a new data version forgets the boundaries.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { condition as c, matchAll, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import { planQuery, sqliteDialect } from '../../src/compile/index.js'
import { fetchKeys, pageByCursor, type ExecContext } from '../../src/execute/index.js'
import { checked } from '../compile/helpers.js'
import { seedDatabase, type Row } from './seed-db.js'

const seed = seedDatabase({ companies: 150 })
afterAll(() => seed.vdb.close())
const ctxAt = (dataVersion: number): ExecContext => ({ db: seed.vdb.db, dialect: sqliteDialect, dataVersion })

const SORTABLE = ['svc_score', 'employees', 'name', 'stage', 'last_funding_date', 'has_mobile', 'momentum_score', 'id'] as const
const p = '/filter'
const FILTERS: FilterNode[] = [
  matchAll(),
  c('employees', 'gte', 5, p),
  or([c('stage', 'eq', 'a', p), c('name', 'is_null', true, p)], p),
]

/** NULLs last in both directions, then id ascending. */
function jsOrder(rows: Row[], sort: readonly [string, 'asc' | 'desc'][]): number[] {
  const keys = sort.some(([f]) => f === 'id') ? sort : [...sort, ['id', 'asc'] as const]
  return [...rows]
    .sort((a, b) => {
      for (const [f, dir] of keys) {
        const x = a[f] ?? null
        const y = b[f] ?? null
        if (x === y) continue
        if (x === null) return 1
        if (y === null) return -1
        const cmp = x < y ? -1 : 1
        return dir === 'asc' ? cmp : -cmp
      }
      return 0
    })
    .map((r) => Number(r.id))
}

const sortArb = fc.uniqueArray(fc.constantFrom(...SORTABLE), { minLength: 0, maxLength: 3 }).chain((fields) =>
  fc.tuple(...fields.map((f) => fc.tuple(fc.constant(f as string), fc.constantFrom('asc' as const, 'desc' as const)))),
)

let queryCounter = 0

describe('keyset paging', () => {
  it('walking all pages returns every row once, in the unpaged order', async () => {
    await fc.assert(
      fc.asyncProperty(sortArb, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: FILTERS.length - 1 }), async (sort, perPage, fi) => {
        const q = checked('companies', FILTERS[fi], sort)
        const plan = planQuery(q, sqliteDialect)
        const ctx = ctxAt(1)
        const unpaged = (await fetchKeys(ctx, plan, { limit: 100_000 })).map((k) => k.id)

        const matching = new Set(unpaged)
        const expectedOrder = jsOrder(seed.rows.companies.filter((r) => matching.has(Number(r.id))), sort)
        expect(unpaged).toEqual(expectedOrder)

        const queryId = `walk-${queryCounter++}`
        const walked: number[] = []
        for (let page = 1; page <= Math.ceil(unpaged.length / perPage) + 1; page++) {
          const fetched = await pageByCursor(ctx, plan, { queryId, page, perPage })
          expect(fetched.records.length).toBeLessThanOrEqual(perPage)
          walked.push(...fetched.records.map((r) => Number(r.id)))
        }
        expect(walked).toEqual(unpaged)
      }),
      { numRuns: 60, seed: 20240601 },
    )
  })

  it('jumping to page N walks from remembered boundaries and gives the same page', async () => {
    await fc.assert(
      fc.asyncProperty(sortArb, fc.integer({ min: 1, max: 12 }), fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 5 }), async (sort, perPage, jumps) => {
        const plan = planQuery(checked('companies', matchAll(), sort), sqliteDialect)
        const ctx = ctxAt(1)
        const unpaged = (await fetchKeys(ctx, plan, { limit: 100_000 })).map((k) => k.id)
        const queryId = `jump-${queryCounter++}`
        for (const page of jumps) {
          const fetched = await pageByCursor(ctx, plan, { queryId, page, perPage })
          expect(fetched.records.map((r) => Number(r.id))).toEqual(unpaged.slice((page - 1) * perPage, page * perPage))
        }
      }),
      { numRuns: 40, seed: 7 },
    )
  })

  it('remembers boundaries per (query, per_page, data version) and reads them back', async () => {
    const plan = planQuery(checked('companies', matchAll(), [['svc_score', 'desc']]), sqliteDialect)
    await pageByCursor(ctxAt(5), plan, { queryId: 'remember', page: 4, perPage: 10 })
    const stored = seed.vdb.sqlite
      .prepare('select per_page, data_version, page from query_page_boundaries where query_id = ? order by page')
      .all('remember') as { per_page: number; data_version: number; page: number }[]
    expect(stored.map((r) => r.page)).toEqual([1, 2, 3, 4])
    expect(stored.every((r) => r.per_page === 10 && r.data_version === 5)).toBe(true)

    // A new data version starts over: nothing is reused from version 5.
    const unpaged = (await fetchKeys(ctxAt(6), plan, { limit: 100_000 })).map((k) => k.id)
    const page3 = await pageByCursor(ctxAt(6), plan, { queryId: 'remember', page: 3, perPage: 10 })
    expect(page3.records.map((r) => Number(r.id))).toEqual(unpaged.slice(20, 30))
    const v6 = seed.vdb.sqlite.prepare('select count(*) from query_page_boundaries where query_id = ? and data_version = 6').pluck().get('remember')
    expect(v6).toBe(3)
  })

  it('uses a remembered boundary instead of re-reading earlier rows', async () => {
    const plan = planQuery(checked('companies', matchAll(), [['name', 'asc']]), sqliteDialect)
    const unpaged = (await fetchKeys(ctxAt(9), plan, { limit: 100_000 })).map((k) => k.id)
    // Plant a wrong boundary for page 2: if page 3 is a seek from it, the planted key shows.
    const lastRowOfPage1 = await fetchKeys(ctxAt(9), plan, { limit: 1 })
    seed.vdb.sqlite
      .prepare('insert into query_page_boundaries (query_id, per_page, data_version, page, after_key) values (?, ?, ?, ?, ?)')
      .run('planted', 10, 9, 2, JSON.stringify(lastRowOfPage1[0]!.boundary))
    const page3 = await pageByCursor(ctxAt(9), plan, { queryId: 'planted', page: 3, perPage: 10 })
    expect(page3.records.map((r) => Number(r.id))).toEqual(unpaged.slice(1, 11))
  })

  it('a page past the end is empty', async () => {
    const plan = planQuery(checked('companies', c('employees', 'eq', 50, p)), sqliteDialect)
    const fetched = await pageByCursor(ctxAt(1), plan, { queryId: 'end', page: 1000, perPage: 10 })
    expect(fetched.records).toEqual([])
  })
})
