/**
 * @module `ventureql explain [--database FILE] REQUEST`: shows what a query means and what it runs
 * (canonical form, query id and version, the SQL and its parameters, the count SQL, the cost) without
 * storing or running it. `--json` prints the same as one JSON object.
 */
import type { Command } from 'commander'
import type { ExplainResult } from '../engine.js'
import { DATABASE_HELP, readRequest, reportIssues, SCHEMA_HELP, withEngine } from './query.js'
import { DEFAULT_DATABASE, DEFAULT_DATABASE_HELP } from './keys.js'

export function formatExplain(e: ExplainResult): string {
  return [
    `query_id: ${e.query_id}`,
    `query_version: ${e.query_version}`,
    'canonical:',
    JSON.stringify(e.canonical, null, 2),
    'sql (first page; later pages add a keyset seek):',
    e.sql,
    `parameters: ${JSON.stringify(e.parameters)}`,
    'count sql:',
    e.count_sql,
    `count parameters: ${JSON.stringify(e.count_parameters)}`,
    `cost: ${e.cost.units} units per record, ${e.cost.rows} records, predicted ${e.cost.ms} ms (X-Query-Cost; grammar-docs/language.md, "Limits")`,
  ].join('\n')
}

export function registerExplain(program: Command): void {
  program.command('explain')
    .description('Print the canonical form, id, SQL and parameters of a query without running it.')
    .option('--database <target>', `${DATABASE_HELP} (${DEFAULT_DATABASE_HELP})`, DEFAULT_DATABASE)
    .option('--schema <name>', SCHEMA_HELP)
    .option('--json', 'print one JSON object')
    .argument('<request>', 'JSON file with {dataset, filter?, sort?}, or - for standard input')
    .action(async (source: string, opts: { database: string; schema?: string; json?: boolean }) => {
      const request = readRequest(source)
      if (!request.ok) return reportIssues(request.issues)
      await withEngine(opts.database, async (engine) => {
        const result = await engine.explain(request.value)
        if (!result.ok) return reportIssues(result.issues)
        process.stdout.write(`${opts.json ? JSON.stringify(result.value, null, 2) : formatExplain(result.value)}\n`)
      }, opts.schema)
    })
}
