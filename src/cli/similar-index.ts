/**
 * @module `ventureql similar-index --database FILE|URL [--full] [--reweigh]`: builds or updates the
 * similarity index (records/similar-index-build.ts), every company's similar companies computed
 * ahead, so that GET /companies/:id/similar reads its answer instead of searching. To be run again
 * after every import: it then recomputes only the companies the import changed and those whose
 * answer they enter or leave (an ingest moves the data version, and the search answers until the
 * index is updated).
 *
 * One process builds the index: it reads the data once into one model, and `--jobs N` worker
 * threads (default: the machine's cores, at most 4) compute the answers from it in shared memory
 * (records/similar/threads.ts). `--shard i/n` is accepted (and checked) for compatibility: shard
 * `0/n` builds the whole index, and the other shards say so and exit 0.
 */
import { availableParallelism } from 'node:os'
import { InvalidArgumentError, type Command } from 'commander'
import { buildSimilarIndex, type SimilarIndexSummary } from '../records/similar-index-build.js'
import { openTarget, TargetError } from '../store/open-target.js'
import { DEFAULT_DATABASE, DEFAULT_DATABASE_HELP } from './keys.js'

export interface SimilarIndexCommandOptions {
  readonly database: string
  readonly schema?: string
  /** Recompute every company. */
  readonly full?: boolean
  /** Take new tag weights from the data (recomputes every company). */
  readonly reweigh?: boolean
  /** Threads computing the answers (default: the machine's cores, at most `MAX_DEFAULT_JOBS`). */
  readonly jobs?: number
  /** `i/n`: shard 0 builds the whole index, the others do nothing. */
  readonly shard?: string
}

/** The default of `--jobs`: more threads than cores only share them, and each costs its own scratch and heap. */
export const MAX_DEFAULT_JOBS = 4

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

/** `--jobs`: digits only, 1 to 64. */
export function jobsCount(value: string): number {
  const n = Number(value)
  if (!/^[0-9]{1,2}$/.test(value) || n < 1 || n > 64) throw new InvalidArgumentError(`--jobs must be a whole number from 1 to 64, got ${JSON.stringify(value)}`)
  return n
}

/** Builds or updates the index and says what it did; undefined for a shard other than 0 (nothing to do). */
export async function similarIndexCommand(opts: SimilarIndexCommandOptions, log: (line: string) => void): Promise<SimilarIndexSummary | undefined> {
  if (opts.jobs !== undefined && opts.shard !== undefined) throw new TargetError('--jobs and --shard cannot be combined')
  const shard = opts.shard === undefined ? undefined : parseShard(opts.shard)
  // No memory map of a SQLite file: the build reads each row once, in order, and a mapped file's
  // pages count in the process's resident memory (0.9 GB of the 1,000,000-company file).
  const vdb = await openTarget(opts.database, { schema: opts.schema, sqlite: { mmapBytes: 0 } })
  try {
    if (shard && shard.index > 0) {
      log(`similar-index ${shard.index}/${shard.count}: nothing to do (shard 0 builds the whole index in one process)`)
      return undefined
    }
    const jobs = opts.jobs ?? Math.min(MAX_DEFAULT_JOBS, availableParallelism())
    let reported = 0
    let phase = 'compute'
    const summary = await buildSimilarIndex(vdb, {
      full: opts.full === true,
      reweigh: opts.reweigh === true,
      jobs,
      onProgress: (p) => {
        if (p.phase !== phase) {
          phase = p.phase
          reported = 0
        }
        // About every 5%, and the end.
        if (p.done === p.total || p.done - reported >= Math.max(1, Math.floor(p.total / 20))) {
          reported = p.done
          log(`similar-index: ${p.done} / ${p.total} companies ${p.phase === 'compute' ? 'computed' : 'written'}`)
        }
      },
    })
    log(`similar-index: ${summary.computed} computed, ${summary.current} already current${summary.deleted > 0 ? `, ${summary.deleted} deleted` : ''}, of ${summary.companies} companies at data version ${summary.dataVersion} in ${(summary.ms / 1000).toFixed(1)} s${summary.reweighed ? ' (new tag weights)' : ''}${summary.restarts > 0 ? ` (the data changed ${summary.restarts} time(s) during the build: started over)` : ''}`)
    const { readMs, modelMs, computeMs, writeMs } = summary.phases
    const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`
    log(`similar-index: reading ${secs(readMs)}, model ${secs(modelMs)}, answers ${secs(computeMs)} (${jobs} thread${jobs === 1 ? '' : 's'}), writing ${secs(writeMs)}`)
    return summary
  } finally {
    await vdb.close()
  }
}

export function registerSimilarIndex(program: Command): void {
  program.command('similar-index')
    .description('Build or update the similarity index: every company\'s similar companies computed ahead (run again after an import).')
    .option('--database <target>', `SQLite database file or postgres:// URL (${DEFAULT_DATABASE_HELP})`, DEFAULT_DATABASE)
    .option('--schema <name>', 'PostgreSQL schema holding the tables')
    .option('--full', 'recompute every company, not only those the data changed since')
    .option('--reweigh', 'take new tag weights from the data (recomputes every company)')
    .option('--jobs <n>', `threads computing the answers (default: the cores, at most ${MAX_DEFAULT_JOBS})`, jobsCount)
    .option('--shard <i/n>', 'accepted for compatibility: shard 0 builds the whole index, the other shards exit 0')
    .action(async (opts: SimilarIndexCommandOptions) => {
      await similarIndexCommand(opts, (line) => process.stderr.write(`${line}\n`))
    })
}
