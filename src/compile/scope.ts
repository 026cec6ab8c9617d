/**
 * @module Table aliases. The dataset in scope at the top is `t0`; each `foreign` opens a
 * subquery (a correlated EXISTS or an uncorrelated set, see `relations.ts`) with a fresh alias
 * (`t1`, `t2`, ... and `l1`, ... for its link table), so a nested filter on the same dataset as an
 * outer one never captures the outer table's columns.
 */
import { sql, type Expression, type SelectQueryBuilder } from 'kysely'
import type { FilterNode } from '../ast/nodes.js'
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { primaryKeyColumn } from '../catalog/index.js'
import type { SqlDialect } from './dialect.js'

export interface Scope {
  readonly dataset: DatasetDef
  readonly alias: string
  /**
   * Inside a `foreign` over a link table: the link table's column holding this scope's primary
   * key, used in place of `alias.pk`, and a count of the other columns of `alias` the filter
   * reads. When it reads none, the subquery needs no join to the target table (`relations.ts`).
   */
  readonly viaLink?: { readonly keyColumn: string; columnsRead: number }
  /**
   * Inside a `foreign` compiled as a correlated EXISTS: the subquery runs once per outer row, so a
   * set membership here must filter the row, never drive the subquery from the set (which would
   * repeat a scan of the whole set per outer row, see `SqlDialect.correlatedKey`). Inside an
   * uncorrelated set the subquery runs once, and driving from a small inner set is the point.
   */
  readonly correlated?: boolean
}

export interface CompileContext {
  readonly dialect: SqlDialect
  /** Hands out the next nesting number for a `foreign` subquery's aliases. */
  readonly nextAlias: () => number
  /**
   * Set when compiling for a walk of the first sort key's index (see `steer.ts`): the top-level
   * columns other than `column` (and tags probes of the top-level table) are marked so the planner
   * cannot drive the scan from them, leaving the sort index as its only access path.
   */
  readonly sortWalk?: { readonly column: string; readonly unindexed: (e: Expression<unknown>) => Expression<unknown> }
  /**
   * How many `foreign` conditions the filter has at the top level (not inside another `foreign`),
   * after merging siblings (`check/foreign-plan.ts`): past a few, none is a correlated EXISTS
   * (`relations.ts`, `MAX_CORRELATED`).
   */
  readonly rootForeigns: number
  /**
   * When present, the sets of `foreign` (`relations.ts`) are hoisted into this list, in the order
   * they may reference each other, for the statement to compute each once as a common table
   * expression, and `setNames` tells which `foreign` node's keys each holds. Absent, sets are
   * inline subqueries, so the WHERE expression stands on its own (`compileFilter`).
   */
  readonly sets?: HoistedSet[]
  readonly setNames?: Map<FilterNode, string>
  /**
   * Every `foreign` not pinned becomes a set, none a correlated probe (`relations.ts`): for
   * statements that count from the set rather than test each row (`QueryPlan.complementCount`).
   */
  readonly preferSets?: boolean
}

/** The keys of one set, `select k ...`, to be computed once as the common table expression `name`. */
export interface HoistedSet {
  readonly name: string
  readonly keys: SelectQueryBuilder<any, any, any>
}

export function createContext(dialect: SqlDialect, sortWalk?: CompileContext['sortWalk'], rootForeigns = 0, hoistSets = false, preferSets = false): CompileContext {
  let n = 0
  return Object.freeze({
    dialect,
    nextAlias: () => ++n,
    rootForeigns,
    ...(preferSets ? { preferSets } : {}),
    ...(sortWalk ? { sortWalk } : {}),
    ...(hoistSets ? { sets: [], setNames: new Map<FilterNode, string>() } : {}),
  })
}

export const ROOT_ALIAS = 't0'

/** A column of the table in scope; the name comes from the catalog only. */
export function columnRef(scope: Scope, column: string): Expression<unknown> {
  if (scope.viaLink) {
    if (column === primaryKeyColumn(scope.dataset)) return sql.ref(scope.viaLink.keyColumn)
    scope.viaLink.columnsRead++
  }
  return sql.ref(`${scope.alias}.${column}`)
}

export function fieldColumn(scope: Scope, field: FieldDef, ctx?: CompileContext): Expression<unknown> {
  if (!field.column) throw new Error(`compile: ${scope.dataset.name}.${field.name} has no column (a tags field used as a scalar)`)
  const ref = columnRef(scope, field.column)
  const walk = ctx?.sortWalk
  return walk && scope.alias === ROOT_ALIAS && field.column !== walk.column ? walk.unindexed(ref) : ref
}

/**
 * Whether the rows of `scope` are reached one at a time and a set membership on them must filter
 * rather than drive: the top-level table in a walk of the sort index (`steer.ts`), and the rows of a
 * correlated EXISTS.
 */
export function probedRowByRow(scope: Scope, ctx: CompileContext): boolean {
  return scope.correlated === true || (scope.alias === ROOT_ALIAS && ctx.sortWalk !== undefined)
}

export function primaryKeyRef(scope: Scope): Expression<unknown> {
  return columnRef(scope, primaryKeyColumn(scope.dataset))
}
