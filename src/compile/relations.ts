/**
 * @module `foreign`: records related, along the catalog's relation, to records of another dataset
 * that match an inner filter. Always a correlated `EXISTS` / `NOT EXISTS` (design section 3), so the
 * planner can stop at the first related match and the result is two-valued.
 *
 * Modes:
 * - `any`:  EXISTS(related AND P)
 * - `none`: NOT EXISTS(related AND P)
 * - `all`:  EXISTS(related) AND NOT EXISTS(related AND NOT P).
 *   We require at least one related record. The textbook "for all" (NOT EXISTS(related AND NOT P)
 *   alone) is vacuously true for a record with nothing related, so `all` with any P would match
 *   every investor without a portfolio: an accidental match-all. `NOT P` is the null-safe negation,
 *   so a related record whose field is NULL counts as not matching.
 */
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { FilterNode, ForeignNode } from '../ast/nodes.js'
import type { DatasetDef } from '../catalog/define.js'
import { findRelation, primaryKeyColumn, resolveDataset } from '../catalog/index.js'
import { allOf, compiled, eb, negate, TRUE, type Compiled } from './compiled.js'
import type { CompileContext, Scope } from './scope.js'

export type CompileInner = (node: FilterNode, scope: Scope, ctx: CompileContext) => Compiled

/** The related rows of `target` for the row in `outer`, as a subquery with the filter applied. */
function relatedRows(outer: Scope, target: DatasetDef, n: number, where: Compiled): SelectQueryBuilder<any, any, any> {
  const relation = findRelation(outer.dataset.name, target.name)
  if (!relation) throw new Error(`compile: no relation from ${outer.dataset.name} to ${target.name} (the checker should have rejected it)`)
  const alias = `t${n}`
  let query: SelectQueryBuilder<any, any, any>
  if (relation.kind === 'direct') {
    query = eb
      .selectFrom(`${target.table} as ${alias}`)
      .whereRef(`${alias}.${relation.toColumn}`, '=', `${outer.alias}.${relation.fromColumn}`)
  } else {
    const link = `l${n}`
    query = eb
      .selectFrom(`${relation.table} as ${link}`)
      .innerJoin(`${target.table} as ${alias}`, `${alias}.${primaryKeyColumn(target)}`, `${link}.${relation.toKey}`)
      .whereRef(`${link}.${relation.fromKey}`, '=', `${outer.alias}.${primaryKeyColumn(outer.dataset)}`)
  }
  query = query.select(sql<number>`1`.as('one'))
  return where === TRUE ? query : query.where(where.expr)
}

export function compileForeign(node: ForeignNode, outer: Scope, ctx: CompileContext, inner: CompileInner): Compiled {
  const target = resolveDataset(node.dataset)
  if (!target) throw new Error(`compile: unknown dataset ${node.dataset} (the checker should have rejected it)`)
  const n = ctx.nextAlias()
  const scope: Scope = { dataset: target, alias: `t${n}` }
  const p = inner(node.filter, scope, ctx)
  const exists = (where: Compiled) => eb.exists(relatedRows(outer, target, n, where))
  switch (node.match) {
    case 'any':
      return compiled(exists(p), true)
    case 'none':
      return compiled(eb.not(exists(p)), true)
    case 'all':
      return allOf([compiled(exists(TRUE), true), compiled(eb.not(exists(negate(p))), true)])
  }
}
