/**
 * @module `ventureql generate`: builds a deterministic synthetic dataset, either as a SQLite
 * database (through the same loader as `import`) or as a JSON Lines file `import` reads. A progress
 * bar goes to stderr on a terminal; elsewhere (CI, pipes) a few plain progress lines.
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import type { Command } from 'commander'
import cliProgress from 'cli-progress'
import { openDatabase } from '../store/open.js'
import { generateInto, generateJsonl, type Progress } from '../store/generate/build.js'

export const DEFAULT_DEMO_COMPANIES = 5000

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(value)}`)
    return n
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
    .requiredOption('--out <file>', 'output file (replaced if it exists)')
    .option('--seed <n>', 'PRNG seed; the same seed and size give the same data', positiveInt('--seed'), 1)
    .option('--format <format>', 'sqlite or jsonl (default: jsonl when --out ends in .jsonl, else sqlite)')
    .action(async (opts: { companies: number; out: string; seed: number; format?: string }) => {
      const format = opts.format ?? (opts.out.endsWith('.jsonl') ? 'jsonl' : 'sqlite')
      if (format !== 'sqlite' && format !== 'jsonl') throw new Error(`--format must be sqlite or jsonl, got ${JSON.stringify(format)}`)
      const started = Date.now()
      const progress = progressReporter('generate')
      try {
        if (format === 'jsonl') {
          const lines = await generateJsonl(opts.out, { companies: opts.companies, seed: opts.seed, onProgress: (p) => progress.update(p) })
          progress.stop()
          process.stdout.write(`wrote ${lines} records to ${opts.out} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
          return
        }
        // A fresh file: the loader may run without a journal (nobody else has it open).
        for (const suffix of ['', '-wal', '-shm', '-journal']) if (existsSync(opts.out + suffix)) rmSync(opts.out + suffix)
        const vdb = openDatabase(opts.out)
        try {
          const summary = generateInto(vdb, {
            companies: opts.companies, seed: opts.seed, ingest: { unsafeFast: true }, onProgress: (p) => progress.update(p),
          })
          progress.stop()
          const size = statSync(opts.out).size
          process.stdout.write(`${opts.out}: ${summary.companies} companies, ${summary.investors} investors, `
            + `${vdb.sqlite.prepare('select count(*) from fundings').pluck().get()} funding events, `
            + `${(size / 1e6).toFixed(1)} MB, data version ${summary.dataVersion}, ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
        } finally {
          await vdb.close()
        }
      } finally {
        progress.stop()
      }
    })
}
