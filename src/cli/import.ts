/**
 * @module `ventureql import [--database FILE|postgres://...] [--schema S] FILE.jsonl...`: loads JSON
 * Lines files (format in src/store/README.md) through the loader, into SQLite or (through COPY, in
 * one transaction) PostgreSQL. Every good record is kept; each bad one is reported with its file,
 * line number and reason, and the exit code is 1 if any was rejected. The summary counts what was
 * stored per dataset (funding events of company records included) and what the tables gained;
 * progress (phase, share done, time left) goes to stderr.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Command } from 'commander'
import { Ingestor, type IngestReject, type IngestSummary } from '../store/ingest.js'
import { PostgresIngestor, type IngestPostgresOptions } from '../store/ingest-postgres.js'
import { loadPhases, RECORDS_PHASE, type LoadPhase } from '../store/load-phases.js'
import { unknownFields, type UnknownField } from '../store/record-schemas.js'
import { openLoadTarget } from './load-target.js'
import { DEFAULT_DATABASE, DEFAULT_DATABASE_HELP } from './keys.js'
import { fileLines } from './json-lines.js'
import { bytesUnit, progressReporter, type PhaseUpdate } from './progress.js'

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
  /**
   * Progress: called once the database is open with the load's phases (records, then those of
   * `finish()`), it returns what receives the updates: the records phase in bytes read of all the
   * files, then each later phase as it starts. `stop(true)` when the load is done, `stop()` when it failed.
   */
  readonly progress?: (phases: readonly LoadPhase[]) => { update(u: PhaseUpdate): void; stop(done?: boolean): void }
  /**
   * A record with a field its type does not have (a misspelling such as `employes`) is rejected
   * instead of stored without it. Either way each such line is reported with a did-you-mean.
   */
  readonly strict?: boolean
}

/** `file:line: ` and what is wrong with the unknown fields of one record, with their did-you-means. */
function describeUnknown(unknown: readonly UnknownField[], type: string): string {
  return unknown.map(({ field, suggestions }) =>
    `unknown field ${type}.${field}${suggestions.length > 0 ? ` (did you mean ${suggestions.join(' or ')}?)` : ''}`).join('; ')
}

/** Progress updates of the records phase: one per this share of the files' bytes. */
const PROGRESS_STEPS = 100

/**
 * The summary line: what the load stored per dataset, funding events of company records included,
 * and the investor links the database gained. Where records replaced stored ones with the same id
 * (or earlier ones of the same load), how many rows were new and how many were updates.
 */
export function formatImportSummary(summary: IngestSummary): string {
  const { added } = summary
  const updates = (written: number, gained: number) => (gained < written ? `${gained} new, ${written - gained} update${written - gained === 1 ? '' : 's'}` : '')
  const counted = (written: number, gained: number, what: string) => {
    const u = updates(written, gained)
    return `${written} ${what}${u ? ` (${u})` : ''}`
  }
  const standalone = summary.fundings - summary.embeddedFundings
  const fundingUpdates = updates(summary.fundings, added.fundings)
  const links = added.fundingInvestors >= 0 ? `${added.fundingInvestors} investor links` : `${-added.fundingInvestors} fewer investor links`
  return `imported ${counted(summary.companies, added.companies, 'companies')}, ${counted(summary.investors, added.investors, 'investors')}, `
    + `${summary.fundings} funding events (${summary.embeddedFundings} in company records, ${standalone} funding records${fundingUpdates ? `; ${fundingUpdates}` : ''}), `
    + `${links}; rejected ${summary.rejected.length}; data version ${summary.dataVersion}`
}

