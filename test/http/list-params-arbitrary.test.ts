/**
 * @module `listParamsArbitrary` of ventureql/testing against the served listings: every generated
 * set of parameters is answered 200 by GET /companies and GET /fundings, with the total the
 * reference evaluator computes for the filter the parameters stand for (on both backends).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { checkQuery, formatIssues, parseQuery, resolveLimits } from '../../src/index.js'
import { QueryParams } from '../../src/http/params.js'
import { parseListParams } from '../../src/parse/list-params.js'
import { listParamsArbitrary, loadSnapshot, referenceRows, type Snapshot } from '../../src/testing/index.js'
import { numRuns } from '../support/num-runs.js'
import { createHarness, HARNESS_NOW, type Harness } from './harness.js'

const LIMITS = resolveLimits({ maxPerPage: 100_000, maxCost: Number.MAX_SAFE_INTEGER })

let h: Harness
let snapshot: Snapshot
beforeAll(async () => {
  h = await createHarness({ companies: 200 })
  snapshot = await loadSnapshot(h.vdb)
})
afterAll(async () => {
  await h?.close()
})

/** The reference count of what the parameters select. */
function expectedTotal(endpoint: 'companies' | 'fundings', params: Record<string, string>): number {
  const read = parseListParams(endpoint, new QueryParams(new URLSearchParams(params)), { now: HARNESS_NOW })
  if (!read.ok) throw new Error(formatIssues(read.issues))
  const parsed = parseQuery({ dataset: read.value.dataset, filter: read.value.filter }, LIMITS)
  if (!parsed.ok) throw new Error(formatIssues(parsed.issues))
  const checked = checkQuery(parsed.value, LIMITS)
  if (!checked.ok) throw new Error(formatIssues(checked.issues))
  return referenceRows(checked.value.filter, checked.value.dataset, [], snapshot).length
}

test.each(['companies', 'fundings'] as const)('GET /%s answers every generated set of parameters with the reference total', async (endpoint) => {
  let partial = 0
  let runs = 0
  await fc.assert(fc.asyncProperty(listParamsArbitrary(endpoint, { values: snapshot }), async (params) => {
    const query = String(new URLSearchParams(params))
    const response = await h.get(query === '' ? `/${endpoint}` : `/${endpoint}?${query}`)
    const text = await response.text()
    expect(response.status, `${new URLSearchParams(params)}: ${text}`).toBe(200)
    const total = (JSON.parse(text) as { meta: { total_record_count: number } }).meta.total_record_count
    const expected = expectedTotal(endpoint, params)
    expect(total, String(new URLSearchParams(params))).toBe(expected)
    // Sets of control parameters alone (sort, page, per_page) select every record.
    if (Object.keys(params).every((name) => ['sort', 'page', 'per_page'].includes(name))) return
    runs++
    if (expected > 0 && expected < snapshot.datasets[endpoint].ids.length) partial++
  }), { numRuns: numRuns(40) })
  // About 0.7; the share on more runs is asserted in test/testing/arbitraries.test.ts.
  expect(partial / runs, 'filtering sets that select some but not all records').toBeGreaterThanOrEqual(0.4)
})
