/**
 * Why the suite's first count of fundings by investor differs from `first-counts.ts`
 * (`BENCH_COMPANIES=1000000 npx tsx bench/first-count-interleaving.ts`): the same engine count and
 * hand-tuned count, timed by the suite's interleaving (`suite/timing.ts`), once alone and once with
 * the plain-SQLite count (a join over the fundings table, ~2-4 ms) interleaved as the suite does, in
 * two orders. The plain form's reads leave the caches cold for whatever runs next; the engine's
 * count, which reads more pages and runs JavaScript around its statement, pays more for that than
 * the hand-written statement does.
 */
import { firstCountVariants } from './suite/first-count-variants.js'
import { timeVariants, type Variant } from './suite/timing.js'

const { engine, engineCount, hand, plain: plainCount } = await firstCountVariants('fundings-investor')
const plain: Variant = plainCount!

console.log('| variants, in rotation order | engine ms | hand ms | engine / hand |')
console.log('|---|---|---|---|')
for (let round = 0; round < 2; round++) {
  for (const variants of [[engineCount, hand], [engineCount, hand, plain], [hand, engineCount, plain]]) {
    // The point here is the order: the rotation the suite used before it shuffled (suite/timing.ts).
    const t = await timeVariants(variants, { order: 'rotate' })
    console.log(`| ${variants.map((v) => v.name).join(', ')} | ${t.engine!.median.toFixed(3)} | ${t.hand!.median.toFixed(3)} | ${(t.engine!.median / t.hand!.median).toFixed(2)} |`)
  }
}
await engine.close()
