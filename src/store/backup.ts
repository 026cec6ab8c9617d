/**
 * @module An online copy of a SQLite database: its data file and its state file (state-file.ts),
 * through SQLite's online backup API (better-sqlite3's `db.backup()`), safe while `serve` or any
 * other process reads and writes them.
 *
 * Both files are copied from one read transaction opened on both before the first page is copied:
 * in WAL mode that fixes one snapshot of each file, and a backup step run inside an open read
 * transaction copies from it rather than starting its own. The two copies are therefore of the
 * same moment (a key created or a quota counted during the copy is in neither or in both),
 * writers elsewhere are never blocked (WAL readers do not block writers), and the copy never has
 * to restart because another connection wrote. Each file is copied in one backup step after the
 * first: this is a process of its own (`ventureql backup`), so holding its thread is harmless.
 *
 * The copy is a working database: the same file names in the target directory, the data file's
 * id and the state file's owner unchanged, so opening the copy finds its own state file. Restoring
 * is copying both files back while no process has the database open (grammar-docs/guides/backup.md).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { openDatabase } from './open.js'
import { STATE_SCHEMA, stateFileOf } from './state-file.js'

export interface BackupSummary {
  /** The copies written: the data file and, when the database has one, its state file. */
  readonly dataFile: string
  readonly stateFile: string | undefined
  /** Bytes written, both files. */
  readonly bytes: number
  readonly ms: number
}

/** A backup that cannot be made as asked (the target exists, the source is missing): one line, no stack. */
export class BackupError extends Error {
  override readonly name = 'BackupError'
}

/** Pages per backup step after the first: everything (the step copies the rest of the file at once). */
const ALL_PAGES = 0x7fffffff

/**
 * Copies the SQLite database `file` (and its state file) into the directory `dir` (created when
 * missing), under the same names. Refuses to overwrite an earlier copy. The source is opened the
 * way `serve` opens it, so a missing, foreign or corrupt state file is refused (`StateFileError`)
 * rather than copied.
 *
 * @example
 * const { dataFile, stateFile } = await backupDatabase('.ventureql/ventureql.db', '/backups/2024-07-01')
 */
export async function backupDatabase(file: string, dir: string): Promise<BackupSummary> {
  const started = Date.now()
  const source = resolve(file)
  if (!existsSync(source)) throw new BackupError(`the database ${source} does not exist`)
  const target = resolve(dir)
  const dataCopy = join(target, basename(source))
  const stateCopy = stateFileOf(dataCopy)
  if (dataCopy === source) throw new BackupError(`--to ${target} is the database's own directory: give another directory`)
  for (const f of [dataCopy, stateCopy]) {
    if (existsSync(f)) throw new BackupError(`${f} already exists: give an empty or new directory (an earlier backup is never overwritten)`)
  }
  mkdirSync(target, { recursive: true })
  // No migrations: a backup copies the database as it is.
  const vdb = openDatabase(source, { migrate: false })
  const partial = (f: string) => `${f}.partial`
  const written: string[] = []
  try {
    const { sqlite } = vdb
    const hasState = vdb.stateFile !== undefined
    sqlite.exec('begin')
    try {
      // Reading each schema starts the read transaction on its file: one snapshot of both (module comment).
      sqlite.prepare('select count(*) from main.sqlite_master').get()
      if (hasState) sqlite.prepare(`select count(*) from ${STATE_SCHEMA}.sqlite_master`).get()
      for (const [schema, copy] of hasState ? [['main', dataCopy], [STATE_SCHEMA, stateCopy]] as const : [['main', dataCopy]] as const) {
        rmSync(partial(copy), { force: true })
        written.push(partial(copy))
        await sqlite.backup(partial(copy), { attached: schema, progress: () => ALL_PAGES })
      }
    } finally {
      sqlite.exec('commit')
    }
    // Renamed only once both are complete: a directory never holds half a backup under the real names.
    if (hasState) renameSync(partial(stateCopy), stateCopy)
    renameSync(partial(dataCopy), dataCopy)
    return Object.freeze({
      dataFile: dataCopy,
      stateFile: hasState ? stateCopy : undefined,
      bytes: statSync(dataCopy).size + (hasState ? statSync(stateCopy).size : 0),
      ms: Date.now() - started,
    })
  } catch (error) {
    for (const f of written) rmSync(f, { force: true })
    throw error
  } finally {
    await vdb.close()
  }
}
