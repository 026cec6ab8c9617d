/**
 * @module Fits `EXPECTED_TIME_MODEL` (check/cost.ts) to the rows `bench/cost-calibration.ts`
 * wrote, without running the corpus again: each row's expected work on the benchmark database's
 * statistics (`expectedWork`), then the constants (coordinate search) that minimise the squared
 * log-ratio of time to prediction over the requests that finished in at least 50 ms (the faster
 * ones are far from any budget) plus the terms of what refusing decides (a request that did not
 * finish predicted under the budget, one that finished over it; `BENCH_REFIT_HINGE`), scaled by the
 * smallest factor with which 99% of the accepted requests finish within the budget at every size.
 * Prints the constants and, with them and with those in use, what the calibration bench prints
 * per corpus: the accepted requests that finish within the budget, the refused ones that finish,
 * and the rank correlation; also for held-out corpora, which are not fitted.
 *
 *   npx tsx bench/cost-refit.ts                                           SQLite's rows at 100,000 companies
 *   BENCH_REFIT_COMPANIES=100000,1000000 npx tsx bench/cost-refit.ts      both sizes together
 *   BENCH_REFIT_FILES=a.json,b.json BENCH_REFIT_HOLDOUT=c.json npx tsx bench/cost-refit.ts
 *   BENCH_BACKEND=postgres npx tsx bench/cost-refit.ts                    PostgreSQL's
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FilterNode } from '../src/ast/nodes.js'
import { DEFAULT_LIMITS, resolveLimits } from '../src/check/limits.js'
import { EXPECTED_TIME_MODEL, expectedWork, predictCost, type CostBackend, type DataStatistics, type TimeModel, type WorkOnData } from '../src/check/cost.js'
import { DIALECTS } from '../src/compile/index.js'
import { readStatistics } from '../src/execute/statistics.js'
import { parseQuery } from '../src/parse/index.js'
import { dataVersion, openDatabase } from '../src/store/open.js'
import { BENCH_DIR, benchCompanies, benchDatabaseFile } from './support/dataset.js'

const backend: CostBackend = process.env.BENCH_BACKEND === 'postgres' ? 'postgres' : 'sqlite'
interface Saved { companies: number; budgetMs: number; rows: { request: { dataset: string; filter: unknown }; ms: number; finished: boolean; units: number; rows: number }[] }
/**
 * The row files fitted together: `BENCH_REFIT_FILES` (comma-separated paths), else the backend's
 * file of each size in `BENCH_REFIT_COMPANIES` (comma-separated), else of `BENCH_COMPANIES`.
 * `BENCH_REFIT_HOLDOUT` (paths): corpora only reported, with the fitted figures and those in use.
 */
