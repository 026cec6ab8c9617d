/**
 * @module `ventureql copy --from FILE.db --to postgres://... [--schema S]`: copies a SQLite database
 * into PostgreSQL (store/copy.ts) for the engine's PostgreSQL backend. The target is migrated first
 * and its copied tables are replaced. An unreachable server is reported with what to check.
 */
import { accessSync, constants } from 'node:fs'
import type { Command } from 'commander'
import { copyToPostgres, type CopySummary } from '../store/copy.js'
import { openDatabase } from '../store/open.js'
import { openPostgres } from '../store/open-postgres.js'
import { refreshSearchAfterLoad } from './load-target.js'

export interface CopyCommandOptions {
  readonly from: string
  readonly to: string
  readonly schema?: string
}

export async function copyCommand(opts: CopyCommandOptions, log: (line: string) => void): Promise<CopySummary> {
  if (!/^postgres(ql)?:\/\//.test(opts.to)) throw new Error(`--to must be a postgres:// or postgresql:// connection string (got "${opts.to}")`)
  if (/^postgres(ql)?:\/\//.test(opts.from)) throw new Error('--from is a SQLite file: copy moves a SQLite database into PostgreSQL (to move data between PostgreSQL databases use pg_dump)')
  try {
    accessSync(opts.from, constants.R_OK)
  } catch (error) {
    throw new Error(`cannot read ${opts.from}: ${error instanceof Error ? error.message : String(error)}`)
  }
  // Read-only: the copy never writes to the source, and a file another process serves stays untouched.
  const source = openDatabase(opts.from, { readonly: true })
  try {
    const target = await openPostgres({ connectionString: opts.to, ...(opts.schema ? { schema: opts.schema } : {}) })
    try {
      let lastTable = ''
      const summary = await copyToPostgres(source, target, {
        onProgress: ({ table, rows, tableRows }) => {
          if (table !== lastTable || rows === tableRows) log(`${table}: ${rows} / ${tableRows}`)
          lastTable = table
        },
      })
      // The copied tables were replaced whole: the search index is rebuilt whole (changed: undefined).
      await refreshSearchAfterLoad(target, undefined)
      log(`copied ${summary.rows} rows in ${summary.tables.length} tables (data version ${summary.dataVersion}) in ${(summary.ms / 1000).toFixed(1)} s`)
      return summary
    } finally {
      await target.close()
    }
  } finally {
    await source.close()
  }
}

export function registerCopy(program: Command): void {
  program.command('copy')
    .description('Copy a SQLite database into PostgreSQL (datasets, tags, links, details, data version) for the engine on PostgreSQL.')
    .requiredOption('--from <file>', 'SQLite database file to read')
    .requiredOption('--to <url>', 'PostgreSQL connection string, e.g. postgres://postgres@127.0.0.1:5432/ventureql')
    .option('--schema <name>', 'schema to create (if missing) and copy into; default: the first of the server\'s search_path')
    .action(async (opts: { from: string; to: string; schema?: string }) => {
      await copyCommand(opts, (line) => process.stderr.write(`${line}\n`))
    })
}
