/**
 * @module Facet counts: for one field, the number of records of the filtered set per value, in
 * one `GROUP BY` over the same WHERE (and sets of `foreign`) as the query's count.
 *
 *   value:  select t0.col as value, count(*) as count from <table> t0 where <filter> group by t0.col
 *   year:   the same over substr(t0.col, 1, 4) (dates and datetimes are ISO text on both backends)
 *   tags:   select tl.value, count(*) from <table> t0 left join <link> tl on tl.owner = t0.pk
 *           where <filter> group by tl.value
 *
 * The NULL group is the records without a value: a NULL column, or no row in the link table (the
 * left join keeps them, once each). A link table holds each (owner, value) once, so a record is
 * counted once per value it holds. Ordering and the top N are applied by the caller over every
 * group (`execute/facets.ts`), so both backends rank ties the same way.
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { FieldDef } from '../catalog/define.js'
import { primaryKeyColumn } from '../catalog/index.js'
import type { CheckedQuery } from '../check/checked.js'
import type { SqlDialect } from './dialect.js'
import { withSets } from './plan.js'
import { compileWhere } from './predicates.js'
import { ROOT_ALIAS } from './scope.js'

/** The alias of the link table a tags facet joins. */
const TAGS_ALIAS = 'ft'

export type FacetRow = { value: string | null; count: number | string | bigint }

/** The statement counting the filtered records of `checked` per value of `field` (which must have a `facet` kind). */
export function facetQuery(db: Kysely<any>, dialect: SqlDialect, checked: Pick<CheckedQuery, 'dataset' | 'filter'>, field: FieldDef): SelectQueryBuilder<any, any, FacetRow> {
  if (field.facet === undefined) throw new Error(`compile: ${checked.dataset.name}.${field.name} cannot be faceted`)
  const { dataset } = checked
  const { where, sets } = compileWhere(checked.filter, dataset, dialect)
  let q: SelectQueryBuilder<any, any, any> = withSets(db, sets).selectFrom(`${dataset.table} as ${ROOT_ALIAS}`)
  let value
  if (field.tags) {
    const tags = field.tags
    q = q.leftJoin(`${tags.table} as ${TAGS_ALIAS}`, (join) =>
      join.on(sql.ref(`${TAGS_ALIAS}.${tags.ownerColumn}`), '=', sql.ref(`${ROOT_ALIAS}.${primaryKeyColumn(dataset)}`)))
    value = sql<string | null>`${sql.ref(`${TAGS_ALIAS}.${tags.valueColumn}`)}`
  } else if (field.facet === 'year') {
    value = sql<string | null>`substr(${sql.ref(`${ROOT_ALIAS}.${field.column!}`)}, 1, 4)`
  } else {
    value = sql<string | null>`${sql.ref(`${ROOT_ALIAS}.${field.column!}`)}`
  }
  if (where) q = q.where(where)
  return q.select([value.as('value'), sql<number>`count(*)`.as('count')]).groupBy(value) as SelectQueryBuilder<any, any, FacetRow>
}

/**
 * The primary keys of the filtered records of `checked` as one value: a JSON array on SQLite
 * (`json_group_array`), an array on PostgreSQL (`array_agg`; NULL when none), for facets counted
 * in memory over a filter they cannot evaluate themselves (`execute/facet-columns.ts`). The same
 * WHERE and sets as the count.
 */
export function matchingKeysQuery(db: Kysely<any>, dialect: SqlDialect, checked: Pick<CheckedQuery, 'dataset' | 'filter'>): SelectQueryBuilder<any, any, { keys: unknown }> {
  const { dataset } = checked
  const { where, sets } = compileWhere(checked.filter, dataset, dialect)
  const key = sql.ref(`${ROOT_ALIAS}.${primaryKeyColumn(dataset)}`)
  const keys = dialect.name === 'sqlite' ? sql<unknown>`json_group_array(${key})` : sql<unknown>`array_agg(${key})`
  const q = withSets(db, sets).selectFrom(`${dataset.table} as ${ROOT_ALIAS}`).select(keys.as('keys'))
  return (where ? q.where(where) : q) as SelectQueryBuilder<any, any, { keys: unknown }>
}
