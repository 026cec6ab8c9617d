/**
 * The online correction of the time prediction (src/execute/time-correction.ts): a weighted
 * quantile of measured ÷ predicted over recent requests, with a prior, bounded, and requests
 * stopped at their budget counted as censored. The clock is injected, so every figure is exact.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_TIME_CORRECTION, TimeCorrection } from '../../src/execute/time-correction.js'

/** The median, as the tests below reason about it (the default quantile is another). */
const MEDIAN = { quantile: 0.5, margin: 2.5 } as const

const clock = () => {
  let t = 0
  return { now: () => t, advance: (ms: number) => { t += ms } }
}
/** `n` finished requests predicted at 1,000 ms that took `ratio` times that. */
const feed = (c: TimeCorrection, ratio: number, n: number, finished = true) => {
  for (let i = 0; i < n; i++) c.observe({ predictedMs: 1000, tookMs: 1000 * ratio, finished })
}

describe('TimeCorrection', () => {
  it('before any observation the ratio is the prior and the scale 1: the fitted model as it is', () => {
    const c = new TimeCorrection({ ...MEDIAN, now: clock().now })
    expect(c.ratio()).toBeCloseTo(1 / MEDIAN.margin, 12)
    expect(c.scale()).toBeCloseTo(1, 12)
  })

  it('by default (the 90th percentile, no margin) the scale is 1 with nothing observed', () => {
    const c = new TimeCorrection({ now: clock().now })
    expect(c.options.quantile).toBe(DEFAULT_TIME_CORRECTION.quantile)
    expect(c.scale()).toBe(1)
  })

  it('by default it follows the requests the model predicts closely, not the many it over-predicts', () => {
    // 21 requests took 1% of their prediction (an index the model did not see), 9 took 80%.
    const c = new TimeCorrection({ now: clock().now })
    feed(c, 0.01, 21)
    feed(c, 0.8, 9)
    expect(c.scale()).toBeCloseTo(0.8, 12)
    const median = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(median, 0.01, 21)
    feed(median, 0.8, 9)
    expect(median.ratio()).toBeCloseTo(0.01, 12)
  })

  it('converges to the ratio the machine shows, slower or faster than the prior', () => {
    const slow = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(slow, 3, 10)
    expect(slow.ratio()).toBeCloseTo(3, 12)
    expect(slow.scale()).toBeCloseTo(3 * MEDIAN.margin, 12)
    const fast = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(fast, 0.1, 10)
    expect(fast.ratio()).toBeCloseTo(0.1, 12)
    expect(fast.scale()).toBeCloseTo(0.1 * MEDIAN.margin, 12)
  })

  it('a few observations do not yet outweigh the prior', () => {
    const c = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(c, 3, 1)
    expect(c.ratio()).toBeCloseTo(1 / MEDIAN.margin, 12)
    feed(c, 3, 2)
    expect(c.ratio()).toBeCloseTo(3, 12)
  })

  it('follows a change of load within the window, the older observations outvoted', () => {
    const c = new TimeCorrection({ ...MEDIAN, now: clock().now, window: 16 })
    feed(c, 0.2, 16)
    expect(c.ratio()).toBeCloseTo(0.2, 12)
    feed(c, 0.6, 10)
    expect(c.ratio()).toBeCloseTo(0.6, 12)
  })

  it('is bounded: the scale stays within minScale and maxScale however far the machine is off', () => {
    const slow = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(slow, 1e6, 20)
    expect(slow.scale()).toBe(DEFAULT_TIME_CORRECTION.maxScale)
    const fast = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(fast, 1e-9, 20)
    expect(fast.scale()).toBe(DEFAULT_TIME_CORRECTION.minScale)
  })

  it('is robust: one outlier among steady observations does not move it', () => {
    for (const outlier of [1e-6, 1000]) {
      const c = new TimeCorrection({ ...MEDIAN, now: clock().now })
      feed(c, 0.5, 8)
      feed(c, outlier, 1)
      expect(c.ratio()).toBeCloseTo(0.5, 12)
    }
  })

  it('counts a request stopped at its budget as at least that slow, never as faster', () => {
    // Ten at 0.5 and thirteen stopped at a bound of 2 (more than the ten and the prior's weight of
    // 2 together): the median is at the bound.
    const slow = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(slow, 0.5, 10)
    feed(slow, 2, 13, false)
    expect(slow.ratio()).toBeGreaterThanOrEqual(2)
    // Stopped early (a bound below what finished ones took), they say nothing of the others: six
    // such and five at 1 give 1, where counting the bounds as times would give the prior (0.4).
    const early = new TimeCorrection({ ...MEDIAN, now: clock().now })
    feed(early, 1, 5)
    feed(early, 0.1, 6, false)
    expect(early.ratio()).toBeCloseTo(1, 12)
  })

  it('forgets: observations lose half their weight every halfLifeMs, back to the prior when nothing is observed', () => {
    const time = clock()
    const c = new TimeCorrection({ ...MEDIAN, now: time.now, halfLifeMs: 60_000 })
    feed(c, 4, 10)
    expect(c.ratio()).toBeCloseTo(4, 12)
    time.advance(60_000)
    expect(c.ratio()).toBeCloseTo(4, 12) // 10 × 0.5 still outweighs the prior's 2
    time.advance(10 * 60_000)
    expect(c.ratio()).toBeCloseTo(1 / MEDIAN.margin, 12)
  })

  it('keeps the last `window` observations only', () => {
    const c = new TimeCorrection({ ...MEDIAN, now: clock().now, window: 4 })
    feed(c, 5, 10)
    feed(c, 0.25, 4)
    expect(c.observations).toBe(4)
    expect(c.ratio()).toBeCloseTo(0.25, 12)
  })

  it('ignores requests predicted under minPredictedMs, and times that are not numbers', () => {
    const c = new TimeCorrection({ ...MEDIAN, now: clock().now })
    for (let i = 0; i < 10; i++) c.observe({ predictedMs: DEFAULT_TIME_CORRECTION.minPredictedMs - 1, tookMs: 10_000, finished: true })
    c.observe({ predictedMs: 1000, tookMs: Number.NaN, finished: true })
    c.observe({ predictedMs: Number.POSITIVE_INFINITY, tookMs: 1, finished: true })
    expect(c.observations).toBe(0)
    expect(c.scale()).toBeCloseTo(1, 12)
  })

  it('refuses settings that make no sense, naming them', () => {
    expect(() => new TimeCorrection({ margin: 0 })).toThrow(/margin/)
    expect(() => new TimeCorrection({ quantile: 1 })).toThrow(/quantile/)
    expect(() => new TimeCorrection({ window: 0 })).toThrow(/window/)
    expect(() => new TimeCorrection({ halfLifeMs: Number.NaN })).toThrow(/halfLifeMs/)
    expect(() => new TimeCorrection({ minScale: 2, maxScale: 1 })).toThrow(/minScale/)
  })

  it('for any observations, the ratio lies between the smallest and largest of them and the prior, and the scale within its bounds', () => {
    const observation = fc.record({
      predictedMs: fc.double({ min: 50, max: 1e6, noNaN: true }),
      tookMs: fc.double({ min: 0, max: 1e7, noNaN: true }),
      finished: fc.boolean(),
      gapMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    })
    fc.assert(fc.property(fc.array(observation, { maxLength: 60 }), (obs) => {
      const time = clock()
      const c = new TimeCorrection({ now: time.now })
      const logs = [Math.log(c.options.prior)]
      for (const o of obs) {
        time.advance(o.gapMs)
        c.observe(o)
        logs.push(Math.log(Math.max(o.tookMs, 1e-3) / o.predictedMs))
      }
      const r = Math.log(c.ratio())
      expect(r).toBeGreaterThanOrEqual(Math.max(Math.min(...logs), -Math.log(1e4)) - 1e-9)
      expect(r).toBeLessThanOrEqual(Math.min(Math.max(...logs), Math.log(1e4)) + 1e-9)
      expect(c.scale()).toBeGreaterThanOrEqual(c.options.minScale)
      expect(c.scale()).toBeLessThanOrEqual(c.options.maxScale)
    }))
  })
})
