/**
 * @module Nested `foreign` (issue 7): a chain companies -> investors -> companies -> ... costs the
 * sum of its levels, not their product. Each case is a first total (`engine.count` with the
 * totals cache emptied before every run) of a chain, against the first total of one level of the
 * same kind in the same run: the ratio grows with the number of levels (each adds one set), where
 * correlated probes multiplied it by the fan-out per level (5,000 companies: 3 levels 0.87 s, 5
 * levels over 2 minutes; compile/relations.ts).
 *
 * Two kinds: the innermost condition matches nothing (a name no investor has: nothing stops a
 * probe early, the case that froze a server; now the empty set below the top-level probe skips
 * the scan), and it matches every investor (every level's set is as large as it gets). Plus an `or` of 249 `foreign` on one dataset, which merges into one
 * `foreign` (check/foreign-plan.ts), against the one level; and the cost limit, which refuses a
 * dozen `foreign` side by side that cannot share one before anything runs.
 */
import { createEngine } from '../src/engine.js'
import { benchCompanies, freshCaches, openBenchDatabase, forgetTotals as forgetTotalsOf } from './support/dataset.js'
import { broadChainRequest, chainRequest, orOfForeignRequest } from './support/foreign-chains.js'
import { runBench, type Case } from './support/measure.js'

const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const forgetTotals = () => forgetTotalsOf(vdb)

async function count(request: unknown): Promise<number> {
  const r = await engine.count(request)
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value
}

const first = (request: unknown) => async () => {
  forgetTotals()
  return count(request)
}

/**
 * Upper bounds on chain / one level. Each level adds a set computed once. When the innermost
 * condition matches nothing the sets are empty and the probe above them skips the scan, so a chain
 * of any length costs less than one level, which probes every company (100,000 companies: 0.1-0.2);
 * when it matches everything each level is a pass over the investments, so the bound grows with
 * the levels. Products of the fan-out (10 and more per level) miss them by far.
 */
const EMPTY_TARGETS: Readonly<Record<number, number>> = { 3: 1, 5: 1, 11: 1 }
const BROAD_TARGETS: Readonly<Record<number, number>> = { 3: 8, 5: 14 }

const cases: Case[] = []
const oneLevel = chainRequest(1)
for (const levels of [3, 5, 11]) {
  const request = chainRequest(levels)
  if ((await count(request)) !== 0) throw new Error(`chain of ${levels}: expected no match`)
  cases.push({
    name: `chain of ${levels}, innermost matches nothing [0]`,
    setup: forgetTotals,
    subject: () => count(request),
    baseline: first(oneLevel),
    baselineName: 'one level, first total',
    maxRatio: EMPTY_TARGETS[levels]!,
    runs: 11,
  })
}
const oneBroad = broadChainRequest(1)
for (const levels of [3, 5]) {
  const request = broadChainRequest(levels)
  cases.push({
    name: `chain of ${levels}, innermost matches every investor [${await count(request)}]`,
    setup: forgetTotals,
    subject: () => count(request),
    baseline: first(oneBroad),
    baselineName: 'one level, first total',
    maxRatio: BROAD_TARGETS[levels]!,
    runs: 5,
  })
}
const or249 = orOfForeignRequest(249)
cases.push({
  name: 'or of 249 foreign on investors (merged into one) [0]',
  setup: forgetTotals,
  subject: () => count(or249),
  baseline: first(oneLevel),
  baselineName: 'one level, first total',
  maxRatio: 1.5,
  runs: 11,
})

const refused = await engine.count(orOfForeignRequest(12, 'none'))
if (refused.ok || refused.issues[0]?.code !== 'cost_exceeded') throw new Error(`an or of 12 none should be refused: ${JSON.stringify(refused)}`)

await runBench(`nested foreign on ${benchCompanies().toLocaleString('en-US')} companies`, cases)
await engine.close()
await vdb.close()
