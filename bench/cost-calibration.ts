/**
 * @module Does the cost check's estimate predict time? A generated corpus of filters (random trees,
 * chains of nested `foreign` up to `maxDepth` with every `match`, wide `or`s of conditions and of
 * `foreign`, selective and unselective conditions) is run against the benchmark database, each
 * request as `engine.list` (its total counted afresh, and page 1) under a time budget, with the
 * cost limit lifted so that every request is timed. For each request it records the static
 * estimate (`estimateCost`, units per record), the prediction on this database (`predictCost`),
 * whether the static limit (`maxCost`) and the time prediction would refuse it, and the time.
 *
 *   npx tsx bench/cost-calibration.ts                              SQLite, 100,000 companies
 *   BENCH_BACKEND=postgres npx tsx bench/cost-calibration.ts       its PostgreSQL copy
 *   BENCH_COMPANIES=1000000 npx tsx bench/cost-calibration.ts      1,000,000 companies
 *
 * Variables: `BENCH_BUDGET_MS` (default 10,000: `serve`'s `--query-timeout`), `BENCH_CORPUS` (the
 * number of random trees, default 60; the chains and `or`s are added to them), `BENCH_SEED`.
 *
 * It prints, for accepted requests before (static `maxCost` 3,000) and after (static limit and the
 * prediction within the budget), the fraction that finished within the budget; the rank correlation
 * (Spearman) of estimate and time, and of prediction and time; the largest ratio of time to
 * prediction among accepted requests that took over 100 ms; and the constants of `TIME_MODEL`
 * (check/cost.ts) as the corpus calibrates them, so that the prediction bounds every request.
 * Each row is written to `.ventureql/bench/cost-calibration-<backend>-<companies>.json` (or
 * `BENCH_ROWS_FILE`).
 *
 * Then it replays the corpus in corpus order (chains, `or`s, random trees, as generated) through
 * the online time correction (`src/execute/time-correction.ts`) as an engine with
 * `refuseOverBudget` would have met it, one request after another (`support/time-replay.ts`): a
 * request's prediction is scaled by what the requests accepted before it measured, a refused one is
 * not observed. It prints the accepted requests that finish and the refused ones that would have,
 * with the default settings and with others (`BENCH_CORRECTIONS`: `quantile:margin`, comma-separated).
 * `BENCH_REPLAY=a.json,b.json` replays rows written before instead of running the corpus;
 * `BENCH_SHUFFLES` (default 20) replays the same rows in as many seeded shuffled orders too.
 * It exits non-zero when fewer than 99% of the requests accepted with the correction finish within
 * the budget.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { FilterNode } from '../src/ast/nodes.js'
import { DEFAULT_LIMITS, resolveLimits } from '../src/check/limits.js'
import { COST_TABLES, estimateCost, EXPECTED_TIME_MODEL, expectedWork, predictCost, TIME_MODEL, workOnData, type CostBackend } from '../src/check/cost.js'
import { DIALECTS } from '../src/compile/index.js'
import { readStatistics } from '../src/execute/statistics.js'
import { dataVersion } from '../src/store/open.js'
import { createEngine } from '../src/engine.js'
import { parseQuery } from '../src/parse/index.js'
import { openDatabase, type VentureDb } from '../src/store/open.js'
import { BENCH_DIR, benchCompanies, benchDatabaseFile, freshCaches } from './support/dataset.js'
import { freshPostgresCaches, openBenchPostgres } from './support/postgres-copy.js'
import { chainFilter } from './support/foreign-chains.js'
import { modelAlone, replay, type TimedRow } from './support/time-replay.js'
import { DEFAULT_TIME_CORRECTION } from '../src/execute/time-correction.js'

const backend: CostBackend = process.env.BENCH_BACKEND === 'postgres' ? 'postgres' : 'sqlite'
const companies = benchCompanies()
const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 10_000)
const corpusSize = Number(process.env.BENCH_CORPUS ?? 60)
let seed = Number(process.env.BENCH_SEED ?? 7) >>> 0
/** Other settings of the correction to replay with, `quantile:margin` (`BENCH_CORRECTIONS`, comma-separated). */
const variants = (process.env.BENCH_CORRECTIONS ?? '0.5:1,0.5:2.5,0.75:1.5,0.75:2,0.9:1.5').split(',').map((v) => {
  const [quantile, margin] = v.split(':').map(Number)
  if (!(quantile! > 0 && quantile! < 1 && margin! > 0)) throw new Error(`BENCH_CORRECTIONS: ${JSON.stringify(v)} is not quantile:margin`)
  return { quantile: quantile!, margin: margin! }
})

