/**
 * A walk of the sort index stays a walk when its LIMIT is written into the SQL (execute/statements.ts,
 * `withLiteralLimit`). With the statistics of the 1,000,000-company bench database, SQLite given
 * `limit 10` as a number scans the covering composite index (country, stage, employees, svc_score,
 * id) whole and sorts it, even with the filter's columns marked `+`: `/companies?country=USA` took
 * 79-87 ms a page there instead of 0.02 ms. The walk's FROM therefore names the sort index
 * (`walkFrom`, INDEXED BY). This test loads those statistics into the fixture, shows that the
 * unpinned text plans the scan, and that the engine's text walks; and that while a bulk load has
 * dropped the indexes (store/indexes.ts), a walk still reads its keys (execute/run.ts, `fetchKeys`).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { and, condition as c } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import { planQuery, prefersSortWalk, sqliteDialect, type SqlDialect } from '../../src/compile/index.js'
import { countRows, fetchKeys, type ExecContext } from '../../src/execute/index.js'
import { LiteralLimits, withLiteralLimit } from '../../src/execute/statements.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { deferIndexes, restoreDeferredIndexes } from '../../src/store/indexes.js'
import { checked } from '../compile/helpers.js'

const vdb = await createFixtureDatabase({ companies: 600 })
afterAll(() => vdb.close())

// sqlite_stat1 of the companies table in .ventureql/bench/companies-1000000.db (its ANALYZE).
const BENCH_STATS: readonly [string, string][] = [
  ['companies_by_country_stage_employees_svc_score', '1000000 2001 1001 5 1 1'],
  ['companies_country', '1000000 2001 1'],
  ['companies_stage', '1000000 2001 1'],
  ['companies_employees', '1000000 2001 1'],
  ['companies_svc_score', '1000000 401 1'],
  ['companies_total_funding', '1000000 2001 1'],
  ['companies_last_funding_date', '1000000 7 1'],
  ['companies_momentum_score', '1000000 15 1'],
  ['companies_name', '1000000 29 1'],
  ['companies_website', '1000000 2 1'],
  ['companies_location', '1000000 2001 1'],
  ['companies_added_date', '1000000 3 1'],
]
vdb.sqlite.exec('analyze')
vdb.sqlite.prepare(`delete from sqlite_stat1 where tbl = 'companies'`).run()
const insert = vdb.sqlite.prepare(`insert into sqlite_stat1 (tbl, idx, stat) values ('companies', ?, ?)`)
for (const [index, stat] of BENCH_STATS) insert.run(index, stat)
// Reloads the statistics without analysing again.
vdb.sqlite.exec('analyze sqlite_schema')

const p = '/filter'
/** The plan SQLite makes of a walking keys query, as the engine runs it: the LIMIT written as a number. */
function walkPlan(dialect: SqlDialect, filter: FilterNode = c('country', 'eq', 'USA', p)): string {
  const plan = planQuery(checked('companies', filter, [['svc_score', 'desc']]), dialect)
  const { sql, parameters } = withLiteralLimit(new LiteralLimits(), plan.keysQuery(vdb.db, { limit: 10, walkSortIndex: true }).compile())
  expect(sql).toMatch(/ limit 10$/)
  return (vdb.sqlite.prepare(`explain query plan ${sql}`).all(...(parameters as unknown[])) as { detail: string }[]).map((r) => r.detail).join('\n')
}

describe('a walk with a literal LIMIT', () => {
  it('without naming its index, is planned as a scan of the covering composite index and a sort (the statistics reproduce the bench database)', () => {
    const { walkFrom: _, ...unpinned } = sqliteDialect
    const plan = walkPlan(Object.freeze(unpinned) as SqlDialect)
    expect(plan).toMatch(/companies_by_country_stage_employees_svc_score/)
    expect(plan).toMatch(/TEMP B-TREE FOR ORDER BY/)
  })

  it('walks the sort index: the engine names it', () => {
    for (const filter of [c('country', 'eq', 'USA', p), and([c('stage', 'in', ['a', 'b'], p), c('country', 'eq', 'USA', p)], p)]) {
      const plan = walkPlan(sqliteDialect, filter)
      expect(plan).toMatch(/SCAN t0 USING INDEX companies_svc_score/)
      expect(plan).not.toMatch(/FOR ORDER BY/)
    }
  })

  it('returns the rows of the unpinned statement, in order', () => {
    const plan = planQuery(checked('companies', c('country', 'eq', 'USA', p), [['svc_score', 'desc']]), sqliteDialect)
    const run = (walk: boolean) => {
      const { sql, parameters } = withLiteralLimit(new LiteralLimits(), plan.keysQuery(vdb.db, { limit: 25, walkSortIndex: walk }).compile())
      return vdb.sqlite.prepare(sql).raw().all(...(parameters as unknown[]))
    }
    expect(run(true).length).toBe(25)
    expect(run(true)).toEqual(run(false))
  })
})

describe('a walk while a bulk load has dropped the indexes', () => {
  it('reads the same keys without the named index (the planner\'s own plan), and walks it again once the indexes are back', async () => {
    const db = await createFixtureDatabase({ companies: 600 })
    try {
      const ctx: ExecContext = { db: db.db, dialect: sqliteDialect, dataVersion: 0 }
      const plan = planQuery(checked('companies', c('country', 'eq', 'USA', p), [['svc_score', 'desc']]), sqliteDialect)
      const matches = await countRows(ctx, plan)
      expect(prefersSortWalk(plan, { matches, rows: 600, limit: 10 })).toBe(true)
      const walked = await fetchKeys(ctx, plan, { limit: 10, matches })
      const after = walked[4]!.boundary
      const next = await fetchKeys(ctx, plan, { limit: 10, matches, after })
      expect(walked).toHaveLength(10)

      expect(deferIndexes(db.sqlite)).toBeGreaterThan(0)
      expect(() => db.sqlite.prepare(withLiteralLimit(new LiteralLimits(), plan.keysQuery(db.db, { limit: 10, walkSortIndex: true }).compile()).sql)).toThrow(/no such index/)
      expect(await fetchKeys(ctx, plan, { limit: 10, matches })).toEqual(walked)
      expect(await fetchKeys(ctx, plan, { limit: 10, matches, after })).toEqual(next)

      expect(restoreDeferredIndexes(db.sqlite, { force: true })).toBeGreaterThan(0)
      expect(await fetchKeys(ctx, plan, { limit: 10, matches })).toEqual(walked)
    } finally {
      await db.close()
    }
  })
})
