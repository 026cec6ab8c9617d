/**
 * @module Progress of `ventureql import` and `generate`: which phase of the load is running, how
 * much of the whole is done and how long the rest should take, as a bar on a terminal and as
 * plain lines elsewhere (CI, pipes, tests).
 *
 * The estimate is a phase-weighted total (store/load-phases.ts: each phase's share of a load),
 * scaled by the time the load has really taken: the seconds per unit of weight measured over the
 * finished phases and the measured part of the current one. In the records phase the fraction done
 * is measured (companies generated, bytes read); the phases after it report only their start, so
 * their estimate is their weight at the measured rate, minus the time they have run. A phase that
 * runs past its estimate is said to (`more than` the later phases' time, or `longer than
 * estimated`) rather than counted down to "0s left" while work remains.
 *
 * cli-progress draws the bar but none of its own ETA is used: it computes one from the bar's value,
 * which stood still during the phases after the records ("0s left", then its `NULL` ETA through
 * the two-character padding of its time format: "LLs left"), and it redraws on a timer that a
 * synchronous SQLite phase never lets run, so the bar is drawn at every update here.
 */
import cliProgress from 'cli-progress'
import { RECORDS_PHASE, type LoadPhase } from '../store/load-phases.js'

export interface PhaseUpdate {
  /** A phase of the plan (`LoadPhase.name`). */
  readonly phase: string
  /** Units done within the phase, when it measures them (records: companies, bytes). */
  readonly done?: number
  /** The phase's units; undefined or 0 when unknown. */
  readonly total?: number
}

/** How long the rest of the load should take. */
export type Remaining =
  /** Nothing measured yet (no time elapsed, or no work done): no basis for an estimate. */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'about'; readonly seconds: number }
  /** The current phase ran past its estimate: at least the later phases' estimate is left. */
  | { readonly kind: 'more than'; readonly seconds: number }
  /** The current phase, the last, ran past its estimate. */
  | { readonly kind: 'overrun' }

export interface Estimate {
  readonly phase: string
  /** 1-based position of the phase in the plan, and the plan's length. */
  readonly phaseNumber: number
  readonly phaseCount: number
  /** Weighted fraction of the whole load done, 0 to 1. */
  readonly fraction: number
  readonly remaining: Remaining
}

/**
 * The estimate of a load against its plan. Times are milliseconds from any clock (tests pass
 * their own). Phases only move forward: an update naming an earlier phase, or one not in the plan,
 * counts as more of the current phase.
 */
export class LoadEstimator {
  readonly #phases: readonly LoadPhase[]
  readonly #start: number
  #index = 0
  #phaseStart: number

  constructor(phases: readonly LoadPhase[], start: number) {
    if (phases.length === 0) throw new Error('progress: a load has at least one phase')
    this.#phases = phases
    this.#start = start
    this.#phaseStart = start
  }

