/**
 * @module The conformance harness of ventureql/testing against the engine on SQLite, the reference
 * evaluator answering as a backend, and two deliberately broken implementations, each of which it
 * must catch with fast-check's report of a shrunk counterexample. (test/postgres/conformance.test.ts
 * runs it against the engine on PostgreSQL.)
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createEngine, type Engine } from '../../src/index.js'
import { checkConformance, CONFORMANCE_LAWS, ConformanceError, createFixtureDatabase, loadSnapshot, type Snapshot } from '../../src/testing/index.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { numRuns } from '../support/num-runs.js'
import { engineTarget, fieldsNamed, nullUnsafeNotTarget, offByOnePagingTarget, referenceTarget } from './targets.js'

let vdb: SqliteVentureDb
let engine: Engine
let snapshot: Snapshot

beforeAll(async () => {
  vdb = await createFixtureDatabase()
  snapshot = await loadSnapshot(vdb)
  engine = createEngine({ database: vdb, limits: { maxPerPage: 100_000, maxCost: Number.MAX_SAFE_INTEGER } })
})
afterAll(async () => {
  await engine?.close()
  await vdb?.close()
})

/** The failure `checkConformance` rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<ConformanceError> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error, 'the harness passed a broken implementation').toBeInstanceOf(ConformanceError)
  return error as ConformanceError
}

test('the engine on SQLite obeys every law, on generated filters a clear share of which select some but not all records', async () => {
  const runs = numRuns(15)
  const report = await checkConformance(engineTarget(engine), { snapshot, numRuns: runs })
  expect(report.laws.map((l) => l.law)).toEqual([...CONFORMANCE_LAWS])
  for (const law of report.laws) expect(law.runs, law.law).toBe(runs)
  console.info(`conformance on SQLite: ${(report.partialShare * 100).toFixed(0)}% of generated filters selected some but not all records`)
  // About 0.6 on 75 filters; test/testing/arbitraries.test.ts measures the generators on more.
  expect(report.partialShare).toBeGreaterThanOrEqual(0.4)
})

test('the reference evaluator, paging correctly, obeys every law', async () => {
  const report = await checkConformance(referenceTarget(snapshot), { snapshot, numRuns: numRuns(10) })
  expect(report.laws.map((l) => l.runs)).toEqual(CONFORMANCE_LAWS.map(() => numRuns(10)))
})

test('a NULL-unsafe `not` is caught, with a shrunk counterexample on a field that holds NULLs', async () => {
  const error = await failureOf(checkConformance(nullUnsafeNotTarget(snapshot), { snapshot, numRuns: numRuns(40), laws: ['reference', 'complement'] }))
  expect(error.failures.map((f) => f.law).sort()).toEqual(['complement', 'reference'])
  const complement = error.failures.find((f) => f.law === 'complement')!
  // fast-check's report: the seed and path to replay, the counterexample after shrinking, the law's own message.
  expect(complement.message).toMatch(/Property failed after \d+ tests/)
  expect(complement.message).toMatch(/\{ seed: -?\d+, path: "[\d:]+", endOnFailure: true \}/)
  expect(complement.message).toMatch(/Counterexample: \[\{"dataset":/)
  expect(complement.message).toMatch(/Shrunk \d+ time\(s\)/)
  expect(complement.message).toMatch(/count\(P\) \+ count\(not P\) = count\(all\) does not hold: count\(P\) = \d+, count\(not P\) = \d+/)
  // Then simplified: one or two conditions are left, on fields one of which holds NULLs, which the broken `not` drops.
  // (The report adds the simplified case when it is simpler than fast-check's.)
  expect(complement.message.includes('Simplified counterexample (parts of the filter and sort taken away while the law still fails):\n{"dataset":')).toBe(complement.counterexample !== complement.shrunk)
  const { dataset, filter } = complement.counterexample as { dataset: 'companies' | 'investors' | 'fundings'; filter: Record<string, unknown> }
  const fields = [...fieldsNamed(dataset, filter)]
  expect(fields.length, JSON.stringify(filter)).toBeGreaterThanOrEqual(1)
  expect(fields.length, JSON.stringify(filter)).toBeLessThanOrEqual(2)
  expect(JSON.stringify(filter).length, JSON.stringify(filter)).toBeLessThan(JSON.stringify((complement.shrunk as { filter: unknown }).filter).length + 1)
  const rows = [...snapshot.datasets[dataset].rows.values()]
  expect(fields.some((field) => rows.some((row) => row[field] === null)), `none of ${fields.join(', ')} holds a NULL`).toBe(true)
  expect(error.message).toContain('law "complement"')
  // Replaying the reported seed and path fails again at once.
  const again = await failureOf(checkConformance(nullUnsafeNotTarget(snapshot), { snapshot, laws: ['complement'], seed: complement.seed, path: complement.path }))
  expect(again.failures[0]!.counterexample).toEqual(complement.counterexample)
})

test('paging off by one is caught by the paging law alone, with a shrunk counterexample', async () => {
  const error = await failureOf(checkConformance(offByOnePagingTarget(snapshot), { snapshot, numRuns: numRuns(10) }))
  // Page 1 is right, so the laws that read one page pass: only walking the pages shows the bug.
  expect(error.failures.map((f) => f.law)).toEqual(['paging'])
  const [paging] = error.failures
  expect(paging!.message).toMatch(/Counterexample: \[\{"dataset":/)
  expect(paging!.message).toMatch(/Shrunk \d+ time\(s\)/)
  expect(paging!.message).toMatch(/page \d+ of \d+ at per_page \d+ \(total \d+\): expected \d+ records, got \d+|every page at per_page \d+/)
  // Shrunk, then simplified: the smallest page size and one field condition at most, no sort.
  expect(paging!.message.includes('Simplified counterexample')).toBe(paging!.counterexample !== paging!.shrunk)
  const simplified = paging!.counterexample as { dataset: 'companies' | 'investors' | 'fundings'; filter: Record<string, unknown>; sort: unknown[]; size: number }
  expect(simplified.size).toBe(1)
  expect(simplified.sort).toEqual([])
  expect(fieldsNamed(simplified.dataset, simplified.filter).size, JSON.stringify(simplified.filter)).toBeLessThanOrEqual(1)
})

test('an answer of the wrong shape fails the law that asked, naming what was got', async () => {
  const error = await failureOf(checkConformance({ run: async () => ({ ids: ['x'], total: 1 }) }, { snapshot, numRuns: 3, laws: ['reference'] }))
  expect(error.failures[0]!.message).toMatch(/ids\[0\]: expected an integer primary key, got "x"/)
})

test('bad options are refused with what was expected', async () => {
  await expect(checkConformance(engineTarget(engine), { snapshot, laws: ['nope' as 'paging'] })).rejects.toThrow(/laws: expected names from reference, complement, commutativity, paging, foreign, got "nope"/)
  await expect(checkConformance({} as never, { snapshot })).rejects.toThrow(/expected a target/)
  await expect(checkConformance(engineTarget(engine), {} as never)).rejects.toThrow(/options.snapshot: expected a Snapshot/)
  await expect(checkConformance(engineTarget(engine), { snapshot, maxPerPage: 0 })).rejects.toThrow(/maxPerPage: expected a positive integer, got 0/)
})
