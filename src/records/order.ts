/**
 * @module ORDER BY modifiers the record lookups share.
 */
import type { OrderByDirection, OrderByModifiers } from 'kysely'
import type { SqlDialect } from '../compile/dialect.js'

/**
 * `direction` with NULLs last, writing `NULLS LAST` only where the backend would not put them last
 * by itself (`dialect.nullsLastByDefault`): SQLite then keeps walking an index in its order instead
 * of sorting (see `dialect.ts`), and both backends return the same order.
 */
export function nullsLast(dialect: SqlDialect, direction: OrderByDirection): OrderByModifiers {
  if (dialect.nullsLastByDefault[direction]) return direction
  return (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast()
}
