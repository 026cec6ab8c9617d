/**
 * Plan steering (compile/steer.ts): a keys query forced to walk the sort index returns exactly the
 * rows, in exactly the order, of the planner's own plan, for every operator family, with seeks,
 * NULL-heavy columns and foreign subqueries; the walk really is a walk of the sort index; and the
 * decision follows the selectivity rule.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { and, condition as c, foreign, not, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { DatasetName } from '../../src/catalog/index.js'
import { planQuery, postgresDialect, prefersSortWalk, sqliteDialect, UNINDEXABLE_WALK_FACTOR, WALK_FACTOR, COVERED_WALK_FACTOR, type Boundary } from '../../src/compile/index.js'
import type { ExecContext } from '../../src/execute/index.js'
import { countRows, datasetRows, fetchKeys } from '../../src/execute/index.js'
import { checked } from '../compile/helpers.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

// The generated fixture: realistic values (so filters match) and NULLs in most nullable columns.
const vdb = await createFixtureDatabase({ companies: 600 })
const ctx: ExecContext = { db: vdb.db, dialect: sqliteDialect, dataVersion: 0 }
afterAll(() => vdb.close())

const p = '/filter'

interface Case {
  readonly name: string
  readonly dataset: DatasetName
  readonly filter: FilterNode
  readonly sort: readonly [string, 'asc' | 'desc'][]
}

const CASES: readonly Case[] = [
  { name: 'eq + in + between, by another column', dataset: 'companies', sort: [['svc_score', 'desc']], filter: and([c('country', 'eq', 'USA', p), c('stage', 'in', ['a', 'b'], p), c('employees', 'between', [1, 500], p)], p) },
  { name: 'condition on the sort column itself stays indexed', dataset: 'companies', sort: [['employees', 'asc']], filter: and([c('employees', 'gte', 10, p), c('has_mobile', 'eq', true, p)], p) },
  { name: 'tags probe', dataset: 'companies', sort: [['svc_score', 'desc']], filter: c('industries', 'has_any', ['Fintech', 'Health'], p) },
  { name: 'has_all and is_empty', dataset: 'companies', sort: [['total_funding', 'asc']], filter: or([c('keywords', 'has_all', ['ai', 'saas'], p), c('business_models', 'is_empty', true, p)], p) },
  { name: 'null-safe negation', dataset: 'companies', sort: [['name', 'asc'], ['employees', 'desc']], filter: not(c('stage', 'in', ['a', 'b'], p), p) },
  { name: 'text operators', dataset: 'companies', sort: [['svc_score', 'asc']], filter: or([c('name', 'contains', 'a', p), c('website', 'ends_with', '.io', p)], p) },
  { name: 'is_null', dataset: 'companies', sort: [['momentum_score', 'desc']], filter: c('state', 'is_null', true, p) },
  { name: 'numbers and booleans', dataset: 'companies', sort: [['svc_score', 'desc']], filter: and([c('momentum_score', 'gt', 0, p), c('has_ios_store', 'in', [true, false], p)], p) },
  { name: 'foreign any', dataset: 'investors', sort: [['portfolio_size', 'desc']], filter: and([c('type', 'in', ['vc', 'angel'], p), foreign('companies', c('industries', 'has_any', ['Fintech'], p), 'any', p)], p) },
  { name: 'foreign all', dataset: 'investors', sort: [['number_of_deals', 'asc']], filter: foreign('companies', not(c('stage', 'eq', 'i', p), p), 'all', p) },
  { name: 'by primary key', dataset: 'companies', sort: [], filter: c('country', 'eq', 'USA', p) },
]

async function ids(q: ReturnType<typeof checked>, walk: boolean, after?: Boundary) {
  const plan = planQuery(q, sqliteDialect)
  const rows = await plan.keysQuery(ctx.db, { limit: 100_000, walkSortIndex: walk, ...(after ? { after } : {}) }).execute()
  return rows.map((r) => plan.keys.map((k) => (r[k.alias] ?? null) as Boundary[number]))
}

describe('walking the sort index', () => {
  for (const k of CASES) {
    it(`selects the same rows in the same order: ${k.name}`, async () => {
      const q = checked(k.dataset, k.filter, k.sort)
      const plan = planQuery(q, sqliteDialect)
      expect(plan.canWalkSortIndex).toBe(true)
      const planner = await ids(q, false)
      const walked = await ids(q, true)
      expect(planner.length).toBeGreaterThan(0)
      expect(walked).toEqual(planner)
      // And after a boundary in the middle (the keyset seek of a later page).
      const boundary = planner[Math.floor(planner.length / 2)]!
      expect(await ids(q, true, boundary)).toEqual(await ids(q, false, boundary))
    })
  }

  it('is a scan of the sort index, not a search of a filter index', () => {
    const q = checked('companies', CASES[0]!.filter, [['svc_score', 'desc']])
    const plan = planQuery(q, sqliteDialect)
    const explain = (walk: boolean) => {
      const compiled = plan.keysQuery(ctx.db, { limit: 10, walkSortIndex: walk }).compile()
      return (vdb.sqlite.prepare(`explain query plan ${compiled.sql}`).all(...(compiled.parameters as unknown[])) as { detail: string }[]).map((r) => r.detail).join('\n')
    }
    expect(explain(true)).toMatch(/SCAN t0 USING INDEX companies_svc_score/)
    const sql = plan.keysQuery(ctx.db, { limit: 10, walkSortIndex: true }).compile().sql
    expect(sql).toContain('+"t0"."country"')
    expect(sql).not.toContain('+"t0"."svc_score"')
  })

  it('is never forced without a filter, on an unindexed first sort key, or on PostgreSQL', () => {
    expect(planQuery(checked('companies', undefined, [['svc_score', 'desc']]), sqliteDialect).canWalkSortIndex).toBe(false)
    expect(planQuery(checked('companies', c('country', 'eq', 'USA', p), [['description', 'asc']]), sqliteDialect).canWalkSortIndex).toBe(false)
    expect(planQuery(checked('companies', c('country', 'eq', 'USA', p), [['svc_score', 'desc']]), postgresDialect).canWalkSortIndex).toBe(false)
    const pg = planQuery(checked('companies', c('country', 'eq', 'USA', p), [['svc_score', 'desc']]), postgresDialect)
    expect(pg.keysQuery(postgresDialect.coldKysely(), { limit: 10, walkSortIndex: true }).compile().sql).not.toContain('+')
  })

  it('fetchKeys steers by the total it is given and returns the same keys either way', async () => {
    const q = checked('companies', CASES[0]!.filter, [['svc_score', 'desc']])
    const plan = planQuery(q, sqliteDialect)
    const all = await fetchKeys(ctx, plan, { limit: 100_000 })
    expect(await fetchKeys(ctx, plan, { limit: 5, matches: all.length })).toEqual(all.slice(0, 5))
    expect(await fetchKeys(ctx, plan, { limit: 5, matches: 1 })).toEqual(all.slice(0, 5))
    expect(await datasetRows(ctx, q.dataset)).toBe(600)
  })

  it('a match-all count is the dataset row count, the same number its count query gives', async () => {
    for (const dataset of ['companies', 'investors', 'fundings'] as const) {
      const plan = planQuery(checked(dataset), sqliteDialect)
      expect(plan.where).toBeUndefined()
      const counted = Number((await plan.countQuery(ctx.db).executeTakeFirstOrThrow()).count)
      expect(await countRows(ctx, plan)).toBe(counted)
      expect(await datasetRows(ctx, plan.dataset)).toBe(counted)
    }
    // A filter still runs its own count.
    const usa = planQuery(checked('companies', c('country', 'eq', 'USA', p)), sqliteDialect)
    const row = await usa.countQuery(ctx.db).executeTakeFirstOrThrow()
    expect(await countRows(ctx, usa)).toBe(Number(row.count))
    expect(Number(row.count)).toBeLessThan(600)
  })
})

describe('the steering rule', () => {
  const plan = { canWalkSortIndex: true }
  it('walks for broad filters and drives from indexes for selective ones', () => {
    // 1,816 of 100,000 (the design 8 filter): a walk reads ~550 rows for 10 hits.
    expect(prefersSortWalk(plan, { matches: 1816, rows: 100_000, limit: 10 })).toBe(true)
    expect(prefersSortWalk(plan, { matches: 4, rows: 100_000, limit: 10 })).toBe(false)
    // The boundary: walk reads = limit * rows / matches against WALK_FACTOR * matches.
    const edge = Math.sqrt((10 * 100_000) / WALK_FACTOR)
    expect(prefersSortWalk(plan, { matches: Math.ceil(edge) + 1, rows: 100_000, limit: 10 })).toBe(true)
    expect(prefersSortWalk(plan, { matches: Math.floor(edge) - 1, rows: 100_000, limit: 10 })).toBe(false)
  })
  it('never walks when it cannot, or when nothing matches', () => {
    expect(prefersSortWalk({ canWalkSortIndex: false }, { matches: 50_000, rows: 100_000, limit: 10 })).toBe(false)
    expect(prefersSortWalk(plan, { matches: 0, rows: 100_000, limit: 10 })).toBe(false)
  })
})

describe('the walk factor of a filter', () => {
  const factor = (dataset: DatasetName, filter: FilterNode) => planQuery(checked(dataset, filter, []), sqliteDialect).walkFactor
  it('is the base factor for column conditions, which composite indexes can serve', () => {
    expect(factor('companies', and([c('country', 'eq', 'USA', p), c('stage', 'in', ['a', 'b'], p)], p))).toBe(WALK_FACTOR)
    expect(factor('companies', foreign('investors', c('svc_slug', 'eq', 'x', p), 'any', p))).toBe(WALK_FACTOR)
  })
  it('is larger with a tags condition or an unpinned foreign anywhere in the filter', () => {
    expect(factor('companies', and([c('country', 'eq', 'USA', p), not(c('industries', 'has_any', ['Fintech'], p), p)], p))).toBe(UNINDEXABLE_WALK_FACTOR)
    expect(factor('investors', or([c('type', 'eq', 'vc', p), foreign('companies', c('stage', 'eq', 'a', p), 'any', p)], p))).toBe(UNINDEXABLE_WALK_FACTOR)
  })
  it('is smaller when one composite index holds every condition and the sort, so the index-driven plan never reads a table row', () => {
    const sorted = (dataset: DatasetName, filter: FilterNode, sort: [string, 'asc' | 'desc']) => planQuery(checked(dataset, filter, [sort]), sqliteDialect).walkFactor
    const design = and([c('country', 'eq', 'USA', p), c('stage', 'in', ['a', 'b'], p), c('employees', 'between', [50, 200], p)], p)
    expect(sorted('companies', design, ['svc_score', 'desc'])).toBe(COVERED_WALK_FACTOR)
    expect(sorted('companies', c('country', 'eq', 'USA', p), ['employees', 'asc'])).toBe(COVERED_WALK_FACTOR)
    expect(sorted('investors', and([c('type', 'in', ['vc'], p), c('portfolio_size', 'gte', 2, p)], p), ['portfolio_size', 'desc'])).toBe(COVERED_WALK_FACTOR)
    // Not covered: the sort column is outside the index, a condition is, or the filter is not an AND.
    expect(sorted('companies', design, ['total_funding', 'desc'])).toBe(WALK_FACTOR)
    expect(sorted('companies', and([c('country', 'eq', 'USA', p), c('has_mobile', 'eq', true, p)], p), ['svc_score', 'desc'])).toBe(WALK_FACTOR)
    expect(sorted('companies', or([c('country', 'eq', 'USA', p), c('stage', 'eq', 'a', p)], p), ['svc_score', 'desc'])).toBe(WALK_FACTOR)
    expect(sorted('companies', not(c('country', 'eq', 'USA', p), p), ['svc_score', 'desc'])).toBe(WALK_FACTOR)
    // 17,939 hits of 1,000,000 (the bench suite's companies-design): the walk would read 2,787 rows, 16% of the hits.
    const s = { matches: 17_939, rows: 1_000_000, limit: 50 }
    expect(prefersSortWalk({ canWalkSortIndex: true, walkFactor: COVERED_WALK_FACTOR }, s)).toBe(false)
    expect(prefersSortWalk({ canWalkSortIndex: true, walkFactor: WALK_FACTOR }, s)).toBe(true)
  })
  it('moves the steering boundary', () => {
    const s = { matches: 1500, rows: 1_000_000, limit: 10 } // 6,667 walk reads for 1,500 hits: 4.4 per hit
    expect(prefersSortWalk({ canWalkSortIndex: true, walkFactor: WALK_FACTOR }, s)).toBe(false)
    expect(prefersSortWalk({ canWalkSortIndex: true, walkFactor: UNINDEXABLE_WALK_FACTOR }, s)).toBe(true)
  })
})

describe('the walk probe', () => {
  // The matches among the first `reads` rows in sort order, up to `hits`: counted here from the unfiltered order and the filter's ids.
  it('counts the matches among the first rows of the sort order, up to a number of hits', async () => {
    let checkedCases = 0
    for (const k of CASES) {
      const q = checked(k.dataset, k.filter, k.sort.map(([f, d]) => [f, d] as [string, 'asc' | 'desc']))
      const plan = planQuery(q, sqliteDialect)
      if (!plan.walkProbeQuery) continue
      const everything = planQuery(checked(k.dataset, { kind: 'MatchAll', path: '' } as FilterNode, k.sort.map(([f, d]) => [f, d] as [string, 'asc' | 'desc'])), sqliteDialect)
      const pk = everything.keys[everything.keys.length - 1]!.alias
      const order = (await everything.keysQuery(ctx.db, { limit: 100_000 }).execute()).map((r) => Number(r[pk]))
      const matching = new Set((await plan.keysQuery(ctx.db, { limit: 100_000 }).execute()).map((r) => Number(r[pk])))
      expect(matching.size).toBeGreaterThan(0)
      for (const reads of [1, 17, 100, 450]) {
        for (const hits of [1, 5, 50]) {
          const expected = Math.min(hits, order.slice(0, reads).filter((id) => matching.has(id)).length)
          const row = await plan.walkProbeQuery(ctx.db, reads, hits).executeTakeFirstOrThrow()
          expect(Number(row.count), `${k.name}: ${reads} reads, ${hits} hits`).toBe(expected)
          checkedCases++
        }
      }
    }
    expect(checkedCases).toBeGreaterThan(50)
  })
  it('reads the keys of those matches, in sort order: the first keys of the keys query', async () => {
    let checkedCases = 0
    for (const k of CASES) {
      const q = checked(k.dataset, k.filter, k.sort.map(([f, d]) => [f, d] as [string, 'asc' | 'desc']))
      const plan = planQuery(q, sqliteDialect)
      if (!plan.walkKeysQuery) continue
      const everything = planQuery(checked(k.dataset, { kind: 'MatchAll', path: '' } as FilterNode, k.sort.map(([f, d]) => [f, d] as [string, 'asc' | 'desc'])), sqliteDialect)
      const pk = everything.keys[everything.keys.length - 1]!.alias
      const order = (await everything.keysQuery(ctx.db, { limit: 100_000 }).execute()).map((r) => Number(r[pk]))
      const keysOf = (rows: Record<string, unknown>[]) => rows.map((r) => plan.keys.map((key) => r[key.alias]))
      const pageKeys = keysOf(await plan.keysQuery(ctx.db, { limit: 100_000 }).execute())
      const matching = new Set(pageKeys.map((r) => Number(r[r.length - 1])))
      for (const reads of [1, 17, 100, 450]) {
        for (const hits of [1, 5, 50]) {
          const found = Math.min(hits, order.slice(0, reads).filter((id) => matching.has(id)).length)
          const walked = keysOf(await plan.walkKeysQuery(ctx.db, reads, hits).execute())
          expect(walked, `${k.name}: ${reads} reads, ${hits} hits`).toEqual(pageKeys.slice(0, found))
          checkedCases++
        }
      }
    }
    expect(checkedCases).toBeGreaterThan(50)
  })
  it('exists only where a walk names its index, and with a filter', () => {
    const q = checked('companies', c('country', 'eq', 'USA', p), [['svc_score', 'desc']])
    expect(planQuery(q, sqliteDialect).walkKeysQuery).toBeDefined()
    expect(planQuery(q, postgresDialect).walkKeysQuery).toBeUndefined()
    expect(planQuery(q, sqliteDialect).walkProbeQuery).toBeDefined()
    expect(planQuery(q, postgresDialect).walkProbeQuery).toBeUndefined()
    expect(planQuery(checked('companies', { kind: 'MatchAll', path: '' } as FilterNode, [['svc_score', 'desc']]), sqliteDialect).walkProbeQuery).toBeUndefined()
  })
})
