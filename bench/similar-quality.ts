/**
 * What the similar-companies budgets buy (src/records/similar.ts, `SimilarityOptions`): for up to
 * 20 companies spread over the ids (those with industries among every 50,000th), the overlap of the 20 answered with an exhaustive search's 20
 * (nothing budgeted or capped, `bench/support/similar.ts`, as the suite's comparison) and
 * the median time of a call, for several candidate caps and postings budgets; the defaults first.
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/similar-quality.ts
 *
 * The issue-9 target asks for similar companies within 10x a detail lookup "with the same quality":
 * this shows what a cheaper setting would cost in overlap.
 */
import { similarCompanies, type SimilarityOptions } from '../src/records/similar.js'
import { benchCompanies, benchDatabaseFile, benchSimilarIndex, openBenchDatabase } from './support/dataset.js'
import { stats } from './support/measure.js'
import { exhaustiveSimilar, overlapWith, spreadCompanyIds } from './support/similar.js'

benchDatabaseFile()
await benchSimilarIndex()
const vdb = openBenchDatabase()
const ids = spreadCompanyIds(vdb.sqlite, benchCompanies(), 20)
const exhaustive = new Map<number, { id: number }[]>()
for (const id of ids) exhaustive.set(id, await exhaustiveSimilar(vdb, id))
// The search at the defaults first; last, the same calls answered by the similarity index (when built: `benchSimilarIndex`).
const settings: SimilarityOptions[] = [
  { index: false },
  { ranking: 'jaccard', postingsBudget: 25_000, candidateCap: 200 },
  { ranking: 'jaccard', postingsBudget: 50_000, candidateCap: 100 },
  { ranking: 'jaccard', postingsBudget: 100_000, candidateCap: 200 },
  { ranking: 'shared', postingsBudget: 25_000, candidateCap: 500 },
  { ranking: 'shared', postingsBudget: 25_000, candidateCap: 200 },
  { ranking: 'shared', postingsBudget: 50_000, candidateCap: 1000 },
  {},
]
const mean = (l: readonly number[]) => l.reduce((a, b) => a + b, 0) / l.length
console.log(`${ids.length} companies`)
console.log('| ranking | postings budget | candidate cap | median ms a call | overlap with the exhaustive search, median / mean |')
console.log('|---|---|---|---|---|')
for (const s of settings) {
  for (const id of ids) await similarCompanies(vdb, id, s)
  const times: number[] = []
  const overlaps: number[] = []
  for (let round = 0; round < 3; round++) {
    for (const id of ids) {
      const started = performance.now()
      const got = await similarCompanies(vdb, id, s)
      times.push(performance.now() - started)
      if (round === 0) overlaps.push(overlapWith(got, exhaustive.get(id)!))
    }
  }
  console.log(`| ${Object.keys(s).length === 0 ? 'from the index' : s.ranking ?? 'default'} | ${s.postingsBudget ?? 'default'} | ${s.candidateCap ?? 'default'} | ${stats(times).median.toFixed(2)} | ${stats(overlaps).median.toFixed(2)} / ${mean(overlaps).toFixed(3)} |`)
}
await vdb.close()
