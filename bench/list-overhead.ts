/**
 * @module The per-call overhead of a warm inline `engine.list` on small data: what a repeated
 * request pays besides its SQL (the prepared-request memo, the cost prediction, the input guard).
 * The same requests run on the fixture database (400 companies, in memory, inline) through this
 * checkout's engine and, when `BENCH_BASE_CHECKOUT` names a copy of another checkout's `src/`
 * (e.g. `git archive <commit> src package.json | tar -x -C DIR` with `node_modules` linked into
 * DIR), through that one's, interleaved in the same run; the ratio is per round, reported as the
 * median and the spread over rounds. It also times `guardInput` alone on the same requests,
 * as a share of the call.
 *
 *   npx tsx bench/list-overhead.ts
 *   BENCH_BASE_CHECKOUT=/tmp/base npx tsx bench/list-overhead.ts
 *
 * Variables: `BENCH_ROUNDS` (default 15), `BENCH_CALLS` (calls per request per round, default 300),
 * `BENCH_REQUESTS` (indexes into the request list, default all).
 */
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { createEngine } from '../src/engine.js'
import { createFixtureDatabase } from '../src/store/generate/fixture.js'
import { guardInput } from '../src/parse/guard.js'
import { DEFAULT_LIMITS } from '../src/check/limits.js'

const rounds = Number(process.env.BENCH_ROUNDS ?? 15)
const calls = Number(process.env.BENCH_CALLS ?? 300)

/** Typical listings: match-all, a multi-field filter, tags, a `foreign` on investors. */
const ALL_REQUESTS: readonly unknown[] = [
  { dataset: 'companies', filter: {}, per_page: 20 },
  { dataset: 'companies', filter: { country: 'USA', stage: { in: ['a', 'b'] }, employees: { between: [50, 200] } }, per_page: 20 },
  { dataset: 'companies', filter: { industries: { has_any: ['Fintech'] } }, per_page: 20 },
  { dataset: 'companies', filter: { foreign: { dataset: 'investors', filter: { type: 'vc' } } }, per_page: 20 },
  { dataset: 'fundings', filter: { series: 'a', amount: { gte: 1_000_000 } }, per_page: 20 },
]

/** `BENCH_REQUESTS` picks some of them by index (comma-separated), e.g. `0` for match-all alone. */
const picked = process.env.BENCH_REQUESTS ? process.env.BENCH_REQUESTS.split(',').map((i) => ALL_REQUESTS[Number(i)]!).filter(Boolean) : ALL_REQUESTS

interface Variant { readonly name: string; readonly list: (request: unknown) => Promise<unknown>; close(): Promise<void> }

async function variant(name: string, root: string): Promise<Variant> {
  const url = (path: string) => pathToFileURL(resolve(root, path)).href
  const engineModule = (await import(url('src/engine.ts'))) as typeof import('../src/engine.js')
  const fixtureModule = (await import(url('src/store/generate/fixture.ts'))) as typeof import('../src/store/generate/fixture.js')
  const database = await fixtureModule.createFixtureDatabase()
  const engine = engineModule.createEngine({ database })
  // Statistics read before timing, as `serve` does (an older checkout may not have `ready`).
  await (engine as { ready?: () => Promise<void> }).ready?.()
  for (const r of picked) {
    const answer = await engine.list(r)
    if (!answer.ok) throw new Error(`bench list-overhead (${name}): ${JSON.stringify(answer.issues)}`)
  }
  return { name, list: (r) => engine.list(r), close: async () => { await engine.close(); await database.close() } }
}

/** Microseconds per call of one round: every request `calls` times. */
async function round(v: Variant): Promise<number> {
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) for (const r of picked) await v.list(r)
  return ((performance.now() - t0) * 1000) / (calls * picked.length)
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const here = await variant('this checkout', resolve('.'))
const base = process.env.BENCH_BASE_CHECKOUT ? await variant('base', process.env.BENCH_BASE_CHECKOUT) : undefined
const times: Record<string, number[]> = { here: [], base: [], guard: [] }
const ratios: number[] = []
for (let i = 0; i < rounds; i++) {
  // Alternate which goes first, so neither always runs on a warmer or a cooler machine.
  const order = base ? (i % 2 === 0 ? [here, base] : [base, here]) : [here]
  const t: Record<string, number> = {}
  for (const v of order) t[v.name] = await round(v)
  times.here!.push(t[here.name]!)
  if (base) {
    times.base!.push(t[base.name]!)
    ratios.push(t[here.name]! / t[base.name]!)
  }
  const g0 = performance.now()
  for (let k = 0; k < calls; k++) for (const r of picked) guardInput(r, DEFAULT_LIMITS, 'The request')
  times.guard!.push(((performance.now() - g0) * 1000) / (calls * picked.length))
}
await here.close()
await base?.close()

const spread = (xs: readonly number[], digits = 3) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`
console.log(`bench list-overhead: warm inline engine.list on the fixture (400 companies), ${picked.length} requests x ${calls} calls, ${rounds} rounds`)
console.log(`  this checkout: median ${median(times.here!).toFixed(1)} us per call (rounds ${spread(times.here!, 1)})`)
if (base) {
  console.log(`  base (${process.env.BENCH_BASE_CHECKOUT}): median ${median(times.base!).toFixed(1)} us per call (rounds ${spread(times.base!, 1)})`)
  console.log(`  this / base: median ${median(ratios).toFixed(3)} (rounds ${spread(ratios)})`)
}
const shares = times.guard!.map((g, i) => g / times.here![i]!)
console.log(`  guardInput alone: median ${median(times.guard!).toFixed(2)} us per request, ${(100 * median(shares)).toFixed(1)}% of a call (rounds ${spread(shares.map((x) => 100 * x), 1)}%)`)
