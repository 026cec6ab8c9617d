/**
 * @module Replays a timed corpus (`bench/cost-calibration.ts`'s rows) through the online time
 * correction (`src/execute/time-correction.ts`) in corpus order, as an engine with
 * `refuseOverBudget` would have met it: before each request, the correction learned from the
 * requests before it scales its prediction; a request refused is not run, so it teaches nothing;
 * one accepted is observed with the time it took (or, stopped at the budget, as at least the
 * budget). The clock is the sum of the times of the requests before, as back-to-back calls see it.
 * Request i's decision depends only on requests before i, so replaying the rows after the run
 * decides as the running engine would have.
 */
import { TimeCorrection, type TimeCorrectionOptions } from '../../src/execute/time-correction.js'

export interface TimedRow {
  readonly units: number
  /** The model's prediction (`EXPECTED_TIME_MODEL` on the data's statistics), before correction. */
  readonly expectedMs: number
  readonly ms: number
  readonly finished: boolean
}

export interface ReplayOutcome {
  /** Per row: refused (over `maxCost`, or the corrected prediction over the budget), and the scale it was judged with. */
  readonly decisions: readonly { readonly refused: boolean; readonly scale: number }[]
  readonly accepted: number
  readonly acceptedFinished: number
  readonly refusedFinished: number
  readonly refusedUnfinished: number
}

export function replay(rows: readonly TimedRow[], budgetMs: number, maxCost: number, options: Partial<TimeCorrectionOptions> = {}): ReplayOutcome {
  let clock = 0
  const correction = new TimeCorrection({ ...options, now: () => clock })
  const decisions = rows.map((r) => {
    const scale = correction.scale()
    const refused = r.units > maxCost || r.expectedMs * scale > budgetMs
    if (!refused) correction.observe({ predictedMs: r.expectedMs, tookMs: r.ms, finished: r.finished })
    clock += r.ms
    return { refused, scale }
  })
  return outcome(rows, decisions)
}

/** The model alone (scale 1): what `refuseOverBudget` decides without the correction. */
export function modelAlone(rows: readonly TimedRow[], budgetMs: number, maxCost: number): ReplayOutcome {
  return outcome(rows, rows.map((r) => ({ refused: r.units > maxCost || r.expectedMs > budgetMs, scale: 1 })))
}

function outcome(rows: readonly TimedRow[], decisions: ReplayOutcome['decisions']): ReplayOutcome {
  let accepted = 0, acceptedFinished = 0, refusedFinished = 0, refusedUnfinished = 0
  rows.forEach((r, i) => {
    if (decisions[i]!.refused) {
      if (r.finished) refusedFinished++
      else refusedUnfinished++
    } else {
      accepted++
      if (r.finished) acceptedFinished++
    }
  })
  return { decisions, accepted, acceptedFinished, refusedFinished, refusedUnfinished }
}