/** The replay of `rows` in their order: the model alone against the model with the online correction. */
function printReplay(rows: readonly TimedRow[], budget: number): boolean {
  const pct = (n: number, d: number) => `${d === 0 ? '-' : ((100 * n) / d).toFixed(1)}% (${n} of ${d})`
  const line = (label: string, o: ReturnType<typeof replay>) =>
    console.log(`  ${label}: ${pct(o.acceptedFinished, o.accepted)} of the accepted finish within the budget; refused ${o.refusedFinished} that would have finished, ${o.refusedUnfinished} that would not`)
  line('model alone (refuseOverBudget without correction)', modelAlone(rows, budget, DEFAULT_LIMITS.maxCost))
  const adaptive = replay(rows, budget, DEFAULT_LIMITS.maxCost)
  line(`online correction, corpus order, quantile ${DEFAULT_TIME_CORRECTION.quantile} margin ${DEFAULT_TIME_CORRECTION.margin} (default)`, adaptive)
  const scales = adaptive.decisions.map((d) => d.scale)
  console.log(`    scale applied: first ${scales[0]!.toFixed(2)}, median ${[...scales].sort((a, b) => a - b)[Math.floor(scales.length / 2)]!.toFixed(2)}, last ${scales[scales.length - 1]!.toFixed(2)}, range ${Math.min(...scales).toFixed(2)}-${Math.max(...scales).toFixed(2)}`)
  for (const v of variants) line(`  quantile ${v.quantile} margin ${v.margin}`, replay(rows, budget, DEFAULT_LIMITS.maxCost, v))
  if (shuffles > 0) {
    // The same measured rows in other orders (seeded): how much the outcome owes to the corpus order.
    let state = 0x9e3779b9
    const next = () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 4294967296)
    const outcomes = Array.from({ length: shuffles }, () => {
      const order = [...rows]
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!]
      }
      return replay(order, budget, DEFAULT_LIMITS.maxCost)
    })
    const spread = (f: (o: ReturnType<typeof replay>) => number) => {
      const v = outcomes.map(f).sort((a, b) => a - b)
      return `${v[0]!.toFixed(1)} / ${v[Math.floor(v.length / 2)]!.toFixed(1)} / ${v[v.length - 1]!.toFixed(1)}`
    }
    console.log(`    in ${shuffles} shuffled orders (min / median / max): accepted that finish ${spread((o) => (100 * o.acceptedFinished) / Math.max(1, o.accepted))}%, refused that would finish ${spread((o) => o.refusedFinished)}`)
  }
  const ratios = rows.filter((r) => r.finished && r.expectedMs >= 50).map((r) => r.ms / r.expectedMs).sort((a, b) => a - b)
  const q = (p: number) => ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))]!
  if (ratios.length > 0) console.log(`    measured / model among finished requests predicted at 50 ms or more (${ratios.length}): p10 ${q(0.1).toFixed(2)}, median ${q(0.5).toFixed(2)}, p90 ${q(0.9).toFixed(2)}, max ${ratios[ratios.length - 1]!.toFixed(2)}`)
  return adaptive.accepted === 0 || adaptive.acceptedFinished / adaptive.accepted >= 0.99
}

/** Replays in this many shuffled orders too (`BENCH_SHUFFLES`, default 20). */
const shuffles = Number(process.env.BENCH_SHUFFLES ?? 20)
const replayFiles = (process.env.BENCH_REPLAY ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
if (replayFiles.length > 0) {
  let good = true
  for (const file of replayFiles) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { budgetMs: number; companies: number; backend: string; rows: TimedRow[] }
    console.log(`\nbench cost-calibration, replay of ${file} (${saved.backend}, ${saved.companies.toLocaleString('en-US')} companies, budget ${saved.budgetMs} ms, ${saved.rows.length} requests in corpus order)`)
    good = printReplay(saved.rows, saved.budgetMs) && good
  }
  process.exit(good ? 0 : 1)
}

