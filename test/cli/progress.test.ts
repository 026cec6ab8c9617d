/**
 * Progress of `ventureql import` and `generate` (issue 11, item 13): the estimator and the
 * formatting as pure functions with a clock of the test's own, the reporter's lines and bar, and
 * the plan of phases against the steps the SQLite loader really reports. The bar used to show
 * "0s left" through every phase after the company rows (cli-progress's ETA, from a value that no
 * longer moved), then "LLs left" (its `NULL` ETA through a two-character padding).
 */
import { Writable } from 'node:stream'
import { describe, expect, test } from 'vitest'
import {
  formatDuration, formatRemaining, LoadEstimator, progressLine, progressReporter, companiesUnit, bytesUnit, type Estimate,
} from '../../src/cli/progress.js'
import { generateInto } from '../../src/store/generate/build.js'
import { loadPhases, RECORDS_PHASE, type LoadPhase } from '../../src/store/load-phases.js'
import { openDatabase } from '../../src/store/open.js'

const PLAN: readonly LoadPhase[] = [
  { name: RECORDS_PHASE, weight: 60 },
  { name: 'derived', weight: 20 },
  { name: 'indexes', weight: 20 },
]

describe('formatDuration', () => {
  test.each([
    [0, '0s'], [-3, '0s'], [Number.NaN, '0s'], [Number.POSITIVE_INFINITY, '0s'],
    [0.001, '1s'], [0.4, '1s'], [1, '1s'], [59.2, '1m 00s'], [59, '59s'], [61, '1m 01s'], [605, '10m 05s'],
    [3599.5, '1h 00m'], [3600, '1h 00m'], [3661, '1h 02m'], [7 * 3600 + 59 * 60 + 30, '8h 00m'],
  ])('%s s is %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text)
  })

  test('a positive duration never reads 0s, nor anything but digits and units', () => {
    for (let s = 0.0001; s < 1e6; s *= 1.7) expect(formatDuration(s)).toMatch(/^(?:[1-9]\d*s|\d+m \d\ds|\d+h \d\dm)$/)
  })
})