export async function importFiles(
  database: string, files: readonly string[], log: (line: string) => void, options: ImportOptions = {},
): Promise<{ rejected: number; warned: number; summary: IngestSummary }> {
  // Checked before anything is written: failing on the second file would leave the first loaded
  // without its derived data and without a new data version.
  assertReadable(files)
  const sizes = files.map((file) => statSync(file).size)
  const totalBytes = sizes.reduce((a, b) => a + b, 0)
  const vdb = await openLoadTarget(database, options.schema)
  let progress: ReturnType<NonNullable<ImportOptions['progress']>> | undefined
  try {
    const ingestor = vdb.dialect === 'sqlite' ? new Ingestor(vdb) : await PostgresIngestor.open(vdb, options.postgres ?? {})
    progress = options.progress?.(loadPhases(vdb.dialect, { rebuildsIndexes: ingestor.rebuildsIndexes }))
    // The loader numbers lines per file; remember which file each reject came from, in order.
    const rejectFiles: string[] = []
    const warnings: string[] = []
    let bytesBefore = 0
    const step = Math.max(1, Math.floor(totalBytes / PROGRESS_STEPS))
    let reported = 0
    const report = (done: number) => {
      reported = done
      progress?.update({ phase: RECORDS_PHASE, done: Math.min(done, totalBytes), total: totalBytes })
    }
    report(0)
    try {
      for (const [k, file] of files.entries()) {
        const before = ingestor.counts.rejected
        let bytes = 0
        for await (const { line, text, invalid } of fileLines(file)) {
          // Line lengths (a CRLF or an invalid line's bytes aside): progress, not bookkeeping.
          bytes += (text === undefined ? 0 : Buffer.byteLength(text)) + 1
          if (bytesBefore + bytes - reported >= step) report(bytesBefore + bytes)
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
          const unknown = unknownFields(value)
          if (unknown.length > 0) {
            const what = describeUnknown(unknown, (value as { type: string }).type)
            if (options.strict) {
              ingestor.reject(line, `${what}; rejected (--strict)`)
              continue
            }
            warnings.push(`${file}:${line}: ${what}; stored without ${unknown.length === 1 ? 'it' : 'them'} (--strict rejects such a record)`)
          }
          ingestor.add(value, line)
          // PostgreSQL: earlier batches still on their way to the server.
          const wait = ingestor.drain()
          if (wait) await wait
        }
        for (let r = before; r < ingestor.counts.rejected; r++) rejectFiles.push(file)
        bytesBefore += sizes[k]!
        report(bytesBefore)
      }
    } catch (error) {
      // PostgreSQL: nothing of the load is kept (one transaction).
      if (ingestor instanceof PostgresIngestor) await ingestor.abort()
      throw error
    }
    const summary = await ingestor.finish((step) => progress?.update({ phase: step }))
    progress?.stop(true)
    const rejects: (IngestReject & { file: string })[] = summary.rejected.map((r, k) => ({ ...r, file: rejectFiles[k] ?? '' }))
    log(formatImportSummary(summary))
    for (const r of rejects.slice(0, MAX_PRINTED_REJECTS)) log(`${r.file}:${r.line}: ${r.reason}`)
    if (rejects.length > MAX_PRINTED_REJECTS) log(`... and ${rejects.length - MAX_PRINTED_REJECTS} more rejected`)
    for (const warning of warnings.slice(0, MAX_PRINTED_REJECTS)) log(warning)
    if (warnings.length > MAX_PRINTED_REJECTS) log(`... and ${warnings.length - MAX_PRINTED_REJECTS} more records with unknown fields`)
    return { rejected: rejects.length, warned: warnings.length, summary }
  } finally {
    progress?.stop()
    await vdb.close()
  }
}

export function registerImport(program: Command): void {
  program.command('import')
    .description('Import JSON Lines files of company, investor and funding records into a database.')
    .option('--database <target>', `SQLite database file (created if missing) or postgres://USER@HOST:PORT/DB (${DEFAULT_DATABASE_HELP})`, DEFAULT_DATABASE)
    .option('--schema <name>', 'PostgreSQL: schema to load into (created if missing); default: the first of the server\'s search_path')
    .option('--strict', 'reject a record with a field its type does not have (exit code 1), instead of storing it without the field')
    .argument('<files...>', 'JSON Lines files: one {"type": "company"|"investor"|"funding", "record": {...}} per line')
    .action(async (files: string[], opts: { database: string; schema?: string; strict?: boolean }) => {
      // The default database's directory is made as `serve` makes it; a file given is the user's to place.
      if (opts.database === DEFAULT_DATABASE) mkdirSync(dirname(DEFAULT_DATABASE), { recursive: true })
      const { rejected } = await importFiles(opts.database, files, (line) => process.stdout.write(`${line}\n`), {
        ...(opts.schema !== undefined ? { schema: opts.schema } : {}),
        ...(opts.strict ? { strict: true } : {}),
        // On stderr: stdout keeps the summary and the rejects, for scripts.
        progress: (phases) => progressReporter({ label: 'import', phases, unit: bytesUnit }),
      })
      if (rejected > 0) process.exitCode = 1
    })
}
