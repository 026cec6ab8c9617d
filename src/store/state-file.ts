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
 * (`npx tsx bench/state-file.bench.ts`); a worker pool spent 5.5 ms of
 * CPU per search with counted keys against 2.1 without, before this file existed. Writes to the state file leave the data file's caches alone, and an import holding the
 * data file's write lock no longer holds up quota counts.
 *
 * Table names stay unqualified in every statement: SQLite resolves a name through `main` first,
 * then attached schemas, and each of these tables exists in exactly one of them. A database
 * created before the state file existed has them in the data file: opening it moves them (rows and
 * indexes) into the state file, once. Their definitions are kept in the data file's `meta` table,
 * so a state file started afresh (`newState`) gets every table back.
 *
 * The data file's `database_id` (in `meta`, written when a state file is first settled for it) is
 * its record of having a state file, and the state file's `state_owner` names the data file it
 * belongs to. Once the data file has one, opening it refuses a state file that is missing, empty,
 * another data file's, or not a database (`StateFileError`, naming the file and the way back):
 * starting with no keys, quota counts or stored queries is then something the operator asks for
 * (`newState`; `--new-state` of serve and keys), never what a lost file silently causes.
 *
 * In-memory databases have no state file: one connection, nothing to invalidate.
 */
import { randomUUID } from 'node:crypto'
import { closeSync, existsSync, openSync, readSync, renameSync, statSync } from 'node:fs'
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

/** What is wrong with a state file that opening refuses. */
export type StateFileProblem = 'missing' | 'empty' | 'foreign' | 'corrupt'

/**
 * A state file that opening refuses: `stateFile` names it, `problem` says what is wrong, and the
 * message says how to recover (restore it from a backup, or start afresh on purpose with `newState`).
 */
export class StateFileError extends Error {
  override readonly name = 'StateFileError'
  constructor(readonly problem: StateFileProblem, readonly stateFile: string, readonly dataFile: string, detail: string) {
    super(`the state file ${stateFile} ${detail}. ${recovery(problem, stateFile, dataFile)}`)
  }
}

function recovery(problem: StateFileProblem, stateFile: string, dataFile: string): string {
  const afresh = problem === 'foreign' || problem === 'corrupt'
    ? `start afresh on purpose with --new-state (serve, keys; \`newState: true\` of openDatabase and createEngine): this file is then set aside as ${stateFile}.${problem}-TIME and replaced by an empty one`
    : 'start afresh on purpose with --new-state (serve, keys; `newState: true` of openDatabase and createEngine)'
  return `The API keys, quota counts and stored queries of ${dataFile} live in its state file. To recover, stop every process using the database and `
    + `copy the state file back from a backup (\`ventureql backup\` writes both files; grammar-docs/guides/backup.md), or ${afresh}; `
    + 'every API key, quota count and stored query is then gone.'
}

/** The state file as attached by `attachStateFile`. */
export interface AttachedStateFile {
  readonly path: string
  /** What `newState` did at open (a file created or set aside), undefined when it changed nothing. */
  readonly recovered: string | undefined
  /** Device and inode of the file SQLite opened: the path is compared against them (`stateFileProblem`). */
  readonly dev: number
  readonly ino: number
}

/**
 * Attaches the state file of `file` as schema `state`, after checking that it is this data file's
 * (see the module comment): created if missing when the data file has never had one (or with
 * `newState`), unless read-only (a read-only open of a database without one keeps reading whatever
 * tables the data file has). Returns what was attached, or undefined when nothing was.
 */
