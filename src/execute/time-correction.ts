/**
 * @module The online correction of the time prediction (`check/cost.ts`, `predictCost`): what the
 * data's statistics cannot see is the machine, whose load changes how long the same request takes
 * (the same chains took a median 2.6 times as long on a loaded machine as on a quiet one). Each
 * connection's pipeline keeps one `TimeCorrection` (one backend, one kind of connection), feeds it
 * every request it ran that was predicted to take at least `minPredictedMs` (measured against
 * predicted, or, for a request stopped at its budget, at least the time it ran), and multiplies
 * its predictions by `scale()` before holding them to the budget. On PostgreSQL the caller's
 * thread runs requests side by side, and a request's measured time includes its waits for a
 * connection: load as well.
 *
 * The estimate is a weighted quantile (the 90th percentile by default) of the log of measured ÷ predicted
 * over the last `window` observations, each weighted by 2^(-age / `halfLifeMs`), with a prior
 * that never ages: so it follows the machine within a few requests, forgets a load that ended, and
 * returns to the prior when nothing is observed. A quantile moves by at most one rank per
 * observation, however far off it is: one outlier cannot swing it once a few are kept. A request stopped at its budget
 * is a censored observation (it would have taken at least that long): its weight goes to the
 * observations above its bound (Kaplan-Meier's redistribution to the right), so it counts as
 * slower than any it is known to exceed and says nothing of the others.
 *
 * `scale()` is the estimated ratio times `margin`, bounded. The prior is `1 / margin`, so with no
 * observation the scale is 1 and the prediction is the fitted model's, as calibrated
 * (`EXPECTED_TIME_MODEL` includes its own margin). Deterministic: the clock is injected.
 */

export interface TimeCorrectionOptions {
  /** The quantile of measured ÷ predicted estimated (0-1; 0.5, the median). */
  readonly quantile: number
  /** Multiplies the estimated ratio: the spread of requests around the typical one. */
  readonly margin: number
  /** The ratio believed before any observation; the scale is `prior * margin` then. */
  readonly prior: number
  /** The prior's weight, in observations of age 0. */
  readonly priorWeight: number
  /** An observation's weight halves every `halfLifeMs`. */
  readonly halfLifeMs: number
  /** Observations kept (the most recent). */
  readonly window: number
  /** Requests predicted under this are not observed: their time is fixed costs, not the work the model predicts. */
  readonly minPredictedMs: number
  /** Bounds of `scale()`. */
  readonly minScale: number
  readonly maxScale: number
  /** Milliseconds of a monotonic clock. */
  readonly now: () => number
}

/**
 * The 90th percentile, with no margin over it. Measured ÷ predicted spreads over four orders of
 * magnitude among the requests of one run (0.0003-2.9 at 1,000,000 companies): most requests the
 * model over-predicts many times (an index it does not see, an early stop), so a median follows
 * them, not the machine, and the requests near the budget run over it (87-96% of the accepted
 * finished on the calibration corpora). The 90th percentile follows the requests the model
 * predicts closely; chosen as the setting that kept 99% of the accepted finishing with the fewest
 * refusals on the corpus of `BENCH_SEED=7` at 100,000 and 1,000,000 companies
 * (`bench/cost-calibration.ts`, which replays the corpus in order with other settings).
 */
export const DEFAULT_TIME_CORRECTION: Omit<TimeCorrectionOptions, 'now'> = Object.freeze({
  quantile: 0.9,
  margin: 1,
  prior: 1,
  priorWeight: 2,
  halfLifeMs: 5 * 60_000,
  window: 32,
  minPredictedMs: 50,
  minScale: 1 / 16,
  maxScale: 16,
})

/** One executed request: its prediction before correction, the time it took, and whether it finished. */
export interface TimeObservation {
  readonly predictedMs: number
  /** The time it ran; for an unfinished one (stopped at its budget), a lower bound of its time. */
  readonly tookMs: number
  readonly finished: boolean
}

interface Kept {
  readonly logRatio: number
  readonly censored: boolean
  readonly at: number
}

/** Clamps a log ratio: a clock that jumped, or a prediction of nothing, says nothing of the machine. */
const LOG_RATIO_BOUND = Math.log(1e4)

export class TimeCorrection {
  readonly options: TimeCorrectionOptions
  private readonly kept: Kept[] = []
  private next = 0
  /**
   * The last ratio computed and when: every call that runs a filter asks for the scale, and a
   * ratio takes microseconds to compute; weights age by under 0.3% in `halfLifeMs / 256`.
   */
  private cached: { at: number; ratio: number } | undefined

