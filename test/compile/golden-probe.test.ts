/**
 * Golden SQL of the bounded probe a page without its total steers by (`QueryPlan.probeQuery`,
 * execute/counts.ts `probedMatches`), per dialect, and its answer on the fixture: the matches up to
 * the bound, exact below it.
 */
import { describe, expect, it } from 'vitest'
import { condition as c } from '../../src/ast/factory.js'
import { DIALECTS, planQuery } from '../../src/compile/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { checked } from './helpers.js'

const usa = checked('companies', c('country', 'eq', 'USA', '/f'))

describe('golden probe SQL', () => {
  it('SQLite and PostgreSQL: count(*) over the filter, limited in a subquery', () => {
    for (const [dialect, p1, p2] of [['sqlite', '?', '?'], ['postgres', '$1', '$2']] as const) {
      const { sql, parameters } = planQuery(usa, DIALECTS[dialect]).probeQuery(DIALECTS[dialect].coldKysely(), 1119).compile()
      expect(sql).toBe(`select count(*) as "count" from (select 1 as "one" from "companies" as "t0" where "t0"."country" = ${p1} limit ${p2}) as "probe"`)
      expect(parameters).toEqual(['USA', 1119])
    }
  })

  it('answers the matches up to the bound', async () => {
    const vdb = await createFixtureDatabase()
    try {
      const total = (vdb.sqlite.prepare("select count(*) as n from companies where country = 'USA'").get() as { n: number }).n
      expect(total).toBeGreaterThan(10)
      const plan = planQuery(usa, DIALECTS.sqlite)
      for (const bound of [1, 10, total, total + 5]) {
        const { sql, parameters } = plan.probeQuery(vdb.db, bound).compile()
        expect(Number((vdb.sqlite.prepare(sql).get(...parameters) as { count: number }).count)).toBe(Math.min(bound, total))
      }
    } finally {
      await vdb.close()
    }
  })
})
