/**
 * The issue-9 search target alone (`BENCH_COMPANIES=1000000 npx tsx bench/search-vs-detail.ts`):
 * the engine's search for the suite's terms (1 to 4 letters) against its company detail lookup of
 * the suite's company (the one with the most industries), through the engine API, in one process
 * and nothing else in between (the suite interleaves hand-written and plain-SQLite forms, whose
 * scans leave the caches cold for the next call). Medians of 3,000 calls each, for 3 rounds.
 */
import { createEngine } from '../src/engine.js'
import { SEARCH_TERMS } from './suite/mix.js'
import { benchDatabaseFile, openBenchDatabase } from './support/dataset.js'

benchDatabaseFile()
const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb })
const companyId = vdb.sqlite.prepare('select company_id from company_industries group by company_id order by count(*) desc, company_id limit 1').pluck().get() as number
const CALLS = Number(process.env.BENCH_CALLS ?? 3000)

async function median(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 100; i++) await call()
  const times: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now()
    await call()
    times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)[times.length >> 1]!
}

console.log(`| round | detail ms | ${SEARCH_TERMS.map((t) => `"${t}" ms (/ detail)`).join(' | ')} |`)
console.log(`|---|---|${SEARCH_TERMS.map(() => '---').join('|')}|`)
for (let round = 1; round <= 3; round++) {
  const detail = await median(() => engine.records.companyDetail(companyId))
  const searches: string[] = []
  for (const term of SEARCH_TERMS) {
    const ms = await median(() => engine.records.search({ term, objectTypes: ['company', 'investor'], limit: 10 }))
    searches.push(`${ms.toFixed(3)} (${(ms / detail).toFixed(2)})`)
  }
  console.log(`| ${round} | ${detail.toFixed(3)} | ${searches.join(' | ')} |`)
}
await engine.close()