  update(u: PhaseUpdate, now: number): Estimate {
    const found = this.#phases.findIndex((p) => p.name === u.phase)
    if (found > this.#index) {
      this.#index = found
      this.#phaseStart = now
    }
    const phases = this.#phases
    const c = this.#index
    const sum = (from: number, to: number) => phases.slice(from, to).reduce((n, p) => n + Math.max(0, p.weight), 0)
    const whole = sum(0, phases.length)
    const before = sum(0, c)
    const own = Math.max(0, phases[c]!.weight)
    const after = sum(c + 1, phases.length)
    const measured = u.phase === phases[c]!.name && u.total !== undefined && u.total > 0 && u.done !== undefined && Number.isFinite(u.done)
    const p = measured ? Math.min(1, Math.max(0, u.done! / u.total!)) : undefined
    const inPhase = Math.max(0, now - this.#phaseStart) / 1000
    const beforeSeconds = Math.max(0, this.#phaseStart - this.#start) / 1000
    const fraction = whole > 0 ? Math.min(1, (before + own * (p ?? 0)) / whole) : 0
    const estimate = (remaining: Remaining): Estimate => Object.freeze({ phase: phases[c]!.name, phaseNumber: c + 1, phaseCount: phases.length, fraction, remaining })

    // Seconds per unit of weight, over what is measured: finished phases, and the measured part of this one.
    const measuredWeight = before + (p !== undefined && p > 0 ? own * p : 0)
    const measuredSeconds = beforeSeconds + (p !== undefined && p > 0 ? inPhase : 0)
    if (measuredWeight <= 0 || measuredSeconds <= 0) return estimate({ kind: 'unknown' })
    const rate = measuredSeconds / measuredWeight
    const later = after * rate
    if (p !== undefined && p > 0) return estimate({ kind: 'about', seconds: inPhase * (1 - p) / p + later })
    const current = own * rate - inPhase
    if (current > 0) return estimate({ kind: 'about', seconds: current + later })
    return estimate(later > 0 ? { kind: 'more than', seconds: later } : { kind: 'overrun' })
  }
}

/**
 * A duration for people: `45s`, `3m 05s`, `2h 03m`. Rounded up, so a positive duration is never
 * `0s`; zero, negative and non-finite durations are `0s`.
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0s'
  const s = Math.ceil(seconds)
  if (s < 60) return `${s}s`
  const pad = (n: number) => String(n).padStart(2, '0')
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`
  const m = Math.ceil(s / 60)
  return `${Math.floor(m / 60)}h ${pad(m % 60)}m`
}

export function formatRemaining(r: Remaining): string {
  switch (r.kind) {
    case 'unknown': return 'estimating time left'
    // Zero only when the last measured phase is complete: what remains is closing up, not "0s".
    case 'about': return r.seconds > 0 ? `about ${formatDuration(r.seconds)} left` : 'finishing'
    case 'more than': return `more than ${formatDuration(r.seconds)} left`
    case 'overrun': return 'longer than estimated, still working'
  }
}

/** What the records phase counts, for people: `4000/10000 companies`, `1.2/3.4 MB`. */
export type UnitFormat = (done: number, total: number) => string

export const companiesUnit: UnitFormat = (done, total) => `${done}/${total} companies`

export const bytesUnit: UnitFormat = (done, total) => {
  const mb = (n: number) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0)
  return total < 1e5 ? `${Math.round(done / 1000)}/${Math.round(total / 1000)} kB` : `${mb(done)}/${mb(total)} MB`
}

/** The phase part of a progress line: `records 4000/10000 companies`, `indexes (phase 9 of 10)`. */
export function describePhase(e: Estimate, u: PhaseUpdate, unit: UnitFormat): string {
  if (e.phase === RECORDS_PHASE && u.done !== undefined && u.total !== undefined && u.total > 0) return `${RECORDS_PHASE} ${unit(u.done, u.total)}`
  return `${e.phase} (phase ${e.phaseNumber} of ${e.phaseCount})`
}

/** One progress line without the bar: `import: 42% | records 1.2/3.4 MB | about 12s left`. */
export function progressLine(label: string, e: Estimate, u: PhaseUpdate, unit: UnitFormat): string {
  return `${label}: ${Math.floor(e.fraction * 100)}% | ${describePhase(e, u, unit)} | ${formatRemaining(e.remaining)}`
}

export interface ProgressReporter {
  update(u: PhaseUpdate): void
  /** Ends the display; `done`: the load finished (says so, with the time it took). */
  stop(done?: boolean): void
}

export interface ReporterOptions {
  readonly label: string
  readonly phases: readonly LoadPhase[]
  readonly unit: UnitFormat
  /** Default process.stderr. A bar when it is a terminal, else lines. */
  readonly stream?: NodeJS.WritableStream & { isTTY?: boolean }
  /** Milliseconds; default Date.now. */
  readonly now?: () => number
}

/**
 * Reports progress: a bar on a terminal; elsewhere a line when a phase starts and at every 10% of
 * the records phase, each with the phase and the estimate.
 */
export function progressReporter(options: ReporterOptions): ProgressReporter {
  const stream = options.stream ?? process.stderr
  const now = options.now ?? Date.now
  const started = now()
  const estimator = new LoadEstimator(options.phases, started)
  let stopped = false
  const finished = () => `${options.label}: done in ${formatDuration((now() - started) / 1000)}`
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar({
      stream: stream as NodeJS.WriteStream,
      format: `${options.label} [{bar}] {percentage}% | {detail} | {left}`,
      hideCursor: true,
    }, cliProgress.Presets.shades_classic)
    let running = false
    return {
      update(u) {
        if (stopped) return
        const e = estimator.update(u, now())
        const payload = { detail: describePhase(e, u, options.unit), left: formatRemaining(e.remaining) }
        const value = Math.round(e.fraction * 1000)
        if (!running) { bar.start(1000, value, payload); running = true } else bar.update(value, payload)
        // Drawn now, not at cli-progress's next tick: the loaders' phases run synchronously on
        // SQLite, so without this the bar would show the previous phase until the next update.
        bar.render()
      },
      stop(done) {
        if (stopped) return
        stopped = true
        if (running) {
          if (done) bar.update(1000, { detail: 'done', left: `in ${formatDuration((now() - started) / 1000)}` })
          bar.stop()
        }
      },
    }
  }
  let phase: string | undefined
  let tenth = -1
  return {
    update(u) {
      if (stopped) return
      const e = estimator.update(u, now())
      const t = u.total !== undefined && u.total > 0 && u.done !== undefined ? Math.floor((u.done / u.total) * 10) : -1
      if (e.phase === phase && (e.phase !== RECORDS_PHASE || t <= tenth)) return
      phase = e.phase
      tenth = t
      stream.write(`${progressLine(options.label, e, u, options.unit)}\n`)
    },
    stop(done) {
      if (stopped) return
      stopped = true
      if (done) stream.write(`${finished()}\n`)
    },
  }
}
