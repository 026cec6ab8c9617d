/**
 * @module `ventureql query [--database FILE] REQUEST`: runs a structured query (spec 4.14) and prints
 * the result envelope (spec 2.14) as JSON; on a bad request, the issues formatted for a person on
 * stderr and exit code 1. REQUEST is a JSON file, or `-` for standard input. Also the request
 * reading shared with `explain`.
 */
import { readFileSync, statSync } from 'node:fs'
import type { Command } from 'commander'
import { resolveLimits } from '../check/limits.js'
import { createEngine, type Engine } from '../engine.js'
import { formatIssues } from '../errors/format.js'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import { openTarget } from '../store/open-target.js'
import { DEFAULT_DATABASE, DEFAULT_DATABASE_HELP } from './keys.js'

/** Reads and parses the request: a file path or `-` (stdin), at most `maxBytes`. */
export function readRequest(source: string, maxBytes = resolveLimits().maxBodyBytes): Result<unknown> {
  const tooLarge = (bytes: number) => fail<unknown>([issue({
    code: 'limit_exceeded', path: '', message: `The request is ${bytes} bytes, more than the limit (maxBodyBytes) of ${maxBytes} bytes.`,
    expected: `at most ${maxBytes} bytes`, got: `${bytes} bytes`,
  })])
  let text: string
  try {
    // A file's size is known before reading it: a huge file is refused without loading it.
    if (source !== '-') {
      const bytes = statSync(source).size
      if (bytes > maxBytes) return tooLarge(bytes)
    }
    text = readFileSync(source === '-' ? 0 : source, 'utf8')
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return fail([issue({ code: 'invalid_json', path: '', message: `Cannot read the request from ${source === '-' ? 'standard input' : source}: ${reason}` })])
  }
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > maxBytes) return tooLarge(bytes)
  try {
    return ok(JSON.parse(text) as unknown)
  } catch (error) {
    return fail([issue({ code: 'invalid_json', path: '', message: `The request is not valid JSON: ${error instanceof Error ? error.message : String(error)}` })])
  }
}

/** Runs `action` on an engine over an existing database (a SQLite file or a postgres:// URL), closing it afterwards. */
export async function withEngine<T>(database: string, action: (engine: Engine) => Promise<T>, schema?: string): Promise<T> {
  // A missing file is said as such: opening would create an empty database and answer nothing.
  const vdb = await openTarget(database, { schema })
  // One query and exit: worker threads would only add their start-up.
  const engine = createEngine({ database: vdb, workers: 0 })
  try {
    return await action(engine)
  } finally {
    await engine.close()
    await vdb.close()
  }
}

/** The `--database` and `--schema` options every command that opens a database shares. */
export const DATABASE_HELP = 'SQLite database file, or postgres://user@host:port/database'
export const SCHEMA_HELP = 'PostgreSQL schema holding the tables (with a postgres:// --database)'

export function reportIssues(issues: readonly Issue[]): void {
  process.stderr.write(`${formatIssues(issues)}\n`)
  process.exitCode = 1
}

/** Digits become a number; anything else is passed on as typed, so the issue quotes what the user wrote. */
const integer = (value: string): number | string => (/^-?\d+$/.test(value) ? Number(value) : value)

/** Puts `--page`/`--per-page` into the request (they win over the request's own). */
function withPaging(request: unknown, page?: number | string, perPage?: number | string): unknown {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) return request
  return { ...request, ...(page !== undefined ? { page } : {}), ...(perPage !== undefined ? { per_page: perPage } : {}) }
}

export function registerQuery(program: Command): void {
  program.command('query')
    .description('Run a structured query and print the result envelope as JSON.')
    .option('--database <target>', `${DATABASE_HELP} (${DEFAULT_DATABASE_HELP})`, DEFAULT_DATABASE)
    .option('--schema <name>', SCHEMA_HELP)
    .option('--page <n>', 'page number, from 1', integer)
    .option('--per-page <n>', 'results per page', integer)
    .argument('<request>', 'JSON file with {dataset, filter?, sort?, page?, per_page?}, or - for standard input')
    .action(async (source: string, opts: { database: string; schema?: string; page?: number | string; perPage?: number | string }) => {
      const request = readRequest(source)
      if (!request.ok) return reportIssues(request.issues)
      await withEngine(opts.database, async (engine) => {
        const result = await engine.query(withPaging(request.value, opts.page, opts.perPage))
        if (!result.ok) return reportIssues(result.issues)
        process.stdout.write(`${JSON.stringify(result.value, null, 2)}\n`)
      }, opts.schema)
    })
}
