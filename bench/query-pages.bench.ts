/**
 * @module Page 1 of typical filters through `engine.query` (parse, check, store, plan, keys, rows,
 * tags, records; total from the cache after the first call) against the naive baseline: the same
 * rows preloaded in memory, `Array.filter` + sort + slice. Target: the engine is several times
 * faster than the baseline on every filter (design section 8: a naive engine loses to it).
 */
import { createEngine } from '../src/engine.js'
import { naivePage, preload } from './support/baseline.js'
import { benchCompanies, freshCaches, openBenchDatabase } from './support/dataset.js'
import { BENCH_FILTERS } from './support/filters.js'
import { runBench, type Case } from './support/measure.js'

/** Upper bounds on engine median / baseline median, per filter. */
const TARGETS: Readonly<Record<string, number>> = {
  // Page 1 here costs ~1 ms of SQL (walk or covering index) plus ~2 ms of parse, check, store and
  // record mapping on 100,000 companies, against ~15-25 ms for the baseline: 0.2-0.24 measured on
  // a shared machine, so the target leaves room for noise. At 1,000,000 the baseline grows tenfold.
  'multi-field, sorted (design 8)': 0.3,
  'tags, default sort': 0.25,
  'investors via foreign (spec 4.14)': 0.5,
  'broad (most rows), sorted': 0.25,
  'very selective': 0.25,
}

const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const data = preload(vdb.sqlite)

const cases: Case[] = []
for (const f of BENCH_FILTERS) {
  const naive = f.naive(data)
  const perPage = f.request.per_page ?? 10
  // The same ids, or the comparison means nothing.
  const expected = naivePage(naive.rows, naive.where, naive.order, perPage)
  const got = await engine.query(f.request)
  if (!got.ok) throw new Error(`${f.name}: ${JSON.stringify(got.issues)}`)
  const ids = got.value.results.map((r) => Number(r.id ?? r.investor_id))
  if (JSON.stringify(ids) !== JSON.stringify(expected.ids) || got.value.meta.total_record_count !== expected.total) {
    throw new Error(`${f.name}: engine and baseline disagree: ${JSON.stringify({ ids, total: got.value.meta.total_record_count })} vs ${JSON.stringify(expected)}`)
  }
  cases.push({
    name: `${f.name} [${expected.total} hits]`,
    subject: async () => {
      const r = await engine.query(f.request)
      if (!r.ok) throw new Error('query failed')
    },
    baseline: () => naivePage(naive.rows, naive.where, naive.order, perPage),
    baselineName: 'Array.filter+sort',
    maxRatio: TARGETS[f.name] ?? 0.25,
  })
}

await runBench(`query pages, page 1 of ${f(benchCompanies())} companies`, cases)
await engine.close()
await vdb.close()

function f(n: number) {
  return n.toLocaleString('en-US')
}
