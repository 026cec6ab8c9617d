/**
 * @module The fixed cost of a repeated engine call (`BENCH_COMPANIES=1000000 npx tsx
 * bench/repeat-call.ts`): `engine.count` of the mix's companies-design request whose total is
 * cached (parse, check, id, plan and one cache lookup: what the prepared-request memo removes,
 * execute/prepared-memo.ts), its first count, and `engine.explain`; medians of 61 calls.
 */
import { createEngine } from '../src/engine.js'
import { openBenchDatabase, forgetTotals as forgetTotalsOf } from './support/dataset.js'

const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb })
const request = { dataset: 'companies', filter: { country: 'USA', stage: { in: ['a', 'b'] }, employees: { between: [50, 200] } }, sort: [{ svc_score: 'desc' }] }
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
async function time(name: string, run: () => Promise<unknown>, setup?: () => void): Promise<void> {
  const xs: number[] = []
  for (let i = 0; i < 61; i++) {
    setup?.()
    const t = performance.now()
    await run()
    xs.push(performance.now() - t)
  }
  console.log(`${name}: ${median(xs).toFixed(3)} ms`)
}
await engine.count(request)
await time('count, total cached', () => engine.count(request))
await time('count, first (cache emptied)', () => engine.count(request), () => forgetTotalsOf(vdb))
await time('explain', () => engine.explain(request))
await engine.close()
