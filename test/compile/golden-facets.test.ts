/**
 * Golden SQL of facet counts (src/compile/facets.ts), per dialect: one GROUP BY per field over the
 * query's WHERE, a left join to the link table for tags (a record without tags is the NULL group),
 * the year of a date as `substr(col, 1, 4)`, and the sets of `foreign` as the count's CTEs.
 */
import { describe, expect, it } from 'vitest'
import { condition as c, foreign, or } from '../../src/ast/factory.js'
import { datasets, type DatasetName } from '../../src/catalog/index.js'
import { DIALECTS, facetQuery } from '../../src/compile/index.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { FieldDef } from '../../src/catalog/define.js'
import { checked } from './helpers.js'

function facetSql(dialect: 'sqlite' | 'postgres', dataset: DatasetName, field: string, filter?: FilterNode) {
  const q = checked(dataset, filter)
  const def = (datasets[dataset].fields as Record<string, FieldDef>)[field]!
  const { sql, parameters } = facetQuery(DIALECTS[dialect].coldKysely(), DIALECTS[dialect], q, def).compile()
  return { sql, parameters: [...parameters] }
}

const employees = c('employees', 'gte', 5, '/f')

describe('golden facet SQL, SQLite', () => {
  it('an enum: group by the column over the filter', () => {
    expect(facetSql('sqlite', 'companies', 'stage', employees)).toEqual({
      sql: 'select "t0"."stage" as "value", count(*) as "count" from "companies" as "t0" where "t0"."employees" >= ? group by "t0"."stage"',
      parameters: [5],
    })
  })
  it('tags: left join of the link table, grouped by its value', () => {
    expect(facetSql('sqlite', 'companies', 'industries', employees)).toEqual({
      sql: 'select "ft"."value" as "value", count(*) as "count" from "companies" as "t0" left join "company_industries" as "ft" on "ft"."company_id" = "t0"."id" where "t0"."employees" >= ? group by "ft"."value"',
      parameters: [5],
    })
  })
  it('a date: grouped by its year', () => {
    expect(facetSql('sqlite', 'companies', 'last_funding_date', employees)).toEqual({
      sql: 'select substr("t0"."last_funding_date", 1, 4) as "value", count(*) as "count" from "companies" as "t0" where "t0"."employees" >= ? group by substr("t0"."last_funding_date", 1, 4)',
      parameters: [5],
    })
  })
  it('match-all: no WHERE', () => {
    expect(facetSql('sqlite', 'fundings', 'country')).toEqual({
      sql: 'select "t0"."country" as "value", count(*) as "count" from "fundings" as "t0" group by "t0"."country"',
      parameters: [],
    })
  })
  it('a foreign planned as a set: its CTE leads the statement', () => {
    const wide = or(['a', 'b', 'c', 'd', 'e'].map((s) => c('stage', 'eq', s, '/f')), '/f')
    const { sql } = facetSql('sqlite', 'investors', 'type', foreign('companies', wide, 'any', '/f'))
    expect(sql.startsWith('with "s1" as materialized (')).toBe(true)
    expect(sql.endsWith(' group by "t0"."type"')).toBe(true)
  })
})

describe('golden facet SQL, PostgreSQL', () => {
  it('an enum: group by the column over the filter', () => {
    expect(facetSql('postgres', 'companies', 'stage', employees)).toEqual({
      sql: 'select "t0"."stage" as "value", count(*) as "count" from "companies" as "t0" where "t0"."employees" >= $1 group by "t0"."stage"',
      parameters: [5],
    })
  })
  it('tags: left join of the link table, grouped by its value', () => {
    expect(facetSql('postgres', 'companies', 'industries', employees)).toEqual({
      sql: 'select "ft"."value" as "value", count(*) as "count" from "companies" as "t0" left join "company_industries" as "ft" on "ft"."company_id" = "t0"."id" where "t0"."employees" >= $1 group by "ft"."value"',
      parameters: [5],
    })
  })
  it('a date: grouped by its year', () => {
    expect(facetSql('postgres', 'companies', 'last_funding_date', employees)).toEqual({
      sql: 'select substr("t0"."last_funding_date", 1, 4) as "value", count(*) as "count" from "companies" as "t0" where "t0"."employees" >= $1 group by substr("t0"."last_funding_date", 1, 4)',
      parameters: [5],
    })
  })
  it('match-all: no WHERE', () => {
    expect(facetSql('postgres', 'fundings', 'country')).toEqual({
      sql: 'select "t0"."country" as "value", count(*) as "count" from "fundings" as "t0" group by "t0"."country"',
      parameters: [],
    })
  })
  it('an unfacetable field is refused at compile time', () => {
    expect(() => facetSql('postgres', 'companies', 'name')).toThrow(/cannot be faceted/)
  })
})
