/**
 * @module How `foreign` conditions are planned, shared by compile (`compile/relations.ts`, which
 * builds the SQL) and the cost model (`./cost.ts`, which checks the cost of that plan before it
 * runs), so the two cannot drift apart. Imports flow forward: compile reads these from check.
 *
 * Merging. Sibling `foreign` conditions on the same dataset that can share one are merged, so one
 * probe or one set runs where the request wrote several. These are exact rewrites of the
 * language's semantics (grammar-docs/language.md, "Foreign"), not part of the normal form: the
 * canonical form, and with it every query id, stays as the request was written.
 *
 * For related records R of one record (the relation is fixed by the two datasets):
 * - `or` of `any P1`, `any P2`: some r in R has P1, or some has P2  =  some r has (P1 or P2).
 * - `and` of `none P1`, `none P2` (or `not any`): no r has P1 and no r has P2  =  no r has (P1 or P2).
 * - `and` of `all P1`, `all P2`: R is non-empty and every r has P1 and every r has P2  =  R is
 *   non-empty and every r has (P1 and P2).
 * Each holds in two-valued logic, which is the language's (a NULL field fails a condition), so
 * it holds for the SQL forms too. Nothing else merges: `and` of two `any` needs two (possibly
 * different) related records, and `or` of two `all` is not an `all` of the `or`.
 */
import { and, foreign, or } from '../ast/factory.js'
import type { FilterNode, ForeignNode } from '../ast/nodes.js'
import { childrenOf } from '../ast/visit.js'
import type { DatasetDef } from '../catalog/define.js'
import { resolveDataset } from '../catalog/index.js'

/**
 * The widest inner filter a correlated probe gets: it is evaluated for every related row of every
 * outer row, where a set evaluates it once per related record. An `or` of 249 investor names
 * inside one `foreign` took 55 s as one EXISTS on 1,000,000 companies and 0.2 ms as a set.
 */
export const NARROW_FILTER = 4

/**
 * The most top-level `foreign`s compiled as correlated EXISTS in one filter. SQLite's time per
 * EXISTS grows with the number of them in one WHERE (5,000 companies, `and` of k NOT EXISTS that
 * all hold: k = 1: 1.5 ms, 4: 3.2 ms, 10: 22 ms, 20: 74 ms, 40: 281 ms), while k set memberships
 * cost k probes of a materialised set per row.
 */
export const MAX_CORRELATED = 4

type Connective = 'And' | 'Or'

/** The canonical dataset name, so `investor` and `investors` group together before normalisation. */
const datasetKey = (node: ForeignNode): string => resolveDataset(node.dataset)?.name ?? node.dataset

/** What a child contributes to a group: its mode, dataset and inner filter, or nothing. */
function groupable(child: FilterNode, connective: Connective): { match: ForeignNode['match']; foreign: ForeignNode } | undefined {
  if (connective === 'Or') return child.kind === 'Foreign' && child.match === 'any' ? { match: 'any', foreign: child } : undefined
  if (child.kind === 'Foreign' && (child.match === 'none' || child.match === 'all')) return { match: child.match, foreign: child }
  // `not any P` is `none P` (language.md, "Negation").
  if (child.kind === 'Not' && child.child.kind === 'Foreign' && child.child.match === 'any') return { match: 'none', foreign: child.child }
  return undefined
}

/**
 * The children of an `and`/`or` with mergeable `foreign` siblings replaced by one `foreign` each, at
 * the place of the first of them; the same array when nothing merges. `path` is the connective's,
 * given to the merged inner `or`/`and` (issues about merged nodes point at the connective).
 */
export function mergeForeignSiblings(children: readonly FilterNode[], connective: Connective, path: string): readonly FilterNode[] {
  const groups = new Map<string, ForeignNode[]>()
  for (const child of children) {
    const g = groupable(child, connective)
    if (!g) continue
    const key = `${g.match}\u0000${datasetKey(g.foreign)}`
    const list = groups.get(key)
    if (list) list.push(g.foreign)
    else groups.set(key, [g.foreign])
  }
  if (![...groups.values()].some((list) => list.length > 1)) return children
  const out: FilterNode[] = []
  const emitted = new Set<string>()
  for (const child of children) {
    const g = groupable(child, connective)
    const key = g ? `${g.match}\u0000${datasetKey(g.foreign)}` : undefined
    const members = key === undefined ? undefined : groups.get(key)
    if (!g || !members || members.length < 2) {
      out.push(child)
      continue
    }
    if (emitted.has(key!)) continue
    emitted.add(key!)
    const filters = members.map((m) => m.filter)
    const inner = g.match === 'all' ? and(filters, path) : or(filters, path)
    // The merged node stands for several siblings: issues about it point at their connective.
    out.push(foreign(g.foreign.dataset, inner, g.match, path))
  }
  return out
}

/**
 * Whether `filter` can only match records named by an identifying field: an `eq`/`in` on one (or
 * on the primary key), alone or as one conjunct of an `and` (the other conjuncts can only narrow
 * it further), or an `or` whose every branch is pinned (a union of a few handfuls).
 */
export function pinsByIdentifyingField(filter: FilterNode, target: DatasetDef): boolean {
  switch (filter.kind) {
    case 'Condition': {
      if (filter.operator !== 'eq' && filter.operator !== 'in') return false
      const field = target.fields[filter.field]
      return field !== undefined && (field.identifying === true || field.name === target.primaryKey)
    }
    case 'And':
      return filter.children.some((child) => pinsByIdentifyingField(child, target))
    case 'Or':
      return filter.children.every((child) => pinsByIdentifyingField(child, target))
    default:
      return false
  }
}

/** Conditions in `filter`, a nested `foreign` counted as one (a probe of its set), up to `limit + 1`. */
export function widthOf(filter: FilterNode, limit: number): number {
  let width = 0
  const stack: FilterNode[] = [filter]
  while (stack.length > 0 && width <= limit) {
    const node = stack.pop() as FilterNode
    if (node.kind === 'Condition' || node.kind === 'Foreign') width++
    else stack.push(...childrenOf(node))
  }
  return width
}

/**
 * The `foreign` conditions of a filter at the top level (not inside another `foreign`), counting
 * merged siblings once, as compile sees them.
 */
export function rootForeignCount(filter: FilterNode): number {
  let count = 0
  const stack: FilterNode[] = [filter]
  while (stack.length > 0) {
    const node = stack.pop() as FilterNode
    if (node.kind === 'Foreign') count++
    else if (node.kind === 'And' || node.kind === 'Or') stack.push(...mergeForeignSiblings(node.children, node.kind, node.path))
    else stack.push(...childrenOf(node))
  }
  return count
}

/**
 * Whether a top-level `foreign` (not inside another) is compiled as a correlated probe: not when it
 * is pinned by an identifying field (a semi-join), nor when its inner filter is wider than
 * `NARROW_FILTER`, nor when the filter has more than `MAX_CORRELATED` top-level `foreign`s; those
 * are sets, as is every `foreign` nested in another (`compile/relations.ts`).
 */
export function mayProbe(node: ForeignNode, target: DatasetDef | undefined, rootForeigns: number): boolean {
  if (node.match === 'any' && target && pinsByIdentifyingField(node.filter, target)) return false
  return rootForeigns <= MAX_CORRELATED && widthOf(node.filter, NARROW_FILTER) <= NARROW_FILTER
}
