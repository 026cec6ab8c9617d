/**
 * @module Timing and reporting for the benchmarks. Machines are noisy (two cores shared with other
 * work), so absolute times are printed but only RATIOS are checked: each case times the subject and
 * a baseline measured in the same run, interleaved run by run so that a burst of noise hits both,
 * and its target is a bound on subject median / baseline median. A bench file exits non-zero when
 * a target is missed.
 *
 * Each timed run is measured twice: wall-clock time, and the process's CPU time over the same span
 * (`process.cpuUsage()`, user and system, every thread of the process: work the engine hands to a
 * worker thread counts too). On a shared machine a run's wall time also holds the time the process
 * was ready but not scheduled, which lands on whichever side ran at that moment; its CPU time does
 * not. CPU time leaves out time spent waiting on the disk, so a side that reads cold pages looks
 * cheaper by CPU than it is: the README says which ratio a target is judged on.
 */
import { performance } from 'node:perf_hooks'

export interface Stats {
  readonly median: number
  readonly p95: number
  readonly runs: number
}

export interface Case {
  readonly name: string
  /** Untimed, after every timed run of either side (e.g. waiting for background work a run started). */
  readonly after?: () => unknown
  /** Untimed, before every timed baseline run (as `setup` is for the subject). */
  readonly baselineSetup?: () => unknown
  /** What is measured (usually the engine). */
  readonly subject: () => unknown
  /** What it is compared with, in the same run. */
  readonly baseline: () => unknown
  readonly baselineName: string
  /** The target: subject median / baseline median must not exceed this. */
  readonly maxRatio: number
  /**
   * Which ratio `maxRatio` bounds (default wall): 'cpu' for pairs that only compute on data already
   * in memory, where the wall clock of a loaded machine mostly measures the scheduler.
   */
  readonly judgeBy?: 'wall' | 'cpu'
  /** Runs of each (default `BENCH_RUNS` or 21); one untimed warm-up run of each comes first. */
  readonly runs?: number
  /** Runs the subject once untimed before timing it (default true); false for cold first calls. */
  readonly warmup?: boolean
  /**
   * Untimed runs of each side first, with their setups, when `warmup` is on (default 1). More for
   * a subject whose code path is long: JavaScript that has run a few times is not yet compiled by
   * V8's optimizing tiers, which a server's calls are.
   */
  readonly warmupRuns?: number
  /** Untimed, before every timed subject run (e.g. forgetting a cache so each run is a first one). */
  readonly setup?: () => unknown
}

export interface CaseResult {
  readonly name: string
  readonly baselineName: string
  /** Wall-clock times (ms). */
  readonly subject: Stats
  readonly baseline: Stats
  /** CPU times of the same runs (ms, `process.cpuUsage()`: user and system, all threads). */
  readonly subjectCpu: Stats
  readonly baselineCpu: Stats
  /** subject median / baseline median, wall-clock. */
  readonly ratio: number
  /** The same by CPU time. */
  readonly cpuRatio: number
  /** Which of the two `ok` checks against `maxRatio`. */
  readonly judgeBy: 'wall' | 'cpu'
  readonly maxRatio: number
  readonly ok: boolean
}

export function defaultRuns(): number {
  const n = Number(process.env.BENCH_RUNS ?? 21)
  return Number.isSafeInteger(n) && n > 0 ? n : 21
}

export function stats(times: readonly number[]): Stats {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN
  const mid = sorted.length / 2
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return Object.freeze({ median, p95: at(0.95), runs: sorted.length })
}

/** One timed run: wall-clock and CPU milliseconds. */
export interface Timing {
  readonly wall: number
  readonly cpu: number
}

/** Times `fn` (after `setup`, before `after`, both untimed) by the wall clock and by the process's CPU time. */
export async function timeRun(fn: () => unknown, setup?: () => unknown, after?: () => unknown): Promise<Timing> {
  if (setup) await setup()
  const cpu = process.cpuUsage()
  const started = performance.now()
  await fn()
  const wall = performance.now() - started
  const used = process.cpuUsage(cpu)
  if (after) await after()
  return { wall, cpu: (used.user + used.system) / 1000 }
}

/** Times a subject and its baseline, interleaved. */
export async function runCase(c: Case): Promise<CaseResult> {
  const runs = c.runs ?? defaultRuns()
  if (c.warmup ?? true) {
    for (let i = 0; i < (c.warmupRuns ?? 1); i++) {
      await timeRun(c.baseline, c.baselineSetup, c.after)
      await timeRun(c.subject, c.setup, c.after)
    }
  }
  const subject: Timing[] = []
  const baseline: Timing[] = []
  const timeSubject = async () => subject.push(await timeRun(c.subject, c.setup, c.after))
  const timeBaseline = async () => baseline.push(await timeRun(c.baseline, c.baselineSetup, c.after))
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so neither always runs on the other's warm cache.
    if (i % 2 === 0) {
      await timeBaseline()
      await timeSubject()
    } else {
      await timeSubject()
      await timeBaseline()
    }
  }
  const s = stats(subject.map((t) => t.wall))
  const b = stats(baseline.map((t) => t.wall))
  const sCpu = stats(subject.map((t) => t.cpu))
  const bCpu = stats(baseline.map((t) => t.cpu))
  const ratio = s.median / b.median
  const cpuRatio = sCpu.median / bCpu.median
  const judgeBy = c.judgeBy ?? 'wall'
  return Object.freeze({
    name: c.name, baselineName: c.baselineName, subject: s, baseline: b, subjectCpu: sCpu, baselineCpu: bCpu,
    ratio, cpuRatio, judgeBy, maxRatio: c.maxRatio, ok: (judgeBy === 'cpu' ? cpuRatio : ratio) <= c.maxRatio,
  })
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toFixed(3))

/** A fixed-width table of results (times in ms; `cpu` and `b.cpu` are the medians of CPU time). */
export function formatTable(title: string, results: readonly CaseResult[]): string {
  const header = ['case', 'median', 'p95', 'baseline', 'b.median', 'b.p95', 'ratio', 'target', '', 'cpu', 'b.cpu', 'cpu ratio']
  const rows = results.map((r) => [
    r.name, ms(r.subject.median), ms(r.subject.p95), r.baselineName, ms(r.baseline.median), ms(r.baseline.p95),
    r.ratio.toFixed(r.ratio >= 10 ? 1 : 3), `<= ${r.maxRatio}${r.judgeBy === 'cpu' ? ' (cpu)' : ''}`, r.ok ? 'ok' : 'MISSED',
    ms(r.subjectCpu.median), ms(r.baselineCpu.median), r.cpuRatio.toFixed(r.cpuRatio >= 10 ? 1 : 3),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 || i === 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd()
  return [`\n## ${title} (times in ms)`, line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

/** Runs the cases in order, prints the table, and sets a failing exit code when a target is missed. */
export async function runBench(title: string, cases: readonly Case[], defaults: { runs?: number } = {}): Promise<CaseResult[]> {
  const results: CaseResult[] = []
  for (const c of cases) {
    process.stderr.write(`  ${title}: ${c.name} ...\n`)
    results.push(await runCase(defaults.runs !== undefined && c.runs === undefined ? { ...c, runs: defaults.runs } : c))
  }
  console.log(formatTable(title, results))
  const missed = results.filter((r) => !r.ok)
  if (missed.length > 0) {
    console.log(`\n${missed.length} target(s) missed: ${missed.map((r) => r.name).join(', ')}`)
    process.exitCode = 1
  }
  return results
}