describe('LoadEstimator', () => {
  test('no time elapsed or nothing done: no estimate, not "0s left"', () => {
    const e = new LoadEstimator(PLAN, 1000)
    expect(e.update({ phase: RECORDS_PHASE, done: 0, total: 100 }, 1000).remaining).toEqual({ kind: 'unknown' })
    expect(e.update({ phase: RECORDS_PHASE, done: 10, total: 100 }, 1000).remaining).toEqual({ kind: 'unknown' })
    expect(e.update({ phase: RECORDS_PHASE, done: 0, total: 100 }, 5000).remaining).toEqual({ kind: 'unknown' })
    expect(formatRemaining({ kind: 'unknown' })).toBe('estimating time left')
  })

  test('unknown total in the records phase: no estimate until a phase has finished', () => {
    const e = new LoadEstimator(PLAN, 0)
    const r = e.update({ phase: RECORDS_PHASE, done: 50 }, 10_000)
    expect(r.remaining).toEqual({ kind: 'unknown' })
    expect(r.fraction).toBe(0)
    expect(e.update({ phase: RECORDS_PHASE, done: 50, total: 0 }, 10_000).remaining).toEqual({ kind: 'unknown' })
  })

  test('records phase: measured progress within the phase, the later phases at the rate measured so far', () => {
    const e = new LoadEstimator(PLAN, 0)
    // 25% of the records in 15 s: 45 s more of records; rate 15 s / (60 * 0.25) = 1 s per weight; 40 s of later phases.
    const r = e.update({ phase: RECORDS_PHASE, done: 25, total: 100 }, 15_000)
    expect(r).toMatchObject({ phase: RECORDS_PHASE, phaseNumber: 1, phaseCount: 3, fraction: 0.15 })
    expect(r.remaining).toEqual({ kind: 'about', seconds: 85 })
  })

  test('the last phase measured complete: finishing, not 0s left', () => {
    const e = new LoadEstimator([{ name: RECORDS_PHASE, weight: 1 }], 0)
    const r = e.update({ phase: RECORDS_PHASE, done: 100, total: 100 }, 5000)
    expect(r.remaining).toEqual({ kind: 'about', seconds: 0 })
    expect(formatRemaining(r.remaining)).toBe('finishing')
  })

  test('a phase after the records: its weight at the measured rate, counted down while it runs', () => {
    const e = new LoadEstimator(PLAN, 0)
    e.update({ phase: RECORDS_PHASE, done: 100, total: 100 }, 60_000) // 1 s per weight
    const start = e.update({ phase: 'derived' }, 60_000)
    expect(start).toMatchObject({ phase: 'derived', phaseNumber: 2, fraction: 0.6 })
    expect(start.remaining).toEqual({ kind: 'about', seconds: 40 })
    expect(e.update({ phase: 'derived' }, 70_000).remaining).toEqual({ kind: 'about', seconds: 30 })
    // The last phase: its own estimate only, no "0s".
    const last = e.update({ phase: 'indexes' }, 80_000)
    expect(last).toMatchObject({ phaseNumber: 3, fraction: 0.8 })
    expect(last.remaining).toEqual({ kind: 'about', seconds: 20 })
  })

  test('a phase running past its estimate says so instead of counting down to 0s', () => {
    const e = new LoadEstimator(PLAN, 0)
    e.update({ phase: RECORDS_PHASE, done: 100, total: 100 }, 60_000)
    e.update({ phase: 'derived' }, 60_000)
    // 'derived' should take 20 s; at 30 s it has overrun: the indexes (20 s) are still to come.
    const over = e.update({ phase: 'derived' }, 90_000)
    expect(over.remaining).toEqual({ kind: 'more than', seconds: 20 })
    expect(formatRemaining(over.remaining)).toBe('more than 20s left')
    e.update({ phase: 'indexes' }, 100_000) // the rate is now 40 s / 80 weight = 0.5 s per weight
    const last = e.update({ phase: 'indexes' }, 200_000)
    expect(last.remaining).toEqual({ kind: 'overrun' })
    expect(formatRemaining(last.remaining)).toBe('longer than estimated, still working')
  })

  test('a phase the loader skips is passed over; phases never move back; an unknown name is more of the current phase', () => {
    const e = new LoadEstimator(PLAN, 0)
    e.update({ phase: RECORDS_PHASE, done: 100, total: 100 }, 60_000)
    expect(e.update({ phase: 'indexes' }, 61_000)).toMatchObject({ phase: 'indexes', phaseNumber: 3 })
    expect(e.update({ phase: 'derived' }, 62_000)).toMatchObject({ phase: 'indexes', phaseNumber: 3 })
    expect(e.update({ phase: 'something new' }, 63_000)).toMatchObject({ phase: 'indexes', phaseNumber: 3 })
  })

  test('fractions stay within 0 and 1 whatever the counts say', () => {
    const e = new LoadEstimator(PLAN, 0)
    expect(e.update({ phase: RECORDS_PHASE, done: 500, total: 100 }, 1000).fraction).toBe(0.6)
    expect(e.update({ phase: RECORDS_PHASE, done: -5, total: 100 }, 2000).fraction).toBe(0)
  })
})

