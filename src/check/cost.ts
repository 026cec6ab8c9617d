/**
 * @module The static cost model of a filter: an estimate, from the checked tree alone, of the
 * plan's worst case per record of the queried dataset, in units of one condition tested on one
 * row. `rules/cost-within-limit.ts` holds it to the `maxCost` limit (grammar-docs/language.md,
 * "Limits"). It mirrors the plan `compile/relations.ts` builds, from the decisions both read in
 * `./foreign-plan.ts`:
 *
 * - a condition costs 1, a tags condition or a list too (SQLite answers them from a set it builds
 *   once from an index range of the values, not from a pass over a relation);
 * - `and`, `or` and `not` cost the sum of their children, so `or` width counts;
 * - a `foreign` compiled as a correlated probe costs `FAN_OUT * (VISIT + inner)`: it reaches every
 *   related row and tests the inner filter on it, and nothing guarantees an early stop (when
 *   nothing matches, every related row is reached); `all` is two probes;
 * - a `foreign` compiled as a set costs a lookup (`VISIT`) where it is probed and, once, a pass
 *   into a temporary index (`SET_PASS`) plus the inner filter tested once per related record; `all`
 *   is two sets.
 *
 * So a chain of nested `foreign` costs the sum of its levels; as correlated probes it cost their
 * product (`FAN_OUT` to the power of the depth), which is what froze a server (language.md,
 * "Foreign"). Merged siblings (`mergeForeignSiblings`) are costed as the one `foreign` they become.
 * The model knows no data: selective conditions make a plan cheaper than its estimate, and the time
 * budget remains the net for what the model cannot see. Measured on SQLite, one unit is 20-50 ns
 * per record (1,000,000 companies: a lone probe, 110 units, 4.3 s; an `or` of 499 conditions,
 * 499 units, about 10 s; a 5-level chain that every company meets, 1,240 units, 29 s).
 */
import type { FilterNode } from '../ast/nodes.js'
import { childrenOf } from '../ast/visit.js'
import { resolveDataset } from '../catalog/index.js'
import { mayProbe, mergeForeignSiblings, rootForeignCount } from './foreign-plan.js'

/**
 * Related rows per record assumed for every relation. The generated data has 1.5-3 investors and
 * funding events per company and 60-70 companies and funding events per investor; 10 weighs a
 * probe from either side, and is the growth per level measured on the chains (8-18x).
 */
export const FAN_OUT = 10

/**
 * Reaching a row through an index, or looking a key up in a temporary index, against testing a
 * condition on a row in hand: about 1 us against 0.07 us on SQLite (an `or` of 249 names tested on
 * each of 2.9 million investment rows took 55 s).
 */
export const VISIT = 10

/**
 * One set: a pass over a relation's related rows into a temporary index. On 1,000,000 companies a
 * broad set took 2.4 times the probe of the same rows (10.4 s against 4.3 s), so 2.5 probes.
 */
export const SET_PASS = 2.5 * FAN_OUT * VISIT

export interface CostEstimate {
  /** Worst-case row visits per record of the queried dataset, rounded up. */
  readonly total: number
  /**
   * The JSON Pointer of the node most of the cost comes from: followed down from the filter while
   * one child carries more than half of its parent's cost, stopping at a `foreign` (a chain is
   * reported at its top: every level adds to it).
   */
  readonly path: string
  /** The node at `path`, for the message. */
  readonly node: FilterNode
}

interface Costed {
  readonly node: FilterNode
  /** Visits per record where the node is evaluated. */
  readonly perRow: number
  /** Visits spent once, per record of the queried dataset (sets). */
  readonly once: number
  /** The children as they are costed (merged), each with what it adds to this node's cost. */
  readonly parts: readonly { readonly part: Costed; readonly adds: number }[]
}

const totalOf = (c: Costed): number => c.perRow + c.once

function costOf(node: FilterNode, nested: boolean, rootForeigns: number): Costed {
  switch (node.kind) {
    case 'MatchAll':
      return { node, perRow: 0, once: 0, parts: [] }
    case 'Condition':
      return { node, perRow: 1, once: 0, parts: [] }
    case 'Not': {
      const child = costOf(node.child, nested, rootForeigns)
      return { node, perRow: child.perRow, once: child.once, parts: [{ part: child, adds: totalOf(child) }] }
    }
    case 'And':
    case 'Or': {
      const parts = mergeForeignSiblings(node.children, node.kind, node.path).map((c) => costOf(c, nested, rootForeigns))
      return {
        node,
        perRow: parts.reduce((sum, p) => sum + p.perRow, 0),
        once: parts.reduce((sum, p) => sum + p.once, 0),
        parts: parts.map((p) => ({ part: p, adds: totalOf(p) })),
      }
    }
    case 'Foreign': {
      const inner = costOf(node.filter, true, rootForeigns)
      const twice = node.match === 'all' ? 2 : 1
      if (!nested && mayProbe(node, resolveDataset(node.dataset), rootForeigns)) {
        // A correlated probe; `all` also probes for a related row at all (at most FAN_OUT visits).
        const perRow = twice * FAN_OUT * VISIT + FAN_OUT * inner.perRow
        return { node, perRow, once: inner.once, parts: [{ part: inner, adds: FAN_OUT * inner.perRow + inner.once }] }
      }
      return {
        node,
        perRow: twice * VISIT,
        once: twice * SET_PASS + inner.perRow + inner.once,
        parts: [{ part: inner, adds: inner.perRow + inner.once }],
      }
    }
  }
}

/** The estimate for a whole filter over its dataset (the top-level `{}` costs nothing). */
export function estimateCost(filter: FilterNode): CostEstimate {
  const root = costOf(filter, false, rootForeignCount(filter))
  let at = root
  for (;;) {
    const whole = totalOf(at)
    const heavy = at.node.kind === 'Foreign' ? undefined : at.parts.find((p) => p.adds * 2 > whole)
    if (!heavy) break
    at = heavy.part
  }
  return Object.freeze({ total: Math.ceil(totalOf(root)), path: at.node.path, node: at.node })
}

/** What the node at a hotspot is, for a message. */
export function describeHotspot(node: FilterNode): string {
  switch (node.kind) {
    case 'Or':
      return `an \`or\` of ${node.children.length} alternatives`
    case 'And':
      return `an \`and\` of ${node.children.length} conditions`
    case 'Not':
      return 'a `not`'
    case 'Foreign': {
      const nested = foreignCount(node.filter)
      return nested > 0
        ? `a \`foreign\` on ${node.dataset} with ${nested} more \`foreign\` inside`
        : `a \`foreign\` on ${node.dataset} whose filter is tested on every related record`
    }
    case 'Condition':
      return `the condition on ${JSON.stringify(node.field)}`
    case 'MatchAll':
      return 'the whole filter'
  }
}

/** The number of `foreign` conditions in a subtree, at any depth. */
export function foreignCount(node: FilterNode): number {
  let n = 0
  const stack: FilterNode[] = [node]
  while (stack.length > 0) {
    const x = stack.pop() as FilterNode
    if (x.kind === 'Foreign') n++
    stack.push(...childrenOf(x))
  }
  return n
}
