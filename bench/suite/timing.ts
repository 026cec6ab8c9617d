/**
 * @module Timing several variants of one request side by side (engine, HTTP handler, hand-tuned
 * SQL, plain SQLite, mingo), interleaved round by round in a fresh order each round (`roundOrders`),
 * so a burst of noise on the shared cores, or a slow variant's cold caches, hits every variant alike. Fast variants run more rounds than
 * slow ones: each variant gets `runs` rounds (default `BENCH_RUNS` or 31) unless its warm-up showed
 * that they would take more than `budgetMs`, then fewer (at least `minRuns`). Medians and p99.
 */
import { performance } from 'node:perf_hooks'
import { Random } from '../../src/store/generate/prng.js'

export interface Timed {
  readonly median: number
  readonly p99: number
  readonly runs: number
}

export interface Variant {
  readonly name: string
  readonly run: () => unknown
  /** Untimed, before every timed run (e.g. emptying the totals cache for first counts). */
  readonly setup?: () => unknown
  /** Whether to run it once untimed before timing (default true). */
  readonly warmup?: boolean
}

export function suiteRuns(): number {
  const n = Number(process.env.BENCH_RUNS ?? 31)
  return Number.isSafeInteger(n) && n > 0 ? n : 31
}

export function summarize(times: readonly number[]): Timed {
  const sorted = [...times].sort((a, b) => a - b)
  const mid = sorted.length / 2
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  const p99 = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(0.99 * sorted.length) - 1))]!
  return { median, p99, runs: sorted.length }
}

async function once(v: Variant): Promise<number> {
  if (v.setup) await v.setup()
  const started = performance.now()
  await v.run()
  return performance.now() - started
}

/** How the variants of a round are ordered: shuffled afresh each round, or rotated. */
export type RoundOrder = 'shuffle' | 'rotate'

/** The suite's order: shuffled, unless `BENCH_ORDER=rotate` asks for rotation. */
export function suiteOrder(): RoundOrder {
  return process.env.BENCH_ORDER === 'rotate' ? 'rotate' : 'shuffle'
}

/**
 * The order of the variants in each round: shuffled afresh (seeded, so every run of the suite uses
 * the same orders), or rotated (round r starts at variant r). A rotation keeps every variant behind
 * the same one in all but one round in n: the engine's search always ran right after plain
 * SQLite's 0.8 s scan of the companies, which leaves the caches cold, while the hand-written search
 * ran right after the HTTP handler had done the same search. Shuffled, each variant follows each
 * other one about equally often.
 */
export function roundOrders(n: number, order: RoundOrder, seed = 0x9e3779b9): () => number[] {
  let round = 0
  if (order === 'rotate') {
    return () => {
      const r = round++
      return Array.from({ length: n }, (_, k) => (k + r) % n)
    }
  }
  const random = new Random(seed)
  return () => {
    const shuffled = Array.from({ length: n }, (_, k) => k)
    for (let k = n - 1; k > 0; k--) {
      const j = random.int(0, k)
      ;[shuffled[k], shuffled[j]] = [shuffled[j]!, shuffled[k]!]
    }
    return shuffled
  }
}

/** Times every variant, interleaved; returns stats by variant name. */
export async function timeVariants(variants: readonly Variant[], options: { runs?: number; minRuns?: number; budgetMs?: number; order?: RoundOrder } = {}): Promise<Record<string, Timed>> {
  const maxRuns = options.runs ?? suiteRuns()
  const minRuns = Math.min(maxRuns, options.minRuns ?? 5)
  const budget = options.budgetMs ?? Number(process.env.BENCH_BUDGET_MS ?? 1500)
  const runs: number[] = []
  for (const v of variants) {
    // The warm-up doubles as the estimate of a run's cost.
    const t = v.warmup === false ? 0 : await once(v)
    runs.push(Math.max(minRuns, Math.min(maxRuns, Math.floor(budget / Math.max(t, 0.001)))))
  }
  const times: number[][] = variants.map(() => [])
  const rounds = Math.max(...runs)
  const order = roundOrders(variants.length, options.order ?? suiteOrder())
  for (let round = 0; round < rounds; round++) {
    for (const i of order()) {
      if (times[i]!.length < runs[i]!) times[i]!.push(await once(variants[i]!))
    }
  }
  return Object.fromEntries(variants.map((v, i) => [v.name, summarize(times[i]!)]))
}

/**
 * The suite's page-1 variants of one request (engine, HTTP handler, hand-written SQL, plain SQLite;
 * each where it exists), warmed as the suite warms them (the JIT's first calls are not steady
 * state: 20 untimed calls of the fast variants) and timed by `timeVariants`.
 */
export async function timeRequest(
  engine: () => Promise<unknown>,
  http: (() => Promise<unknown>) | undefined,
  form: { readonly hand: { page(): unknown }; readonly plain?: { page(): unknown } } | undefined,
): Promise<Record<string, Timed>> {
  const variants: Variant[] = [
    { name: 'engine', run: engine },
    ...(http ? [{ name: 'http', run: http }] : []),
    ...(form ? [{ name: 'hand', run: () => form.hand.page() }] : []),
    ...(form?.plain ? [{ name: 'plain', run: () => form.plain!.page() }] : []),
  ]
  for (let i = 0; i < 20; i++) { await engine(); await http?.(); form?.hand.page() }
  return timeVariants(variants)
}
