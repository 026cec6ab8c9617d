/**
 * @module The HTTP request mix on PostgreSQL against the same mix on SQLite (issue 8, item 8): the
 * same app (`createApp`, every request through the fetch handler with a key and its quota write),
 * one engine on the benchmark database and one on its PostgreSQL copy (`support/postgres-copy.ts`),
 * each with its defaults (SQLite: the worker pool; PostgreSQL: pg's pool). Every request is first
 * sent to both and must answer 200 with identical bodies, or the comparison means nothing; then
 * each is timed, interleaved, as the ratio PostgreSQL / SQLite.
 *
 * The mix is serve-load's (bench/serve-load.bench.ts), made deterministic: company ids cycle
 * through 20 spread over the dataset, search terms are 1 to 4 letters and two words, the stored
 * query is paged at page 5. `BENCH_COMPANIES=1000000 npx tsx bench/http-postgres.bench.ts` for
 * the figures (the copy into PostgreSQL is made once).
 *
 * Targets bound the plans, not the round trips: an HTTP request is 3-8 statements (key, quota,
 * data version, the lookup or the page and its tags), each a round trip to the server instead of a
 * function call, so a ~1 ms SQLite answer costs PostgreSQL a fixed few milliseconds more (on the
 * shared 2-core machine at 1M: a company detail 10.2 ms against 1.02 ms, 2026-11-25). LOOKUP (12)
 * is for answers SQLite gives in about a millisecond, where the ratio is mostly that fixed cost;
 * PAGE (8) for listings and pages, which do more work on both sides; a plan that sorted or scanned
 * every hit would miss either (a missing descending index made page 1 16-29x, bench/postgres).
 */
import { createEngine } from '../src/engine.js'
import { createApp } from '../src/http/app.js'
import { createApiKey } from '../src/store/api-keys.js'
import type { VentureDb } from '../src/store/open.js'
import { benchCompanies, freshCaches, openBenchDatabase } from './support/dataset.js'
import { runBench, type Case } from './support/measure.js'
import { freshPostgresCaches, openBenchPostgres } from './support/postgres-copy.js'

const companies = benchCompanies()
const vdb = openBenchDatabase()
freshCaches(vdb)
const pgdb = await openBenchPostgres(vdb, companies, 'http-postgres')
await freshPostgresCaches(companies)

async function appOn(database: VentureDb) {
  const engine = createEngine({ database })
  const app = createApp(engine, { baseUrl: 'https://bench.test' })
  const made = await createApiKey(database, { plan: 'full', quota: 1_000_000_000, period: 'day', label: 'bench/http-postgres' })
  if (!made.ok) throw new Error('bench: could not create a key')
  const headers = { authorization: `Bearer ${made.value.key}` }
  return {
    engine,
    async call(path: string, body?: string): Promise<string> {
      const init: RequestInit = body === undefined ? { headers } : { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } }
      const res = await app.fetch(new Request(`https://bench.test${path}`, init))
      const text = await res.text()
      if (res.status !== 200) throw new Error(`bench http-postgres: ${path}: ${res.status} ${text.slice(0, 300)}`)
      return text
    },
  }
}
const lite = await appOn(vdb)
const post = await appOn(pgdb)

const db = vdb.sqlite
const spread = Array.from({ length: 20 }, (_, i) => 1 + Math.floor((i * companies) / 20) + i)
const investor = db.prepare('select id from investors order by portfolio_size desc, id limit 1').pluck().get() as number
const investors = db.prepare('select id from investors where portfolio_size > 0 order by id limit 20').pluck().all() as number[]
const industries = db.prepare('select value from company_industries group by value order by count(*) desc limit 2').pluck().all() as string[]
const queryBody = JSON.stringify({
  dataset: 'investors',
  filter: { portfolio_size: { gte: 2 }, foreign: { dataset: 'companies', filter: { industries: { in: industries } } } },
  sort: [{ portfolio_size: 'desc' }],
})
const queryId = (JSON.parse(await lite.call('/queries', queryBody)) as { query_id: string }).query_id
await post.call('/queries', queryBody)

