/**
 * What writing a cheap total costs (`BENCH_COMPANIES=1000000 npx tsx bench/persist-totals.ts`): the
 * first count of fundings by the largest investor (4,449 events at 1M companies) through two engines
 * on one handle, one keeping totals counted in under 1 ms in memory (the default), one writing every
 * total to query_totals (`paging: { persistTotalsFromMs: 0 }`), interleaved by the suite's timing
 * with every cached total forgotten before each run. Medians of 1,001 runs, three times.
 */
import { createEngine } from '../src/engine.js'
import { benchDatabaseFile, forgetTotals, freshCaches, openBenchDatabase } from './support/dataset.js'
import { buildMix, mixParams } from './suite/mix.js'
import { timeVariants } from './suite/timing.js'

benchDatabaseFile()
const vdb = openBenchDatabase()
freshCaches(vdb)
const inMemory = createEngine({ database: vdb })
const written = createEngine({ database: vdb, paging: { persistTotalsFromMs: 0 } })
const params = await mixParams(inMemory, Number(process.env.BENCH_COMPANIES ?? 100000))
const request = buildMix(inMemory, params).find((m) => m.id === 'fundings-investor')!.request
const count = (engine: typeof inMemory) => async () => {
  const c = await engine.count(request)
  if (!c.ok) throw new Error(JSON.stringify(c.issues))
}
console.log('| round | kept in memory ms | written ms | written - memory ms |')
console.log('|---|---|---|---|')
for (let round = 1; round <= 3; round++) {
  const t = await timeVariants([
    { name: 'memory', setup: () => forgetTotals(vdb), run: count(inMemory) },
    { name: 'written', setup: () => forgetTotals(vdb), run: count(written) },
  ], { runs: 1001 })
  console.log(`| ${round} | ${t.memory!.median.toFixed(3)} | ${t.written!.median.toFixed(3)} | ${(t.written!.median - t.memory!.median).toFixed(3)} |`)
}
await Promise.all([inMemory.close(), written.close()])
