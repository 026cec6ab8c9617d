/**
 * Golden SQL for SQLite: `{sql, parameters}` of every operator, and/or/not, each foreign mode,
 * sort, keyset seek and count, pinned in __snapshots__/golden-sqlite.test.ts.snap (review a diff
 * there as a change of the SQL we run). The key forms are also spelled out below.
 */
import { describe, expect, it } from 'vitest'
import { and, condition as c, foreign, not, or } from '../../src/ast/factory.js'
import { FILTER_CASES, SORT_CASES, type GoldenCase } from './golden-cases.js'
import { datasets } from '../../src/catalog/index.js'
import { compileFilter, DIALECTS } from '../../src/compile/index.js'
import { checked, countSql, keysSql, rangesSql, whereSql } from './helpers.js'

function render(g: GoldenCase) {
  const q = checked(g.dataset, g.filter, g.sort ?? [])
  // After a boundary, the statements a page runs: one per seek range.
  return g.count ? countSql('sqlite', q) : g.after ? rangesSql('sqlite', q, g.after) : keysSql('sqlite', q, undefined, g.walk)
}

describe('golden SQL, SQLite', () => {
  for (const g of [...FILTER_CASES, ...SORT_CASES]) it(g.name, () => expect(render(g)).toMatchSnapshot())

  it('negates a nullable comparison with IS NOT TRUE', () => {
    expect(whereSql('sqlite', 'investors', not(c('type', 'eq', 'vc', '/f'), '/f'))).toEqual({
      sql: '("t0"."type" = ?) is not true',
      parameters: ['vc'],
    })
  })

  it('binds a list as one JSON parameter', () => {
    expect(whereSql('sqlite', 'companies', c('stage', 'in', ['a', 'b', 'c'], '/f'))).toEqual({
      sql: '"t0"."stage" in (select value from json_each(?))',
      parameters: ['["a","b","c"]'],
    })
  })

  it('foreign all = related exists and no related record fails the filter', () => {
    expect(whereSql('sqlite', 'investors', foreign('companies', c('stage', 'eq', 'a', '/f'), 'all', '/f'))).toEqual({
      sql:
        '(exists (select 1 as "one" from "investments" as "l1" inner join "companies" as "t1" on "t1"."id" = "l1"."company_id" where "l1"."investor_id" = "t0"."id")' +
        ' and not exists (select 1 as "one" from "investments" as "l1" inner join "companies" as "t1" on "t1"."id" = "l1"."company_id" where "l1"."investor_id" = "t0"."id" and ("t1"."stage" = ?) is not true))',
      parameters: ['a'],
    })
  })

  it('foreign all as a set = in the keys with a related record and not in the keys with one failing the filter', () => {
    // A wide inner filter makes even a top-level foreign a set (check/foreign-plan.ts, mayProbe).
    const wide = or(['a', 'b', 'c', 'd', 'e'].map((s) => c('stage', 'eq', s, '/f')), '/f')
    const related = 'select distinct "l1"."investor_id" as "k" from "investments" as "l1" inner join "companies" as "t1" on "t1"."id" = "l1"."company_id"'
    expect(whereSql('sqlite', 'investors', foreign('companies', wide, 'all', '/f'))).toEqual({
      // Each set is a common table expression, computed once.
      ctes:
        `"r1" as materialized (${related}), ` +
        `"s1" as materialized (${related} where (("t1"."stage" = ? or "t1"."stage" = ? or "t1"."stage" = ? or "t1"."stage" = ? or "t1"."stage" = ?)) is not true)`,
      sql: '("t0"."id" in (select "r1"."k" as "k" from "r1") and not ("t0"."id" in (select "s1"."k" as "k" from "s1")))',
      parameters: ['a', 'b', 'c', 'd', 'e'],
    })
  })

  it('a chain of foreign is one probe at the top over a set per level, each computed once: its cost adds up, it does not multiply', () => {
    const chain = foreign('investors', foreign('companies', foreign('investors', c('name', 'eq', 'x', '/f'), 'any', '/f'), 'any', '/f'), 'any', '/f')
    expect(whereSql('sqlite', 'companies', chain)).toEqual({
      ctes:
        '"s3" as materialized (select distinct "l3"."company_id" as "k" from "investments" as "l3" inner join "investors" as "t3" on "t3"."id" = "l3"."investor_id" where "t3"."name" = ?), ' +
        '"s2" as materialized (select distinct "l2"."investor_id" as "k" from "investments" as "l2" where "l2"."company_id" in (select "s3"."k" as "k" from "s3"))',
      // The guard: when the set below the probe is empty, no company can match, and the scan is skipped.
      sql:
        '(exists (select 1 from "s2") and exists (select 1 as "one" from "investments" as "l1" where "l1"."company_id" = "t0"."id"' +
        ' and +"l1"."investor_id" in (select "s2"."k" as "k" from "s2")))',
      parameters: ['x'],
    })
  })

  it('compileFilter keeps the sets inline, so its expression stands on its own', () => {
    const chain = foreign('investors', foreign('companies', c('name', 'eq', 'x', '/f'), 'any', '/f'), 'any', '/f')
    const where = compileFilter(chain, datasets.companies, DIALECTS.sqlite)
    const { sql } = DIALECTS.sqlite.coldKysely().selectFrom('companies as t0').select('t0.id').where(where!).compile()
    expect(sql).toBe(
      'select "t0"."id" from "companies" as "t0" where exists (select 1 as "one" from "investments" as "l1" where "l1"."company_id" = "t0"."id"' +
      ' and +"l1"."investor_id" in (select "l2"."investor_id" as "k" from "investments" as "l2" inner join "companies" as "t2" on "t2"."id" = "l2"."company_id" where "t2"."name" = ?))',
    )
  })

  it('escapes LIKE wildcards in the parameter, never in the SQL', () => {
    expect(whereSql('sqlite', 'companies', c('name', 'contains', '5%_OFF\\', '/f'))).toEqual({
      sql: `"t0"."name" like ? escape '\\'`,
      parameters: ['%5\\%\\_off\\\\%'],
    })
  })

  it('seeks after a boundary with NULLs last and mixed directions', () => {
    const q = checked('investors', undefined, [['type', 'asc'], ['portfolio_size', 'desc']])
    // SQLite puts NULLs last in DESC by itself, so only the ASC key says NULLS LAST.
    const order = ' order by "t0"."type" asc nulls last, "t0"."portfolio_size" desc, "t0"."id" asc'
    const select = 'select "t0"."type" as "k0", "t0"."portfolio_size" as "k1", "t0"."id" as "k2" from "investors" as "t0"'
    // One predicate (`after`): correct, but `type >= ? or type is null` is no range of the index.
    expect(keysSql('sqlite', q, ['vc', 12, 5])).toEqual({
      sql:
        select +
        ' where (("t0"."type" >= ? or "t0"."type" is null) and (("t0"."type" > ? or "t0"."type" is null) or ("t0"."type" = ? and (("t0"."portfolio_size" < ? or "t0"."portfolio_size" is null) or ("t0"."portfolio_size" = ? and "t0"."id" > ?)))))' +
        order + ' limit ?',
      parameters: ['vc', 'vc', 'vc', 12, 12, 5, 10],
    })
    // What a page runs: the non-NULL rows after the boundary (`type >= ?`, a range), then the NULL tail.
    expect(rangesSql('sqlite', q, ['vc', 12, 5])).toEqual([
      {
        sql: select + ' where ("t0"."type" >= ? and ("t0"."type" > ? or ("t0"."type" = ? and (("t0"."portfolio_size" < ? or "t0"."portfolio_size" is null) or ("t0"."portfolio_size" = ? and "t0"."id" > ?)))))' + order + ' limit ?',
        parameters: ['vc', 'vc', 'vc', 12, 12, 5, 10],
      },
      { sql: select + ' where "t0"."type" is null' + order + ' limit ?', parameters: [10] },
    ])
  })

  it('seeks after a descending first key: the rest of the tie group, then the rows below it, then the NULL tail', () => {
    const q = checked('companies', undefined, [['svc_score', 'desc']])
    const select = 'select "t0"."svc_score" as "k0", "t0"."id" as "k1" from "companies" as "t0"'
    // SQLite puts NULLs last in DESC by itself: no NULLS LAST, so the (svc_score, id) index serves it.
    const order = ' order by "t0"."svc_score" desc, "t0"."id" asc limit ?'
    expect(rangesSql('sqlite', q, [58, 411776])).toEqual([
      // An ascending range of (svc_score, id): the tie group is read in order, not sorted.
      { sql: select + ' where ("t0"."svc_score" = ? and "t0"."id" > ?)' + order, parameters: [58, 411776, 10] },
      { sql: select + ' where "t0"."svc_score" < ?' + order, parameters: [58, 10] },
      { sql: select + ' where "t0"."svc_score" is null' + order, parameters: [10] },
    ])
    // Ascending, the index is read forwards in order already: one range for the non-NULL rows.
    expect(rangesSql('sqlite', checked('companies', undefined, [['svc_score', 'asc']]), [58, 411776])).toHaveLength(2)
    // The primary key alone, descending: one range (no ties).
    expect(rangesSql('sqlite', checked('companies', undefined, [['id', 'desc']]), [5])).toEqual([
      { sql: 'select "t0"."id" as "k0" from "companies" as "t0" where "t0"."id" < ? order by "t0"."id" desc limit ?', parameters: [5, 10] },
    ])
  })
})

