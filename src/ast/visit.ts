/**
 * @module Exhaustive dispatch over filter nodes: a visitor is a record with one handler per
 * node kind, so forgetting a kind is a type error rather than a runtime surprise.
 */
import type { FilterNode, FilterNodeKind } from './nodes.js'

export type FilterVisitor<R> = {
  readonly [K in FilterNodeKind]: (node: Extract<FilterNode, { kind: K }>) => R
}

export function visitFilter<R>(node: FilterNode, visitor: FilterVisitor<R>): R {
  const handler = visitor[node.kind] as (n: FilterNode) => R
  return handler(node)
}

/** The direct children of a node, for generic walks (depth, node count). */
export function childrenOf(node: FilterNode): readonly FilterNode[] {
  switch (node.kind) {
    case 'And':
    case 'Or':
      return node.children
    case 'Not':
      return [node.child]
    case 'Foreign':
      return [node.filter]
    case 'MatchAll':
    case 'Condition':
      return []
  }
}
