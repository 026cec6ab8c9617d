/**
 * How long the search index build takes (`refreshSearchIndex`, which every load runs) on the bench
 * database: BENCH_RUNS (default 2) rebuilds of the same data, each timed by the build itself.
 * Compare checkouts by running it in each (`cd <worktree> && npx tsx bench/search-index-build.ts`),
 * each on its own copy of the file.
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/search-index-build.ts
 */
import { refreshSearchIndex } from '../src/store/search-index.js'
import { benchDatabaseFile, openBenchDatabase } from './support/dataset.js'

benchDatabaseFile()
const vdb = openBenchDatabase()
const runs = Number(process.env.BENCH_RUNS ?? 2)
const times: string[] = []
for (let i = 0; i < runs; i++) times.push((refreshSearchIndex(vdb.sqlite) / 1000).toFixed(1))
console.log(`search index build, ${vdb.sqlite.prepare('select count(*) from companies').pluck().get()} companies: ${times.join(', ')} s`)
await vdb.close()