/** mulberry32: a seeded generator, so a corpus is the same in every run. */
function random(): number {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
const MATCHES = ['any', 'none', 'all'] as const

type Dataset = 'companies' | 'investors' | 'fundings'
/** Conditions per dataset: the first ones match almost nothing, the last ones almost everything. */
const CONDITIONS: Record<Dataset, readonly unknown[]> = {
  companies: [
    { name: { eq: 'no-such-name' } }, { website: 'no-such.example' }, { country: 'DEU' }, { employees: { between: [50, 200] } },
    { stage: { in: ['a', 'b'] } }, { industries: { has_any: ['Fintech'] } }, { country: 'USA' }, { svc_score: { gte: 10 } },
    { description: { contains: 'data' } }, { name: { is_null: false } }, { employees: { gte: 0 } },
  ],
  investors: [
    { name: { eq: 'no-such-name' } }, { svc_slug: 'no-such-slug' }, { type: 'accelerator' }, { portfolio_size: { gte: 50 } },
    { type: { in: ['vc', 'angel'] } }, { country: 'USA' }, { name: { is_null: false } }, { portfolio_size: { gte: 0 } },
  ],
  fundings: [
    { company_name: { eq: 'no-such-name' } }, { series: 'c' }, { amount: { gte: 50_000_000 } }, { country: 'USA' },
    { rounds_funding_date: { gte: '2015-01-01' } }, { amount: { is_null: false } },
  ],
}
const RELATED: Record<Dataset, readonly Dataset[]> = {
  companies: ['investors', 'fundings'],
  investors: ['companies', 'fundings'],
  fundings: ['companies', 'investors'],
}

/** A random filter tree over `dataset`: at most `depth` more levels, `budget` nodes or so. */
function tree(dataset: Dataset, depth: number): unknown {
  const r = random()
  if (depth <= 1 || r < 0.3) return pick(CONDITIONS[dataset])
  if (r < 0.55) {
    const to = pick(RELATED[dataset])
    return { foreign: { dataset: to, filter: tree(to, depth - 1), match: pick(MATCHES) } }
  }
  if (r < 0.65) return { not: tree(dataset, depth - 1) }
  const width = 2 + Math.floor(random() * 4)
  return { [random() < 0.5 ? 'and' : 'or']: Array.from({ length: width }, () => tree(dataset, depth - 1)) }
}

interface Case { readonly family: string; readonly request: { readonly dataset: Dataset; readonly filter: unknown } }

function corpus(): Case[] {
  const cases: Case[] = []
  // Chains companies -> investors -> ... of every depth the limits allow, ending in a condition that
  // matches nothing or everything, with each match.
  for (let levels = 1; levels <= DEFAULT_LIMITS.maxDepth - 1; levels += levels < 5 ? 1 : 2) {
    for (const match of MATCHES) {
      for (const innermost of [{ name: { eq: 'no-such-name' } }, { name: { is_null: false } }]) {
        cases.push({ family: `chain ${levels} ${match}`, request: { dataset: 'companies', filter: chainFilter(levels, innermost, match) } })
      }
    }
  }
  // Wide `or`s: of conditions (up to what maxNodes allows) and of `foreign` with each match.
  for (const width of [10, 100, 499]) {
    cases.push({ family: `or ${width} conditions`, request: { dataset: 'companies', filter: { or: Array.from({ length: width }, (_, i) => ({ name: { eq: `no-such-${i}` } })) } } })
  }
  for (const width of [5, 20, 60]) {
    for (const match of MATCHES) {
      cases.push({
        family: `or ${width} foreign ${match}`,
        request: { dataset: 'companies', filter: { or: Array.from({ length: width }, (_, i) => ({ foreign: { dataset: 'investors', filter: { name: { eq: `no-such-${i}` } }, match } })) } },
      })
    }
  }
  // Random trees over each dataset.
  const datasets: Dataset[] = ['companies', 'investors', 'fundings']
  for (let i = 0; i < corpusSize; i++) {
    const dataset = datasets[i % 3]!
    cases.push({ family: `random ${dataset}`, request: { dataset, filter: tree(dataset, 2 + Math.floor(random() * 6)) } })
  }
  return cases
}

interface Row {
  readonly family: string
  readonly bytes: number
  readonly units: number
  /** Condition tests and row visits per record on this database's shape (`workOnData`). */
  readonly tests: number
  readonly visits: number
  readonly rows: number
  /** The expected work on this data (`expectedWork`, what the engine predicts by) and its prediction. */
  readonly expTests: number
  readonly expVisits: number
  readonly expScan: number
  readonly expectedMs: number
  /** The worst case on the data's shape (`workOnData`, `TIME_MODEL`). */
  readonly predictedMs: number
  readonly refusedBefore: boolean
  readonly refusedAfter: boolean
  /** Milliseconds of count + page 1, or the budget when it was stopped there. */
  readonly ms: number
  readonly finished: boolean
  readonly request: unknown
}

function spearman(xs: readonly number[], ys: readonly number[]): number {
  const ranks = (vs: readonly number[]) => {
    const order = vs.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0])
    const r = new Array<number>(vs.length)
    for (let i = 0; i < order.length;) {
      let j = i
      while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++
      for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2
      i = j + 1
    }
    return r
  }
  const a = ranks(xs)
  const b = ranks(ys)
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length
  const ma = mean(a)
  const mb = mean(b)
  let num = 0, da = 0, db = 0
  for (let i = 0; i < a.length; i++) {
    num += (a[i]! - ma) * (b[i]! - mb)
    da += (a[i]! - ma) ** 2
    db += (b[i]! - mb) ** 2
  }
  return num / Math.sqrt(da * db)
}

