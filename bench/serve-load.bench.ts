/**
 * @module The server under load over real sockets (issue 7, "every core"): `ventureql serve` in its
 * own process, driven by autocannon on loopback with 100 connections on a realistic mix of
 * endpoints, at 1, 2 and N worker threads (N = the cores of this machine; each server also keeps
 * one thread for key checks and lookups). Reports requests/s as ratios to 1 worker, latency
 * percentiles, requests over 10 s, non-200 answers, and the server's memory (anonymous apart from
 * the database's memory map).
 *
 * The mix (each connection cycles through it, ids and terms drawn at random per request):
 *   4 x GET /companies/:id, 1 x /companies/:id/similar, 1 x /companies?stage=a|b&country=USA,
 *   1 x /companies?industries=<two common ones>, 2 x /search?term=<1-4 letters>,
 *   1 x /fundings?series=a|b, 1 x /investors/:id, 1 x /investors/:id/portfolio,
 *   1 x POST /queries (investors with a foreign on companies), 1 x GET /queries/:id?page=<2-20>
 *
 * `BENCH_COMPANIES=1000000 BENCH_HTTP_SECONDS=60 npx tsx bench/serve-load.bench.ts` for the
 * issue's figures; `BENCH_HTTP_WORKERS=1,2,4` to choose the server sizes; `BENCH_HTTP_BEFORE=DIR`
 * adds a first row for the server of another checkout (e.g. a worktree of an older commit, with
 * node_modules), run with its defaults on the same mix, on `BENCH_HTTP_BEFORE_DATABASE` (a copy of
 * the bench database from before this checkout's migrations ran on it) or the same database.
 * `BENCH_HTTP_POSTGRES=1` adds a row for the same server on the PostgreSQL copy of the bench
 * database (`support/postgres-copy.ts`, `--connections BENCH_HTTP_PG_CONNECTIONS`, default 10), so
 * the two backends are compared on the same mix, data and machine in one run.
 */
import { availableParallelism } from 'node:os'
import autocannon from 'autocannon'
import { createApiKey, hashApiKey } from '../src/store/api-keys.js'
import { openDatabase } from '../src/store/open.js'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'
import { BENCH_PG_URL, benchSchema, openBenchPostgres } from './support/postgres-copy.js'
import { startServeProcess } from './support/serve-process.js'

const file = benchDatabaseFile()
const companies = benchCompanies()
const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 20)
const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 100)
const sizes = (process.env.BENCH_HTTP_WORKERS ?? `1,2,${availableParallelism()}`).split(',').map(Number)
  .filter((n, i, all) => Number.isSafeInteger(n) && n > 0 && all.indexOf(n) === i)

const admin = openDatabase(file)
const made = await createApiKey(admin, { plan: 'full', quota: 2_000_000_000, period: 'day', label: 'bench/serve-load' })
if (!made.ok) throw new Error('bench: could not create a key')
const key = made.value.key
if (process.env.BENCH_HTTP_BEFORE_DATABASE) {
  // The same key in the older server's copy (same table: keys are stored by hash).
  const other = openDatabase(process.env.BENCH_HTTP_BEFORE_DATABASE, { migrate: false })
  other.sqlite.prepare('insert into api_keys (key_hash, key_prefix, plan, quota_limit, quota_period, label, created_at) values (?, ?, ?, ?, ?, ?, ?)')
    .run(hashApiKey(key), made.value.record.prefix, 'full', 2_000_000_000, 'day', 'bench/serve-load', new Date().toISOString())
  await other.close()
}
const onPostgres = process.env.BENCH_HTTP_POSTGRES === '1'
const pgConnections = Number(process.env.BENCH_HTTP_PG_CONNECTIONS ?? 10)
if (onPostgres) {
  // The PostgreSQL copy (made once), holding the same key by its hash.
  const pgdb = await openBenchPostgres(admin, companies, 'serve-load')
  await pgdb.db.deleteFrom('api_keys').where('label', '=', 'bench/serve-load').execute()
  await pgdb.db.insertInto('api_keys').values({
    key_hash: hashApiKey(key), key_prefix: made.value.record.prefix, plan: 'full', quota_limit: 2_000_000_000,
    quota_period: 'day', label: 'bench/serve-load', created_at: new Date().toISOString(),
  }).execute()
  await pgdb.close()
}
const investors = admin.sqlite.prepare('select id from investors where portfolio_size > 0').pluck().all() as number[]
const industries = admin.sqlite.prepare('select value from company_industries group by value order by count(*) desc limit 2').pluck().all() as string[]
await admin.close()

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!
const companyId = () => 1 + Math.floor(Math.random() * companies)
const LETTERS = 'abcdefghilmnoprstuvw'
const term = () => Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => pick([...LETTERS])).join('')
const QUERY_BODY = JSON.stringify({
  dataset: 'investors',
  filter: { portfolio_size: { gte: 2 }, foreign: { dataset: 'companies', filter: { industries: { in: industries } } } },
  sort: [{ portfolio_size: 'desc' }],
})

