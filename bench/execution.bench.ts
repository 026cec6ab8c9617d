/**
 * @module The execution model (issue 7): what a slow query does to everything else in the process.
 *
 * 1. Event-loop delay while a slow first count runs (a `match: none` foreign count, uncached: each
 *    run asks a new amount), sampled every millisecond with `perf_hooks.monitorEventLoopDelay`: the
 *    engine with its worker pool against the same engine with `workers: 0` (every statement on the
 *    caller's thread, as before the pool). Target: p99 below 20 ms with the pool, and under 5% of
 *    the stall the same query causes inline (0.5 s at 100,000 companies, 2-3 s at 1,000,000).
 * 2. Detail lookups (`engine.records.companyDetail`, random ids, 8 callers back to back) for a few
 *    seconds alone, then while one slow count per general worker runs: p99 with the counts against
 *    p99 alone. Target <= 3 (the reserved worker keeps them flowing); inline shown for contrast.
 *
 * `BENCH_COMPANIES=1000000 npx tsx bench/execution.bench.ts` for the figures.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createEngine, type Engine } from '../src/engine.js'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'

const file = benchDatabaseFile()
const companies = benchCompanies()
const pooled = createEngine({ database: file, timeoutMs: 0 })
const inline = createEngine({ database: file, workers: 0, timeoutMs: 0 })
const runs = Number(process.env.BENCH_SLOW_RUNS ?? 3)
const lookupSeconds = Number(process.env.BENCH_LOOKUP_SECONDS ?? 4)
let amount = 1_000 + Math.floor(Math.random() * 1_000_000)

/** A first count that reads most of the fundings table: a new amount each call, so never cached. */
function slowCount(engine: Engine): Promise<unknown> {
  amount += 1
  return engine.count({ dataset: 'companies', filter: { foreign: { dataset: 'fundings', filter: { amount: { gte: amount } }, match: 'none' } } })
}

interface LoopDelay { readonly ms: number; readonly p99: number; readonly max: number }

async function underMonitor(work: () => Promise<unknown>): Promise<LoopDelay> {
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  // The monitor samples from the loop's next turn on.
  await new Promise((r) => setTimeout(r, 20))
  const started = performance.now()
  await work()
  const ms = performance.now() - started
  await new Promise((r) => setTimeout(r, 5))
  h.disable()
  return { ms, p99: h.percentile(99) / 1e6, max: h.max / 1e6 }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const percentile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
}

async function lookupLatencies(engine: Engine, seconds: number): Promise<number[]> {
  const until = performance.now() + seconds * 1000
  const times: number[] = []
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (performance.now() < until) {
      const id = 1 + Math.floor(Math.random() * companies)
      const started = performance.now()
      await engine.records.companyDetail(id)
      times.push(performance.now() - started)
    }
  }))
  return times
}

/** Lookups for `seconds` while `slow` counts run back to back on `engine` (as many as general workers). */
async function lookupsDuringSlowCounts(engine: Engine, slow: number, seconds: number): Promise<{ times: number[]; counts: number }> {
  let stop = false
  let counts = 0
  const background = Array.from({ length: slow }, async () => {
    while (!stop) {
      await slowCount(engine)
      counts++
      // Inline, a count resolves in microtasks only: without a turn of the loop nothing else would run.
      await new Promise((r) => setImmediate(r))
    }
  })
  // Let the counts take their workers first.
  await new Promise((r) => setTimeout(r, 100))
  const times = await lookupLatencies(engine, seconds)
  stop = true
  await Promise.all(background)
  return { times, counts }
}

async function main(): Promise<void> {
  await pooled.records.companyExists(1) // workers started
  await slowCount(pooled)
  await slowCount(inline)

  process.stderr.write(`  execution: slow first counts, ${runs} runs each ...\n`)
  const pool: LoopDelay[] = []
  const blocked: LoopDelay[] = []
  for (let i = 0; i < runs; i++) {
    pool.push(await underMonitor(() => slowCount(pooled)))
    blocked.push(await underMonitor(() => slowCount(inline)))
  }
  const poolP99 = median(pool.map((d) => d.p99))
  const inlineMax = median(blocked.map((d) => d.max))
  console.log(`\n## Event-loop delay while a slow first count runs (${companies} companies; medians of ${runs} runs, ms)`)
  console.log('engine               count ms   loop p99   loop max')
  console.log(`pool (${pooled.execution.workers} threads)     ${median(pool.map((d) => d.ms)).toFixed(0).padStart(8)}   ${poolP99.toFixed(1).padStart(8)}   ${median(pool.map((d) => d.max)).toFixed(1).padStart(8)}`)
  console.log(`inline (workers: 0)  ${median(blocked.map((d) => d.ms)).toFixed(0).padStart(8)}   ${median(blocked.map((d) => d.p99)).toFixed(1).padStart(8)}   ${inlineMax.toFixed(1).padStart(8)}`)
  const stallRatio = poolP99 / inlineMax
  const loopOk = poolP99 < 20 && stallRatio <= 0.05
  console.log(`pool p99 / inline stall: ${stallRatio.toFixed(4)} (target: p99 < 20 ms and <= 0.05) ${loopOk ? 'ok' : 'MISSED'}`)

  process.stderr.write(`  execution: detail lookups alone and beside slow counts, ${lookupSeconds} s each ...\n`)
  const general = pooled.execution.workers - 1
  const alone = await lookupLatencies(pooled, lookupSeconds)
  const beside = await lookupsDuringSlowCounts(pooled, general, lookupSeconds)
  const inlineAlone = await lookupLatencies(inline, Math.min(2, lookupSeconds))
  const inlineBeside = await lookupsDuringSlowCounts(inline, 1, Math.min(2, lookupSeconds))
  const ratio = percentile(beside.times, 0.99) / percentile(alone, 0.99)
  console.log(`\n## Detail lookups beside slow counts (8 callers; ms)`)
  console.log('engine               lookups   p50 alone   p99 alone   p50 beside   p99 beside   max beside   slow counts done')
  const row = (name: string, a: number[], b: { times: number[]; counts: number }) =>
    console.log(`${name.padEnd(20)} ${String(a.length + b.times.length).padStart(8)}   ${percentile(a, 0.5).toFixed(2).padStart(9)}   ${percentile(a, 0.99).toFixed(2).padStart(9)}   ${percentile(b.times, 0.5).toFixed(2).padStart(10)}   ${percentile(b.times, 0.99).toFixed(2).padStart(10)}   ${Math.max(...b.times).toFixed(0).padStart(10)}   ${String(b.counts).padStart(16)}`)
  row(`pool (${general} + 1)`, alone, beside)
  row('inline (workers: 0)', inlineAlone, inlineBeside)
  const lookupsOk = ratio <= 3
  console.log(`pool p99 beside / p99 alone: ${ratio.toFixed(2)} (target <= 3) ${lookupsOk ? 'ok' : 'MISSED'}`)
  if (!loopOk || !lookupsOk) process.exitCode = 1
}

try {
  await main()
} finally {
  await pooled.close()
  await inline.close()
}
