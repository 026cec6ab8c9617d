/**
 * @module `ventureql export --database FILE <query-id> | --filter REQUEST --format csv|ndjson`: every
 * record of a stored query (or of a request, stored first), in its sort order, to standard output or
 * `--output`. The same keyset batches as GET /queries/:query_id/export (`engine.exportBatch`),
 * written as the stream drains, so memory stays at one batch; the records are the engine's (as
 * `ventureql query` prints them), CSV by csv-stringify with tags joined by `|`.
 */
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import type { Writable } from 'node:stream'
import type { Command } from 'commander'
import { stringify } from 'csv-stringify/sync'
import { resolveDataset } from '../catalog/index.js'
import { selectableFields } from '../check/fields.js'
import type { Engine } from '../engine.js'
import { fail, issue, ok, type Result } from '../errors/issue.js'
import { csvCell } from '../http/views/csv-cell.js'
import { DATABASE_HELP, readRequest, reportIssues, SCHEMA_HELP, withEngine } from './query.js'

/** Records per batch: one engine call each. */
const BATCH = 1000

interface ExportOptions {
  readonly format: 'csv' | 'ndjson'
  readonly fields?: string | undefined
}

/** Writes every record of the stored query to `out`, waiting for it to drain; answers the records written. */
export async function exportTo(engine: Engine, queryId: string, out: Writable, options: ExportOptions): Promise<Result<number>> {
  let after: readonly (string | number | boolean | null)[] | undefined
  let columns: readonly string[] | undefined
  let written = 0
  for (;;) {
    const batch = await engine.exportBatch(queryId, { after, limit: BATCH, ...(options.fields !== undefined ? { fields: options.fields } : {}) })
    if (!batch.ok) return batch
    const { records, next, dataset } = batch.value
    let text: string
    if (options.format === 'ndjson') {
      text = records.map((r) => `${JSON.stringify(r)}\n`).join('')
    } else {
      const header = columns === undefined
      columns ??= records[0] ? Object.keys(records[0]) : selectableFields(resolveDataset(dataset)!).map((f) => f.name)
      const rows = records.map((r) => columns!.map((name) => csvCell(r[name])))
      text = stringify(header ? [columns as string[], ...rows] : rows, { record_delimiter: 'windows' })
    }
    written += records.length
    if (text !== '' && !out.write(text)) await once(out, 'drain')
    if (next === undefined) return ok(written)
    after = next
  }
}

export function registerExport(program: Command): void {
  program.command('export')
    .description('Write every record of a stored query (or of a request, stored first) as CSV or NDJSON, in its sort order.')
    .requiredOption('--database <target>', DATABASE_HELP)
    .option('--schema <name>', SCHEMA_HELP)
    .option('--filter <request>', 'JSON file with {dataset, filter?, sort?} to store and export (instead of a query id), or - for standard input')
    .option('--format <format>', 'csv or ndjson', 'ndjson')
    .option('--fields <names>', 'comma-separated field names to write (the primary key is always written)')
    .option('--output <file>', 'write to this file instead of standard output')
    .argument('[query-id]', 'the id of a stored query (POST /queries, ventureql query)')
    .action(async (queryId: string | undefined, opts: { database: string; schema?: string; filter?: string; format: string; fields?: string; output?: string }) => {
      const checked = exportArguments(queryId, opts)
      if (!checked.ok) return reportIssues(checked.issues)
      const request = opts.filter === undefined ? undefined : readRequest(opts.filter)
      if (request && !request.ok) return reportIssues(request.issues)
      await withEngine(opts.database, async (engine) => {
        let id = queryId
        if (request) {
          const stored = await engine.store(request.value)
          if (!stored.ok) return reportIssues(stored.issues)
          id = stored.value.query_id
        }
        const out = opts.output === undefined ? process.stdout : createWriteStream(opts.output)
        const result = await exportTo(engine, id!, out, { format: checked.value, fields: opts.fields })
        if (out !== process.stdout) await new Promise<void>((resolve, reject) => (out as Writable).end((e?: Error | null) => (e ? reject(e) : resolve())))
        if (!result.ok) return reportIssues(result.issues)
        process.stderr.write(`${result.value} records of query ${id}\n`)
      }, opts.schema)
    })
}

function exportArguments(queryId: string | undefined, opts: { filter?: string; format: string }): Result<'csv' | 'ndjson'> {
  const issues = []
  if ((queryId === undefined) === (opts.filter === undefined)) {
    issues.push(issue({ code: 'invalid_value', path: '', message: 'Give either a query id or --filter REQUEST (not both).', expected: 'a query id or --filter' }))
  }
  if (opts.format !== 'csv' && opts.format !== 'ndjson') {
    issues.push(issue({ code: 'invalid_value', path: '/format', message: `--format is csv or ndjson; got ${JSON.stringify(opts.format)}.`, expected: 'csv or ndjson', got: JSON.stringify(opts.format) }))
  }
  return issues.length > 0 ? fail(issues) : ok(opts.format as 'csv' | 'ndjson')
}