const sqlite = openDatabase(benchDatabaseFile(companies))
freshCaches(sqlite)
let database: VentureDb = sqlite
if (backend === 'postgres') {
  database = await openBenchPostgres(sqlite, companies, 'cost-calibration')
  await freshPostgresCaches(companies)
}
const tableRows = new Map(COST_TABLES.map((t) => [t, sqlite.sqlite.prepare(`select count(*) from ${t}`).pluck().get() as number]))
const rowsOf: Record<Dataset, number> = { companies: tableRows.get('companies')!, investors: tableRows.get('investors')!, fundings: tableRows.get('fundings')! }
// Inline (no workers): one request at a time on this thread, stopped at the budget by the watchdog
// (SQLite) or a cancel (PostgreSQL), as the pool stops a worker's.
const stats = await readStatistics({ db: database.db, dialect: DIALECTS[database.dialect], dataVersion: await dataVersion(database) })
const engine = createEngine({ database, workers: 0, timeoutMs: budgetMs, limits: { maxCost: Number.POSITIVE_INFINITY } })
await engine.list({ dataset: 'companies', filter: { name: 'warm-up' } })

const cases = corpus()
const rows: Row[] = []
const started = performance.now()
for (const c of cases) {
  const parsed = parseQuery(c.request, resolveLimits({ maxCost: Number.POSITIVE_INFINITY }))
  if (!parsed.ok) throw new Error(`bench cost-calibration: the corpus made an invalid request: ${JSON.stringify(parsed.issues)} for ${JSON.stringify(c.request)}`)
  const filter = (parsed.value as { filter: FilterNode }).filter
  const units = estimateCost(filter).total
  const work = workOnData(filter, c.request.dataset, (t) => tableRows.get(t) ?? 0)
  const predicted = predictCost(units, work, rowsOf[c.request.dataset], backend, c.request.dataset)
  const exp = expectedWork(filter, c.request.dataset, stats)
  const expected = predictCost(units, exp, rowsOf[c.request.dataset], backend, c.request.dataset, EXPECTED_TIME_MODEL[backend])
  const t0 = performance.now()
  const r = await engine.list({ ...c.request, per_page: 50 })
  const ms = performance.now() - t0
  const finished = r.ok
  if (!r.ok && r.issues[0]?.code !== 'query_timeout') throw new Error(`bench cost-calibration: ${JSON.stringify(r.issues)} for ${JSON.stringify(c.request)}`)
  rows.push({
    family: c.family,
    bytes: JSON.stringify(c.request).length,
    units,
    tests: work.tests,
    visits: work.visits,
    rows: rowsOf[c.request.dataset],
    expTests: exp.tests,
    expVisits: exp.visits,
    expScan: exp.scan ?? 1,
    expectedMs: expected.ms,
    predictedMs: predicted.ms,
    refusedBefore: units > DEFAULT_LIMITS.maxCost,
    refusedAfter: units > DEFAULT_LIMITS.maxCost || expected.ms > budgetMs,
    ms: finished ? ms : budgetMs,
    finished,
    request: c.request,
  })
  process.stderr.write(`  ${c.family.padEnd(24)} units ${String(units).padStart(6)} tests ${work.tests.toFixed(0).padStart(6)} visits ${work.visits.toFixed(0).padStart(6)} worst ${String(predicted.ms).padStart(7)} ms expected ${String(expected.ms).padStart(7)} ms (t ${exp.tests.toFixed(1)} v ${exp.visits.toFixed(1)} scan ${(exp.scan ?? 1).toFixed(3)})  took ${finished ? ms.toFixed(0).padStart(6) : ' >budget'} ms\n`)
}
await engine.close()
if (backend === 'postgres') await database.close()
sqlite.sqlite.close()

