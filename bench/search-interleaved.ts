/**
 * Why the suite's search-against-detail ratios move from run to run while `search-vs-detail.ts`
 * (3,000 calls in a row) keeps them near 1.1: the suite times one call at a time, each variant
 * after another one in a shuffled order (`suite/timing.ts`), and a call that follows other work
 * finds its caches cold. This times the suite's detail row and four search rows exactly as its
 * page-1 phase does (the same variants, warm-up and interleaving), three ways: with all their
 * neighbours (engine, HTTP handler, hand-written SQL, plain SQLite), without plain SQLite's scans,
 * and with the hand-written SQL only (`suite/timing.ts`, `timeRequest`, as the suite). Medians in µs, and each search over the detail of the same
 * configuration.
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/search-interleaved.ts
 */
import { createEngine } from '../src/engine.js'
import { createApp } from '../src/http/app.js'
import { createApiKey } from '../src/store/api-keys.js'
import { benchCompanies, benchDatabaseFile, freshCaches, openBenchDatabase } from './support/dataset.js'
import { keyBefore, sqlForms } from './suite/hand-sql.js'
import { buildMix, mixParams } from './suite/mix.js'
import { timeRequest } from './suite/timing.js'

const companies = benchCompanies()
benchDatabaseFile(companies)
const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const app = createApp(engine, { baseUrl: 'https://bench.test' })
const made = await createApiKey(vdb, { plan: 'full', quota: 2_000_000_000, period: 'day', label: 'bench/search-interleaved' })
if (!made.ok) throw new Error('bench: could not create a key')
const headers = { authorization: `Bearer ${made.value.key}` }
const params = await mixParams(engine, companies)
const rows = buildMix(engine, params).filter((m) => m.kind === 'search' || m.id === 'company-detail')
const forms = sqlForms(vdb.sqlite, params, keyBefore(vdb.sqlite, params.deepPage), keyBefore(vdb.sqlite, 2))

const configurations = [
  { name: 'engine, HTTP, hand, plain (the suite)', http: true, plain: true },
  { name: 'engine, HTTP, hand', http: true, plain: false },
  { name: 'engine, hand', http: false, plain: false },
]
const µs = (ms: number | undefined) => (ms === undefined ? '' : (ms * 1000).toFixed(0))
console.log(`| neighbours | ${rows.map((r) => r.id).join(' | ')} |`)
console.log(`|---|${rows.map(() => '---').join('|')}|`)
for (const c of configurations) {
  const engineMs = new Map<string, number>()
  for (const r of rows) {
    const f = forms[r.id]
    const viaHttp = r.http && c.http
      ? async () => { await (await app.fetch(new Request(`https://bench.test${r.http!.path}`, { headers }))).text() }
      : undefined
    engineMs.set(r.id, (await timeRequest(r.engine, viaHttp, f && (c.plain ? f : { hand: f.hand }))).engine!.median)
  }
  const detail = engineMs.get('company-detail')!
  console.log(`| ${c.name} | ${rows.map((r) => (r.id === 'company-detail' ? µs(detail) : `${µs(engineMs.get(r.id))} (${(engineMs.get(r.id)! / detail).toFixed(2)})`)).join(' | ')} |`)
}
await engine.close()
