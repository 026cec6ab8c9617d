/**
 * @module Counting from a tag or link table alone. A filter that is one tags condition (`has_any`,
 * `in`, `eq` on a tags field) or one `foreign` with `match: any` along a link relation selects the
 * records whose keys appear in some rows of that table, so its total is the number of distinct
 * owner keys among those rows: `count(distinct company_id) from company_industries where value in
 * (...)`, `count(distinct funding_id) from funding_investors l join investors t ... where
 * t.svc_slug in (...)`. That reads one index range, where `count(*) from fundings where id in
 * (...)` also looks every key up in the dataset table (the largest investor's 4,449 funding events
 * at 1,000,000 companies: 7.7 ms against 0.2 ms; bench/results/1m.md).
 *
 * Exact only while every row of the table names an existing record: the plan carries the table
 * and column as `owner`, and `execute/counts.ts` uses this count only when the loader recorded
 * that column as free of orphans at the current data version (`store/owner-integrity.ts`).
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { FilterNode, Scalar } from '../ast/nodes.js'
import type { DatasetDef } from '../catalog/define.js'
import { getField } from '../catalog/index.js'
import type { SqlDialect } from './dialect.js'
import { compileFilter, compileNode } from './predicates.js'
import { linkOwnerKeys } from './relations.js'
import { createContext, ROOT_ALIAS } from './scope.js'
import { tagValueMatch } from './tags.js'

type CountQuery = SelectQueryBuilder<any, any, { count: number | string | bigint }>

export interface OwnerCount {
  /** `table.column` that must be free of orphans (`store/owner-integrity.ts`, `ownerName`). */
  readonly owner: string
  /**
   * The count: `count(distinct owner)` over the matching rows, or `count(*)` where each owner can
   * appear only once among them (see `ownerCountOf`).
   */
  query(db: Kysely<any>): CountQuery
  /**
   * `query`'s two forms apart, for a backend whose statements are local (`SqlDialect.localStatements`):
   * `probe` counts the related records that match, at most 2; with at most one, `single` is the
   * answer, else `several`. On SQLite the probe and then one count take 1.10-1.11x the hand-written
   * count, the one statement holding both 1.36-1.37x (the suite's investor, 4,449 funding events at
   * 1,000,000 companies: 124-136 against 153-167 µs). Absent when
   * there is one form only.
   */
  readonly byProbe?: { readonly probe: (db: Kysely<any>) => CountQuery; readonly single: (db: Kysely<any>) => CountQuery; readonly several: (db: Kysely<any>) => CountQuery }
}

/** The values of a tags condition that means "has any of these", or undefined. */
function hasAnyValues(node: FilterNode, dataset: DatasetDef): readonly Scalar[] | undefined {
  if (node.kind !== 'Condition') return undefined
  const field = getField(dataset, node.field)
  if (!field?.tags) return undefined
  if (node.operator === 'in' || node.operator === 'has_any') return node.value
  if (node.operator === 'eq' && node.value !== null) return [node.value]
  return undefined
}

/** `and`/`or` of a single condition is that condition (list parameters arrive as `{and: [...]}`). */
function unwrap(node: FilterNode): FilterNode {
  return (node.kind === 'And' || node.kind === 'Or') && node.children.length === 1 ? unwrap(node.children[0]!) : node
}

export function ownerCountOf(checkedFilter: FilterNode, dataset: DatasetDef, dialect: SqlDialect): OwnerCount | undefined {
  const filter = unwrap(checkedFilter)
  const ctx = createContext(dialect)
  if (filter.kind === 'Condition') {
    const values = hasAnyValues(filter, dataset)
    const field = values && getField(dataset, filter.field)!
    const tags = field?.tags
    if (!values || !field || !tags) return undefined
    // Values match in any case (tags.ts), so even one value may match two rows of one owner
    // ("AI" and "ai"): always count distinct owners.
    const match = tagValueMatch(field, values, ctx)
    const owner = sql.ref(`${tags.table}.${tags.ownerColumn}`)
    const counted = sql<number>`count(distinct ${owner})`
    return {
      owner: `${tags.table}.${tags.ownerColumn}`,
      query: (db) => db.selectFrom(tags.table).select(counted.as('count')).where(match.expr),
    }
  }
  if (filter.kind !== 'Foreign') return undefined
  const keys = linkOwnerKeys(filter, { dataset, alias: ROOT_ALIAS }, ctx, compileNode)
  if (!keys) return undefined
  const owner = `${keys.table}.${keys.column}`
  const distinct = (db: Kysely<any>) => db.selectFrom(keys.keys.as('o')).select(sql<number>`count(distinct ${sql.ref('o.k')})`.as('count'))
  // When at most one related record matches, each owner appears once among the matching link rows
  // (the link table's key is (owner, related)), so `count(*)` of them is the answer without the
  // temporary b-tree `distinct` builds (the largest investor's funding events at 1,000,000
  // companies: 0.29 ms against 1.4 ms). Only when the link rows are joined to the related table:
  // then "matching link rows" and "links of the matching related records" are the same rows, and
  // the probe (which reads at most 2 related records) counts the latter. `query` is one statement,
  // the sum of both counts, each under the probe as a constant condition, which SQLite and
  // PostgreSQL evaluate once and which skips the other count's scan; PostgreSQL runs it (a round
  // trip saved), SQLite runs the parts apart (`byProbe`, cheaper still). (A `case when probe <= 1 then (count) else
  // (count distinct) end` cost 25% more on SQLite than the count alone, 0.128 against 0.103 ms for
  // those 4,449 events; this form 0.107.)
  if (!keys.joinsTarget) return { owner, query: distinct }
  const targetWhere = compileFilter(filter.filter, keys.target, dialect)
  const probe = (db: Kysely<any>) => {
    let matching = db.selectFrom(`${keys.target.table} as ${ROOT_ALIAS}`).select(sql<number>`1`.as('one'))
    if (targetWhere) matching = matching.where(targetWhere)
    return db.selectFrom(matching.limit(sql.lit(2)).as('m')).select(sql<number>`count(*)`.as('count'))
  }
  const single = (db: Kysely<any>) => db.selectFrom(keys.keys.as('o')).select(sql<number>`count(*)`.as('count'))
  return {
    owner,
    query: (db) => {
      const probed = probe(db)
      const one = single(db).where(sql<boolean>`${probed} <= 1`)
      const several = distinct(db).where(sql<boolean>`${probed} > 1`)
      return db.selectNoFrom(sql<number>`${one} + ${several}`.as('count')) as unknown as CountQuery
    },
    byProbe: { probe, single, several: distinct },
  }
}
