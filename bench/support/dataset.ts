/**
 * @module The benchmark database: `BENCH_COMPANIES` generated companies (default 100,000 so a run
 * takes minutes; 1,000,000 for the full figures of design section 8), built once through the same
 * generator and loader as `ventureql generate` and cached under `.ventureql/bench/` (gitignored).
 * A benchmark only ever reads it, so every bench file in a run sees the same data; the stored-query
 * caches the engine writes (totals, checkpoints) are cleared per run by `freshCaches`.
 *
 * Generated with a fixed "today" (`BENCH_AS_OF`), not the generator's default (the day it runs):
 * a cached file keyed by size alone then holds the same data whatever day it was built, and figures
 * of runs on different days stay comparable.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { generateInto } from '../../src/store/generate/build.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { similarIndexCoverage } from '../../src/records/similar-index.js'
import { forgetRememberedTotals } from '../../src/store/row-counts.js'
import { stateFileOf } from '../../src/store/state-file.js'

export const BENCH_DIR = resolve('.ventureql/bench')

/** The generator's "today" for every bench database: the date generated data had before it followed the calendar. */
export const BENCH_AS_OF = '2024-06-30'

export function benchCompanies(): number {
  const raw = process.env.BENCH_COMPANIES ?? '100000'
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 1000) throw new Error(`BENCH_COMPANIES must be an integer >= 1000, got ${JSON.stringify(raw)}`)
  return n
}

/** The path of the cached benchmark database, generated (seed 1, `BENCH_AS_OF`) on first use. */
export function benchDatabaseFile(companies: number = benchCompanies()): string {
  const file = join(BENCH_DIR, `companies-${companies}.db`)
  if (existsSync(file)) return file
  mkdirSync(BENCH_DIR, { recursive: true })
  // Built under a temporary name, so an interrupted generation never leaves a half database behind.
  const partial = `${file}.partial`
  for (const f of [partial, stateFileOf(partial)]) for (const suffix of ['', '-wal', '-shm', '-journal']) if (existsSync(f + suffix)) rmSync(f + suffix)
  const started = Date.now()
  process.stderr.write(`bench: generating ${companies} companies into ${file} (once) ...\n`)
  const vdb = openDatabase(partial)
  let lastTenth = -1
  try {
    generateInto(vdb, {
      companies,
      seed: 1,
      asOf: BENCH_AS_OF,
      ingest: { unsafeFast: true },
      onProgress: (p) => {
        const tenth = Math.floor((p.companies / Math.max(1, p.total)) * 10)
        if (p.step) process.stderr.write(`bench:   ${p.step}\n`)
        else if (tenth !== lastTenth) process.stderr.write(`bench:   ${p.companies}/${p.total}\n`)
        lastTenth = tenth
      },
    })
    vdb.sqlite.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    vdb.sqlite.close()
  }
  renameSync(partial, file)
  // The state file goes with its data file (it is bound to it by the database id, store/state-file.ts).
  if (existsSync(stateFileOf(partial))) renameSync(stateFileOf(partial), stateFileOf(file))
  for (const f of [partial, stateFileOf(partial)]) for (const suffix of ['-wal', '-shm']) if (existsSync(f + suffix)) rmSync(f + suffix)
  process.stderr.write(`bench: generated in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
  return file
}

/**
 * Builds or updates the similarity index of the benchmark database (`ventureql similar-index`)
 * when it does not hold every company at the current data version, and returns how long that took
 * (0 when it was complete). The suite serves similar companies from it, as a deployment that ran
 * the command after its import would; `similar-live` in the mix times the search it replaces.
 * `bench/similar-index.ts` times the build itself.
 */
export async function benchSimilarIndex(file: string = benchDatabaseFile()): Promise<number> {
  const vdb = openDatabase(file)
  let coverage: string
  try {
    coverage = await similarIndexCoverage(vdb)
  } finally {
    vdb.sqlite.close()
  }
  if (coverage === 'current') return 0
  process.stderr.write(`bench: building the similarity index of ${file} (${coverage === 'partial' ? 'completing it' : 'once'}) ...\n`)
  const started = Date.now()
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'similar-index', '--database', file], { stdio: ['ignore', 'inherit', 'inherit'] })
  if (run.status !== 0) throw new Error(`bench: the similarity index was not built (exit ${run.status}); run the command again to complete it`)
  return Date.now() - started
}

/** Opens the benchmark database (migrations applied, so index definitions added since it was built exist). */
export function openBenchDatabase(): SqliteVentureDb {
  return openDatabase(benchDatabaseFile())
}

/** Forgets cached totals and checkpoints (remembered sort keys), so "first" measurements are first. */
export function freshCaches(vdb: SqliteVentureDb): void {
  vdb.sqlite.exec('delete from query_totals; delete from query_checkpoints; delete from stored_queries')
  forgetRememberedTotals(vdb.db)
}

/**
 * Forgets every cached total, written (`query_totals`) or kept in memory (totals cheaper to count
 * than to write, execute/counts.ts), so the next count of an engine on `vdb` (no workers) counts.
 */
export function forgetTotals(vdb: SqliteVentureDb): void {
  vdb.sqlite.exec('delete from query_totals')
  forgetRememberedTotals(vdb.db)
}
