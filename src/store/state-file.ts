/**
 * @module The state file: on SQLite, the tables the service writes while it answers (API keys and
 * quota counts, stored queries, cached totals and remembered sort keys) live in a second database
 * file beside the data, `<file>-state`, attached to every connection as schema `state`.
 *
 * Why: SQLite discards a connection's whole page cache for a database file whenever another
 * connection has committed to that file. With the quota count (one write per request) in the data
 * file, every request emptied every worker's cache, and the next read paid for it: a prefix search
 * and company lookup on 1,000,000 companies took 0.349 ms after another connection's small write
 * to the same file against 0.037 ms with no write, and 0.047 ms after a write to an attached file
 * (bench/state-file.bench.ts; bench/README.md, "The state file"); a worker pool spent 5.5 ms of
 * CPU per search with counted keys against 2.1 without, before this file existed. Writes to the state file leave the data file's caches alone, and an import holding the
 * data file's write lock no longer holds up quota counts.
 *
 * Table names stay unqualified in every statement: SQLite resolves a name through `main` first,
 * then attached schemas, and each of these tables exists in exactly one of them. A database
 * created before the state file existed has them in the data file: opening it moves them (rows and
 * indexes) into the state file, once. Their definitions are kept in the data file's `meta` table,
 * so a state file that was deleted comes back empty (keys, stored queries and caches gone, as
 * deleting it says) instead of leaving the tables missing.
 *
 * In-memory databases have no state file: one connection, nothing to invalidate.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import type BetterSqlite3 from 'better-sqlite3'
import { META_TABLE } from './schema/stored-query-tables.js'
import { API_KEY_TABLES } from './schema/api-key-tables.js'

export const STATE_SCHEMA = 'state'

/** The tables of the state file. */
export const STATE_TABLES: readonly string[] = Object.freeze([
  API_KEY_TABLES.keys, API_KEY_TABLES.usage, 'stored_queries', 'query_totals', 'query_checkpoints',
])

const STATE_SCHEMA_KEY = 'state_schema'
/** The data file's identity in its `meta`, and the one the state file was last settled for. */
const DATABASE_ID_KEY = 'database_id'
const OWNER_TABLE = 'state_owner'
/** Tables whose rows hold for one data file only (keyed by its data version, which another file repeats). */
const CACHE_TABLES = ['query_totals', 'query_checkpoints'] as const

/** The files a SQLite database is on disk: the data file, its state file, and their WAL and shared-memory files. */
export function databaseFiles(file: string): string[] {
  return [file, stateFileOf(file)].flatMap((f) => [f, `${f}-wal`, `${f}-shm`, `${f}-journal`])
}

/** The state file of a data file. */
export function stateFileOf(file: string): string {
  return `${file}-state`
}

/**
 * Attaches the state file of `file` as schema `state`: created if missing unless read-only (a
 * read-only open of a database without one keeps reading whatever tables the data file has).
 * Returns whether it is attached.
 */
export function attachStateFile(sqlite: BetterSqlite3.Database, file: string, readonly: boolean): boolean {
  const stateFile = stateFileOf(file)
  if (readonly && !existsSync(stateFile)) return false
  // A read-only connection opens what it attaches read-only too.
  sqlite.prepare(`attach database ? as ${STATE_SCHEMA}`).run(stateFile)
  if (!readonly) {
    // Set only when not already: setting it waits for the file's lock, which a writer elsewhere may
    // hold for seconds (a worker opening next to a long transaction would stall for the busy timeout).
    if (String(sqlite.pragma(`${STATE_SCHEMA}.journal_mode`, { simple: true })).toLowerCase() !== 'wal') sqlite.pragma(`${STATE_SCHEMA}.journal_mode = WAL`)
    sqlite.pragma(`${STATE_SCHEMA}.synchronous = NORMAL`)
  }
  return true
}

interface Definition {
  readonly type: 'table' | 'index'
  readonly name: string
  readonly table: string
  readonly sql: string
}

function definitions(sqlite: BetterSqlite3.Database, schema: string): Definition[] {
  return sqlite.prepare(`select type, name, tbl_name as "table", sql from ${schema}.sqlite_master where tbl_name in (select value from json_each(?)) and sql is not null order by type = 'index', name`)
    .all(JSON.stringify(STATE_TABLES)) as Definition[]
}

