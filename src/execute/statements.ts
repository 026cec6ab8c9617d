/**
 * @module Running statements compiled once (their SQL text fixed, only their bound parameters
 * changing from call to call) without going back through Kysely's query builder and executor.
 *
 * A page's statements have few shapes, and building and compiling them through Kysely on every
 * call, then running them through its executor (a connection mutex and several promise hops), is
 * a large part of the engine's fixed cost per page (the suite's page-1 rows, `npm run bench`).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type Compilable, type Kysely } from 'kysely'
import { LRUCache } from 'lru-cache'
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

const rawStatements = new WeakMap<object, LRUCache<string, RawStatement>>()

/** The entry of `key` in `cache`, made and kept if missing (`cache` drops its least recently used). */
function recentlyUsed<V extends {}>(cache: KeyedCache<V>, key: string, make: () => V): V {
  const known = cache.get(key)
  if (known !== undefined) return known
  const made = make()
  cache.set(key, made)
  return made
}

/** What `recentlyUsed` needs of a cache: an `LRUCache`, or a plain Map for a fixed set of keys. */
interface KeyedCache<V> {
  get(key: string): V | undefined
  set(key: string, value: V): unknown
}

function rawStatement(sqlite: NonNullable<ExecContext['sqlite']>, sql: string): RawStatement {
  let cache = rawStatements.get(sqlite)
  if (!cache) rawStatements.set(sqlite, (cache = new LRUCache({ max: RAW_STATEMENTS_PER_HANDLE })))
  return recentlyUsed<RawStatement>(cache, sql, () => {
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
    let limits = readRowsLimits.get(sqlite)
    if (!limits) readRowsLimits.set(sqlite, (limits = new LiteralLimits(RAW_STATEMENTS_PER_HANDLE)))
    const { sql, parameters } = withLiteralLimit(limits, query)
    const { statement, columns } = rawStatement(sqlite, sql)
    return { columns, rows: statement.all(...parameters) as unknown[][] }
  }
  const { rows } = await ctx.db.executeQuery<Record<string, unknown>>(query)
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : []
  return { columns, rows: rows.map((r) => columns.map((c) => r[c])) }
}

const TRAILING_LIMIT = ' limit ?'

/** Most limits of one statement written as numbers (see `withLiteralLimit`); its other limits stay bound. */
export const LIMITS_PER_STATEMENT = 8

/**
 * Which limits of which statements are written as numbers, for one statement cache: each such
 * limit is a statement text of its own in that cache, so this bounds what one statement can take
 * of it (`LIMITS_PER_STATEMENT` texts and the bound form). It follows at most `maxStatements`
 * statements, least recently used out; a statement dropped and seen again starts counting afresh,
 * so `maxStatements` must be at least what its cache keeps, or unbounded for a cache whose
 * statements are a fixed set (the record session's query shapes).
 */
export class LiteralLimits {
  /** Per statement text, its limits written out and the text for each (made once: no string built per call). */
  readonly #byStatement: KeyedCache<Map<number, string>>

  constructor(maxStatements = Number.POSITIVE_INFINITY) {
    // lru-cache wants a bound; an unbounded one follows a fixed set of statements, so a Map does.
    this.#byStatement = Number.isFinite(maxStatements) ? new LRUCache({ max: maxStatements }) : new Map()
  }

  /** The text of `sql` (ending in ` limit ?`) with `limit` written out, or undefined when that limit stays bound. */
  literalText(sql: string, limit: number): string | undefined {
    const texts = recentlyUsed(this.#byStatement, sql, () => new Map<number, string>())
    let text = texts.get(limit)
    if (text === undefined && texts.size < LIMITS_PER_STATEMENT) texts.set(limit, (text = `${sql.slice(0, -1)}${limit}`))
    return text
  }
}

/** readRows' limits per SQLite handle, following as many statements as its raw statement cache keeps. */
const readRowsLimits = new WeakMap<object, LiteralLimits>()

/**
 * On SQLite, a statement's trailing `limit ?` written as the number itself. With the SQLite that
 * better-sqlite3 bundles (3.51.2), a statement whose LIMIT is bound costs about what preparing it
 * costs, on every run, even with the same value (the suite's page-1 rows time the literal form, `npm run bench`).
 * SQLite's planner reads a bound LIMIT's value, so binding it again expires the statement; that is
 * our reading of SQLite, the timings are what the bench measures.
 *
 * Only a number that passes `Number.isSafeInteger` and is not negative is written into the SQL;
 * anything else (a string, a bigint, a fraction) stays bound. The page size comes from the client,
 * so that check is what makes the text safe. The rewritten `?` is the text's last one, which is the
 * last parameter; a text ending in ` limit ?` is a statement whose own LIMIT comes last (an offset
 * after it, or a limit inside a subquery, ends the text otherwise and is left alone). Which limits
 * are written out is up to `limits` (`LiteralLimits`): the first `LIMITS_PER_STATEMENT` of each
 * statement, so a statement whose limit keeps changing (similar companies' postings budget, a deep
 * page's offset plus its size) binds the rest, as before.
 */
export function withLiteralLimit<Q extends { readonly sql: string; readonly parameters: readonly unknown[] }>(limits: LiteralLimits, query: Q): Q | { readonly sql: string; readonly parameters: readonly unknown[] } {
  const { sql, parameters } = query
  if (!sql.endsWith(TRAILING_LIMIT) || parameters.length === 0) return query
  const limit = parameters[parameters.length - 1]
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) return query
  const text = limits.literalText(sql, limit)
  return text === undefined ? query : { sql: text, parameters: parameters.slice(0, -1) }
}

/** A hand-prepared statement whose trailing LIMIT is written as a number where it can be (`limitedStatement`). */
export interface LimitedStatement {
  /** Every row for `params`, at most `limit` of them. */
  all(limit: number, ...params: unknown[]): unknown[]
}

/**
 * For statements prepared by hand (search): `prepare` gets the LIMIT's text, a number or `?`. The
 * first `LIMITS_PER_STATEMENT` limits each get a statement with the number written out (see
 * `withLiteralLimit`); any other limit runs on one statement with the limit bound, as before.
 */
export function limitedStatement(prepare: (limit: string) => { all(...params: unknown[]): unknown[] }): LimitedStatement {
  return limited(prepare, '?', (params, limit) => [...params, limit])
}

/**
 * `limitedStatement` for a statement with named parameters (one object) and possibly several
 * LIMITs, all of the same value: the bound form's LIMITs are `@limit`, added to the object.
 */
export function namedLimitedStatement(prepare: (limit: string) => { all(...params: unknown[]): unknown[] }): NamedLimitedStatement {
  return limited(prepare, '@limit', (params, limit) => [{ ...(params[0] as object), limit }])
}

/** A `namedLimitedStatement`: `all(limit, { name: value, ... })`. */
export interface NamedLimitedStatement {
  all(limit: number, params: Readonly<Record<string, unknown>>): unknown[]
}

function limited(prepare: (limit: string) => { all(...params: unknown[]): unknown[] }, boundText: string, bind: (params: unknown[], limit: number) => unknown[]): LimitedStatement {
  const byLimit = new Map<number, { all(...params: unknown[]): unknown[] }>()
  let bound: { all(...params: unknown[]): unknown[] } | undefined
  return Object.freeze({
    all(limit: number, ...params: unknown[]): unknown[] {
      if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`execute: a limit is a whole number, got ${String(limit)}`)
      let statement = byLimit.get(limit)
      if (statement === undefined && byLimit.size < LIMITS_PER_STATEMENT) byLimit.set(limit, (statement = prepare(String(limit))))
      if (statement !== undefined) return statement.all(...params)
      bound ??= prepare(boundText)
      return bound.all(...bind(params, limit))
    },
  })
}

