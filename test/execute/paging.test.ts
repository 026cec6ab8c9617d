/**
 * Keyset paging, the subtle part: for generated sorts (mixed asc/desc on nullable fields with many
 * ties) and page sizes, walking every page through the cursor returns every matching row exactly
 * once, in the order of one unpaged query; that order is itself checked against a JS sort (NULLs
 * last in both directions, primary key as tiebreaker); jumping straight to page N (a seek from the
 * nearest remembered sort key plus a bounded skip, or the checkpoint pass first) gives the same
 * page; what is remembered is keyed by position and data version; each request reads a bounded
 * number of keys.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import type { CompiledQuery } from 'kysely'
import { condition as c, foreign, matchAll, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import { planQuery, sqliteDialect } from '../../src/compile/index.js'
import { DEFAULT_PAGING, fetchKeys, pageByCursor, type ExecContext } from '../../src/execute/index.js'
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

  it('deep pages on non-unique sorts, walked and cold, are the unpaged rows of the page', async () => {
    // Sorts whose first key has ties and NULLs: the seek after a boundary is several ranges (the
    // rest of its tie group, the rows after it, the NULL tail), each a statement compiled once per
    // boundary shape and reused (execute/run.ts, `seekStatements`).
    const policy = { ...DEFAULT_PAGING, checkpointEvery: 4, maxCheckpoints: 1000, maxSkip: 8 }
    const sorts: [string, 'asc' | 'desc'][][] = [[['last_funding_date', 'desc']], [['stage', 'asc']], [['has_mobile', 'desc'], ['last_funding_date', 'asc']]]
    for (const sort of sorts) {
      const plan = planQuery(checked('companies', c('employees', 'gte', 1, p), sort), sqliteDialect)
      const ctx: ExecContext = { ...ctxAt(12), sqlite: seed.vdb.sqlite }
      const unpaged = (await fetchKeys(ctx, plan, { limit: 100_000 })).map((k) => k.id)
      const firstKeys = (await fetchKeys(ctx, plan, { limit: 100_000 })).map((k) => k.boundary[0])
      // Ties in the first key, so pages start inside tie groups.
      expect(new Set(firstKeys).size).toBeLessThan(firstKeys.length / 2)
      const perPage = 5
      const pages = Math.ceil(unpaged.length / perPage)
      const queryId = `non-unique-${sort.map(([f, d]) => `${f}-${d}`).join('-')}`
      const forgetNear = (n: number) => seed.vdb.sqlite
        .prepare('delete from query_checkpoints where query_id = ? and data_version = 12 and position > ? and position % 4 <> 0')
        .run(queryId, (n - 3) * perPage)
      for (let n = 2; n <= pages; n++) {
        const expected = unpaged.slice((n - 1) * perPage, n * perPage)
        await pageByCursor(ctx, plan, { queryId, page: n - 1, perPage, matches: unpaged.length }, policy)
        const walked = await pageByCursor(ctx, plan, { queryId, page: n, perPage, matches: unpaged.length }, policy)
        expect(walked.records.map((r) => Number(r.id)), `${JSON.stringify(sort)} page ${n} walked`).toEqual(expected)
        forgetNear(n)
        const cold = await pageByCursor(ctx, plan, { queryId, page: n, perPage, matches: unpaged.length }, policy)
        expect(cold.records.map((r) => Number(r.id)), `${JSON.stringify(sort)} page ${n} cold`).toEqual(expected)
      }
    }
  })

  it('remembers sort keys by position per (query, data version), for every page size', async () => {
    const plan = planQuery(checked('companies', matchAll(), [['svc_score', 'desc']]), sqliteDialect)
    await pageByCursor(ctxAt(5), plan, { queryId: 'remember', page: 4, perPage: 10 })
    const stored = () => seed.vdb.sqlite
      .prepare('select data_version, position from query_checkpoints where query_id = ? order by data_version, position')
      .all('remember') as { data_version: number; position: number }[]
    // Page 4 skipped 30 rows from the start: its first row (position 30) and last (40) are known now.
    expect(stored()).toEqual([{ data_version: 5, position: 30 }, { data_version: 5, position: 40 }])

    // Page 3 at 15 a page starts after row 30: a seek from the key page 4 at 10 a page left.
    const unpaged5 = (await fetchKeys(ctxAt(5), plan, { limit: 100_000 })).map((k) => k.id)
    const page3 = await pageByCursor(ctxAt(5), plan, { queryId: 'remember', page: 3, perPage: 15 })
    expect(page3.records.map((r) => Number(r.id))).toEqual(unpaged5.slice(30, 45))
    expect(stored().map((r) => r.position)).toEqual([30, 40, 45])

    // A new data version starts over: nothing is reused from version 5.
    const unpaged = (await fetchKeys(ctxAt(6), plan, { limit: 100_000 })).map((k) => k.id)
    const page3at6 = await pageByCursor(ctxAt(6), plan, { queryId: 'remember', page: 3, perPage: 10 })
    expect(page3at6.records.map((r) => Number(r.id))).toEqual(unpaged.slice(20, 30))
    expect(stored().filter((r) => r.data_version === 6).map((r) => r.position)).toEqual([20, 30])
  })

  it('seeks from the nearest remembered position instead of re-reading earlier rows', async () => {
    const plan = planQuery(checked('companies', matchAll(), [['name', 'asc']]), sqliteDialect)
    const unpaged = (await fetchKeys(ctxAt(9), plan, { limit: 100_000 })).map((k) => k.id)
    // Plant a wrong key at position 10 (row 1's): if page 3 (after row 20) is a seek from it plus
    // a skip of 10, it starts 10 rows after row 1.
    const lastRowOfPage1 = await fetchKeys(ctxAt(9), plan, { limit: 1 })
    seed.vdb.sqlite
      .prepare('insert into query_checkpoints (query_id, data_version, position, after_key) values (?, ?, ?, ?)')
      .run('planted', 9, 10, JSON.stringify(lastRowOfPage1[0]!.boundary))
    const page3 = await pageByCursor(ctxAt(9), plan, { queryId: 'planted', page: 3, perPage: 10 })
    expect(page3.records.map((r) => Number(r.id))).toEqual(unpaged.slice(11, 21))
  })

  it('a far jump runs one pass that remembers a checkpoint every `spacing` rows; later jumps only seek and skip', async () => {
    const plan = planQuery(checked('companies', c('employees', 'gte', 1, p), [['svc_score', 'desc'], ['name', 'asc']]), sqliteDialect)
    const ctx = ctxAt(11)
    const unpaged = (await fetchKeys(ctx, plan, { limit: 100_000 })).map((k) => k.id)
    expect(unpaged.length).toBeGreaterThan(60)
    const policy = { ...DEFAULT_PAGING, checkpointEvery: 4, maxCheckpoints: 1000, maxSkip: 8 }
    const passes: number[] = []
    const spy: typeof plan = { ...plan, checkpointQuery: (db, every) => (passes.push(every), plan.checkpointQuery(db, every)) }
    // The keys statements as executed (they are compiled once per boundary shape and reused, so
    // the builder's calls do not show them): the limit is the last parameter, an OFFSET would be SQL.
    const statements: { limit: number; offset: boolean }[] = []
    const real = ctx.db
    const watched = new Proxy(real, {
      get(target, prop) {
        if (prop === 'executeQuery') {
          return (query: CompiledQuery) => {
            if (/ as "k0"/.test(query.sql) && !/row_number/.test(query.sql)) statements.push({ limit: Number(query.parameters.at(-1)), offset: / offset /i.test(query.sql) })
            return target.executeQuery(query)
          }
        }
        const value = Reflect.get(target, prop)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const watchedCtx: ExecContext = { ...ctx, db: watched }
    const positions = () => seed.vdb.sqlite.prepare('select position from query_checkpoints where query_id = ? and data_version = 11 order by position').pluck().all('far') as number[]

    const perPage = 3
    const far = Math.floor(unpaged.length / perPage) - 1
    const page = await pageByCursor(watchedCtx, spy, { queryId: 'far', page: far, perPage, matches: unpaged.length }, policy)
    expect(page.records.map((r) => Number(r.id))).toEqual(unpaged.slice((far - 1) * perPage, far * perPage))
    expect(passes).toEqual([4])
    const checkpoints = Array.from({ length: Math.floor(unpaged.length / 4) }, (_, i) => 4 * (i + 1))
    // Every 4th row, plus the page's own first and last row.
    expect(positions()).toEqual([...new Set([...checkpoints, (far - 1) * perPage, far * perPage])].sort((a, b) => a - b))

    // Any other page, in any order, is a seek plus a skip shorter than the spacing: no second pass,
    // and never more than per_page + 1 keys read.
    statements.length = 0
    for (const n of [2, far - 5, 7, Math.floor(far / 2), far + 1, 1]) {
      const got = await pageByCursor(watchedCtx, spy, { queryId: 'far', page: n, perPage, matches: unpaged.length }, policy)
      expect(got.records.map((r) => Number(r.id)), `page ${n}`).toEqual(unpaged.slice((n - 1) * perPage, n * perPage))
    }
    expect(passes).toEqual([4])
    // Never more than the page, the row before it and a skip shorter than the spacing; never SQL OFFSET.
    expect(statements.length).toBeGreaterThan(5)
    expect(statements.every((s) => s.limit <= perPage + 3 && !s.offset)).toBe(true)
  })

  it('the spacing grows so that one pass writes at most maxCheckpoints', async () => {
    const plan = planQuery(checked('companies', matchAll(), [['employees', 'asc']]), sqliteDialect)
    const total = seed.rows.companies.length
    const policy = { ...DEFAULT_PAGING, checkpointEvery: 2, maxCheckpoints: 10, maxSkip: 4 }
    await pageByCursor(ctxAt(12), plan, { queryId: 'capped', page: 40, perPage: 3, matches: total }, policy)
    const positions = seed.vdb.sqlite.prepare('select position from query_checkpoints where query_id = ? and data_version = 12').pluck().all('capped') as number[]
    const spacing = Math.ceil(total / 10)
    const fromPass = positions.filter((n) => n % spacing === 0)
    expect(fromPass).toHaveLength(Math.floor(total / spacing))
    expect(fromPass.length).toBeLessThanOrEqual(10)
    // Besides the pass's checkpoints, only the page's first and last row.
    expect(positions.length - fromPass.length).toBeLessThanOrEqual(2)
  })

  it('a skip that runs past the non-NULL rows continues in the NULL tail', async () => {
    const plan = planQuery(checked('companies', matchAll(), [['svc_score', 'desc']]), sqliteDialect)
    const keys = await fetchKeys(ctxAt(13), plan, { limit: 100_000 })
    const unpaged = keys.map((k) => k.id)
    const nonNull = keys.findIndex((k) => k.boundary[0] === null)
    expect(nonNull).toBeGreaterThan(3)
    // Remembered: the key of the second-to-last non-NULL row (position nonNull - 1). Page
    // nonNull + 3 at 1 a page skips 2 rows from there, of which only 1 is non-NULL.
    seed.vdb.sqlite
      .prepare('insert into query_checkpoints (query_id, data_version, position, after_key) values (?, ?, ?, ?)')
      .run('tail', 13, nonNull - 1, JSON.stringify(keys[nonNull - 2]!.boundary))
    for (const page of [nonNull + 3, nonNull + 1, nonNull]) {
      const got = await pageByCursor(ctxAt(13), plan, { queryId: 'tail', page, perPage: 1 })
      expect(got.records.map((r) => Number(r.id)), `page ${page}`).toEqual(unpaged.slice(page - 1, page))
    }
  })

  it('a skip counts rows, not the join rows of an EXISTS (SQLite 3.51 counted those in OFFSET)', async () => {
    // Companies with several fundings: SQLite rewrites the EXISTS into a join, and its OFFSET
    // counted one row per matching funding.
    const filter = foreign('fundings', c('amount', 'is_null', false, p), 'any', p)
    const plan = planQuery(checked('companies', filter, [['last_funding_date', 'asc']]), sqliteDialect)
    const ctx = ctxAt(14)
    const unpaged = (await fetchKeys(ctx, plan, { limit: 100_000 })).map((k) => k.id)
    const multi = seed.vdb.sqlite.prepare('select count(*) from (select company_id from fundings where amount is not null group by company_id having count(*) > 1)').pluck().get() as number
    expect(multi).toBeGreaterThan(3)
    for (const offset of [1, 2, 5, 9]) {
      expect((await fetchKeys(ctx, plan, { limit: 3, offset })).map((k) => k.id), `offset ${offset}`).toEqual(unpaged.slice(offset, offset + 3))
    }
    const page = await pageByCursor(ctx, plan, { queryId: 'exists-skip', page: 4, perPage: 3 })
    expect(page.records.map((r) => Number(r.id))).toEqual(unpaged.slice(9, 12))
  })

  it('a page past the end is empty', async () => {
    const plan = planQuery(checked('companies', c('employees', 'eq', 50, p)), sqliteDialect)
    const fetched = await pageByCursor(ctxAt(1), plan, { queryId: 'end', page: 1000, perPage: 10 })
    expect(fetched.records).toEqual([])
  })
})
