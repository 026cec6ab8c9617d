/**
 * @module Sort order: the requested clauses in order, then the primary key as the final
 * tiebreaker (so the order is total and pages never overlap or skip), NULLs last in both
 * directions on both backends (`NULLS LAST` is SQL:2003; SQLite has it since 3.30; written only
 * where the backend's default differs, see `SqlDialect.nullsLastByDefault`).
 */
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely'
import { primaryKeyColumn } from '../catalog/index.js'
import type { CheckedQuery } from '../check/checked.js'
import type { SqlDialect } from './dialect.js'
import { ROOT_ALIAS } from './scope.js'

export interface SortKey {
  /** Public field name (for explain output and boundaries). */
  readonly field: string
  readonly column: string
  readonly direction: 'asc' | 'desc'
  readonly nullable: boolean
  /** Name of the key in the keys query's result rows (`k0`, `k1`, ...). */
  readonly alias: string
}

/** The effective order: the sort clauses, then the primary key unless it is already sorted on. */
export function sortKeys(query: Pick<CheckedQuery, 'dataset' | 'sort'>): readonly SortKey[] {
  const pk = primaryKeyColumn(query.dataset)
  const keys: Omit<SortKey, 'alias'>[] = []
  for (const clause of query.sort) {
    const column = clause.field.column
    if (!column) throw new Error(`compile: cannot sort on ${clause.field.name} (no column)`)
    // A repeated field adds nothing to the order after its first clause.
    if (keys.some((k) => k.column === column)) continue
    keys.push({ field: clause.field.name, column, direction: clause.direction, nullable: clause.field.nullable })
  }
  if (!keys.some((k) => k.column === pk)) keys.push({ field: query.dataset.primaryKey, column: pk, direction: 'asc', nullable: false })
  return Object.freeze(keys.map((k, i) => Object.freeze({ ...k, alias: `k${i}` })))
}

/** ORDER BY the keys, as columns of the root table, or (with `from`) as their aliases in relation `from`. */
export function applyOrder<Q extends SelectQueryBuilder<any, any, any>>(query: Q, keys: readonly SortKey[], dialect: SqlDialect, from?: string): Q {
  let q = query
  for (const key of keys) {
    const ref = sql.ref(from ? `${from}.${key.alias}` : `${ROOT_ALIAS}.${key.column}`)
    q = q.orderBy(ref, (ob) => {
      const directed = key.direction === 'asc' ? ob.asc() : ob.desc()
      return key.nullable && !dialect.nullsLastByDefault[key.direction] ? directed.nullsLast() : directed
    }) as Q
  }
  return q
}

/**
 * The same order as `applyOrder`, over the root table's columns, as SQL terms for a window's
 * `over (order by ...)`, which takes no query builder. Direction and NULL placement come from the
 * sort keys and the dialect, never from a request's text.
 */
export function orderTerms(keys: readonly SortKey[], dialect: SqlDialect): RawBuilder<unknown>[] {
  return keys.map((key) => {
    const nullsLast = key.nullable && !dialect.nullsLastByDefault[key.direction]
    return sql`${sql.ref(`${ROOT_ALIAS}.${key.column}`)} ${sql.raw(key.direction === 'asc' ? 'asc' : 'desc')}${sql.raw(nullsLast ? ' nulls last' : '')}`
  })
}