  constructor(options: Partial<TimeCorrectionOptions> = {}) {
    const margin = options.margin ?? DEFAULT_TIME_CORRECTION.margin
    // Without a prior of its own, the prior is 1 / margin: with nothing observed the scale is 1.
    const merged: TimeCorrectionOptions = {
      ...DEFAULT_TIME_CORRECTION,
      prior: 1 / margin,
      now: () => performance.now(),
      ...options,
    }
    const positive = (name: keyof TimeCorrectionOptions) => {
      const v = merged[name] as number
      if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`TimeCorrection: ${name} must be a finite number above 0, got ${String(v)}`)
    }
    for (const name of ['margin', 'prior', 'priorWeight', 'halfLifeMs', 'minScale', 'maxScale'] as const) positive(name)
    if (!(merged.quantile > 0 && merged.quantile < 1)) throw new RangeError(`TimeCorrection: quantile must be between 0 and 1, got ${merged.quantile}`)
    if (!(Number.isSafeInteger(merged.window) && merged.window >= 1)) throw new RangeError(`TimeCorrection: window must be a whole number of at least 1, got ${merged.window}`)
    if (!(merged.minPredictedMs >= 0)) throw new RangeError(`TimeCorrection: minPredictedMs must be 0 or more, got ${merged.minPredictedMs}`)
    if (merged.minScale > merged.maxScale) throw new RangeError('TimeCorrection: minScale must not be above maxScale')
    this.options = Object.freeze(merged)
  }

  /** Records an executed request; one predicted under `minPredictedMs`, or with a time that is not a number, is ignored. */
  observe(o: TimeObservation): void {
    if (!(Number.isFinite(o.predictedMs) && Number.isFinite(o.tookMs)) || o.predictedMs < this.options.minPredictedMs || o.predictedMs <= 0) return
    const ratio = Math.max(o.tookMs, 1e-3) / o.predictedMs
    const logRatio = Math.min(LOG_RATIO_BOUND, Math.max(-LOG_RATIO_BOUND, Math.log(ratio)))
    const entry: Kept = { logRatio, censored: !o.finished, at: this.options.now() }
    if (this.kept.length < this.options.window) this.kept.push(entry)
    else this.kept[this.next] = entry
    this.next = (this.next + 1) % this.options.window
    this.cached = undefined
  }

  /** Observations kept (at most `window`). */
  get observations(): number {
    return this.kept.length
  }

  /** The estimated measured ÷ predicted ratio: the weighted quantile of the kept observations and the prior. */
  ratio(): number {
    const now = this.options.now()
    if (this.cached && now >= this.cached.at && now - this.cached.at < this.options.halfLifeMs / 256) return this.cached.ratio
    const ratio = this.kept.length === 0 ? this.options.prior : this.computed(now)
    this.cached = { at: now, ratio }
    return ratio
  }

  private computed(now: number): number {
    const { prior, priorWeight, halfLifeMs, quantile } = this.options
    const points = this.kept.map((k) => ({ x: k.logRatio, censored: k.censored, w: 2 ** (-Math.max(0, now - k.at) / halfLifeMs) }))
    points.push({ x: Math.log(prior), censored: false, w: priorWeight })
    // At equal values an exact observation comes before a censored one: "at least x" is not below x.
    points.sort((a, b) => a.x - b.x || Number(a.censored) - Number(b.censored))
    // Redistribution to the right: a censored point's weight is shared by the points above it, in
    // proportion to their own weight; with none above, it stays at its bound.
    const weights = points.map((p) => p.w)
    for (let i = 0; i < points.length; i++) {
      if (!points[i]!.censored) continue
      let above = 0
      for (let j = i + 1; j < points.length; j++) above += weights[j]!
      if (above <= 0) continue
      const share = weights[i]! / above
      for (let j = i + 1; j < points.length; j++) weights[j]! += weights[j]! * share
      weights[i] = 0
    }
    const total = weights.reduce((s, w) => s + w, 0)
    let below = 0
    for (let i = 0; i < points.length; i++) {
      below += weights[i]!
      if (below >= quantile * total) return Math.exp(points[i]!.x)
    }
    return Math.exp(points[points.length - 1]!.x)
  }

  /** What the model's predictions are multiplied by: the ratio times the margin, within `minScale` and `maxScale`. */
  scale(): number {
    const { margin, minScale, maxScale } = this.options
    return Math.min(maxScale, Math.max(minScale, this.ratio() * margin))
  }
}
