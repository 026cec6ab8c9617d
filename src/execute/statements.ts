/**
 * @module Running statements compiled once (their SQL text fixed, only their bound parameters
 * changing from call to call) without going back through Kysely's query builder and executor.
 *
 * A page's statements have few shapes, and building and compiling them through Kysely on every
 * call, then running them through its executor (a connection mutex and several promise hops),
 * cost a large part of the engine's fixed cost per page: on 1,000,000 companies the first-page
 * keys statement of `/fundings?funding_date_range=2020` took 0.28 ms through Kysely against
 * 0.20 ms run directly, the cached-total lookup 0.030 ms against 0.004 ms (issue 9).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery } from 'kysely'
import type { SqlDialect } from '../compile/dialect.js'
import type { QueryShape } from '../records/query-shape.js'
import type { ExecContext } from './context.js'

/** Rows as arrays, in the order of `columns`. */
export interface RowArrays {
  readonly columns: readonly string[]
  readonly rows: readonly (readonly unknown[])[]
}

/**
 * Raw-mode statements kept per SQLite handle, by SQL text, least recently used out: one per query
 * shape (plans are memoised per request, so a client that sends many shapes only costs a prepare
 * per shape that has fallen out). The same bound as the handle's own statement cache (store/open.ts).
 */
export const RAW_STATEMENTS_PER_HANDLE = 256

interface RawStatement {
  readonly statement: BetterSqlite3.Statement
  readonly columns: readonly string[]
}

const rawStatements = new WeakMap<object, Map<string, RawStatement>>()

function rawStatement(sqlite: NonNullable<ExecContext['sqlite']>, sql: string): RawStatement {
  let cache = rawStatements.get(sqlite)
  if (!cache) rawStatements.set(sqlite, (cache = new Map()))
  const known = cache.get(sql)
  if (known) {
    // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
    cache.delete(sql)
    cache.set(sql, known)
    return known
  }
  const statement = sqlite.prepare(sql).raw(true)
  const prepared = { statement, columns: Object.freeze(statement.columns().map((c) => c.name)) }
  cache.set(sql, prepared)
  if (cache.size > RAW_STATEMENTS_PER_HANDLE) cache.delete(cache.keys().next().value as string)
  return prepared
}

/**
 * A compiled query's rows as arrays, with their column names. On SQLite the statement runs in
 * better-sqlite3's raw mode, which builds no object per row: reading a 50-company page (50
 * columns) took 0.21 ms that way against 0.47 ms as objects (1,000,000 companies). Elsewhere the
 * driver's objects are laid out as arrays (no rows: no columns either).
 *
 * On SQLite it runs on the handle directly, not behind Kysely's connection mutex: better-sqlite3
 * is synchronous, so the statement runs whole between two awaits of any other call on the handle.
 */
export async function readRows(ctx: Pick<ExecContext, 'db' | 'sqlite'>, query: CompiledQuery): Promise<RowArrays> {
  const sqlite = ctx.sqlite
  if (sqlite) {
    const { statement, columns } = rawStatement(sqlite, query.sql)
    return { columns, rows: statement.all(...query.parameters) as unknown[][] }
  }
  const { rows } = await ctx.db.executeQuery<Record<string, unknown>>(query)
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : []
  return { columns, rows: rows.map((r) => columns.map((c) => r[c])) }
}

/** `query` with other values for its parameters (same SQL text, same number of parameters). */
export function withParameters(query: CompiledQuery, parameters: readonly unknown[]): CompiledQuery {
  if (parameters.length !== query.parameters.length) throw new Error(`execute: ${parameters.length} parameters for a statement that takes ${query.parameters.length}`)
  return Object.freeze({ ...query, parameters: Object.freeze([...parameters]) })
}

/** A query shape's statement for `dialect` with `params` bound, as `readRows` and `writeCache` take it. */
export function boundQuery<P extends object>(dialect: SqlDialect, shape: QueryShape<P, unknown>, params: P): CompiledQuery {
  const { sql, parameters } = shape.bind(dialect.name, params)
  return CompiledQuery.raw(sql, [...parameters])
}