export function attachStateFile(sqlite: BetterSqlite3.Database, file: string, readonly: boolean, newState = false): AttachedStateFile | undefined {
  const stateFile = stateFileOf(file)
  const expected = recordedDatabaseId(sqlite)
  let recovered: string | undefined
  const refuse = (problem: StateFileProblem, detail: string): void => {
    if (!newState || readonly) throw new StateFileError(problem, stateFile, file, detail)
    if (problem === 'empty') {
      recovered = `the state file ${stateFile} was empty: started afresh (--new-state)`
      return
    }
    const aside = setAside(stateFile, problem)
    recovered = `the state file ${stateFile} ${detail}: ${aside !== undefined ? `set aside as ${aside}, ` : ''}an empty one created (--new-state)`
  }
  if (!existsSync(stateFile)) {
    // Read-only, nothing is written, so nothing can be lost: the data still reads (no keys, no stored queries).
    if (readonly) return undefined
    if (expected !== undefined) refuse('missing', 'does not exist')
    // A write-ahead log left without its file would be replayed into the new one: set it aside too.
    if (existsSync(`${stateFile}-wal`)) setAside(stateFile, 'missing')
  } else {
    const header = headerProblem(stateFile)
    if (header !== undefined) refuse('corrupt', header)
  }
  // A read-only connection opens what it attaches read-only too. Attaching reads the file's schema,
  // so a database damaged past its header fails here.
  const unreadable = corruption(() => sqlite.prepare(`attach database ? as ${STATE_SCHEMA}`).run(stateFile))
  if (unreadable !== undefined) {
    refuse('corrupt', `is not a readable database (${unreadable})`)
    sqlite.prepare(`attach database ? as ${STATE_SCHEMA}`).run(stateFile)
  }
  if (expected !== undefined && recovered === undefined) {
    const found = ownerOf(sqlite)
    const detail = found.kind === 'corrupt' ? `is not a readable database (${found.reason})`
      : found.kind === 'empty' ? 'is empty (no tables, no owner record)'
        : found.kind === 'unowned' ? 'has tables but no owner record, so it is not the state file of this data file'
          : found.owner !== expected ? `belongs to another data file (database id ${found.owner}; ${file} is ${expected})` : undefined
    if (detail !== undefined) {
      const problem: StateFileProblem = found.kind === 'corrupt' ? 'corrupt' : found.kind === 'empty' ? 'empty' : 'foreign'
      if (problem !== 'empty' && newState && !readonly) sqlite.exec(`detach database ${STATE_SCHEMA}`)
      refuse(problem, detail)
      if (problem !== 'empty') sqlite.prepare(`attach database ? as ${STATE_SCHEMA}`).run(stateFile)
    }
  }
  if (!readonly) {
    // Set only when not already: setting it waits for the file's lock, which a writer elsewhere may
    // hold for seconds (a worker opening next to a long transaction would stall for the busy timeout).
    if (String(sqlite.pragma(`${STATE_SCHEMA}.journal_mode`, { simple: true })).toLowerCase() !== 'wal') sqlite.pragma(`${STATE_SCHEMA}.journal_mode = WAL`)
    sqlite.pragma(`${STATE_SCHEMA}.synchronous = NORMAL`)
  }
  // Attaching opened (or created) the file: this is the one SQLite holds.
  const { dev, ino } = statSync(stateFile)
  return Object.freeze({ path: stateFile, recovered, dev, ino })
}

/**
 * Why the state file at `attached.path` is no longer the file SQLite has open: deleted, or replaced
 * by another file; undefined while it is the same. One `stat` of the path against the device and
 * inode taken at open: no SQLite I/O, no lock, and it runs on any thread. SQLite itself notices
 * nothing: it keeps the descriptor of the unlinked file, reads go on from it, and what is written
 * there is gone at the next start (or refused as a moved database), while whatever opens the path
 * next finds another file or none.
 */
export function stateFileProblem(attached: AttachedStateFile): string | undefined {
  let now: { dev: number; ino: number } | undefined
  try {
    now = statSync(attached.path, { throwIfNoEntry: false })
  } catch (error) {
    return `the state file ${attached.path} cannot be checked (${error instanceof Error ? error.message : String(error)})`
  }
  const stop = 'writes made since then (quota counts, new keys, stored queries) are not in the file at that path: stop the server, put the state file back from a backup (grammar-docs/guides/backup.md), and start it again'
  if (now === undefined) return `the state file ${attached.path} was deleted while the database is open; ${stop}`
  if (now.dev !== attached.dev || now.ino !== attached.ino) return `the state file ${attached.path} was replaced by another file while the database is open; ${stop}`
  return undefined
}

