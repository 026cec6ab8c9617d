/**
 * Similar companies with the common tags probed by bitmap (the default) against one SQL probe per
 * tag (`probe: 'sql'`), on the benchmark database: the same answers are asserted, then both are
 * timed interleaved (medians over rounds of the same companies), with a company detail lookup as
 * the yardstick of the issue-9 target (similar companies at most 10x a detail).
 * `BENCH_COMPANIES=1000000 npx tsx bench/similar-probe.ts`.
 */
import { companyDetail } from '../src/records/company.js'
import { similarCompanies } from '../src/records/similar.js'
import { benchCompanies, benchDatabaseFile, openBenchDatabase } from './support/dataset.js'

benchDatabaseFile()
const vdb = openBenchDatabase()
const n = benchCompanies()
const mostIndustries = vdb.sqlite.prepare('select company_id from company_industries group by company_id order by count(*) desc, company_id limit 1').pluck().get() as number
// The suite's companies for the exhaustive comparison: the one with most industries, and three spread over the ids.
const ids = [mostIndustries, 7, Math.floor(n / 3) + 7, Math.floor((2 * n) / 3) + 7]
const started = performance.now()
for (const id of ids) await similarCompanies(vdb, id, { index: false })
const firstMs = performance.now() - started
// The SQL probe's default budget is smaller (100,000 lookups): past it the candidates rank by shared
// weight. The bitmap's budget is given to both, so both rank by Jaccard and must agree.
const SQL_PROBE = { probe: 'sql', probeBudget: 1_000_000 } as const
for (const id of ids) {
  const byBitmap = await similarCompanies(vdb, id, { index: false })
  const bySql = await similarCompanies(vdb, id, SQL_PROBE)
  if (JSON.stringify(byBitmap) !== JSON.stringify(bySql)) throw new Error(`similar companies of ${id}: the bitmap probe and the SQL probe disagree`)
}
const rounds = Number(process.env.BENCH_RUNS ?? 9)
const t: Record<'bitmap' | 'sql' | 'detail', number[]> = { bitmap: [], sql: [], detail: [] }
for (let r = 0; r < rounds; r++) {
  for (const probe of ['bitmap', 'sql'] as const) {
    const s = performance.now()
    for (const id of ids) await similarCompanies(vdb, id, probe === 'sql' ? SQL_PROBE : { index: false })
    t[probe].push((performance.now() - s) / ids.length)
  }
  const s = performance.now()
  for (let i = 0; i < 200; i++) await companyDetail(vdb, mostIndustries)
  t.detail.push((performance.now() - s) / 200)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const [bitmap, sql, detail] = [median(t.bitmap), median(t.sql), median(t.detail)]
console.log(`companies ${ids.join(', ')} of ${n}; first calls (weights counted, bitmaps built): ${firstMs.toFixed(0)} ms for ${ids.length}`)
console.log('| probe | ms per call | / company detail |')
console.log('|---|---|---|')
console.log(`| bitmap | ${bitmap.toFixed(2)} | ${(bitmap / detail).toFixed(0)} |`)
console.log(`| SQL per tag | ${sql.toFixed(2)} | ${(sql / detail).toFixed(0)} |`)
console.log(`| (company detail) | ${detail.toFixed(3)} | 1 |`)
await vdb.close()
