/**
 * @module Opening a database: better-sqlite3 under a Kysely `SqliteDialect`, with the pragmas the
 * engine relies on (WAL so readers never block the writer, NORMAL sync, a busy timeout), the state
 * file attached (`state-file.ts`: keys, quotas, stored queries and caches beside the data) and the
 * migrations applied. `dataVersion` is the counter every ingest bumps; stored-query totals and
 * page boundaries are cached per data version.
 */
import Database from 'better-sqlite3'
import type BetterSqlite3 from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import type { BetterSqliteDatabase, PgClient } from './driver-types.js'
import { applyMigrationsSync } from './migrations.js'
import { recordCompleteOwnersSync } from './owner-integrity.js'
import { DATA_VERSION_KEY, META_TABLE, VERSIONED_CACHE_TABLES } from './schema/stored-query-tables.js'
import { restoreDeferredIndexes } from './indexes.js'
import { attachStateFile, settleStateTables, stateFileProblem, type AttachedStateFile } from './state-file.js'

/** A SQLite database: Kysely plus the raw better-sqlite3 handle that ingest and record lookups use. */
export interface SqliteVentureDb {
  readonly db: Kysely<any>
  /** The better-sqlite3 `Database` (its type restated in store/driver-types.ts). */
  readonly sqlite: BetterSqliteDatabase
  readonly dialect: 'sqlite'
  /** Opened read-only: nothing may be written (the engine then skips its caches and does not store queries). */
  readonly readonly: boolean
  /** The attached state file (`<file>-state`, state-file.ts); absent in memory, and read-only without one. */
  readonly stateFile?: SqliteStateFile
  close(): Promise<void>
}

/** The state file of an open SQLite database. */
export interface SqliteStateFile {
  readonly path: string
  /** What `newState` did at open (an empty file created, a refused one set aside); undefined when nothing. */
  readonly recovered: string | undefined
  /**
   * Why the file at `path` is no longer the one this connection has open (deleted or replaced while
   * open), or undefined while it is: one `stat`, cheap enough for every readiness probe.
   */
  problem(): string | undefined
}

/**
 * A PostgreSQL database (`openPostgres`, store/open-postgres.ts): Kysely over a `pg` pool; bulk
 * loads take a connection of their own (`connect()`) for COPY.
 */
export interface PostgresVentureDb {
  readonly db: Kysely<any>
  readonly dialect: 'postgres'
  readonly readonly: false
  /** The schema every pooled connection's `search_path` names, when one was given. */
  readonly schema: string | undefined
  /**
   * Runs `work` so that the statements it has running can be cancelled (`pg_cancel_backend` of the
   * connections it holds): the engine's time budgets and AbortSignals on PostgreSQL.
   */
  cancellable<T>(work: () => Promise<T>): { readonly result: Promise<T>; cancel(): Promise<void> }
  /**
   * A connection of the pool for work Kysely cannot express (`COPY ... FROM STDIN` of a bulk load),
   * its `search_path` already naming the schema. The caller releases it (`release(true)` after an error).
   */
  connect(): Promise<PgClient>
  /** The pool's connections right now (for metrics): open, idle, and callers waiting for one. */
  poolState(): { readonly total: number; readonly idle: number; readonly waiting: number }
  close(): Promise<void>
}

/** Either backend; `dialect` tells them apart. The engine takes either. */
export type VentureDb = SqliteVentureDb | PostgresVentureDb

export interface OpenOptions {
  /** Open read-only: no migrations, no pragmas that write. Default false. */
  readonly readonly?: boolean
  /** Apply pending migrations (default true unless read-only). */
  readonly migrate?: boolean
  /** Milliseconds a statement waits for a lock before failing (default 5000). */
  readonly busyTimeoutMs?: number
  /**
   * Bytes of the file SQLite reads through a memory map instead of read calls (default 1 GiB; 0
   * turns it off). Row lookups by id are random reads: counting 8,144 companies of 100,000 by a
   * tag went from 43 ms to 11 ms with the map.
   */
  readonly mmapBytes?: number
  /**
   * Start with an empty state file on purpose when the data file had one and it is missing, empty,
   * another data file's or corrupt (which otherwise throws `StateFileError`): a foreign or corrupt
   * one is renamed aside (`<file>-state.<problem>-<time>`). Every API key, quota count and stored
   * query of the lost file is then gone. Default false.
   */
  readonly newState?: boolean
}

