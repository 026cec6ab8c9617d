/**
 * @module Where the record lookups' statements run: a session over one database, SQLite or
 * PostgreSQL, that runs query shapes (`query-shape.ts`) and groups reads into a snapshot. The
 * lookups are written once against it; this file is the only one that knows which backend it has,
 * as a Kysely dialect's driver is.
 *
 * - SQLite: the compiled SQL runs on the connection's better-sqlite3 handle through the
 *   per-connection statement cache (`prepared`), synchronously, as the hand-written lookups did.
 *   Going through Kysely's driver instead (its connection lock and promises) cost ~2 µs more per
 *   statement, a quarter more on a company detail's dozen 3 µs statements.
 * - PostgreSQL: through Kysely (`executeQuery`), so the pool, the connection handling and the
 *   cancellation of calls given up on are the engine's own. Statements a lookup issues together
 *   (`Promise.all`) run on several pooled connections at once.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type Kysely } from 'kysely'
import type { SqlDialect } from '../compile/dialect.js'
import { DIALECTS } from '../compile/index.js'
import type { PostgresVentureDb, SqliteVentureDb, VentureDb } from '../store/open.js'
import { prepared } from '../store/sql-names.js'
import { prepareByName } from '../store/named-statements.js'
import { LiteralLimits, withLiteralLimit } from '../execute/statements.js'
import type { BatchPart, QueryBatch, QueryShape } from './query-shape.js'

/**
 * Plucking statements per connection, apart from `prepared`'s: the mode belongs to the statement,
 * and a statement shared with object reads would hand them bare values.
 */
const plucking = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>()
/** Statements in raw mode (rows as arrays), per connection, for the same reason. */
const arrays = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>()

function modeStatement(cache: typeof plucking, mode: 'pluck' | 'raw', sqlite: BetterSqlite3.Database, sqlText: string): BetterSqlite3.Statement {
  let byText = cache.get(sqlite)
  if (!byText) cache.set(sqlite, (byText = new Map()))
  let statement = byText.get(sqlText)
  if (!statement) byText.set(sqlText, (statement = mode === 'pluck' ? sqlite.prepare(sqlText).pluck() : sqlite.prepare(sqlText).raw()))
  return statement
}

export interface RecordSession {
  readonly dialect: SqlDialect
  /** Every row of the shape for `params`. */
  all<P extends object, R>(shape: QueryShape<P, R>, params: P): Promise<R[]>
  /**
   * The values of the shape's one column, for `params`. On SQLite this skips making an object of
   * every row, which cost three times as much as the read for the 17,000 postings of a common tag.
   */
  column<P extends object, R extends object>(shape: QueryShape<P, R>, params: P): Promise<R[keyof R][]>
  /**
   * Every row as an array of its values in the shape's column order: cheaper than objects for
   * thousands of narrow rows (the tags of 500 candidate companies: ~30% of the read).
   */
  rows<P extends object>(shape: QueryShape<P, unknown>, params: P): Promise<unknown[][]>
  /**
   * The rows of every part of `batch` for `params`, all seeing one state of the database: one
   * statement where the dialect has `jsonRows` (PostgreSQL: one round trip instead of one per
   * part), else each part in turn, back to back (SQLite: synchronous statements).
   */
  batch<P extends object, S extends Record<string, BatchPart<P, unknown>>>(batch: QueryBatch<P, S>, params: P): Promise<QueryBatch<P, S>['rows']>
  /** The first row, or undefined when there is none. */
  first<P extends object, R>(shape: QueryShape<P, R>, params: P): Promise<R | undefined>
  /**
   * Runs `read` with a session whose statements all see one state of the database (the dialect's
   * `snapshot`), so the parts of a record agree with each other while an import writes. `read`
   * reads through the session it is given only: on SQLite the transaction holds Kysely's
   * connection lock, which a Kysely call of its own would wait for forever.
   */
  snapshot<T>(read: (session: RecordSession) => Promise<T>): Promise<T>
}

const sessions = new WeakMap<VentureDb, RecordSession>()

