/**
 * @module Opening a PostgreSQL database for the engine (design section 2, the scale-out path):
 * Kysely's `PostgresDialect` over a `pg` pool, the migrations applied through Kysely's Migrator.
 *
 * - `schema`: created if missing and put first (alone) on every pooled connection's `search_path`
 *   (the `-c search_path=...` startup option), so the engine's unqualified table names resolve
 *   there and several databases (e.g. test files) can share one PostgreSQL database.
 * - Statements are unnamed (pg's default): a named prepared statement switches to a generic plan
 *   after five runs, which cost 5-7 ms -> 42 ms on the design's example query (design section 8).
 *   Lookups by key whose planning costs more than running them are named (`named-statements.ts`).
 * - bigint (`int8`) columns and `count(*)` come back as JS numbers when they are safe integers (pg
 *   returns them as strings by default); only on the pool this module creates, never globally.
 *
 * What runs here is what goes through Kysely (the engine, record lookups), plus bulk loads on a
 * connection of the pool (`connect()`): `ventureql import`/`generate --database postgres://...`
 * (store/ingest-postgres.ts) and `ventureql copy` (store/copy.ts), both through COPY.
 * Loads end with the search index (`refreshPostgresSearchIndex`, store/search-index-postgres.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import pg from 'pg'
import { Kysely, PostgresDialect, sql, type PostgresPool } from 'kysely'
import { createMigrator, MIGRATION_TABLE, MIGRATIONS } from './migrations.js'
import type { PgPool } from './driver-types.js'
import { preparedName } from './named-statements.js'
import type { PostgresVentureDb } from './open.js'

/** Connections in the pool `openPostgres` creates unless told otherwise. */
export const DEFAULT_MAX_CONNECTIONS = 10

export interface OpenPostgresOptions {
  /** `postgres://user@host:port/database`; ignored when `pool` is given. Default: the PG* environment variables. */
  readonly connectionString?: string
  /**
   * An existing `pg` pool (left open by `close()`). Its connections must already use `schema` if one
   * is given. (Typed structurally, store/driver-types.ts, so the published types need no `@types/pg`.)
   */
  readonly pool?: PgPool
  /** A schema to create if missing and to use for every table (letters, digits, `_`; not starting with a digit). */
  readonly schema?: string
  /** Apply pending migrations (default true). */
  readonly migrate?: boolean
  /** Most connections the created pool opens (default 10). */
  readonly maxConnections?: number
  /**
   * The server stops any statement running longer than this (`statement_timeout` of every pooled
   * connection): the backstop behind the engine's budgets, which cancel a call's own statements at
   * its deadline (`cancellable`). Default: none.
   */
  readonly statementTimeoutMs?: number
}

/** The connections a call is using right now, per call (`cancellable`). */
const callConnections = new AsyncLocalStorage<Set<pg.PoolClient>>()

/**
 * The pool as Kysely sees it: every connection checked out inside `cancellable(work)` is recorded
 * for that call until it is released, so the call's statements can be cancelled by backend pid.
 * The async context follows Kysely from the call into `connect()`, whatever the query.
 */
function trackingPool(pool: pg.Pool): PostgresPool {
  const watched = new WeakSet<pg.PoolClient>()
  const broken = new WeakSet<pg.PoolClient>()
  return {
    async connect() {
      const client = await pool.connect()
      // pg-pool listens for errors of idle clients only. A checked-out client whose server goes
      // away emits 'error' with nobody listening, which would end the process: note it instead,
      // and have the pool discard it on release (the query in flight fails on its own: a 503).
      if (!watched.has(client)) {
        watched.add(client)
        client.on('error', () => broken.add(client))
        asNamedStatements(client)
      }
      const inCall = callConnections.getStore()
      const release = client.release
      client.release = (error?: Error | boolean) => {
        inCall?.delete(client)
        client.release = release
        return release.call(client, error ?? (broken.has(client) ? true : undefined))
      }
      inCall?.add(client)
      return client
    },
    end: () => pool.end(),
  }
}

/**
 * Runs the statements marked by `prepareByName` as named prepared statements on `client` (Kysely
 * passes text and values only); pg keeps them prepared per connection. Anything else (a cursor, a
 * config object, a callback) goes through as it is.
 */
function asNamedStatements(client: pg.PoolClient): void {
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    // The class's own method, looked up per call (a wrapper around it, as a bench's counter, still sees every statement).
    const query = (Object.getPrototypeOf(this) as { query: (...a: unknown[]) => unknown }).query
    const [text, values] = args
    const name = args.length <= 2 && typeof text === 'string' ? preparedName(text) : undefined
    return name === undefined ? query.apply(this, args) : query.call(this, { name, text, values })
  } as typeof client.query
}

const INT8_OID = 20
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

/** int8 as a number when it is a safe integer, else the exact digits (a string, as pg gives them). */
function parseInt8(text: string): number | string {
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : text
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return parseInt8
    return pg.types.getTypeParser(oid, format as 'text')
  },
} as unknown as pg.CustomTypesConfig

/** The error of an unreachable or refusing server, with what to do about it. */
export class PostgresConnectionError extends Error {
  override readonly name = 'PostgresConnectionError'
}