/** `query` with other values for its parameters (same SQL text, same number of parameters). */
export function withParameters(query: CompiledQuery, parameters: readonly unknown[]): CompiledQuery {
  if (parameters.length !== query.parameters.length) throw new Error(`execute: ${parameters.length} parameters for a statement that takes ${query.parameters.length}`)
  return Object.freeze({ ...query, parameters: Object.freeze([...parameters]) })
}

/** SQLite's answer to a statement that names an index the database does not have (now). */
export function isMissingIndex(error: unknown): boolean {
  return error instanceof Error && /\bno such index\b/.test(error.message)
}

/** A statement compiled once whose numbers are parameters: per parameter, the index of its number, or undefined for a value of its own. */
interface NumbersTemplate {
  readonly compiled: CompiledQuery
  readonly slots: readonly (number | undefined)[]
}

const numbersTemplates = new WeakMap<object, WeakMap<object, Map<string, NumbersTemplate | null>>>()

/** Numbers no statement is built with otherwise (limits far above any request's), two apart per position. */
const templateNumber = (set: 0 | 1, i: number) => 2_000_000_011 + 2 * i + set

/**
 * `build(...numbers)` compiled, through Kysely once per Kysely instance, `owner` (a plan: its
 * filter's values never change) and `name`, then reused with other numbers put in. Building and
 * compiling a probe through Kysely cost more than running it (a first page without its total:
 * `npx tsx bench/facets.ts`, the `total=none ... (first)` rows). Where each number is shown to be
 * a parameter of its own (compiled with two sets of numbers no request uses, which must differ in
 * exactly those parameters), the template is kept; otherwise the statement is compiled per call.
 */
