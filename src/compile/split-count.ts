/**
 * @module Counting a negated filter as a sum of index ranges. A filter made only of negations,
 * such as `not(or(country = USA, employees < 10))`, compiles to `(...) is not true`
 * (`compiled.ts`), which no index can drive: the count reads every entry of an index and tests
 * each. Its conjuncts (De Morgan: `not(or(a, b))` is `not(a) and not(b)`, exactly, also where
 * fields are NULL) each hold on a union of index ranges of their column: `not(country = v)` on
 * `country < v`, `country > v` and `country is null`. These pieces are disjoint and hold exactly
 * where the conjunct does, so the filter's total is the sum over the pieces of
 * `count(*) where <piece> and <the other conjuncts>`, each an index range read with the other
 * conjuncts tested on the way. On the suite's `companies-not-or` (100,000 companies) that reads the
 * 26% of the composite index outside USA instead of all of it (`npm run bench`, first counts).
 *
 * Only where no conjunct is positive (a positive condition may be an index the planner drives
 * from, which each piece would then read again) and the filter has no `foreign` (its sets would be
 * computed once per piece). Only on backends that read each piece as a range of an index
 * (`SqlDialect.countsNegationByRanges`).
 */
import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { build, type ConditionNode, type FilterNode, type Scalar } from '../ast/index.js'
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { getField, primaryKeyColumn } from '../catalog/index.js'
import { eb } from './compiled.js'
import { ROOT_ALIAS } from './scope.js'
import { bindable } from './values.js'

type CountQuery = SelectQueryBuilder<any, any, { count: number | string | bigint }>

interface Conjunct {
  readonly node: FilterNode
  readonly negated: boolean
}

function hasForeign(node: FilterNode): boolean {
  switch (node.kind) {
    case 'Foreign': return true
    case 'And': case 'Or': return node.children.some(hasForeign)
    case 'Not': return hasForeign(node.child)
    default: return false
  }
}

/** The conjuncts of `node` (negated when `negated`), negations pushed through `and` and `or`. */
function conjunctsOf(node: FilterNode, negated: boolean, out: Conjunct[]): Conjunct[] {
  if (node.kind === 'Not') return conjunctsOf(node.child, !negated, out)
  if ((node.kind === 'And' && !negated) || (node.kind === 'Or' && negated)) {
    for (const child of node.children) conjunctsOf(child, negated, out)
    return out
  }
  out.push({ node, negated })
  return out
}

/** Whether `column` leads an index: the primary key, or a field the catalog declares indexed. */
function leadsIndex(dataset: DatasetDef, field: FieldDef): boolean {
  return field.column === primaryKeyColumn(dataset) || field.indexed
}

/**
 * The disjoint ranges of the column on which the condition is not true (NULL included), or
 * undefined when the condition is not a comparison of an indexed scalar column with values.
 */
function complementRanges(node: ConditionNode, dataset: DatasetDef): Expression<SqlBool>[] | undefined {
  const field = getField(dataset, node.field)
  if (!field || !field.column || field.type.kind === 'tags' || !leadsIndex(dataset, field)) return undefined
  const column = sql.ref(`${ROOT_ALIAS}.${field.column}`)
  const cmp = (op: '<' | '>' | '<=' | '>=', value: Scalar) => eb(column, op, bindable(value))
  let ranges: Expression<SqlBool>[]
  switch (node.operator) {
    case 'eq':
      if (node.value === null) return undefined
      ranges = [cmp('<', node.value), cmp('>', node.value)]
      break
    case 'lt': ranges = [cmp('>=', node.value)]; break
    case 'lte': ranges = [cmp('>', node.value)]; break
    case 'gt': ranges = [cmp('<=', node.value)]; break
    case 'gte': ranges = [cmp('<', node.value)]; break
    case 'between': ranges = [cmp('<', node.value[0]), cmp('>', node.value[1])]; break
    default: return undefined
  }
  return field.nullable ? [...ranges, eb(column, 'is', null)] : ranges
}

/** Which conjunct to split on: a negated equality first (its ranges leave one value out), else a negated range. */
const SPLIT_PREFERENCE = ['eq', 'between', 'lt', 'lte', 'gt', 'gte'] as const

/**
 * The count of `filter` over `dataset` as a sum of range counts (see the module comment), or
 * undefined when the filter is not of that shape. `compile` compiles a filter as the plain
 * count's WHERE: here the other conjuncts, tested in each range (the split one is the range).
 */
export function splitCountOf(
  filter: FilterNode, dataset: DatasetDef, compile: (filter: FilterNode) => Expression<SqlBool> | undefined,
): ((db: Kysely<any>) => CountQuery) | undefined {
  if (hasForeign(filter)) return undefined
  const conjuncts = conjunctsOf(filter, false, [])
  if (conjuncts.some((c) => !c.negated)) return undefined
  let split: { conjunct: Conjunct; ranges: Expression<SqlBool>[] } | undefined
  for (const operator of SPLIT_PREFERENCE) {
    for (const c of conjuncts) {
      if (c.node.kind !== 'Condition' || c.node.operator !== operator) continue
      const ranges = complementRanges(c.node, dataset)
      if (ranges) {
        split = { conjunct: c, ranges }
        break
      }
    }
    if (split) break
  }
  if (!split) return undefined
  const rest = conjuncts.filter((c) => c !== split.conjunct).map((c) => build.not(c.node, c.node.path))
  const tested = rest.length === 0 ? undefined : compile(rest.length === 1 ? rest[0]! : build.and(rest, filter.path))
  const pieces = split.ranges.map((range) => (tested ? eb.and([range, tested]) : range))
  return (db) => {
    const counts = pieces.map((piece) => db.selectFrom(`${dataset.table} as ${ROOT_ALIAS}`).select(sql<number>`count(*)`.as('count')).where(piece))
    return db.selectNoFrom(sql<number>`${sql.join(counts, sql` + `)}`.as('count')) as unknown as CountQuery
  }
}
