/**
 * What the similarity index's build costs a company (src/records/similar-index-build.ts): the
 * search at the defaults with the tag totals built, for 2,000 companies from the middle of the ids,
 * on a connection that keeps every tag's postings (`keepEveryPosting`, what the build does) and on
 * one that reads the part of a common rarest tag in SQL (what a serving connection does), in
 * alternating blocks of 250 after 500 warm-up companies each. The answers must be identical.
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/similar-index-build.ts
 */
import { completeTagTotals, keepEveryPosting, similarCompanies } from '../src/records/similar.js'
import { openDatabase } from '../src/store/open.js'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'

const companies = benchCompanies()
const file = benchDatabaseFile(companies)
const kept = openDatabase(file, { readonly: true })
const plain = openDatabase(file, { readonly: true })
keepEveryPosting(kept)
await Promise.all([completeTagTotals(kept), completeTagTotals(plain)])
const searched = { index: false, totalsBuildMs: Number.POSITIVE_INFINITY } as const
for (let id = 1; id <= 500; id++) {
  await similarCompanies(kept, id, searched)
  await similarCompanies(plain, id, searched)
}
const first = Math.floor(companies / 2)
const ms = { kept: 0, plain: 0 }
const answers = { kept: new Map<number, string>(), plain: new Map<number, string>() }
for (let block = 0; block < 8; block++) {
  for (const side of block % 2 === 0 ? (['kept', 'plain'] as const) : (['plain', 'kept'] as const)) {
    const vdb = side === 'kept' ? kept : plain
    const started = performance.now()
    for (let id = first + block * 250; id < first + (block + 1) * 250; id++) answers[side].set(id, JSON.stringify(await similarCompanies(vdb, id, searched)))
    ms[side] += performance.now() - started
  }
}
let different = 0
for (const [id, answer] of answers.kept) if (answers.plain.get(id) !== answer) different++
console.log(`${companies} companies; 2,000 searched on each connection (ids ${first} to ${first + 1999})`)
console.log('| connection | ms a company |')
console.log('|---|---|')
console.log(`| keeps every posting (the build) | ${(ms.kept / 2000).toFixed(2)} |`)
console.log(`| reads parts in SQL (serving) | ${(ms.plain / 2000).toFixed(2)} |`)
console.log(`answers that differ: ${different} of 2000`)
await kept.close()
await plain.close()
if (different > 0) process.exitCode = 1
