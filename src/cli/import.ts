/**
 * @module `ventureql import --database FILE FILE.jsonl...`: loads JSON Lines files (format in
 * src/store/README.md) through the loader. Every good record is kept; each bad one is reported
 * with its file, line number and reason, and the exit code is 1 if any was rejected.
 */
import { accessSync, constants, createReadStream, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Command } from 'commander'
import { openDatabase } from '../store/open.js'
import { Ingestor, type IngestReject } from '../store/ingest.js'

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

export async function importFiles(database: string, files: readonly string[], log: (line: string) => void): Promise<{ rejected: number }> {
  // Checked before anything is written: failing on the second file would leave the first loaded
  // without its derived data and without a new data version.
  assertReadable(files)
  const vdb = openDatabase(database)
  try {
    const ingestor = new Ingestor(vdb)
    // The loader numbers lines per file; remember which file each reject came from, in order.
    const rejectFiles: string[] = []
    for (const file of files) {
      const before = ingestor.counts.rejected
      const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
      let line = 0
      for await (const raw of lines) {
        line++
        // Editors on Windows start UTF-8 files with a byte order mark, which JSON.parse refuses.
        const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
        if (text.trim() === '') continue
        let value: unknown
        try {
          value = JSON.parse(text)
        } catch (error) {
          ingestor.reject(line, `not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
          continue
        }
        ingestor.add(value, line)
      }
      for (let k = before; k < ingestor.counts.rejected; k++) rejectFiles.push(file)
    }
    const summary = ingestor.finish()
    const rejects: (IngestReject & { file: string })[] = summary.rejected.map((r, k) => ({ ...r, file: rejectFiles[k] ?? '' }))
    log(`imported ${summary.companies} companies, ${summary.investors} investors, ${summary.fundings} funding events; `
      + `rejected ${summary.rejected.length}; data version ${summary.dataVersion}`)
    for (const r of rejects.slice(0, MAX_PRINTED_REJECTS)) log(`${r.file}:${r.line}: ${r.reason}`)
    if (rejects.length > MAX_PRINTED_REJECTS) log(`... and ${rejects.length - MAX_PRINTED_REJECTS} more rejected`)
    return { rejected: rejects.length }
  } finally {
    await vdb.close()
  }
}

export function registerImport(program: Command): void {
  program.command('import')
    .description('Import JSON Lines files of company, investor and funding records into a database.')
    .requiredOption('--database <file>', 'SQLite database file (created if missing)')
    .argument('<files...>', 'JSON Lines files: one {"type": "company"|"investor"|"funding", "record": {...}} per line')
    .action(async (files: string[], opts: { database: string }) => {
      const { rejected } = await importFiles(opts.database, files, (line) => process.stdout.write(`${line}\n`))
      if (rejected > 0) process.exitCode = 1
    })
}
