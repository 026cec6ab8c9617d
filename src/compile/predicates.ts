/**
 * @module The filter compiler: one handler per AST node kind (an exhaustive `FilterVisitor`),
 * each returning a Kysely boolean expression over the table in scope. Values become bound
 * parameters; identifiers come only from the catalog. Sibling `foreign` conditions that can share
 * one are merged first (`check/foreign-plan.ts`), so they cost one probe or one set.
 */
import type { Expression, SqlBool } from 'kysely'
import type { FilterNode } from '../ast/nodes.js'
import { visitFilter, type FilterVisitor } from '../ast/visit.js'
import type { DatasetDef } from '../catalog/define.js'
import { allOf, anyOf, negate, TRUE, type Compiled } from './compiled.js'
import { compileCondition } from './conditions.js'
import type { SqlDialect } from './dialect.js'
import { mergeForeignSiblings, rootForeignCount } from '../check/foreign-plan.js'
import { compileForeign } from './relations.js'
import { createContext, ROOT_ALIAS, type CompileContext, type HoistedSet, type Scope } from './scope.js'

function visitor(scope: Scope, ctx: CompileContext): FilterVisitor<Compiled> {
  return {
    MatchAll: () => TRUE,
    And: (node) => allOf(mergeForeignSiblings(node.children, 'And', node.path).map((c) => compileNode(c, scope, ctx))),
    Or: (node) => anyOf(mergeForeignSiblings(node.children, 'Or', node.path).map((c) => compileNode(c, scope, ctx))),
    Not: (node) => negate(compileNode(node.child, scope, ctx)),
    Foreign: (node) => compileForeign(node, scope, ctx, compileNode),
    Condition: (node) => compileCondition(node, scope, ctx),
  }
}

export function compileNode(node: FilterNode, scope: Scope, ctx: CompileContext): Compiled {
  return visitFilter(node, visitor(scope, ctx))
}

/**
 * The WHERE expression of a normal-form filter over `dataset` aliased `t0`, or undefined for the
 * match-all filter (no WHERE at all, so counting all rows stays a plain `count(*)`). Sets of
 * `foreign` are inline subqueries, so the expression stands on its own.
 */
export function compileFilter(filter: FilterNode, dataset: DatasetDef, dialect: SqlDialect, sortWalk?: CompileContext['sortWalk']): Expression<SqlBool> | undefined {
  return compileWhere(filter, dataset, dialect, sortWalk, false).where
}

/**
 * The same, with the sets of `foreign` hoisted (`hoistSets`): the statement must define `sets` as
 * common table expressions (`plan.ts`), so that each is computed once and the probe above a set
 * can test cheaply whether the set is empty (`relations.ts`).
 */
export function compileWhere(
  filter: FilterNode, dataset: DatasetDef, dialect: SqlDialect, sortWalk?: CompileContext['sortWalk'], hoistSets = true, preferSets = false,
): { where: Expression<SqlBool> | undefined; sets: readonly HoistedSet[] } {
  const ctx = createContext(dialect, sortWalk, rootForeignCount(filter), hoistSets, preferSets)
  const result = compileNode(filter, { dataset, alias: ROOT_ALIAS }, ctx)
  return { where: result === TRUE ? undefined : result.expr, sets: ctx.sets ?? [] }
}