describe('progress lines', () => {
  const estimate = (over: Partial<Estimate>): Estimate => ({ phase: RECORDS_PHASE, phaseNumber: 1, phaseCount: 10, fraction: 0.3, remaining: { kind: 'about', seconds: 42.1 }, ...over })

  test('name the phase, the share done and the time left', () => {
    expect(progressLine('generate', estimate({}), { phase: RECORDS_PHASE, done: 4000, total: 10_000 }, companiesUnit))
      .toBe('generate: 30% | records 4000/10000 companies | about 43s left')
    expect(progressLine('import', estimate({ phase: 'indexes', phaseNumber: 9, fraction: 0.7, remaining: { kind: 'more than', seconds: 3 } }), { phase: 'indexes' }, bytesUnit))
      .toBe('import: 70% | indexes (phase 9 of 10) | more than 3s left')
    expect(bytesUnit(1_234_567, 3_400_000)).toBe('1.2/3.4 MB')
    expect(bytesUnit(2_000, 50_000)).toBe('2/50 kB')
  })

  /** A reporter writing to a buffer, its clock moved by the test. */
  function captured(isTTY: boolean) {
    let out = ''
    const stream = Object.assign(new Writable({ write(chunk, _enc, done) { out += String(chunk); done() } }), { isTTY, columns: 160 })
    let t = 0
    const reporter = progressReporter({ label: 'generate', phases: PLAN, unit: companiesUnit, stream, now: () => t })
    return { reporter, at: (ms: number) => { t = ms }, text: () => out }
  }

  test('not a terminal: a line per phase and per tenth of the records, then the time it took', () => {
    const { reporter, at, text } = captured(false)
    for (let k = 0; k <= 100; k += 5) {
      at(k * 600)
      reporter.update({ phase: RECORDS_PHASE, done: k, total: 100 })
    }
    at(60_000)
    reporter.update({ phase: 'derived' })
    at(75_000)
    reporter.update({ phase: 'derived' }) // no new line within a phase after the records
    reporter.update({ phase: 'indexes' })
    at(95_000)
    reporter.stop(true)
    reporter.stop(true)
    const lines = text().trimEnd().split('\n')
    expect(lines[0]).toBe('generate: 0% | records 0/100 companies | estimating time left')
    expect(lines.filter((l) => l.includes('| records '))).toHaveLength(11)
    expect(lines.at(-3)).toBe('generate: 60% | derived (phase 2 of 3) | about 40s left')
    // 'derived' took 15 s for a weight of 20: the rate is now 75 s / 80, 18.75 s for the indexes.
    expect(lines.at(-2)).toBe('generate: 80% | indexes (phase 3 of 3) | about 19s left')
    expect(lines.at(-1)).toBe('generate: done in 1m 35s')
    expect(text()).not.toMatch(/LLs|NULL|INF| 0s left/)
  })

  test('on a terminal: the bar shows the phase and the estimate, never cli-progress\'s own ETA', () => {
    const { reporter, at, text } = captured(true)
    at(0)
    reporter.update({ phase: RECORDS_PHASE, done: 0, total: 100 })
    at(30_000)
    reporter.update({ phase: RECORDS_PHASE, done: 50, total: 100 })
    at(60_000)
    reporter.update({ phase: RECORDS_PHASE, done: 100, total: 100 })
    reporter.update({ phase: 'derived' })
    at(90_000)
    reporter.update({ phase: 'indexes' })
    at(130_000)
    reporter.update({ phase: 'indexes' })
    reporter.stop(true)
    const screen = text()
    expect(screen).toContain('records 50/100 companies | about 1m 10s left')
    expect(screen).toContain('derived (phase 2 of 3) | about 40s left')
    expect(screen).toContain('indexes (phase 3 of 3)')
    expect(screen).toContain('longer than estimated, still working')
    expect(screen).not.toMatch(/LLs|NULL|INF| 0s left/)
  })
})

describe('the plan of phases', () => {
  test('names the steps the SQLite loader reports, in its order', () => {
    const vdb = openDatabase(':memory:')
    const steps: string[] = []
    try {
      generateInto(vdb, { companies: 30, seed: 1, asOf: '2024-06-30', onProgress: (p) => { if (p.step && steps.at(-1) !== p.step) steps.push(p.step) } })
    } finally {
      vdb.sqlite.close()
    }
    expect([RECORDS_PHASE, ...steps]).toEqual(loadPhases('sqlite', { rebuildsIndexes: true }).map((p) => p.name))
    expect(loadPhases('sqlite', { rebuildsIndexes: false }).map((p) => p.name)).toEqual(loadPhases('sqlite', { rebuildsIndexes: true }).map((p) => p.name))
  })
})
