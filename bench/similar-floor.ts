/**
 * The floor under an exact similar-companies search on this data (issue 9 asks for similar
 * companies within 10x a detail lookup "with the same quality"):
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/similar-floor.ts
 *
 * For the companies `bench/similar-quality.ts` uses (those with industries among every 50,000th
 * id), an exact answer must know the shared tag weight of every company that shares a tag, so it
 * reads every posting of the company's tags (the sum of their document frequencies). This times
 * only that: the postings preloaded into typed arrays (no SQL, no ranking, no descriptions), each
 * tag's weight added into a dense array by company id and the array cleared again, against the
 * engine's detail lookup of the same company and the default similar call, medians over rounds in
 * one process. It is a lower bound for any exhaustive search by postings, kept in memory or not.
 */
import { createEngine } from '../src/engine.js'
import { similarCompanies, TAG_TABLES, tagWeight } from '../src/records/similar.js'
import { benchCompanies, benchDatabaseFile, openBenchDatabase } from './support/dataset.js'
import { stats } from './support/measure.js'
import { spreadCompanyIds } from './support/similar.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)

benchDatabaseFile()
const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb })
const db = vdb.sqlite
const ids = spreadCompanyIds(db, benchCompanies(), 20)
const companies = db.prepare('select count(*) from companies').pluck().get() as number
const maxId = db.prepare('select max(id) from companies').pluck().get() as number

// Every tag of the chosen companies, its postings (owners ascending) and weight ln(1 + N / df).
const tagsOf = new Map<number, { postings: Int32Array; weight: number }[]>()
const postingsOf = new Map<string, { postings: Int32Array; weight: number }>()
for (const id of ids) {
  const tags: { postings: Int32Array; weight: number }[] = []
  for (const { table, ownerColumn, valueColumn } of TAG_TABLES) {
    for (const value of db.prepare(`select ${valueColumn} from ${table} where ${ownerColumn} = ?`).pluck().all(id) as string[]) {
      const key = `${table}\u0000${value}`
      let tag = postingsOf.get(key)
      if (!tag) {
        const owners = db.prepare(`select ${ownerColumn} from ${table} where ${valueColumn} = ? order by ${ownerColumn}`).pluck().all(value) as number[]
        tag = { postings: Int32Array.from(owners), weight: tagWeight(companies, owners.length) }
        postingsOf.set(key, tag)
      }
      tags.push(tag)
    }
  }
  tagsOf.set(id, tags)
}

const sums = new Float64Array(maxId + 1)
/** The shared weight of every company with the one whose tags these are, then the array cleared. */
function sumPostings(tags: readonly { postings: Int32Array; weight: number }[]): number {
  let touched = 0
  for (const { postings, weight } of tags) for (let i = 0; i < postings.length; i++) {
    const owner = postings[i]!
    sums[owner] = sums[owner]! + weight
  }
  for (const { postings } of tags) for (let i = 0; i < postings.length; i++) {
    if (sums[postings[i]!] !== 0) touched++
    sums[postings[i]!] = 0
  }
  return touched
}

// Warm every path; the first similar call builds the kept totals in full (timed: what the default
// spreads over 250 ms slices of the first calls after a start or new data).
const buildStarted = performance.now()
await similarCompanies(vdb, ids[0]!, { totalsBuildMs: Number.POSITIVE_INFINITY })
const buildMs = performance.now() - buildStarted
for (const id of ids) {
  sumPostings(tagsOf.get(id)!)
  await engine.records.companyDetail(id)
  await similarCompanies(vdb, id, { totalsBuildMs: Number.POSITIVE_INFINITY })
}
const floor = new Map<number, number[]>()
const detail = new Map<number, number[]>()
const similar = new Map<number, number[]>()
const candidates = new Map<number, number>()
const time = async (into: Map<number, number[]>, id: number, call: () => unknown) => {
  const started = performance.now()
  await call()
  const ms = performance.now() - started
  into.set(id, [...(into.get(id) ?? []), ms])
}
for (let round = 0; round < ROUNDS; round++) {
  for (const id of ids) {
    await time(floor, id, () => candidates.set(id, sumPostings(tagsOf.get(id)!)))
    await time(detail, id, () => engine.records.companyDetail(id))
    await time(similar, id, () => similarCompanies(vdb, id, { index: false }))
  }
}

const median = (xs: readonly number[]) => stats(xs).median
console.log(`${ids.length} companies, ${ROUNDS} rounds; medians in ms. The first similar call, weights counted and every company's tag total summed: ${buildMs.toFixed(0)} ms`)
console.log('| company | tags | postings of its tags | companies sharing a tag | postings summed in memory | / detail | detail | default similar call | / detail |')
console.log('|---|---|---|---|---|---|---|---|---|')
const floorRatios: number[] = []
const similarRatios: number[] = []
for (const id of ids) {
  const tags = tagsOf.get(id)!
  const f = median(floor.get(id)!)
  const d = median(detail.get(id)!)
  const s = median(similar.get(id)!)
  floorRatios.push(f / d)
  similarRatios.push(s / d)
  const postings = tags.reduce((n, t) => n + t.postings.length, 0)
  console.log(`| ${id} | ${tags.length} | ${postings.toLocaleString('en-US')} | ${candidates.get(id)!.toLocaleString('en-US')} | ${f.toFixed(2)} | ${(f / d).toFixed(1)} | ${d.toFixed(3)} | ${s.toFixed(2)} | ${(s / d).toFixed(1)} |`)
}
console.log(`\nmedian over the companies: postings summed in memory ${median(floorRatios).toFixed(1)}x a detail lookup (min ${Math.min(...floorRatios).toFixed(1)}, max ${Math.max(...floorRatios).toFixed(1)}); the default similar call ${median(similarRatios).toFixed(1)}x`)
await engine.close()
