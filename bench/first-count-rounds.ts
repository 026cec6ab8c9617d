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
import { firstCountVariants } from './suite/first-count-variants.js'
import { timeVariants } from './suite/timing.js'

const id = process.env.BENCH_ONLY ?? 'fundings-investor'
const { engine, engineCount, hand, plain } = await firstCountVariants(id)
const variants = plain ? [engineCount, hand, plain] : [engineCount, hand]

console.log(`| ${id}, round | engine ms | hand ms | plain ms | engine / hand |`)
console.log('|---|---|---|---|---|')
for (let round = 1; round <= 6; round++) {
  const t = await timeVariants(variants)
  console.log(`| ${round} | ${t.engine!.median.toFixed(3)} | ${t.hand!.median.toFixed(3)} | ${t.plain?.median.toFixed(2) ?? ''} | ${(t.engine!.median / t.hand!.median).toFixed(2)} |`)
}
await engine.close()
