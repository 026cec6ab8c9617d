/**
 * @module Plan steering for a page's keys query: walk the first sort key's index and filter on the
 * way (stopping after `limit` hits), or let the planner drive from the filter's own indexes and sort
 * the hits. SQLite always does the latter when a filter column is indexed, even with stat4
 * statistics, which loses badly for broad filters: driving a broad filter from its index and
 * sorting every hit can cost a hundred times the walk (design section 8; the suite's listing
 * phase measures both plans, `npm run bench`).
 *
 * The choice needs the filter's selectivity, which the engine knows for free: the total of the
 * query is counted (and cached) before any page is fetched. With `matches` of `rows` records
 * matching, hits are on average `rows / matches` apart along the sort order, so a walk reads about
 * `limit * rows / matches` rows; driving from an index reads at least every hit (usually more: an
 * index serves one condition, the others filter) and sorts them. We walk when the walk's expected
 * reads are within `WALK_FACTOR` of the hits. The estimate assumes hits spread evenly over the
 * sort order; when they cluster at its end the walk reads more, at worst the whole index once.
 *
 * A walk marks the filter's top-level columns unindexed (`SqlDialect.unindexed`) and, on SQLite,
 * names the sort index in its FROM (`SqlDialect.walkFrom`): the marks alone left SQLite free to scan
 * a covering composite index whole and sort when its LIMIT is written as a number.
 */
import type { FilterNode } from '../ast/nodes.js'
import { childrenOf } from '../ast/visit.js'
import type { DatasetDef } from '../catalog/define.js'
import { resolveDataset } from '../catalog/index.js'
import type { QueryPlan } from './plan.js'
import { COMPOSITE_INDEXES } from '../store/schema/composite-indexes.js'
import { pinsByIdentifyingField } from './relations.js'

/**
 * How many rows a walk may read per hit the index-driven plan must read and sort. The index plan
 * reads more than the hits whenever its index serves only part of the filter, and sorts them.
 */
export const WALK_FACTOR = 4

/**
 * The same for filters with a tags condition or an unpinned `foreign`: no column index (composite
 * or not) serves those, so the index-driven plan reads every candidate of its best column condition
 * and probes an EXISTS for each. Measured on 1,000,000 companies (10 keys, default sort): tags +
 * country + employees filters took 35-70 ms driven from an index at every selectivity, and 0.5-12 ms
 * walking the sort index up to 11 walk reads per hit, 23-47 ms at 12-44; country + stage filters,
 * served by a composite index, took 0.1-0.5 ms driven from it and 1-20 ms walking. 24 keeps the
 * former on the walk well past the measured crossover (~30) without touching the latter.
 */
export const UNINDEXABLE_WALK_FACTOR = 24

/**
 * The same when one composite index (`store/schema/composite-indexes.ts`) holds every field of an
 * AND of plain conditions and the first sort key: the index-driven plan then reads only hits,
 * from the index alone, and never touches a table row, where each row a walk reads is a table
 * lookup. On 1,000,000 companies (`stage a|b, USA, employees 50-200` by svc_score, 17,939 hits,
 * page 1 at 50) the walk read 2,787 rows in 3.7 ms (1.3 us a row) and the index-driven keys query
 * read the hits in 1.7 ms (0.095 us a hit), 14 times cheaper per row (per-statement timing during
 * the change, the script not kept; bench/suite's companies-design went from 3.29x to 1.72x hand
 * SQL). A tenth keeps the walk for broad filters (638,009 hits: 78 walk reads) and drives narrow ones.
 */
export const COVERED_WALK_FACTOR = 0.1

/** Whether `filter` is an AND of plain conditions on fields of one composite index that also holds `sortField`. */
function coveredByCompositeIndex(filter: FilterNode, dataset: DatasetDef, sortField: string | undefined): boolean {
  if (sortField === undefined) return false
  const fields = new Set<string>()
  const stack: FilterNode[] = [filter]
  while (stack.length > 0) {
    const node = stack.pop() as FilterNode
    if (node.kind === 'And') stack.push(...childrenOf(node))
    else if (node.kind === 'Condition' && !dataset.fields[node.field]?.tags) fields.add(node.field)
    else return false
  }
  return COMPOSITE_INDEXES.some((index) => index.dataset === dataset.name && index.fields.includes(sortField) && [...fields].every((f) => index.fields.includes(f)))
}

/**
 * The walk factor for a filter: larger when it holds a condition no column index can serve,
 * smaller when a composite index serves all of it and the sort (`sortField`, the first sort key's field).
 */
export function walkFactorFor(filter: FilterNode, dataset: DatasetDef, sortField?: string): number {
  if (coveredByCompositeIndex(filter, dataset, sortField)) return COVERED_WALK_FACTOR
  const stack: FilterNode[] = [filter]
  while (stack.length > 0) {
    const node = stack.pop() as FilterNode
    if (node.kind === 'Condition' && dataset.fields[node.field]?.tags) return UNINDEXABLE_WALK_FACTOR
    if (node.kind === 'Foreign') {
      const target = resolveDataset(node.dataset)
      if (!target || !pinsByIdentifyingField(node.filter, target)) return UNINDEXABLE_WALK_FACTOR
      continue // a pinned foreign is a semi-join on the primary key: the outer dataset's conditions only
    }
    stack.push(...childrenOf(node))
  }
  return WALK_FACTOR
}

export interface Selectivity {
  /** Records the filter selects (the query's total). */
  readonly matches: number
  /** Records in the dataset's table. */
  readonly rows: number
  /** Rows the keys query asks for. */
  readonly limit: number
}

/** True when the keys query should walk the sort index (`KeysOptions.walkSortIndex`). */
export function prefersSortWalk(plan: Pick<QueryPlan, 'canWalkSortIndex'> & Partial<Pick<QueryPlan, 'walkFactor'>>, s: Selectivity): boolean {
  if (!plan.canWalkSortIndex || s.matches <= 0 || s.rows <= 0) return false
  const walkReads = Math.min(s.rows, (s.limit * s.rows) / s.matches)
  return walkReads <= (plan.walkFactor ?? WALK_FACTOR) * s.matches
}