/** The session of a database (one per database object, kept). */
export function recordSession(vdb: VentureDb): RecordSession {
  let session = sessions.get(vdb)
  if (!session) sessions.set(vdb, (session = vdb.dialect === 'sqlite' ? sqliteSession(vdb) : postgresSession(vdb)))
  return session
}

function sqliteSession(vdb: SqliteVentureDb): RecordSession {
  const { sqlite } = vdb
  const dialect = DIALECTS.sqlite
  // Trailing limits written as numbers (execute/statements.ts). The session runs query shapes only,
  // a fixed set, so the limits of every one are followed for good: its statement caches (`prepared`,
  // `modeStatement`) keep every text, and a statement forgotten and seen again must not get
  // another `LIMITS_PER_STATEMENT` texts.
  const limits = new LiteralLimits()
  const session: RecordSession = {
    dialect,
    async all(shape, params) {
      const { sql, parameters } = withLiteralLimit(limits, shape.bind('sqlite', params))
      return prepared(sqlite, sql).all(...parameters) as never
    },
    async column(shape, params) {
      const { sql, parameters } = withLiteralLimit(limits, shape.bind('sqlite', params))
      return modeStatement(plucking, 'pluck', sqlite, sql).all(...parameters) as never
    },
    async rows(shape, params) {
      const { sql, parameters } = withLiteralLimit(limits, shape.bind('sqlite', params))
      return modeStatement(arrays, 'raw', sqlite, sql).all(...parameters) as unknown[][]
    },
    async first(shape, params) {
      const { sql, parameters } = withLiteralLimit(limits, shape.bind('sqlite', params))
      return prepared(sqlite, sql).get(...parameters) as never
    },
    async batch(batch, params) {
      // Every part is read before the first await resolves: the statements are synchronous, so
      // they run back to back and nothing (an import in this process) writes between them.
      const parts = Object.entries(batch.parts).map(([key, part]) => [key, session.all(part.shape, part.params(params))] as const)
      return Object.fromEntries(await Promise.all(parts.map(async ([key, rows]) => [key, await rows]))) as never
    },
    snapshot(read) {
      // Already in a transaction (a caller's): its reads see one state already, and SQLite has no
      // nested BEGIN.
      if (sqlite.inTransaction) return read(session)
      // Through Kysely, whose connection lock keeps its other statements on this connection (a
      // quota count, a cache write) out of the transaction until it ends.
      return dialect.snapshot(vdb.db).execute(() => read(session))
    },
  }
  return Object.freeze(session)
}

function postgresSession(vdb: PostgresVentureDb): RecordSession {
  const dialect = DIALECTS.postgres
  const over = (db: Kysely<any>, inSnapshot: boolean): RecordSession => {
    // A batch is lookups by key, planned the same whatever the values: prepared once per connection.
    const run = async (shape: QueryShape<object, unknown>, params: object, prepared = false) => {
      const { sql, parameters } = shape.bind('postgres', params)
      if (prepared) prepareByName(sql)
      return (await db.executeQuery(CompiledQuery.raw(sql, [...parameters]))).rows
    }
    const session: RecordSession = {
      dialect,
      all: async (shape, params) => (await run(shape as QueryShape<object, unknown>, params)) as never,
      column: async (shape, params) => (await run(shape as QueryShape<object, unknown>, params)).map((row) => Object.values(row as object)[0]) as never,
      // The driver's rows keep the select list's order (no two columns share a name in a shape).
      rows: async (shape, params) => (await run(shape as QueryShape<object, unknown>, params)).map((row) => Object.values(row as object)),
      first: async (shape, params) => (await run(shape as QueryShape<object, unknown>, params))[0] as never,
      batch: async (batch, params) => {
        const row = (await run(batch.combined as QueryShape<object, unknown>, params, true))[0] as Record<string, unknown[] | null>
        return Object.fromEntries(Object.keys(batch.parts).map((key) => [key, row[key] ?? []])) as never
      },
      snapshot: (read) => (inSnapshot ? read(session) : dialect.snapshot(db).execute((trx) => read(over(trx, true)))),
    }
    return Object.freeze(session)
  }
  return over(vdb.db, false)
}
