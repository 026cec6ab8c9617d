/**
 * @module The issue-9 suite's first counts alone (`BENCH_COMPANIES=1000000 npx tsx
 * bench/first-counts.ts`): for every request of the mix with a hand-tuned count, the engine's
 * first count (totals cache emptied before each run) against the hand-tuned statement, interleaved
 * in one process by the suite's own timing (`suite/timing.ts`), medians and their ratio. The full
 * suite (`suite.bench.ts`) measures the same and much more; this is its counts phase, for a quick
 * check of a count change.
 */
import { createEngine } from '../src/engine.js'
import { benchDatabaseFile, freshCaches, openBenchDatabase, forgetTotals as forgetTotalsOf } from './support/dataset.js'
import { keyBefore, sqlForms } from './suite/hand-sql.js'
import { buildMix, mixParams } from './suite/mix.js'
import { timeVariants } from './suite/timing.js'

benchDatabaseFile()
const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const params = await mixParams(engine, Number(process.env.BENCH_COMPANIES ?? 100000))
const mix = buildMix(engine, params)
const forms = sqlForms(vdb.sqlite, params, keyBefore(vdb.sqlite, params.deepPage), keyBefore(vdb.sqlite, 2))
const forgetTotals = () => forgetTotalsOf(vdb)

console.log('| request | total | engine ms | hand ms | engine / hand |')
console.log('|---|---|---|---|---|')
// BENCH_ONLY=fundings-investor,companies-all: only these requests of the mix.
const only = new Set((process.env.BENCH_ONLY ?? '').split(',').map((x) => x.trim()).filter(Boolean))
for (const r of mix) {
  if (only.size > 0 && !only.has(r.id)) continue
  const f = forms[r.id]
  if (!r.request || !f?.hand.count) continue
  const request = r.request
  let total = 0
  const t = await timeVariants([
    { name: 'engine', setup: forgetTotals, run: async () => {
      const c = await engine.count(request)
      if (!c.ok) throw new Error(JSON.stringify(c.issues))
      total = c.value
    } },
    { name: 'hand', run: f.hand.count },
  ])
  const hand = Number(f.hand.count())
  if (hand !== total) throw new Error(`${r.id}: engine counted ${total}, hand-tuned SQL ${hand}`)
  console.log(`| ${r.id} | ${total} | ${t.engine!.median.toFixed(2)} | ${t.hand!.median.toFixed(2)} | ${(t.engine!.median / t.hand!.median).toFixed(2)} |`)
}
await engine.close()
