/**
 * @module The only way to make AST nodes: every node comes out frozen, so passes can share and
 * branch trees without copying.
 */
import type { ForeignMatch, OperatorName } from '../catalog/operators.js'
import type {
  AndNode, ConditionOf, FilterNode, ForeignNode, MatchAllNode, NotNode, OrNode, QueryNode, SortNode,
} from './nodes.js'

function freeze<T extends object>(node: T): T {
  return Object.freeze(node)
}

export const matchAll = (path = '/filter'): MatchAllNode => freeze({ kind: 'MatchAll', path })

export const and = (children: readonly FilterNode[], path: string): AndNode =>
  freeze({ kind: 'And', children: Object.freeze([...children]), path })

export const or = (children: readonly FilterNode[], path: string): OrNode =>
  freeze({ kind: 'Or', children: Object.freeze([...children]), path })

export const not = (child: FilterNode, path: string): NotNode => freeze({ kind: 'Not', child, path })

export const foreign = (dataset: string, filter: FilterNode, match: ForeignMatch, path: string): ForeignNode =>
  freeze({ kind: 'Foreign', dataset, match, filter, path })

export function condition<Op extends OperatorName>(field: string, operator: Op, value: ConditionOf<Op>['value'], path: string): ConditionOf<Op> {
  const frozenValue = Array.isArray(value) ? Object.freeze([...value]) : value
  return freeze({ kind: 'Condition', field, operator, value: frozenValue, path } as unknown as ConditionOf<Op>)
}

export const sort = (field: string, direction: 'asc' | 'desc', path: string): SortNode => freeze({ field, direction, path })

export function query(q: QueryNode): QueryNode {
  return freeze({ ...q, sort: Object.freeze([...q.sort]) })
}
