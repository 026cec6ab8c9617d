/**
 * @module `ventureql import --database FILE|postgres://... [--schema S] FILE.jsonl...`: loads JSON
 * Lines files (format in src/store/README.md) through the loader, into SQLite or (through COPY, in
 * one transaction) PostgreSQL. Every good record is kept; each bad one is reported with its file,
 * line number and reason, and the exit code is 1 if any was rejected.
 */
import { accessSync, constants, statSync } from 'node:fs'
import type { Command } from 'commander'
import { Ingestor, type IngestReject, type IngestSummary } from '../store/ingest.js'
import { PostgresIngestor, type IngestPostgresOptions } from '../store/ingest-postgres.js'
import { openLoadTarget } from './load-target.js'
import { fileLines } from './json-lines.js'

/** Prints at most this many rejects; the count is always printed. */
const MAX_PRINTED_REJECTS = 100

/** Throws, naming the file, unless every file is a readable regular file. */
function assertReadable(files: readonly string[]): void {
  for (const file of files) {
    try {
      accessSync(file, constants.R_OK)
      if (!statSync(file).isFile()) throw new Error('not a regular file')
    } catch (error) {
      throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

export interface ImportOptions {
  /** PostgreSQL: the schema to load into (created if missing). */
  readonly schema?: string
  /** PostgreSQL: loader options (the loader refreshes the search index itself at `finish()`). */
  readonly postgres?: IngestPostgresOptions
}

export async function importFiles(
  database: string, files: readonly string[], log: (line: string) => void, options: ImportOptions = {},
): Promise<{ rejected: number; summary: IngestSummary }> {
  // Checked before anything is written: failing on the second file would leave the first loaded
  // without its derived data and without a new data version.
  assertReadable(files)
  const vdb = await openLoadTarget(database, options.schema)
  try {
    const ingestor = vdb.dialect === 'sqlite' ? new Ingestor(vdb) : await PostgresIngestor.open(vdb, options.postgres ?? {})
    // The loader numbers lines per file; remember which file each reject came from, in order.
    const rejectFiles: string[] = []
    try {
      for (const file of files) {
        const before = ingestor.counts.rejected
        for await (const { line, text, invalid } of fileLines(file)) {
          if (invalid !== undefined) {
            ingestor.reject(line, invalid)
            continue
          }
          if (text.trim() === '') continue
          let value: unknown
          try {
            value = JSON.parse(text)
          } catch (error) {
            ingestor.reject(line, `not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
            continue
          }
          ingestor.add(value, line)
          // PostgreSQL: earlier batches still on their way to the server.
          const wait = ingestor.drain()
          if (wait) await wait
        }
        for (let k = before; k < ingestor.counts.rejected; k++) rejectFiles.push(file)
      }
    } catch (error) {
      // PostgreSQL: nothing of the load is kept (one transaction).
      if (ingestor instanceof PostgresIngestor) await ingestor.abort()
      throw error
    }
    const summary = await ingestor.finish()
    const rejects: (IngestReject & { file: string })[] = summary.rejected.map((r, k) => ({ ...r, file: rejectFiles[k] ?? '' }))
    log(`imported ${summary.companies} companies, ${summary.investors} investors, ${summary.fundings} funding events; `
      + `rejected ${summary.rejected.length}; data version ${summary.dataVersion}`)
    for (const r of rejects.slice(0, MAX_PRINTED_REJECTS)) log(`${r.file}:${r.line}: ${r.reason}`)
    if (rejects.length > MAX_PRINTED_REJECTS) log(`... and ${rejects.length - MAX_PRINTED_REJECTS} more rejected`)
    return { rejected: rejects.length, summary }
  } finally {
    await vdb.close()
  }
}

export function registerImport(program: Command): void {
  program.command('import')
    .description('Import JSON Lines files of company, investor and funding records into a database.')
    .requiredOption('--database <target>', 'SQLite database file (created if missing) or postgres://USER@HOST:PORT/DB')
    .option('--schema <name>', 'PostgreSQL: schema to load into (created if missing); default: the first of the server\'s search_path')
    .argument('<files...>', 'JSON Lines files: one {"type": "company"|"investor"|"funding", "record": {...}} per line')
    .action(async (files: string[], opts: { database: string; schema?: string }) => {
      const { rejected } = await importFiles(opts.database, files, (line) => process.stdout.write(`${line}\n`), opts.schema !== undefined ? { schema: opts.schema } : {})
      if (rejected > 0) process.exitCode = 1
    })
}
