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

/**
 * The entry of `key` in a cache kept in least-recently-used order, made if missing; past `max`
 * entries the least recently used goes. A Map iterates in insertion order, so a used entry is
 * re-inserted and the first key is the least recently used.
 */
function recentlyUsed<V>(cache: Map<string, V>, key: string, max: number, make: () => V): V {
  const known = cache.get(key)
  if (known !== undefined) {
    cache.delete(key)
    cache.set(key, known)
    return known
  }
  const made = make()
  cache.set(key, made)
  if (cache.size > max) cache.delete(cache.keys().next().value as string)
  return made
}

function rawStatement(sqlite: NonNullable<ExecContext['sqlite']>, sql: string): RawStatement {
  let cache = rawStatements.get(sqlite)
  if (!cache) rawStatements.set(sqlite, (cache = new Map()))
  return recentlyUsed(cache, sql, RAW_STATEMENTS_PER_HANDLE, () => {
    const statement = sqlite.prepare(sql).raw(true)
    return { statement, columns: Object.freeze(statement.columns().map((c) => c.name)) }
  })
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
    const { sql, parameters } = withLiteralLimit(sqlite, query)
    const { statement, columns } = rawStatement(sqlite, sql)
    return { columns, rows: statement.all(...parameters) as unknown[][] }
  }
  const { rows } = await ctx.db.executeQuery<Record<string, unknown>>(query)
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : []
  return { columns, rows: rows.map((r) => columns.map((c) => r[c])) }
}

const TRAILING_LIMIT = ' limit ?'

/** Most limits written as numbers per statement (see `withLiteralLimit`); other limits stay bound. */
const LIMITS_PER_STATEMENT = 32
/** Most statements whose limits are tracked per handle, least recently used out. */
const STATEMENTS_WITH_LIMITS = 256

const literalLimits = new WeakMap<object, Map<string, Set<number>>>()

/**
 * On SQLite, a statement's trailing `limit ?` written as the number itself. With the SQLite that
 * better-sqlite3 bundles (3.51.2), a statement whose LIMIT is bound costs about what preparing it
 * costs, on every run, even with the same value: the owner count's probe took 28-32 µs with
 * `limit ?` against 8-11 µs with `limit 2`, and the suite's first-page keys statements 1.02-1.47x
 * their literal form (`bench/literal-limit.ts`). (SQLite's planner reads a bound LIMIT's value,
 * so binding it again expires the statement; that is our reading of the source, the timings are
 * what was measured.)
 * A limit is a whole number the engine chose (page size plus one, a search's hits), so it is safe
 * as text. Each distinct limit is a statement of its own in the caller's statement cache, so only
 * the first `LIMITS_PER_STATEMENT` limits of a statement are written out per handle; a statement
 * whose limit keeps changing (similar companies' postings budget) keeps binding the rest. Only the
 * outermost, trailing limit, which is the statement's last parameter; an offset stays bound.
 */
export function withLiteralLimit<Q extends { readonly sql: string; readonly parameters: readonly unknown[] }>(handle: object, query: Q): Q | { readonly sql: string; readonly parameters: readonly unknown[] } {
  const { sql, parameters } = query
  if (!sql.endsWith(TRAILING_LIMIT) || parameters.length === 0) return query
  const limit = parameters[parameters.length - 1]
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) return query
  let byStatement = literalLimits.get(handle)
  if (!byStatement) literalLimits.set(handle, (byStatement = new Map()))
  const limits = recentlyUsed(byStatement, sql, STATEMENTS_WITH_LIMITS, () => new Set<number>())
  if (!limits.has(limit)) {
    if (limits.size >= LIMITS_PER_STATEMENT) return query
    limits.add(limit)
  }
  return { sql: `${sql.slice(0, -1)}${limit}`, parameters: parameters.slice(0, -1) }
}

/**
 * A statement prepared once per limit, its LIMIT written as a number (see `withLiteralLimit`), for
 * statements prepared by hand. `prepare` receives the limit as a whole number.
 */
export function statementPerLimit<S>(prepare: (limit: number) => S): (limit: number) => S {
  const byLimit = new Map<number, S>()
  return (limit) => {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`execute: a limit is a whole number, got ${String(limit)}`)
    let statement = byLimit.get(limit)
    if (statement === undefined) {
      // Beyond the kept limits, prepared for this call alone (what a bound limit costs anyway).
      statement = prepare(limit)
      if (byLimit.size < LIMITS_PER_STATEMENT) byLimit.set(limit, statement)
    }
    return statement
  }
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