describe('plan steering, SQLite', () => {
  it('marks the key of a tags probe inside a correlated foreign so the list filters instead of driving', () => {
    const { sql } = whereSql('sqlite', 'investors', foreign('companies', c('industries', 'has_any', ['Fintech'], '/f'), 'any', '/f'))
    expect(sql).toContain('and +"l1"."company_id" in (select "company_industries"."company_id"')
    // At the top level, and inside a set (computed once), the list may drive the plan.
    expect(whereSql('sqlite', 'companies', c('industries', 'has_any', ['Fintech'], '/f')).sql).toMatch(/^"t0"\."id" in/)
    const nested = foreign('companies', foreign('investors', c('industries', 'has_any', ['Fintech'], '/f'), 'any', '/f'), 'any', '/f')
    expect(whereSql('sqlite', 'investors', nested).ctes).toContain('where "l2"."investor_id" in (select "investor_industries"."investor_id"')
  })

  it('marks the key of a set probed inside a correlated foreign, not of one inside a set', () => {
    const chain = foreign('investors', foreign('companies', foreign('investors', c('type', 'eq', 'vc', '/f'), 'any', '/f'), 'any', '/f'), 'any', '/f')
    const { sql, ctes } = whereSql('sqlite', 'companies', chain)
    expect(sql).toContain('and +"l1"."investor_id" in (select "s2"."k" as "k" from "s2")')
    expect(ctes).toContain('where "l2"."company_id" in (select "s3"."k" as "k" from "s3")')
  })
})
