/**
 * Golden SQL for PostgreSQL: `{sql, parameters}` of every operator, and/or/not, each foreign mode,
 * sort, keyset seek and count, pinned in __snapshots__/golden-postgres.test.ts.snap (review a diff
 * there as a change of the SQL we run). The key forms are also spelled out below.
 */
import { describe, expect, it } from 'vitest'
import { condition as c, foreign, not, or } from '../../src/ast/factory.js'
import { FILTER_CASES, SORT_CASES, type GoldenCase } from './golden-cases.js'
import { checked, countSql, keysSql, rangesSql, whereSql } from './helpers.js'

function render(g: GoldenCase) {
  const q = checked(g.dataset, g.filter, g.sort ?? [])
  // After a boundary, the statements a page runs: one per seek range.
  return g.count ? countSql('postgres', q) : g.after ? rangesSql('postgres', q, g.after) : keysSql('postgres', q, undefined, g.walk)
}

describe('golden SQL, PostgreSQL', () => {
  for (const g of [...FILTER_CASES, ...SORT_CASES]) it(g.name, () => expect(render(g)).toMatchSnapshot())

  it('negates a nullable comparison with IS NOT TRUE', () => {
    expect(whereSql('postgres', 'investors', not(c('type', 'eq', 'vc', '/f'), '/f'))).toEqual({
      sql: '("t0"."type" = $1) is not true',
      parameters: ['vc'],
    })
  })

  it('casts list elements to the column type', () => {
    expect(whereSql('postgres', 'companies', c('employees', 'in', [1, 2], '/f'))).toEqual({
      sql: '"t0"."employees" = any(array(select jsonb_array_elements_text($1::jsonb)::bigint))',
      parameters: ['[1,2]'],
    })
  })

  it('binds a list as one JSON parameter', () => {
    expect(whereSql('postgres', 'companies', c('stage', 'in', ['a', 'b', 'c'], '/f'))).toEqual({
      sql: '"t0"."stage" = any(array(select jsonb_array_elements_text($1::jsonb)))',
      parameters: ['["a","b","c"]'],
    })
  })

  it('foreign all = related exists and no related record fails the filter', () => {
    expect(whereSql('postgres', 'investors', foreign('companies', c('stage', 'eq', 'a', '/f'), 'all', '/f'))).toEqual({
      sql:
        '(exists (select 1 as "one" from "investments" as "l1" inner join "companies" as "t1" on "t1"."id" = "l1"."company_id" where "l1"."investor_id" = "t0"."id")' +
        ' and not exists (select 1 as "one" from "investments" as "l1" inner join "companies" as "t1" on "t1"."id" = "l1"."company_id" where "l1"."investor_id" = "t0"."id" and ("t1"."stage" = $1) is not true))',
      parameters: ['a'],
    })
  })

  it('a set is negated as NOT EXISTS over its keys (an anti-join), never NOT IN', () => {
    // NOT IN cannot become an anti-join, and a set PostgreSQL expects to exceed work_mem is then
    // rescanned per outer row (compile/dialects/postgres.ts, notInKeys).
    // A wide inner filter makes even a top-level foreign a set (check/foreign-plan.ts, mayProbe).
    const wide = or(['a', 'b', 'c', 'd', 'e'].map((s) => c('stage', 'eq', s, '/f')), '/f')
    const none = foreign('companies', wide, 'none', '/f')
    expect(whereSql('postgres', 'investors', none)).toEqual({
      ctes:
        '"s1" as materialized (select distinct "l1"."investor_id" as "k" from "investments" as "l1" inner join "companies" as "t1" on "t1"."id" = "l1"."company_id"' +
        ' where ("t1"."stage" = $1 or "t1"."stage" = $2 or "t1"."stage" = $3 or "t1"."stage" = $4 or "t1"."stage" = $5))',
      sql: 'not exists (select 1 from (select "s1"."k" as "k" from "s1") as "n1" where "n1"."k" = "t0"."id")',
      parameters: ['a', 'b', 'c', 'd', 'e'],
    })
    // Negating it again gives the semi-join back, not NOT (NOT EXISTS ...).
    expect(whereSql('postgres', 'investors', not(none, '/f')).sql).toBe('"t0"."id" in (select "s1"."k" as "k" from "s1")')
    // A nullable key (a funding without a company) keeps the complement out of a second negation.
    const fundings = not(not(foreign('companies', or(['a', 'b', 'c', 'd', 'e'].map((s) => c('stage', 'eq', s, '/f')), '/f'), 'any', '/f'), '/f'), '/f')
    expect(whereSql('postgres', 'fundings', fundings).sql).toMatch(/^not \(not exists \(select 1 from/)
  })

  it('escapes LIKE wildcards in the parameter, never in the SQL', () => {
    expect(whereSql('postgres', 'companies', c('name', 'contains', '5%_OFF\\', '/f'))).toEqual({
      sql: `translate("t0"."name", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') like $1 escape '\\'`,
      parameters: ['%5\\%\\_off\\\\%'],
    })
  })

  it('seeks after a boundary with NULLs last and mixed directions, as index ranges in sort order', () => {
    const q = checked('investors', undefined, [['type', 'asc'], ['portfolio_size', 'desc']])
    const select = (where: string, limit: string) =>
      'select "t0"."type" as "k0", "t0"."portfolio_size" as "k1", "t0"."id" as "k2" from "investors" as "t0"' +
      ` where ${where}` +
      // PostgreSQL puts NULLs last in ASC by itself, so only the DESC key says NULLS LAST.
      ` order by "t0"."type" asc, "t0"."portfolio_size" desc nulls last, "t0"."id" asc limit ${limit}`
    // The first key is nullable: the non-NULL rows after the boundary (`type >= $1`, an index
    // condition), then the NULL tail, each its own statement, run in that order.
    expect(rangesSql('postgres', q, ['vc', 12, 5])).toEqual([
      {
        sql: select('("t0"."type" >= $1 and ("t0"."type" > $2 or ("t0"."type" = $3 and (("t0"."portfolio_size" < $4 or "t0"."portfolio_size" is null) or ("t0"."portfolio_size" = $5 and "t0"."id" > $6)))))', '$7'),
        parameters: ['vc', 'vc', 'vc', 12, 12, 5, 10],
      },
      { sql: select('"t0"."type" is null', '$1'), parameters: [10] },
    ])
    // A NULL first value is already an index range: one statement.
    expect(rangesSql('postgres', q, [null, 12, 5])).toHaveLength(1)
  })
})
