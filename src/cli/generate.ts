/**
 * @module `ventureql generate`: builds a deterministic synthetic dataset, either as a SQLite
 * database (through the same loader as `import`), into PostgreSQL (`--database postgres://...`,
 * through the loader's COPY writer, replacing the schema's data in one transaction) or as a JSON
 * Lines file `import` reads. The data's dates are relative to `--as-of` (default: today, UTC), which
 * the summary names and a database keeps in `meta` (`generated_as_of`). Progress (phase, share done,
 * time left, progress.ts) goes to stderr: a bar on a terminal, elsewhere (CI, pipes) a few lines.
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import { InvalidArgumentError, type Command } from 'commander'
import { openDatabase } from '../store/open.js'
import { databaseFiles } from '../store/state-file.js'
import { generateInto, generateIntoDatabase, generateJsonl, type Progress } from '../store/generate/build.js'
import { asOfDate, todayUtc } from '../store/generate/generator.js'
import { loadPhases, RECORDS_PHASE, type LoadPhase } from '../store/load-phases.js'
import { companiesUnit, progressReporter } from './progress.js'
import { describeTarget, isPostgresUrl, openTarget, TargetError } from '../store/open-target.js'

export const DEFAULT_DEMO_COMPANIES = 5000

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(value)}`)
    return n
  }
}

/** `--as-of`: a calendar day YYYY-MM-DD. */
function asOfOption(value: string): string {
  try {
    return asOfDate(value)
  } catch {
    throw new InvalidArgumentError(`--as-of must be a calendar day YYYY-MM-DD, got ${JSON.stringify(value)}`)
  }
}

/** Progress of a generation on stderr: the generator's updates as phases of the load. */
function generateProgress(phases: readonly LoadPhase[]): { update(p: Progress): void; stop(done?: boolean): void } {
  const reporter = progressReporter({ label: 'generate', phases, unit: companiesUnit })
  return {
    update: (p) => reporter.update(p.step === undefined ? { phase: RECORDS_PHASE, done: p.companies, total: p.total } : { phase: p.step }),
    stop: (done) => reporter.stop(done),
  }
}

export function registerGenerate(program: Command): void {
  program.command('generate')
    .description('Generate a deterministic synthetic dataset (SQLite database or JSON Lines).')
    .option('--companies <n>', 'number of companies', positiveInt('--companies'), DEFAULT_DEMO_COMPANIES)
    .option('--out <file>', 'output file (replaced if it exists)')
    .option('--database <target>', 'postgres://USER@HOST:PORT/DB to generate into (the schema\'s data is replaced), or a SQLite file (as --out)')
    .option('--schema <name>', 'PostgreSQL: schema to generate into (created if missing)')
    .option('--seed <n>', 'PRNG seed; the same seed, size and --as-of give the same data', positiveInt('--seed'), 1)
    .option('--as-of <YYYY-MM-DD>', 'the data\'s "today": every date falls before it (default: today, UTC; give one for reproducible data)', asOfOption)
    .option('--format <format>', 'sqlite or jsonl (default: jsonl when --out ends in .jsonl, else sqlite)')
    .action(async (options: { companies: number; out?: string; database?: string; schema?: string; seed: number; asOf?: string; format?: string }) => {
      if (options.out !== undefined && options.database !== undefined) throw new TargetError('give --out FILE or --database TARGET, not both')
      const target = options.database ?? options.out
      if (target === undefined) throw new TargetError('say where to generate: --out FILE (SQLite or .jsonl) or --database postgres://USER@HOST:PORT/DB')
      // Settled once, so the summary names the day the records were dated from.
      const asOf = options.asOf ?? todayUtc()
      if (isPostgresUrl(target)) {
        if (options.format !== undefined && options.format !== 'postgres') throw new TargetError(`--format ${options.format} does not apply to a PostgreSQL database`)
        await generatePostgres(target, { ...options, asOf })
        return
      }
      if (options.schema !== undefined) throw new TargetError(`--schema applies to a PostgreSQL database (postgres://...), not to the SQLite file ${target}`)
      const opts = { ...options, out: target }
      const format = opts.format ?? (opts.out.endsWith('.jsonl') ? 'jsonl' : 'sqlite')
      if (format !== 'sqlite' && format !== 'jsonl') throw new Error(`--format must be sqlite or jsonl, got ${JSON.stringify(format)}`)
      const started = Date.now()
      if (format === 'jsonl') {
        const progress = generateProgress([{ name: RECORDS_PHASE, weight: 1 }])
        try {
          const lines = await generateJsonl(opts.out, { companies: opts.companies, seed: opts.seed, asOf, onProgress: (p) => progress.update(p) })
          progress.stop(true)
          process.stdout.write(`wrote ${lines} records to ${opts.out} in ${((Date.now() - started) / 1000).toFixed(1)} s (dated as of ${asOf})\n`)
        } finally {
          progress.stop()
        }
        return
      }
      // A fresh file: the loader may run without a journal (nobody else has it open).
      // The state file goes too: a replaced database starts without the old one's keys and caches.
      for (const f of databaseFiles(opts.out)) if (existsSync(f)) rmSync(f)
      const vdb = openDatabase(opts.out)
      const progress = generateProgress(loadPhases('sqlite', { rebuildsIndexes: true }))
      try {
        const summary = generateInto(vdb, {
          companies: opts.companies, seed: opts.seed, asOf, ingest: { unsafeFast: true }, onProgress: (p) => progress.update(p),
        })
        progress.stop(true)
        const size = statSync(opts.out).size
        process.stdout.write(`${opts.out}: ${summary.added.companies} companies, ${summary.added.investors} investors, `
          + `${summary.added.fundings} funding events, ${(size / 1e6).toFixed(1)} MB, data version ${summary.dataVersion}, `
          + `${((Date.now() - started) / 1000).toFixed(1)} s (dated as of ${asOf})\n`)
      } finally {
        progress.stop()
        await vdb.close()
      }
    })
}

async function generatePostgres(target: string, opts: { companies: number; seed: number; asOf: string; schema?: string }): Promise<void> {
  const started = Date.now()
  const vdb = await openTarget(target, { ...(opts.schema !== undefined ? { schema: opts.schema } : {}) })
  if (vdb.dialect !== 'postgres') throw new Error('generate: expected a PostgreSQL database')
  // The schema's data is replaced: a load into an empty schema, its indexes rebuilt at the end.
  const progress = generateProgress(loadPhases('postgres', { rebuildsIndexes: true }))
  try {
    const summary = await generateIntoDatabase(vdb, {
      companies: opts.companies, seed: opts.seed, asOf: opts.asOf, onProgress: (p) => progress.update(p),
      postgres: { replace: true },
    })
    progress.stop(true)
    process.stdout.write(`${describeTarget(target, vdb.schema)}: ${summary.added.companies} companies, ${summary.added.investors} investors, `
      + `${summary.added.fundings} funding events, data version ${summary.dataVersion}, ${((Date.now() - started) / 1000).toFixed(1)} s (dated as of ${opts.asOf})\n`)
  } finally {
    progress.stop()
    await vdb.close()
  }
}
