/**
 * @module What every filter node compiles to, and the one negation rule of the compiler.
 *
 * Null-safe negation (grammar-docs/language.md, "Negation"): `Not(P)` must select exactly the
 * records `P` does not, also where fields are NULL, on both backends. SQL's `NOT` is three-valued
 * (`NOT (NULL = 1)` is NULL, which WHERE drops), so a plain `NOT` would lose the NULL rows. We
 * negate with `(P) IS NOT TRUE`, which is TRUE for FALSE and for NULL, on SQLite (3.23+) and on
 * PostgreSQL alike. Positive predicates stay as they are (WHERE already treats NULL as false, and
 * the plain forms keep their indexes). Each compiled predicate records whether it can be NULL at
 * all (`twoValued`); when it cannot (EXISTS, IN over a non-null subquery, IS NULL, a non-nullable
 * column) plain `NOT` is already exact and reads better, so we use that.
 */
import { expressionBuilder, sql, type Expression, type SqlBool } from 'kysely'

export interface Compiled {
  readonly expr: Expression<SqlBool>
  /** True when `expr` is never NULL, so `NOT expr` is its exact complement. */
  readonly twoValued: boolean
  /**
   * The exact complement of `expr` (true where `expr` is false or NULL) where the backend plans it
   * better than a negation (`SqlDialect.notInKeys`); `negate` uses it when present.
   */
  readonly complement?: Expression<SqlBool>
}

export const eb = expressionBuilder<any, any>()

export const compiled = (expr: Expression<SqlBool>, twoValued: boolean, complement?: Expression<SqlBool>): Compiled =>
  Object.freeze(complement ? { expr, twoValued, complement } : { expr, twoValued })

export const TRUE: Compiled = compiled(sql<SqlBool>`1 = 1`, true)
export const FALSE: Compiled = compiled(sql<SqlBool>`1 = 0`, true)

/** The exact complement of `p` (see the module comment). Always two-valued. */
export function negate(p: Compiled): Compiled {
  // The complement of the complement is `p` itself only where `p` is never NULL.
  if (p.complement) return compiled(p.complement, true, p.twoValued ? p.expr : undefined)
  return p.twoValued ? compiled(sql<SqlBool>`not (${p.expr})`, true) : compiled(sql<SqlBool>`(${p.expr}) is not true`, true)
}

export function allOf(parts: readonly Compiled[]): Compiled {
  if (parts.length === 0) return TRUE
  if (parts.length === 1) return parts[0]!
  return compiled(eb.and(parts.map((p) => p.expr)), parts.every((p) => p.twoValued))
}

export function anyOf(parts: readonly Compiled[]): Compiled {
  if (parts.length === 0) return FALSE
  if (parts.length === 1) return parts[0]!
  return compiled(eb.or(parts.map((p) => p.expr)), parts.every((p) => p.twoValued))
}
