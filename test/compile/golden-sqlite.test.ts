/**
 * Golden SQL for SQLite: `{sql, parameters}` of every operator, and/or/not, each foreign mode,
 * sort, keyset seek and count, pinned in __snapshots__/golden-sqlite.test.ts.snap (review a diff
 * there as a change of the SQL we run). The key forms are also spelled out below.
 */
import { describe, expect, it } from 'vitest'
import { condition as c, foreign, not } from '../../src/ast/factory.js'
import { FILTER_CASES, SORT_CASES, type GoldenCase } from './golden-cases.js'
import { checked, countSql, keysSql, rangesSql, whereSql } from './helpers.js'

function render(g: GoldenCase) {
  const q = checked(g.dataset, g.filter, g.sort ?? [])
  // After a boundary, the statements a page runs: one per seek range.
  return g.count ? countSql('sqlite', q) : g.after ? rangesSql('sqlite', q, g.after) : keysSql('sqlite', q)
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
  it('marks the key of a tags probe inside foreign so the list filters instead of driving', () => {
    const { sql } = whereSql('sqlite', 'investors', foreign('companies', c('industries', 'has_any', ['Fintech'], '/f'), 'any', '/f'))
    expect(sql).toContain('and +"l1"."company_id" in (select "company_industries"."company_id"')
    // At the top level the list may drive the plan.
    expect(whereSql('sqlite', 'companies', c('industries', 'has_any', ['Fintech'], '/f')).sql).toMatch(/^"t0"\."id" in/)
  })
})
