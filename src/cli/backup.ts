/**
 * @module `ventureql backup --to DIR`: an online copy of a SQLite database, its data file and its
 * state file, safe while `serve` runs and writes (src/store/backup.ts). The database is
 * `--database FILE`, else `<--data-dir>/ventureql.db`, as for `serve` and `keys`. Restoring is
 * copying the two files back with the server stopped (grammar-docs/guides/backup.md).
 */
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { BackupError, backupDatabase } from '../store/backup.js'
import { isPostgresUrl } from '../store/open-target.js'
import { StateFileError } from '../store/state-file.js'
import { DATABASE_FILE_NAME, DEFAULT_DATA_DIR } from './keys.js'

export function registerBackup(program: Command): void {
  program.command('backup')
    .description('Copy a SQLite database (its data file and its -state file: keys, quota counts, stored queries) into a directory, safely while the server runs.')
    .requiredOption('--to <dir>', 'directory receiving the copies (created if missing; existing copies are never overwritten)')
    .option('--database <file>', 'the SQLite database file')
    .option('--data-dir <dir>', `data directory holding ${DATABASE_FILE_NAME} (default ${DEFAULT_DATA_DIR})`)
    .action(async (opts: { to: string; database?: string; dataDir?: string }) => {
      const fail = (message: string) => {
        process.stderr.write(`ventureql backup: ${message}\n`)
        process.exitCode = 1
      }
      if (opts.database !== undefined && opts.dataDir !== undefined) return fail('give --database or --data-dir, not both')
      if (opts.database !== undefined && isPostgresUrl(opts.database)) {
        return fail('backup copies a SQLite database; back up PostgreSQL with its own tools (pg_dump, or the server\'s base backups)')
      }
      const file = resolve(opts.database ?? join(opts.dataDir ?? DEFAULT_DATA_DIR, DATABASE_FILE_NAME))
      try {
        const done = await backupDatabase(file, opts.to)
        process.stdout.write(`${done.dataFile}\n${done.stateFile !== undefined ? `${done.stateFile}\n` : ''}`)
        process.stderr.write(`backed up ${file} (${(done.bytes / 1e6).toFixed(1)} MB in ${(done.ms / 1000).toFixed(1)} s). `
          + `To restore: stop the server, delete ${['-wal', '-shm', '-state-wal', '-state-shm'].map((s) => file + s).join(', ')} where present, `
          + 'copy both files back, start it again.\n')
      } catch (error) {
        if (error instanceof BackupError || error instanceof StateFileError) return fail(error.message)
        throw error
      }
    })
}