type Req = autocannon.Request
const get = (path: () => string): Req => ({ method: 'GET', setupRequest: (req: Req) => ({ ...req, path: path() }) })
const auth = { authorization: `Bearer ${key}` }

async function mixFor(url: string): Promise<Req[]> {
  // The stored query the GET /queries/:id entries page through.
  const posted = await fetch(`${url}/queries`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: QUERY_BODY })
  const queryId = ((await posted.json()) as { query_id: string }).query_id
  const detail = get(() => `/companies/${companyId()}`)
  return [
    detail,
    get(() => `/companies/${companyId()}/similar`),
    detail,
    get(() => '/companies?stage=a|b&country=USA'),
    get(() => `/search?term=${term()}`),
    detail,
    get(() => `/companies?industries=${encodeURIComponent(industries.join('|'))}`),
    get(() => '/fundings?series=a|b'),
    detail,
    get(() => `/investors/${pick(investors)}`),
    get(() => `/search?term=${term()}`),
    get(() => `/investors/${pick(investors)}/portfolio`),
    { method: 'POST', path: '/queries', headers: { 'content-type': 'application/json' }, body: QUERY_BODY },
    get(() => `/queries/${queryId}?page=${2 + Math.floor(Math.random() * 19)}`),
  ]
}

interface Run {
  readonly workers: number | string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly over10s: number
  readonly non2xx: number
  readonly errors: number
  readonly anonMb: number
  readonly fileMb: number
}

async function load(url: string, requests: Req[], duration: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration, requests, headers: auth, timeout: 10 })
}

async function measure(workers: number | 'before' | 'postgres'): Promise<Run> {
  const server = workers === 'before'
    ? await startServeProcess({ database: process.env.BENCH_HTTP_BEFORE_DATABASE ?? file, cwd: process.env.BENCH_HTTP_BEFORE })
    : workers === 'postgres'
      ? await startServeProcess({ database: BENCH_PG_URL, args: ['--schema', benchSchema(companies), '--connections', String(pgConnections), '--query-timeout', '10000'] })
      : await startServeProcess({ database: file, args: ['--workers', String(workers), '--query-timeout', '10000'] })
  try {
    const requests = await mixFor(server.url)
    process.stderr.write(`  serve-load: ${workers} workers: warm-up 5 s, then ${seconds} s ...\n`)
    await load(server.url, requests, 5)
    const samples: { anonMb: number; fileMb: number }[] = []
    const sampler = setInterval(() => {
      const m = server.memory()
      if (m) samples.push(m)
    }, 1000)
    const r = await load(server.url, requests, seconds)
    clearInterval(sampler)
    const peak = (k: 'anonMb' | 'fileMb') => Math.max(0, ...samples.map((s) => s[k]))
    return {
      workers,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      over10s: r.timeouts,
      non2xx: r.non2xx,
      errors: r.errors,
      anonMb: peak('anonMb'),
      fileMb: peak('fileMb'),
    }
  } finally {
    await server.stop()
  }
}

const before = process.env.BENCH_HTTP_BEFORE ? [await measure('before')] : []
const runs: Run[] = []
for (const workers of sizes) runs.push(await measure(workers))
const base = runs[0]!
const postgresRun = onPostgres ? [await measure('postgres')] : []
console.log(`\n## Requests/s on the mix (${companies} companies, ${connections} connections, ${seconds} s per server)`)
console.log('workers   req/s   ratio to 1   p50 ms   p99 ms   >10 s   non-200   errors   anon MB   map MB')
for (const r of [...before, ...runs, ...postgresRun]) {
  console.log(`${String(r.workers).padStart(7)}   ${r.rps.toFixed(0).padStart(5)}   ${(r.rps / base.rps).toFixed(2).padStart(10)}   ${String(r.p50).padStart(6)}   ${String(r.p99).padStart(6)}   ${String(r.over10s).padStart(5)}   ${String(r.non2xx).padStart(7)}   ${String(r.errors).padStart(6)}   ${r.anonMb.toFixed(0).padStart(7)}   ${r.fileMb.toFixed(0).padStart(6)}`)
}
// More workers must not be slower (the mix has enough independent work for every core), and no
// request may wait past the 10 s client timeout.
const missed = runs.filter((r) => r.rps < base.rps * 0.9 || r.over10s > 0)
if (missed.length > 0) {
  console.log(`targets missed (req/s below 0.9x of 1 worker, or requests over 10 s) at: ${missed.map((r) => r.workers).join(', ')} workers`)
  process.exitCode = 1
}
for (const r of postgresRun) {
  const best = runs.reduce((a, b) => (b.rps > a.rps ? b : a))
  console.log(`PostgreSQL (${pgConnections} connections): ${(r.rps / best.rps).toFixed(2)}x the requests/s of SQLite's best (${best.workers} workers), p99 ${r.p99} ms against ${best.p99} ms`)
  if (r.over10s > 0 || r.errors > 0) {
    console.log('target missed on PostgreSQL: requests over 10 s or errors')
    process.exitCode = 1
  }
}