/** The data file's `database_id`, present once a state file was settled for it. */
function recordedDatabaseId(sqlite: BetterSqlite3.Database): string | undefined {
  const hasMeta = sqlite.prepare("select 1 from main.sqlite_master where type = 'table' and name = ?").get(META_TABLE) !== undefined
  if (!hasMeta) return undefined
  return sqlite.prepare(`select value from main.${META_TABLE} where key = ?`).pluck().get(DATABASE_ID_KEY) as string | undefined
}

/** The message of a SQLite error saying a file is not a database or is damaged, or undefined when `work` succeeds. */
function corruption(work: () => unknown): string | undefined {
  try {
    work()
    return undefined
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return error instanceof Error ? error.message : String(error)
    throw error
  }
}

type Ownership = { kind: 'owned'; owner: string } | { kind: 'empty' } | { kind: 'unowned' } | { kind: 'corrupt'; reason: string }

/** Whose state file the attached one is, reading only its schema and owner row. */
function ownerOf(sqlite: BetterSqlite3.Database): Ownership {
  let found: Ownership = { kind: 'empty' }
  const reason = corruption(() => {
    const tables = sqlite.prepare(`select name from ${STATE_SCHEMA}.sqlite_master where type = 'table'`).pluck().all() as string[]
    if (tables.length === 0) return
    if (!tables.includes(OWNER_TABLE)) return (found = { kind: 'unowned' })
    const owner = sqlite.prepare(`select database_id from ${STATE_SCHEMA}.${OWNER_TABLE}`).pluck().get() as string | undefined
    found = owner === undefined ? { kind: 'unowned' } : { kind: 'owned', owner }
  })
  return reason !== undefined ? { kind: 'corrupt', reason } : found
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

/**
 * What is wrong with the file's 100-byte SQLite header, if anything: the magic string and a page
 * size SQLite accepts. An empty file is a valid (empty) database. Reading the header costs one
 * small read, so every connection can check it; a damaged page further in is SQLite's to report.
 */
function headerProblem(path: string): string | undefined {
  const size = statSync(path).size
  if (size === 0) return undefined
  const header = Buffer.alloc(100)
  const fd = openSync(path, 'r')
  let read: number
  try {
    read = readSync(fd, header, 0, 100, 0)
  } finally {
    closeSync(fd)
  }
  if (read < 100) return `is not a SQLite database (${size} bytes, shorter than a database header)`
  if (!header.subarray(0, 16).equals(SQLITE_MAGIC)) return 'is not a SQLite database (its first 16 bytes are not "SQLite format 3")'
  const pageSize = header.readUInt16BE(16)
  const valid = pageSize === 1 || (pageSize >= 512 && pageSize <= 32768 && (pageSize & (pageSize - 1)) === 0)
  if (!valid) return `is a damaged SQLite database (its header gives a page size of ${pageSize})`
  return undefined
}

/** Renames the state file and its write-ahead log out of the way; returns the new name of the file. */
function setAside(stateFile: string, problem: StateFileProblem): string | undefined {
  const aside = `${stateFile}.${problem}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`
  const moved = existsSync(stateFile)
  if (moved) renameSync(stateFile, aside)
  for (const suffix of ['-wal', '-shm']) if (existsSync(stateFile + suffix)) renameSync(stateFile + suffix, aside + suffix)
  return moved ? aside : undefined
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
 * Records the data file's id in its `meta` and in the state file's owner row. A state file owned
 * by another id reaches here only for a data file that had no id yet (one from before the state
 * file, restored beside a newer state file, or `attachStateFile` refused it otherwise): it keeps
 * its keys and stored queries, but its cached totals and page boundaries are of the other file's
 * rows under data versions this one may repeat, so they are dropped.
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
