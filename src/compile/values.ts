/**
 * @module How values reach SQL: always as bound parameters, lists as ONE JSON array parameter.
 */
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Scalar } from '../ast/nodes.js'
import { compiled, eb, type Compiled } from './compiled.js'
import type { ListElementKind } from './dialect.js'
import type { CompileContext } from './scope.js'

/** Booleans are stored as 0/1 on every backend (and better-sqlite3 cannot bind JS booleans). */
export function bindable(value: Scalar): string | number | null {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value
}

/** The values without repeats (by type and value), in first-seen order. */
export function distinctValues(values: readonly Scalar[]): Scalar[] {
  const seen = new Set<string>()
  return values.filter((v) => {
    const key = JSON.stringify(v)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * `column IN list`. One value is a plain `=` (the planner's best case); more are bound as one JSON
 * array, so a 10,000-value list is still one parameter. The list never holds NULL (normal form), so
 * the result is NULL only when the column is.
 */
export function valueIn(column: Expression<unknown>, values: readonly Scalar[], kind: ListElementKind, ctx: CompileContext, nullable = true): Compiled {
  const list = distinctValues(values).map(bindable)
  if (list.length === 0) return compiled(sql<SqlBool>`1 = 0`, true)
  if (list.length === 1) return compiled(eb(column, '=', list[0]), !nullable)
  return compiled(ctx.dialect.inList(column, JSON.stringify(list), kind), !nullable)
}