const paths = (list: string | undefined) => (list ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
const fitFiles = process.env.BENCH_REFIT_FILES !== undefined
  ? paths(process.env.BENCH_REFIT_FILES)
  : paths(process.env.BENCH_REFIT_COMPANIES ?? String(benchCompanies())).map((n) => join(BENCH_DIR, `cost-calibration-${backend}-${n}.json`))
const holdoutFiles = paths(process.env.BENCH_REFIT_HOLDOUT)

interface Case {
  dataset: string; filter: FilterNode; stats: DataStatistics; rows: number; units: number; ms: number; finished: boolean
  budgetMs: number; companies: number; corpus: string; request: { dataset: string; filter: unknown }
}
const statsBySize = new Map<number, DataStatistics>()
async function casesOf(file: string): Promise<Case[]> {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Saved
  let stats = statsBySize.get(saved.companies)
  if (!stats) {
    const sqlite = openDatabase(benchDatabaseFile(saved.companies))
    stats = await readStatistics({ db: sqlite.db, dialect: DIALECTS.sqlite, dataVersion: await dataVersion(sqlite) })
    sqlite.sqlite.close()
    statsBySize.set(saved.companies, stats)
  }
  return saved.rows.map((r) => {
    const parsed = parseQuery(r.request, resolveLimits({ maxCost: Number.POSITIVE_INFINITY }))
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
    return { dataset: r.request.dataset, filter: (parsed.value as { filter: FilterNode }).filter, stats: stats!, rows: r.rows, units: r.units, ms: r.ms, finished: r.finished, budgetMs: saved.budgetMs, companies: saved.companies, corpus: file, request: r.request }
  })
}
const cases: Case[] = (await Promise.all(fitFiles.map(casesOf))).flat()
const holdout: Case[] = (await Promise.all(holdoutFiles.map(casesOf))).flat()
const sizes = [...new Set(cases.map((c) => c.companies))].sort((a, b) => a - b)

const inUse = EXPECTED_TIME_MODEL[backend]
const base = inUse.baseMs
const NAMES = ['companies', 'investors', 'fundings'] as const
// With more than one size, the growth of the per-record cost with the records of the queried
// dataset (`TimeModel.growth`) is fitted too, from the rows per dataset of the smallest size; and
// the fixed milliseconds per dataset (`pageMs`).
const smallest = Math.min(...sizes)
const fittedRows = sizes.length > 1
  ? Object.fromEntries(NAMES.map((n) => [n, cases.find((c) => c.companies === smallest && c.dataset === n)?.rows ?? 1]))
  : inUse.growth?.fittedRows
const modelOf = (p: readonly number[]): TimeModel => ({
  baseMs: base, scanNs: { companies: p[0]!, investors: p[1]!, fundings: p[2]! }, testNs: p[3]!, visitNs: p[4]!,
  ...(fittedRows && p[5] !== undefined ? { growth: { exponent: p[5], fittedRows } } : {}),
  ...(p[6] !== undefined ? { pageMs: { companies: p[6], investors: p[7]!, fundings: p[8]! } } : {}),
})
const works = new Map<Case, WorkOnData>()
function workOf(c: Case): WorkOnData {
  let w = works.get(c)
  if (!w) works.set(c, (w = expectedWork(c.filter, c.dataset, c.stats)))
  return w
}
const predict = (c: Case, m: TimeModel) => predictCost(c.units, workOf(c), c.rows, backend, c.dataset, m).ms
const fitted = cases.filter((c) => c.finished && c.ms >= 50)
/** The weight of the refusal terms against the log-ratio fit (`BENCH_REFIT_HINGE`, default 10). */
const HINGE = Number(process.env.BENCH_REFIT_HINGE ?? 10)
const loss = (p: readonly number[]) => {
  const m = modelOf(p)
  let sum = fitted.reduce((s, c) => s + Math.log(c.ms / predict(c, m)) ** 2, 0)
  // A request stopped at the budget took at least that long.
  for (const c of cases) if (!c.finished) sum += Math.max(0, Math.log(c.budgetMs / predict(c, m))) ** 2
  // What refusing decides: a request that did not finish predicted over the budget (weighted as
  // the target's 99% weighs a miss), one that finished within it.
  for (const c of cases) {
    const over = Math.log(predict(c, m) / c.budgetMs)
    sum += HINGE * (c.finished ? Math.max(0, over) ** 2 : 10 * Math.max(0, -over) ** 2)
  }
  return sum
}
let p = [
  ...NAMES.map((n) => inUse.scanNs[n]!), inUse.testNs, inUse.visitNs,
  ...(fittedRows ? [Math.max(0.05, inUse.growth?.exponent ?? 0.1)] : []),
  ...(fittedRows && sizes.length > 1 ? NAMES.map((n) => Math.max(1, inUse.pageMs?.[n] ?? 20)) : inUse.pageMs ? NAMES.map((n) => inUse.pageMs![n] ?? 0) : []),
]
let best = loss(p)
for (let step = 1; step > 0.01; step /= 2) {
  for (let improved = true; improved;) {
    improved = false
    for (let i = 0; i < p.length; i++) {
      for (const f of [Math.exp(step), Math.exp(-step)]) {
        const q = p.map((x, j) => (j === i ? Math.max(j === 5 ? 0.001 : 0.5, x * f) : x))
        const l = loss(q)
        if (l < best) { best = l; p = q; improved = true }
      }
    }
  }
}
// The scale: the smallest (on a grid of 5% steps) with which 99% of the accepted requests finish
// within the budget, the issue's target, so that as few requests that finish are refused as the
// target allows. Fitted on the same corpus it is judged on: a second corpus (BENCH_SEED) checks it.
const scaled = (k: number) => modelOf(p.map((x, j) => (j === 5 ? Math.round(x * 1000) / 1000 : Math.round(x * k * 10) / 10)))
// At every size fitted.
const meets = (m: TimeModel) => sizes.every((size) => {
  const accepted = cases.filter((c) => c.companies === size && c.units <= DEFAULT_LIMITS.maxCost && predict(c, m) <= c.budgetMs)
  return accepted.length === 0 || accepted.filter((c) => c.finished).length / accepted.length >= 0.99
})
let factor = 0.25
while (factor < 20 && !meets(scaled(factor))) factor *= 1.05
const final = scaled(factor)

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
  const a = ranks(xs), b = ranks(ys)
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length
  const ma = mean(a), mb = mean(b)
  let num = 0, da = 0, db = 0
  for (let i = 0; i < a.length; i++) { num += (a[i]! - ma) * (b[i]! - mb); da += (a[i]! - ma) ** 2; db += (b[i]! - mb) ** 2 }
  return num / Math.sqrt(da * db)
}
const report = (label: string, m: TimeModel) => {
  for (const file of fitFiles) reportOf(`${label}, ${file}`, m, cases.filter((c) => c.corpus === file))
  for (const file of holdoutFiles) reportOf(`${label}, held out: ${file}`, m, holdout.filter((c) => c.corpus === file))
}
const reportOf = (label: string, m: TimeModel, cases: readonly Case[]) => {
  const refused = (c: Case) => c.units > DEFAULT_LIMITS.maxCost || predict(c, m) > c.budgetMs
  const accepted = cases.filter((c) => !refused(c))
  const timed = cases.filter((c) => c.finished)
  console.log(`  ${label}: accepted ${accepted.length} of ${cases.length}, ${accepted.filter((c) => c.finished).length} finish within the budget; refused that finish: ${cases.filter((c) => refused(c) && c.finished).length}; refused that do not: ${cases.filter((c) => refused(c) && !c.finished).length}; Spearman ${spearman(timed.map((c) => predict(c, m)), timed.map((c) => c.ms)).toFixed(3)}`)
}
console.log(`bench cost-refit (${backend}, ${sizes.map((n) => n.toLocaleString('en-US')).join(' and ')} companies, ${cases.length} rows fitted, ${holdout.length} held out)`)
report('in use', EXPECTED_TIME_MODEL[backend])
console.log(`  fitted (log loss ${best.toFixed(1)}), scaled by ${factor.toFixed(2)} (the least with which 99% of the accepted finish): ${JSON.stringify(final)}`)
report('fitted', final)
if (process.env.BENCH_VERBOSE) {
  const m = process.env.BENCH_VERBOSE === 'fitted' ? final : EXPECTED_TIME_MODEL[backend]
  const lines = [...cases, ...holdout].map((c) => ({ c, pred: predict(c, m) })).sort((a, b) => a.c.ms / a.pred - b.c.ms / b.pred)
  for (const { c, pred } of lines) {
    const w = workOf(c)
    console.log(`${(c.ms / pred).toFixed(2).padStart(7)} ${String(Math.round(c.ms)).padStart(6)}${c.finished ? ' ' : '+'} pred ${String(pred).padStart(6)} t ${w.tests.toFixed(2).padStart(7)} v ${w.visits.toFixed(2).padStart(7)} scan ${(w.scan ?? 1).toFixed(3)} ${String(c.companies).padStart(7)} ${c.dataset.padEnd(9)} ${JSON.stringify(c.request.filter).slice(0, 150)}`)
  }
}