export function withNumbers(db: Kysely<any>, owner: object, name: string, build: (...numbers: number[]) => Compilable, numbers: readonly number[]): CompiledQuery {
  let perOwner = numbersTemplates.get(db)
  if (!perOwner) numbersTemplates.set(db, (perOwner = new WeakMap()))
  let byName = perOwner.get(owner)
  if (!byName) perOwner.set(owner, (byName = new Map()))
  let template = byName.get(name)
  if (template === undefined) {
    template = numbersTemplateOf(build, numbers.length)
    byName.set(name, template)
  }
  if (template === null) return build(...numbers).compile()
  const { compiled, slots } = template
  return withParameters(compiled, compiled.parameters.map((value, i) => (slots[i] === undefined ? value : numbers[slots[i]!])))
}

function numbersTemplateOf(build: (...numbers: number[]) => Compilable, count: number): NumbersTemplate | null {
  const set = (s: 0 | 1) => Array.from({ length: count }, (_, i) => templateNumber(s, i))
  const a = build(...set(0)).compile()
  const b = build(...set(1)).compile()
  if (a.sql !== b.sql || a.parameters.length !== b.parameters.length) return null
  const slots: (number | undefined)[] = []
  const seen = new Set<number>()
  for (let i = 0; i < a.parameters.length; i++) {
    const u = a.parameters[i]
    const v = b.parameters[i]
    const slot = typeof u === 'number' && (u - 2_000_000_011) % 2 === 0 ? (u - 2_000_000_011) / 2 : -1
    if (slot >= 0 && slot < count && v === templateNumber(1, slot)) {
      slots.push(slot)
      seen.add(slot)
    } else if (u === v && !(typeof u === 'number' && u >= 2_000_000_011 && u < templateNumber(0, count))) {
      slots.push(undefined)
    } else {
      return null
    }
  }
  // Every number is somewhere in the statement, or it was not built from them as a parameter.
  return seen.size === count ? { compiled: a, slots } : null
}

/** A query shape's statement for `dialect` with `params` bound, as `readRows` and `writeCache` take it. */
export function boundQuery<P extends object>(dialect: SqlDialect, shape: QueryShape<P, unknown>, params: P): CompiledQuery {
  const { sql, parameters } = shape.bind(dialect.name, params)
  return CompiledQuery.raw(sql, [...parameters])
}