/** `create table "x" ...` / `create index "i" on "x" ...` as created in the state schema. */
function inState(definition: Definition): string {
  const qualified = definition.sql.replace(/^(\s*create\s+(?:unique\s+)?(?:table|index)\s+(?:if\s+not\s+exists\s+)?)/i, `$1${STATE_SCHEMA}.`)
  if (qualified === definition.sql) throw new Error(`store: cannot move ${definition.type} ${definition.name} into the state file: ${definition.sql.slice(0, 80)}`)
  return qualified
}

/**
 * Moves the state tables the data file still holds into the state file (after migrations, which
 * create them unqualified, in the data file), and recreates missing ones from the definitions kept
 * in `meta`. One transaction over both files.
 */
export function settleStateTables(sqlite: BetterSqlite3.Database): void {
  sqlite.transaction(() => {
    const inMain = definitions(sqlite, 'main')
    const present = new Set(definitions(sqlite, STATE_SCHEMA).filter((d) => d.type === 'table').map((d) => d.table))
    const moving = inMain.filter((d) => !present.has(d.table))
    for (const d of moving) if (d.type === 'table') sqlite.exec(inState(d))
    for (const d of moving) if (d.type === 'table') sqlite.exec(`insert into ${STATE_SCHEMA}."${d.name}" select * from main."${d.name}"`)
    for (const d of moving) if (d.type === 'index') sqlite.exec(inState(d))
    // A table in both (the data file restored from a copy older than the state file): the state
    // file's is the current one, and the data file's would hide it from unqualified names.
    for (const table of new Set(inMain.filter((d) => d.type === 'table').map((d) => d.table))) sqlite.exec(`drop table main."${table}"`)
    if (moving.length > 0) {
      sqlite.prepare(`insert into main.${META_TABLE} (key, value) values (?, ?) on conflict (key) do update set value = excluded.value`)
        .run(STATE_SCHEMA_KEY, JSON.stringify(moving))
    }
    const settled = new Set(definitions(sqlite, STATE_SCHEMA).filter((d) => d.type === 'table').map((d) => d.table))
    if (settled.size === STATE_TABLES.length) return
    const kept = sqlite.prepare(`select value from main.${META_TABLE} where key = ?`).pluck().get(STATE_SCHEMA_KEY) as string | undefined
    const saved = kept ? (JSON.parse(kept) as Definition[]) : []
    for (const d of saved) if (!settled.has(d.table)) sqlite.exec(inState(d))
  }).immediate()
  claimStateFile(sqlite)
}

/**
 * A state file settled for another data file (the data file replaced by a copy, or regenerated
 * while the state file stayed) keeps its keys and stored queries, but its cached totals and page
 * boundaries are of the other file's rows under data versions this one may repeat: they are
 * dropped, so no total or page is ever answered from another database's cache.
 */
function claimStateFile(sqlite: BetterSqlite3.Database): void {
  sqlite.transaction(() => {
    let id = sqlite.prepare(`select value from main.${META_TABLE} where key = ?`).pluck().get(DATABASE_ID_KEY) as string | undefined
    if (id === undefined) {
      id = randomUUID()
      sqlite.prepare(`insert into main.${META_TABLE} (key, value) values (?, ?)`).run(DATABASE_ID_KEY, id)
    }
    sqlite.exec(`create table if not exists ${STATE_SCHEMA}.${OWNER_TABLE} (database_id text not null)`)
    const owner = sqlite.prepare(`select database_id from ${STATE_SCHEMA}.${OWNER_TABLE}`).pluck().get() as string | undefined
    if (owner === id) return
    if (owner !== undefined) for (const table of CACHE_TABLES) sqlite.exec(`delete from ${STATE_SCHEMA}."${table}"`)
    sqlite.exec(`delete from ${STATE_SCHEMA}.${OWNER_TABLE}`)
    sqlite.prepare(`insert into ${STATE_SCHEMA}.${OWNER_TABLE} (database_id) values (?)`).run(id)
  }).immediate()
}