/** A request whose path may vary per call (it cycles the same way on both sides). */
/** Bounds on PostgreSQL / SQLite medians (see the module comment). */
const LOOKUP = 12
const PAGE = 8

interface MixEntry { readonly name: string; readonly paths: readonly string[]; readonly body?: string; readonly maxRatio: number }
const mix: MixEntry[] = [
  { name: 'GET /companies/:id (20 ids)', paths: spread.map((id) => `/companies/${id}`), maxRatio: LOOKUP },
  { name: 'GET /companies/:id/similar', paths: spread.slice(0, 5).map((id) => `/companies/${id}/similar`), maxRatio: PAGE },
  { name: 'GET /companies?stage=a|b&country=USA', paths: ['/companies?stage=a|b&country=USA'], maxRatio: PAGE },
  { name: 'GET /companies?industries=<two common>', paths: [`/companies?industries=${encodeURIComponent(industries.join('|'))}`], maxRatio: PAGE },
  { name: 'GET /search?term=a', paths: ['/search?term=a'], maxRatio: LOOKUP },
  { name: 'GET /search?term=te', paths: ['/search?term=te'], maxRatio: LOOKUP },
  { name: 'GET /search?term=tec', paths: ['/search?term=tec'], maxRatio: LOOKUP },
  { name: 'GET /search?term=tech', paths: ['/search?term=tech'], maxRatio: LOOKUP },
  { name: 'GET /search?term=blue%20ca', paths: ['/search?term=blue%20ca'], maxRatio: LOOKUP },
  { name: 'GET /fundings?series=a|b', paths: ['/fundings?series=a|b'], maxRatio: PAGE },
  { name: 'GET /investors/:id (20 ids)', paths: investors.map((id) => `/investors/${id}`), maxRatio: LOOKUP },
  { name: 'GET /investors/:id/portfolio (largest, page 2)', paths: [`/investors/${investor}/portfolio?page=2&per_page=50`], maxRatio: LOOKUP },
  { name: 'POST /queries (investors, foreign companies)', paths: ['/queries'], body: queryBody, maxRatio: PAGE },
  { name: 'GET /queries/:id?page=5', paths: [`/queries/${queryId}?page=5`], maxRatio: PAGE },
  { name: 'GET /ratelimit/usage', paths: ['/ratelimit/usage'], maxRatio: LOOKUP },
]

// Same answers first: every path of every entry, both backends. The quota headers differ (two
// keys), the bodies must not.
for (const entry of mix) {
  for (const path of entry.paths) {
    const [a, b] = [await lite.call(path, entry.body), await post.call(path, entry.body)]
    if (path !== '/ratelimit/usage' && a !== b) {
      throw new Error(`bench http-postgres: ${entry.name}: ${path} answers differently on SQLite and PostgreSQL:\n${a.slice(0, 400)}\n${b.slice(0, 400)}`)
    }
  }
}

const cases: Case[] = mix.map((entry) => {
  let i = 0
  let j = 0
  return {
    name: entry.name,
    subject: () => post.call(entry.paths[i++ % entry.paths.length]!, entry.body),
    baseline: () => lite.call(entry.paths[j++ % entry.paths.length]!, entry.body),
    baselineName: 'SQLite',
    maxRatio: entry.maxRatio,
  }
})

const results = await runBench(`HTTP mix, PostgreSQL / SQLite, ${companies.toLocaleString('en-US')} companies`, cases)
const geo = Math.exp(results.reduce((s, r) => s + Math.log(r.ratio), 0) / results.length)
const sum = (k: 'subject' | 'baseline') => results.reduce((s, r) => s + r[k].median, 0)
console.log(`\nmix: geometric mean of the ratios ${geo.toFixed(2)}; one of each request in sequence ${sum('subject').toFixed(1)} ms on PostgreSQL, ${sum('baseline').toFixed(1)} ms on SQLite (${(sum('subject') / sum('baseline')).toFixed(2)}x)`)
await lite.engine.close()
await post.engine.close()
await pgdb.close()
await vdb.close()