const within = (rs: readonly Row[]) => rs.filter((r) => r.finished).length
const accBefore = rows.filter((r) => !r.refusedBefore)
const accAfter = rows.filter((r) => !r.refusedAfter)
const pct = (n: number, d: number) => `${d === 0 ? '-' : ((100 * n) / d).toFixed(1)}% (${n} of ${d})`
const timed = rows.filter((r) => r.finished)
const rho = spearman(timed.map((r) => r.units), timed.map((r) => r.ms))
const slow = accAfter.filter((r) => r.ms >= 100)
const worstRatio = slow.reduce((m, r) => Math.max(m, r.ms / Math.max(1, r.expectedMs)), 0)
// The time model's constants as this corpus calibrates them (check/cost.ts, TIME_MODEL), each the
// largest that finished requests need once the others are counted: each dataset's scan from its
// requests of at most 3 condition tests and no visits, the tests from requests without visits, the
// visits from the rest.
const model = TIME_MODEL[backend]
const slowOnes = timed.filter((r) => r.tests > 0 || r.visits > 0)
const datasetOf = (r: Row) => (r.request as Case['request']).dataset
const left = (r: Row) => ((r.ms - model.baseMs) * 1e6) / r.rows
const scanNs = Object.fromEntries((['companies', 'investors', 'fundings'] as const).map((d) =>
  [d, slowOnes.filter((r) => datasetOf(r) === d && r.visits === 0 && r.tests <= 3).reduce((m, r) => Math.max(m, left(r)), 0)]))
const testNs = slowOnes.filter((r) => r.visits === 0 && r.tests > 3).reduce((m, r) => Math.max(m, (left(r) - scanNs[datasetOf(r)]!) / r.tests), 0)
const visitNs = slowOnes.filter((r) => r.visits > 0).reduce((m, r) => Math.max(m, (left(r) - scanNs[datasetOf(r)]! - r.tests * testNs) / r.visits), 0)
const rhoData = spearman(timed.map((r) => r.predictedMs), timed.map((r) => r.ms))
const rhoExpected = spearman(timed.map((r) => r.expectedMs), timed.map((r) => r.ms))
console.log(`\nbench cost-calibration (${backend}, ${companies.toLocaleString('en-US')} companies, budget ${budgetMs} ms, ${rows.length} requests, ${((performance.now() - started) / 1000).toFixed(0)} s)`)
console.log(`  accepted before (maxCost ${DEFAULT_LIMITS.maxCost}): ${pct(within(accBefore), accBefore.length)} finish within the budget`)
console.log(`  accepted after (maxCost and predicted time within the budget): ${pct(within(accAfter), accAfter.length)} finish within the budget`)
console.log(`  refused after that would have finished: ${rows.filter((r) => r.refusedAfter && r.finished).length}; refused after that would not: ${rows.filter((r) => r.refusedAfter && !r.finished).length}`)
console.log(`  Spearman rank correlation with time (finished requests): static estimate ${rho.toFixed(3)}, worst case on the data ${rhoData.toFixed(3)}, prediction on the data's statistics ${rhoExpected.toFixed(3)}`)
console.log(`  largest time / prediction among accepted requests over 100 ms: ${worstRatio.toFixed(2)} (${slow.length} such requests)`)
console.log(`  TIME_MODEL.${backend} as this corpus calibrates it (baseMs ${model.baseMs}): scanNs ${JSON.stringify(Object.fromEntries(Object.entries(scanNs).map(([d, v]) => [d, Math.round(v)])))}, testNs ${testNs.toFixed(1)}, visitNs ${visitNs.toFixed(1)} (in use: ${JSON.stringify(model.scanNs)}, ${model.testNs}, ${model.visitNs})`)
console.log(`  replayed in corpus order (${rows.length} requests):`)
const adaptiveHolds = printReplay(rows, budgetMs)
const out = process.env.BENCH_ROWS_FILE ?? join(BENCH_DIR, `cost-calibration-${backend}-${companies}.json`)
writeFileSync(out, JSON.stringify({ backend, companies, budgetMs, seed: Number(process.env.BENCH_SEED ?? 7), rowsOf, rows }, null, 1))
console.log(`  rows written to ${out}`)
if (!adaptiveHolds) process.exitCode = 1
