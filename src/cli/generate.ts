/**
 * @module `ventureql generate`: builds a deterministic synthetic dataset, either as a SQLite
 * database (through the same loader as `import`), into PostgreSQL (`--database postgres://...`,
 * through the loader's COPY writer, replacing the schema's data in one transaction) or as a JSON
 * Lines file `import` reads. The data's dates are relative to `--as-of` (default: today, UTC), which
 * the summary names and a database keeps in `meta` (`generated_as_of`). A progress bar goes to
 * stderr on a terminal; elsewhere (CI, pipes) a few plain progress lines.
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import { InvalidArgumentError, type Command } from 'commander'
import cliProgress from 'cli-progress'
import { openDatabase } from '../store/open.js'
import { databaseFiles } from '../store/state-file.js'
import { generateInto, generateIntoDatabase, generateJsonl, type Progress } from '../store/generate/build.js'
import { asOfDate, todayUtc } from '../store/generate/generator.js'
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

/** Reports progress: a bar on a TTY, otherwise a line at every 10% and for each finishing step. */
function progressReporter(label: string): { update(p: Progress): void; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar({
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | {value}/{total} companies | {eta_formatted} left | {step}`,
      hideCursor: true,
    }, cliProgress.Presets.shades_classic)
    let started = false
    return {
      update(p) {
        if (!started) { bar.start(p.total, 0, { step: 'writing' }); started = true }
        bar.update(p.companies, { step: p.step ?? 'writing' })
      },
      stop() { if (started) bar.stop() },
    }
  }
  let lastTenth = -1
  let lastStep: string | undefined
  return {
    update(p) {
      const tenth = p.total === 0 ? 10 : Math.floor((p.companies / p.total) * 10)
      if (p.step === undefined && tenth !== lastTenth) {
        lastTenth = tenth
        process.stderr.write(`${label}: ${p.companies}/${p.total} companies\n`)
      } else if (p.step !== undefined && p.step !== lastStep) {
        lastStep = p.step
        process.stderr.write(`${label}: ${p.step}\n`)
      }
    },
    stop() {},
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
      const progress = progressReporter('generate')
      try {
        if (format === 'jsonl') {
          const lines = await generateJsonl(opts.out, { companies: opts.companies, seed: opts.seed, asOf, onProgress: (p) => progress.update(p) })
          progress.stop()
          process.stdout.write(`wrote ${lines} records to ${opts.out} in ${((Date.now() - started) / 1000).toFixed(1)} s (dated as of ${asOf})\n`)
          return
        }
        // A fresh file: the loader may run without a journal (nobody else has it open).
        // The state file goes too: a replaced database starts without the old one's keys and caches.
        for (const f of databaseFiles(opts.out)) if (existsSync(f)) rmSync(f)
        const vdb = openDatabase(opts.out)
        try {
          const summary = generateInto(vdb, {
            companies: opts.companies, seed: opts.seed, asOf, ingest: { unsafeFast: true }, onProgress: (p) => progress.update(p),
          })
          progress.stop()
          const size = statSync(opts.out).size
          process.stdout.write(`${opts.out}: ${summary.companies} companies, ${summary.investors} investors, `
            + `${vdb.sqlite.prepare('select count(*) from fundings').pluck().get()} funding events, `
            + `${(size / 1e6).toFixed(1)} MB, data version ${summary.dataVersion}, ${((Date.now() - started) / 1000).toFixed(1)} s (dated as of ${asOf})\n`)
        } finally {
          await vdb.close()
        }
      } finally {
        progress.stop()
      }
    })
}

async function generatePostgres(target: string, opts: { companies: number; seed: number; asOf: string; schema?: string }): Promise<void> {
  const started = Date.now()
  const vdb = await openTarget(target, { ...(opts.schema !== undefined ? { schema: opts.schema } : {}) })
  if (vdb.dialect !== 'postgres') throw new Error('generate: expected a PostgreSQL database')
  const progress = progressReporter('generate')
  try {
    const summary = await generateIntoDatabase(vdb, {
      companies: opts.companies, seed: opts.seed, asOf: opts.asOf, onProgress: (p) => progress.update(p),
      postgres: { replace: true },
    })
    progress.stop()
    const fundings = await vdb.db.selectFrom('fundings').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()
    process.stdout.write(`${describeTarget(target, vdb.schema)}: ${summary.companies} companies, ${summary.investors} investors, `
      + `${Number(fundings.n)} funding events, data version ${summary.dataVersion}, ${((Date.now() - started) / 1000).toFixed(1)} s (dated as of ${opts.asOf})\n`)
  } finally {
    progress.stop()
    await vdb.close()
  }
}
