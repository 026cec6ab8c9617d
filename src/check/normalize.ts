/**
 * @module Brings a checked filter into the normal form documented in `./checked.ts`: aliases
 * resolved, values converted, sugar removed (`eq: null` and a blank text on a string or enum field
 * to `is_null`, `eq`/`in` on tags to `has_any`) and the negating operators rewritten as `Not` of their positive form, so compile and
 * the reference evaluator implement null-inclusive negation in exactly one place (`Not`).
 *
 * Runs only on a filter that passed every rule; it relies on that and does not re-check.
 */
import { build, type ConditionNode, type FilterNode, type Scalar } from '../ast/index.js'
import type { DatasetDef } from '../catalog/define.js'
import { getField, resolveDataset } from '../catalog/index.js'
import { visitFilter } from '../ast/visit.js'
import { convertOperand } from './values.js'

export function normalizeFilter(node: FilterNode, dataset: DatasetDef): FilterNode {
  return visitFilter<FilterNode>(node, {
    MatchAll: (n) => n,
    And: (n) => build.and(n.children.map((c) => normalizeFilter(c, dataset)), n.path),
    Or: (n) => build.or(n.children.map((c) => normalizeFilter(c, dataset)), n.path),
    Not: (n) => build.not(normalizeFilter(n.child, dataset), n.path),
    Foreign: (n) => {
      const to = resolveDataset(n.dataset) as DatasetDef
      return build.foreign(to.name, normalizeFilter(n.filter, to), n.match, n.path)
    },
    Condition: (n) => normalizeCondition(n, dataset),
  })
}

function normalizeCondition(node: ConditionNode, dataset: DatasetDef): FilterNode {
  const field = getField(dataset, node.field)
  if (!field) throw new Error(`normalize: ${dataset.name}.${node.field} was not checked`)
  const value = convertOperand(node, field).value
  const tags = field.type.kind === 'tags'
  const list = value as readonly Scalar[]
  const make = build.condition
  switch (node.operator) {
    case 'eq':
      if (value === null) return tags ? make(node.field, 'is_empty', true, node.path) : make(node.field, 'is_null', true, node.path)
      return tags ? make(node.field, 'has_any', [value as Scalar], node.path) : make(node.field, 'eq', value as Scalar, node.path)
    case 'ne':
      // Null here is a blank text on a string or enum field: "has a value" (values.ts).
      if (value === null) return make(node.field, 'is_null', false, node.path)
      return build.not(make(node.field, 'eq', value as Scalar, node.path), node.path)
    case 'in':
      return tags ? make(node.field, 'has_any', list, node.path) : inOrNull(node.field, list, node.path)
    case 'nin':
      return build.not(inOrNull(node.field, list, node.path), node.path)
    case 'has_none':
      return build.not(make(node.field, 'has_any', list, node.path), node.path)
    case 'between':
      return make(node.field, 'between', value as readonly [Scalar, Scalar], node.path)
    default:
      return make(node.field, node.operator, value as never, node.path)
  }
}

/** `in` of a list that may hold null (a blank text, "no value": values.ts) as `in` of the rest, or `is_null`. */
function inOrNull(field: string, list: readonly Scalar[], path: string): FilterNode {
  const values = list.filter((v) => v !== null)
  if (values.length === list.length) return build.condition(field, 'in', list, path)
  const isNull = build.condition(field, 'is_null', true, path)
  return values.length === 0 ? isNull : build.or([build.condition(field, 'in', values, path), isNull], path)
}
