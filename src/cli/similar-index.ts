/**
 * @module `ventureql similar-index --database FILE|URL [--jobs N]`: builds the similarity index
 * (records/similar-index-build.ts), every company's similar companies computed ahead, so that
 * GET /companies/:id/similar reads its answer instead of searching. Resumable (companies already
 * built for the current data version are skipped) and to be run again after every import: an
 * ingest moves the data version, and the search answers until the index is rebuilt.
 *
 * `--jobs N` runs N processes (this command with `--shard i/N`), one shard of the companies each:
 * the search is CPU work in JavaScript, one core per process.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { InvalidArgumentError, type Command } from 'commander'
import { buildSimilarIndex, type SimilarIndexSummary } from '../records/similar-index-build.js'
import { describeTarget, openTarget, TargetError } from '../store/open-target.js'
import { DEFAULT_DATABASE, DEFAULT_DATABASE_HELP } from './keys.js'

export interface SimilarIndexCommandOptions {
  readonly database: string
  readonly schema?: string
  /** `i/n`: build shard i of n (what `--jobs` gives each process). */
  readonly shard?: string
  readonly jobs?: number
}

/** `"i/n"` with 0 <= i < n, or a TargetError saying what was expected. */
export function parseShard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim())
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  if (!match || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index >= count) {
    throw new TargetError(`--shard must be i/n with 0 <= i < n, such as 0/2 (got "${text}")`)
  }
  return { index, count }
}

/** One process's build: the whole index, or one shard of it. */
export async function similarIndexCommand(opts: SimilarIndexCommandOptions, log: (line: string) => void): Promise<SimilarIndexSummary> {
  const shard = opts.shard === undefined ? undefined : parseShard(opts.shard)
  const vdb = await openTarget(opts.database, { schema: opts.schema })
  try {
    const name = shard ? `similar-index ${shard.index}/${shard.count}` : 'similar-index'
    let reported = 0
    const summary = await buildSimilarIndex(vdb, {
      ...(shard ? { shard } : {}),
      onProgress: ({ done, total }) => {
        // About every 5%, and the end.
        if (done === total || done - reported >= Math.max(1, Math.floor(total / 20))) {
          reported = done
          log(`${name}: ${done} / ${total} companies`)
        }
      },
    })
    log(`${name}: ${summary.computed} computed, ${summary.current} already current, of ${summary.companies} companies at data version ${summary.dataVersion} in ${(summary.ms / 1000).toFixed(1)} s${summary.ranking === 'shared' ? ' (ranked by shared tag weight: the tag totals cannot be kept for this data)' : ''}${summary.restarts > 0 ? ` (the data changed ${summary.restarts} time(s) during the build: started over)` : ''}`)
    return summary
  } finally {
    await vdb.close()
  }
}

/** Node flags a child must not inherit: a debugger's port is the parent's. */
const PARENT_ONLY_FLAG = /^--(inspect|debug)/

/**
 * `--jobs N`: this command N times with `--shard i/N`, in parallel; fails if any of them fails. The
 * database is opened here first: a missing one is one error, and migrations run once, not raced by
 * N processes. SIGINT and SIGTERM reach the children (what they wrote stays; a rerun resumes).
 */
async function runJobs(opts: SimilarIndexCommandOptions, jobs: number, log: (line: string) => void): Promise<void> {
  const script = process.argv[1]
  if (script === undefined) throw new Error('similar-index --jobs: cannot tell how this command was started (no script in process.argv)')
  await (await openTarget(opts.database, { schema: opts.schema })).close()
  const started = Date.now()
  const children: ChildProcess[] = []
  const forward = (signal: NodeJS.Signals) => { for (const child of children) child.kill(signal) }
  const onInt = () => forward('SIGINT')
  const onTerm = () => forward('SIGTERM')
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  try {
    const outcomes = await Promise.all(Array.from({ length: jobs }, (_, index) => new Promise<string | undefined>((resolve) => {
      const args = [...process.execArgv.filter((flag) => !PARENT_ONLY_FLAG.test(flag)), script, 'similar-index', '--database', opts.database, '--shard', `${index}/${jobs}`,
        ...(opts.schema !== undefined ? ['--schema', opts.schema] : [])]
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] })
      children.push(child)
      child.on('error', (error) => resolve(`shard ${index}/${jobs} did not start: ${error.message}`))
      child.on('exit', (code, signal) => resolve(code === 0 ? undefined : `shard ${index}/${jobs} ${signal ? `was stopped by ${signal}` : `exited with code ${code}`}`))
    })))
    const failed = outcomes.filter((outcome): outcome is string => outcome !== undefined)
    if (failed.length > 0) throw new Error(`similar-index: ${failed.join('; ')} (what was built stays; run the command again to complete it)`)
  } finally {
    process.off('SIGINT', onInt)
    process.off('SIGTERM', onTerm)
  }
  log(`similar-index: ${jobs} jobs done in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

/** `--jobs`: digits only, 1 to 64. */
export function jobsCount(value: string): number {
  const n = Number(value)
  if (!/^[0-9]{1,2}$/.test(value) || n < 1 || n > 64) throw new InvalidArgumentError(`--jobs must be a whole number from 1 to 64, got ${JSON.stringify(value)}`)
  return n
}

export function registerSimilarIndex(program: Command): void {
  program.command('similar-index')
    .description('Build the similarity index: every company\'s similar companies computed ahead (run again after an import).')
    .option('--database <target>', `SQLite database file or postgres:// URL (${DEFAULT_DATABASE_HELP})`, DEFAULT_DATABASE)
    .option('--schema <name>', 'PostgreSQL schema holding the tables')
    .option('--jobs <n>', 'processes to build with, one shard each (default 1)', jobsCount)
    .option('--shard <i/n>', 'build shard i of n only (what --jobs runs)')
    .action(async (opts: SimilarIndexCommandOptions) => {
      const log = (line: string) => process.stderr.write(`${line}\n`)
      if (opts.jobs !== undefined && opts.jobs > 1) {
        if (opts.shard !== undefined) throw new TargetError('--jobs and --shard cannot be combined: --jobs runs the shards itself')
        log(`similar-index: ${describeTarget(opts.database, opts.schema)}, ${opts.jobs} jobs`)
        await runJobs(opts, opts.jobs, log)
        return
      }
      await similarIndexCommand(opts, log)
    })
}
