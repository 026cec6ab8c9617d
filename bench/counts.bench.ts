/**
 * @module Totals. Counting is the expensive part of a query (design section 8: COUNT(*) of the
 * design filter 203 ms vs 0.4 ms with a covering index; an EXISTS over tags 1.1 s vs 108 ms as
 * `id IN (...)`). Per filter: the first total (`engine.count` with the total cache emptied before
 * every run) against counting the same preloaded rows with `Array.filter`; then the cached total
 * (cached per query and data version) against the first.
 */
import { createEngine } from '../src/engine.js'
import { naivePage, preload } from './support/baseline.js'
import { benchCompanies, freshCaches, openBenchDatabase, forgetTotals as forgetTotalsOf } from './support/dataset.js'
import { BENCH_FILTERS } from './support/filters.js'
import { runBench, type Case } from './support/measure.js'

const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const data = preload(vdb.sqlite)
const forgetTotals = () => forgetTotalsOf(vdb)

async function count(request: unknown): Promise<number> {
  const r = await engine.count(request)
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value
}

/**
 * Upper bounds on first-count median / Array.filter-count median. A count reads every match, so it
 * cannot beat a scan of preloaded objects by the margin a page can; it must not lose to it where
 * an index serves the filter. The spec's investors example counts through every candidate
 * investor's portfolio links (SQLite's best plan; the alternatives measured 1-6x slower, see
 * bench/README.md) against JS following in-memory arrays, so it may take up to 2.5x the baseline:
 * the total is computed once per query and data version, then cached.
 */
const FIRST_TARGETS: Readonly<Record<string, number>> = {
  'multi-field, sorted (design 8)': 0.5,
  'tags, default sort': 1,
  'investors via foreign (spec 4.14)': 2.5,
  'broad (most rows), sorted': 0.75,
  'very selective': 0.5,
}

const cases: Case[] = []
for (const f of BENCH_FILTERS) {
  const naive = f.naive(data)
  const expected = naivePage(naive.rows, naive.where, naive.order, 0).total
  forgetTotals()
  const got = await count(f.request)
  if (got !== expected) throw new Error(`${f.name}: engine counts ${got}, baseline ${expected}`)
  cases.push({
    name: `first total: ${f.name} [${expected}]`,
    setup: forgetTotals,
    subject: () => count(f.request),
    baseline: () => naive.rows.filter(naive.where).length,
    baselineName: 'Array.filter count',
    maxRatio: FIRST_TARGETS[f.name] ?? 0.5,
  })
}
// The cache matters where the first count is expensive: the tags and foreign filters.
for (const f of BENCH_FILTERS.filter((x) => x.name.startsWith('tags') || x.name.startsWith('investors'))) {
  cases.push({
    name: `cached total: ${f.name}`,
    subject: () => count(f.request),
    baseline: async () => {
      forgetTotals()
      await count(f.request)
    },
    baselineName: 'first total',
    maxRatio: 0.25,
  })
}

// A foreign filter pinned by an identifying field (GET /companies?investors=<slug>) compiles to a
// semi-join; the same filter with a branch that matches nothing `or`-ed in (`investor_id < 0`) is
// not recognised as pinned and compiles to the correlated EXISTS, so the two forms are timed side
// by side on the investor with the largest portfolio (compile/relations.ts).
const topSlug = vdb.sqlite.prepare('select svc_slug from investors order by portfolio_size desc, id limit 1').pluck().get() as string
const pinned = { dataset: 'companies', filter: { foreign: { dataset: 'investors', filter: { svc_slug: topSlug } } } }
const unpinned = { dataset: 'companies', filter: { foreign: { dataset: 'investors', filter: { or: [{ svc_slug: topSlug }, { investor_id: { lt: 0 } }] } } } }
if ((await count(pinned)) !== (await count(unpinned))) throw new Error('semi-join and EXISTS forms count differently')
cases.push({
  name: `first total: companies of the largest portfolio by investor slug (semi-join) [${await count(pinned)}]`,
  setup: forgetTotals,
  subject: () => count(pinned),
  baseline: async () => {
    forgetTotals()
    await count(unpinned)
  },
  baselineName: 'the same filter as correlated EXISTS',
  maxRatio: 0.2,
})

await runBench(`counts on ${benchCompanies().toLocaleString('en-US')} companies`, cases)
await engine.close()
await vdb.close()