const DEFAULT_MMAP_BYTES = 1 << 30

/**
 * Opens (creating if needed) a SQLite database file, or `:memory:`.
 *
 * @example
 * const vdb = openDatabase('ventureql.db')
 * console.log(await dataVersion(vdb))
 * await vdb.close()
 */
export function openDatabase(file: string, options: OpenOptions = {}): SqliteVentureDb {
  const readonly = options.readonly ?? false
  const sqlite = new Database(file, readonly ? { readonly: true, fileMustExist: true } : {})
  try {
    return opened(sqlite, file, readonly, options)
  } catch (error) {
    if (sqlite.open) sqlite.close()
    throw error
  }
}

function opened(sqlite: BetterSqlite3.Database, file: string, readonly: boolean, options: OpenOptions): SqliteVentureDb {
  sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`)
  if (file !== ':memory:' && file !== '') sqlite.pragma(`mmap_size = ${Math.max(0, Math.floor(options.mmapBytes ?? DEFAULT_MMAP_BYTES))}`)
  if (!readonly) {
    if (file !== ':memory:' && file !== '') sqlite.pragma('journal_mode = WAL')
    sqlite.pragma('synchronous = NORMAL')
  }
  sqlite.pragma('foreign_keys = OFF')
  // Keys, quota counts, stored queries and caches: a file of their own (state-file.ts).
  const attached = file !== ':memory:' && file !== '' ? attachStateFile(sqlite, file, readonly, options.newState ?? false) : undefined
  const state = attached !== undefined
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: cachingPrepare(sqlite) }) })
  if (!readonly && (options.migrate ?? true)) {
    const migrated = applyMigrationsSync(db, sqlite)
    if (state) settleStateTables(sqlite)
    // A migration that changes rows moves the data version, which retires the record of orphan-free
    // link and tag tables (owner-integrity.ts); check again now rather than count slowly until the
    // next import (about 4 s at 1,000,000 companies, once per upgrade).
    if (migrated.length > 0) recordCompleteOwnersSync(sqlite, dataVersionSync(sqlite))
    // An ingest that died after dropping indexes for a bulk load left a note saying which.
    restoreDeferredIndexes(sqlite)
  }
  let closed = false
  return Object.freeze({
    db,
    sqlite,
    dialect: 'sqlite' as const,
    readonly,
    ...(attached !== undefined ? { stateFile: stateFileHandle(attached) } : {}),
    async close() {
      if (closed) return
      closed = true
      // Kysely's destroy closes the better-sqlite3 handle through the dialect's driver.
      await db.destroy()
      if (sqlite.open) sqlite.close()
    },
  })
}

function stateFileHandle(attached: AttachedStateFile): SqliteStateFile {
  return Object.freeze({ path: attached.path, recovered: attached.recovered, problem: () => stateFileProblem(attached) })
}

/** Prepared statements kept per connection; the engine's statements are few shapes with bound values. */
const STATEMENT_CACHE_SIZE = 256

/**
 * The better-sqlite3 handle as Kysely's `SqliteDatabase`, with `prepare` cached by SQL text (least
 * recently used out). Kysely prepares every query afresh, which costs more than running a lookup:
 * design section 8 measured 0.03-0.09 ms of Kysely overhead per query against ~0.01 ms raw. Values are always bound parameters, so one
 * statement serves every call of a query shape. A statement still being iterated (a stream) is
 * busy, and a fresh one is prepared instead of sharing it.
 */
function cachingPrepare(sqlite: BetterSqlite3.Database): { close(): void; prepare(sql: string): BetterSqlite3.Statement } {
  const cache = new Map<string, BetterSqlite3.Statement>()
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const cached = cache.get(sql)
      if (cached && !cached.busy) {
        // Re-inserted to mark it most recently used (a Map iterates in insertion order).
        cache.delete(sql)
        cache.set(sql, cached)
        return cached
      }
      const statement = sqlite.prepare(sql)
      if (!cached) {
        cache.set(sql, statement)
        if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
      }
      return statement
    },
  }
}

/**
 * Whether the database has the table (on PostgreSQL, in the connection's search_path, as every
 * statement resolves it): for tables a database opened read-only from before their migration lacks.
 */
export async function tableExists(vdb: VentureDb, table: string): Promise<boolean> {
  if (vdb.dialect === 'sqlite') return vdb.sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table) !== undefined
  const { rows } = await sql<{ found: boolean }>`select to_regclass(${table}) is not null as found`.execute(vdb.db)
  return rows[0]?.found === true
}

/** The current data version (0 for a database that was never loaded). */
export async function dataVersion(vdb: VentureDb): Promise<number> {
  if (vdb.dialect === 'sqlite') return dataVersionSync(vdb.sqlite)
  const row = await vdb.db.selectFrom(META_TABLE).select('value').where('key', '=', DATA_VERSION_KEY).executeTakeFirst()
  return row === undefined ? 0 : Number(row.value)
}

/** Increments the data version and returns the new value (and drops caches of older versions). */
export async function bumpDataVersion(vdb: VentureDb): Promise<number> {
  if (vdb.dialect === 'sqlite') return bumpDataVersionSync(vdb.sqlite)
  return vdb.db.transaction().execute(async (trx) => {
    // Locks the row (created by the migration) so two concurrent bumps cannot both read n.
    const row = await trx.selectFrom(META_TABLE).select('value').where('key', '=', DATA_VERSION_KEY).forUpdate().executeTakeFirst()
    const next = (row === undefined ? 0 : Number(row.value)) + 1
    await setDataVersion(trx, next)
    return next
  })
}

/**
 * Sets the data version to `version` and drops cached totals and page boundaries of other
 * versions, through Kysely (any dialect; run it inside a transaction). `copyToPostgres` uses it to
 * carry the source's version over.
 */
export async function setDataVersion(db: Kysely<any>, version: number): Promise<void> {
  await db.insertInto(META_TABLE).values({ key: DATA_VERSION_KEY, value: String(version) })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(version) })).execute()
  for (const table of VERSIONED_CACHE_TABLES) await db.deleteFrom(table).where('data_version', '<>', version).execute()
}

/** The data-version read, prepared once per connection: every request reads it (0.075 ms to prepare). */
const versionStatements = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>()

export function dataVersionSync(sqlite: BetterSqlite3.Database): number {
  let statement = versionStatements.get(sqlite)
  if (!statement) versionStatements.set(sqlite, (statement = sqlite.prepare(`select value from ${META_TABLE} where key = ?`).pluck()))
  const value = statement.get(DATA_VERSION_KEY)
  return value === undefined ? 0 : Number(value)
}

/**
 * Increments the data version and drops the cached totals and page boundaries of older versions:
 * nothing reads them again, and without this every ingest would leave its caches behind for good.
 */
export function bumpDataVersionSync(sqlite: BetterSqlite3.Database): number {
  const next = dataVersionSync(sqlite) + 1
  sqlite.transaction(() => {
    sqlite.prepare(`insert into ${META_TABLE} (key, value) values (?, ?) on conflict (key) do update set value = excluded.value`).run(DATA_VERSION_KEY, String(next))
    for (const table of VERSIONED_CACHE_TABLES) sqlite.prepare(`delete from ${table} where data_version < ?`).run(next)
  })()
  return next
}
