/**
 * @module The suite's counts phase for one request, six times over in one process
 * (`BENCH_COMPANIES=1000000 npx tsx bench/first-count-rounds.ts`; `BENCH_ONLY=<id of the mix>`,
 * default fundings-investor): the engine's first count (totals emptied before each run), the
 * hand-tuned count and the plain count, shuffled and interleaved by the suite's own timing
 * (`suite/timing.ts`, `BENCH_RUNS` rounds, default 31). One line per round: engine, hand and plain
 * medians in ms, and engine / hand.
 *
 * Why six rounds in one process: on the 2-core machines here, a whole process can run every
 * statement, the hand-written ones too, up to about 1.7x slower than another process of the same
 * code (bench/README.md, stop 23). Comparing two versions of the engine takes several processes of
 * each, alternating, and rounds after the first (which warms up).
 */
import { createEngine } from '../src/engine.js'
import { benchDatabaseFile, forgetTotals, freshCaches, openBenchDatabase } from './support/dataset.js'
import { keyBefore, sqlForms } from './suite/hand-sql.js'
import { buildMix, mixParams } from './suite/mix.js'
import { timeVariants, type Variant } from './suite/timing.js'

benchDatabaseFile()
const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const params = await mixParams(engine, Number(process.env.BENCH_COMPANIES ?? 100000))
const id = process.env.BENCH_ONLY ?? 'fundings-investor'
const request = buildMix(engine, params).find((m) => m.id === id)?.request
const forms = sqlForms(vdb.sqlite, params, keyBefore(vdb.sqlite, params.deepPage), keyBefore(vdb.sqlite, 2))[id]
if (!request || !forms?.hand.count) throw new Error(`${id}: not a request of the mix with a hand-tuned count`)
const engineCount: Variant = {
  name: 'engine',
  setup: () => forgetTotals(vdb),
  run: async () => {
    const c = await engine.count(request)
    if (!c.ok) throw new Error(JSON.stringify(c.issues))
  },
}
const variants: Variant[] = [engineCount, { name: 'hand', run: forms.hand.count }]
if (forms.plain?.count) variants.push({ name: 'plain', run: forms.plain.count })

console.log(`| ${id}, round | engine ms | hand ms | plain ms | engine / hand |`)
console.log('|---|---|---|---|---|')
for (let round = 1; round <= 6; round++) {
  const t = await timeVariants(variants)
  console.log(`| ${round} | ${t.engine!.median.toFixed(3)} | ${t.hand!.median.toFixed(3)} | ${t.plain?.median.toFixed(2) ?? ''} | ${(t.engine!.median / t.hand!.median).toFixed(2)} |`)
}
await engine.close()