function describeTarget(options: OpenPostgresOptions): string {
  if (options.pool) return 'the given pool'
  if (!options.connectionString) return 'the server named by the PG* environment variables'
  try {
    const url = new URL(options.connectionString)
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`
  } catch {
    return 'the server of the connection string'
  }
}

/** The database a connection string names, if it names one. */
function databaseName(connectionString: string | undefined): string | undefined {
  if (!connectionString) return undefined
  try {
    const name = decodeURIComponent(new URL(connectionString).pathname.replace(/^\//, ''))
    return name || undefined
  } catch {
    return undefined
  }
}

/**
 * Whether `schema` lacks any migration: read without the Migrator, so that opening an up-to-date
 * database (every server start, every test file) never waits for the database-wide migration lock.
 */
async function migrationsPending(db: Kysely<any>, schema: string): Promise<boolean> {
  const table = await sql<{ found: string | null }>`select to_regclass(${`"${schema}"."${MIGRATION_TABLE}"`}) as found`.execute(db)
  if (!table.rows[0]?.found) return true
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(`${schema}.${MIGRATION_TABLE}`)}`.execute(db)
  const applied = new Set(rows.map((r) => r.name))
  return MIGRATIONS.some((m) => !applied.has(m.name))
}

/**
 * Opens a PostgreSQL database for `createEngine({ database })`.
 *
 * @example
 * const pgdb = await openPostgres({ connectionString: 'postgres://postgres@127.0.0.1/ventureql', schema: 'vq' })
 * const engine = createEngine({ database: pgdb })
 * ...
 * await engine.close(); await pgdb.close()
 */
export async function openPostgres(options: OpenPostgresOptions = {}): Promise<PostgresVentureDb> {
  const schema = options.schema
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`openPostgres: schema "${schema}" is not a plain identifier (letters, digits and _, not starting with a digit, at most 63)`)
  }
  const owned = !options.pool
  const poolConfig: pg.PoolConfig = {
    ...(options.connectionString ? { connectionString: options.connectionString } : {}),
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    types,
    // Quoted like `create schema` below: unquoted, the server folds the name to lower case.
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  }
  // A given pool is a pg Pool (PostgresPool says so); its type is restated only for the published types.
  const pool = (options.pool as pg.Pool | undefined) ?? new pg.Pool({
    ...poolConfig,
    ...(options.statementTimeoutMs ? { statement_timeout: Math.floor(options.statementTimeoutMs) } : {}),
  })
  // An idle client's error (the server went away) must not crash the process; the next query fails instead.
  if (owned) pool.on('error', () => undefined)
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: trackingPool(pool) }) })
  try {
    try {
      await sql`select 1`.execute(db)
    } catch (error) {
      // 3D000 invalid_catalog_name: the server answered, the database in the URL is not there.
      if ((error as { code?: string }).code === '3D000') {
        const name = databaseName(options.connectionString)
        throw new PostgresConnectionError(
          `PostgreSQL at ${describeTarget(options)} has no database ${name ? `"${name}"` : 'of that name'}: ${(error as Error).message}`
          + ` (create it first, e.g. \`createdb ${name ?? 'NAME'}\`, or name an existing database in the URL)`,
          { cause: error },
        )
      }
      throw new PostgresConnectionError(
        `cannot reach PostgreSQL at ${describeTarget(options)}: ${(error as Error).message || String(error)}` +
        ' (is the server running? e.g. `pg_ctlcluster 15 main start`; check host, port, user and database)',
        { cause: error },
      )
    }
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db)
    if (options.migrate ?? true) {
      const current = (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      if (!current) throw new Error('openPostgres: no schema to create tables in (search_path names none that exists)')
      if (await migrationsPending(db, current)) {
        // Kysely's Migrator takes one advisory lock for the whole database (every schema), held
        // while another process migrates; the pool's statement_timeout is for queries, not for
        // that wait or for building indexes, so migrations run on a connection without it.
        const migrating = owned && options.statementTimeoutMs
          ? new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ ...poolConfig, statement_timeout: 0, max: 1 }) }) })
          : db
        try {
          const { error } = await createMigrator(migrating, 'postgres', current).migrateToLatest()
          if (error) throw error
        } finally {
          if (migrating !== db) await migrating.destroy()
        }
      }
    }
  } catch (error) {
    // Kysely's destroy ends the pool: only ours (a pool the caller gave is theirs to end).
    if (owned) await db.destroy().catch(() => undefined)
    throw error
  }
  let closed = false
  return Object.freeze({
    db,
    dialect: 'postgres' as const,
    readonly: false as const,
    schema,
    cancellable<T>(work: () => Promise<T>) {
      const clients = new Set<pg.PoolClient>()
      return {
        result: callConnections.run(clients, work),
        async cancel() {
          const pids = [...clients].map((c) => (c as pg.PoolClient & { processID?: number }).processID).filter((p): p is number => Number.isInteger(p))
          if (pids.length === 0) return
          // A cancel that finds nothing (the statement just ended) is harmless; a lost server is the caller's 503.
          await pool.query('select pg_cancel_backend(pid) from unnest($1::int[]) as pid', [pids]).catch(() => undefined)
        },
      }
    },
    connect: () => pool.connect(),
    poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      if (closed) return
      closed = true
      // Kysely's destroy ends the pool; a pool the caller gave is theirs to end.
      if (owned) await db.destroy()
    },
  })
}
