/**
 * @module Issue 9's benchmark suite: the engine side by side with hand-tuned SQL on the same file.
 * `npm run bench -- --size 100000` (CI size) or `--size 1000000` (the documented full run).
 *
 * 1. The mix (`suite/mix.ts`, 20 requests): each first checked (engine ids in order and total =
 *    hand-tuned SQL = plain SQLite; mingo's agreement is recorded), then timed interleaved: the
 *    engine API, the HTTP handler in process (`createApp(...).fetch`, key and quota included), the
 *    hand-tuned statements (`suite/hand-sql.ts`) and plain SQLite; for listings, mingo
 *    (`suite/peers.ts`) afterwards, in a phase of its own (its heap would slow the others' garbage
 *    collections). Page 1 at 50 per page, totals cached as in steady state.
 * 2. First counts of the listings: `engine.count` with the totals cache emptied before every run,
 *    against the hand count statement, the plain count and mingo's.
 * 3. Deep and repeated pages (`suite/pages.ts`).
 * 4. Similar companies: quality against an exhaustive search (no budgets).
 * 5. HTTP over sockets (`suite/http-load.ts`).
 * 6. Targets checked as ratios, `bench/results/latest.json`, `latest.md` and `latest.svg`
 *    (`suite/report.ts`). A missed target is reported, never thrown; the exit code is 1 when a
 *    target is missed or an identity check failed (bench/run.ts's convention), 0 otherwise.
 *
 * `BENCH_SUITE_SKIP=http,mingo` leaves parts out (also `similar`: its rows, the exhaustive comparison and the index build; `counts`, `pages`).
 */
import { createEngine } from '../src/engine.js'
import { exhaustiveSimilar, overlapWith, spreadCompanyIds } from './support/similar.js'
import { createApp } from '../src/http/app.js'
import { similarCompanies } from '../src/records/similar.js'
import { createApiKey } from '../src/store/api-keys.js'
import { benchCompanies, benchDatabaseFile, benchSimilarIndex, freshCaches, openBenchDatabase, forgetTotals as forgetTotalsOf } from './support/dataset.js'
import { keyBefore, sqlForms } from './suite/hand-sql.js'
import { httpLoad, type HttpLoadResult } from './suite/http-load.js'
import { buildMix, mixParams, PER_PAGE, type Out } from './suite/mix.js'
import { measurePages, type PagesResult } from './suite/pages.js'
import { loadPeerData, peerQueries, type PeerQuery } from './suite/peers.js'
import { writeReport, type CountRow, type RequestRow, type SimilarQuality } from './suite/report.js'
import { timeRequest, timeVariants } from './suite/timing.js'

const skip = new Set((process.env.BENCH_SUITE_SKIP ?? '').split(',').map((s) => s.trim()).filter(Boolean))
const companies = benchCompanies()
const started = Date.now()
const file = benchDatabaseFile(companies)
// Only the similar companies read the index: a run that skips them need not wait for its build.
if (!skip.has('similar')) await benchSimilarIndex(file)
const vdb = openBenchDatabase()
freshCaches(vdb)
const db = vdb.sqlite
const engine = createEngine({ database: vdb })
// As `serve` does: the cost statistics are read before the first call, which would otherwise be
// predicted by the worst case (~40 µs more per call at 100,000 companies).
await engine.ready()
const app = createApp(engine, { baseUrl: 'https://bench.test' })
const made = await createApiKey(vdb, { plan: 'full', quota: 2_000_000_000, period: 'day', label: 'bench/suite' })
if (!made.ok) throw new Error('bench: could not create a key')
const key = made.value.key
const auth = { authorization: `Bearer ${key}` }

const params = await mixParams(engine, companies)
const mix = buildMix(engine, params)
const forms = sqlForms(db, params, keyBefore(db, params.deepPage), keyBefore(db, 2))

async function http(method: 'GET' | 'POST', path: string, body?: string): Promise<string> {
  const init: RequestInit = method === 'GET' ? { headers: auth } : { method, body, headers: { ...auth, 'content-type': 'application/json' } }
  const res = await app.fetch(new Request(`https://bench.test${path}`, init))
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${method} ${path.slice(0, 120)}: ${res.status} ${text.slice(0, 300)}`)
  return text
}

const same = (a: Out, b: Out) => JSON.stringify(a.ids) === JSON.stringify(b.ids) && (a.total === undefined || b.total === undefined || a.total === b.total)
const errors: string[] = []
const rows: RequestRow[] = []
const counts: CountRow[] = []
const forgetTotals = () => forgetTotalsOf(vdb)

// Without the similar phase the index may be incomplete: its rows would time the search instead.
for (const r of mix.filter((m) => m.kind !== 'similar' || !skip.has('similar'))) {
  const t0 = Date.now()
  process.stderr.write(`  suite: ${r.id} ...`)
  const f = forms[r.id]
  // Identity first: the engine's page and total against the hand and plain SQL (and mingo's, recorded).
  const engineOut = await r.engine()
  const totalOf = (count?: () => number) => (count ? count() : undefined)
  const hand: Out | undefined = f ? { ...f.hand.page(), total: totalOf(f.hand.count) ?? (r.kind === 'page' ? params.deepHits : undefined) } : undefined
  const plain: Out | undefined = f?.plain ? { ...f.plain.page(), total: totalOf(f.plain.count) ?? (r.kind === 'page' ? params.deepHits : undefined) } : undefined
  const checked = r.kind !== 'search' && r.kind !== 'similar'
  let identical: boolean | undefined
  if (checked && hand) {
    identical = same(engineOut, hand) && (!plain || same(engineOut, plain))
    if (!identical) {
      errors.push(`${r.id}: engine and SQL disagree: engine ${engineOut.total} [${engineOut.ids.slice(0, 5)}], hand ${hand.total} [${hand.ids.slice(0, 5)}]${plain ? `, plain ${plain.total} [${plain.ids.slice(0, 5)}]` : ''}`)
      console.log(`IDENTITY CHECK FAILED: ${errors.at(-1)}`)
    }
  }
  const viaHttp = r.http ? () => http(r.http!.method, r.http!.path, r.http!.body) : undefined
  await viaHttp?.()

  const t = await timeRequest(r.engine, viaHttp, f)
  rows.push({ id: r.id, title: r.title, kind: r.kind, covers: r.covers, http: r.http ? `${r.http.method} ${r.http.path.length > 90 ? `${r.http.path.slice(0, 87)}...` : r.http.path}` : '', identical, mingoAgrees: undefined, total: engineOut.total, times: t, handSql: f?.hand.sql, plainSql: f?.plain?.sql })

  if (r.request && f?.hand.count && !skip.has('counts')) {
    const request = r.request
    const engineCount = async () => {
      const c = await engine.count(request)
      if (!c.ok) throw new Error(JSON.stringify(c.issues))
      return c.value
    }
    const ct = await timeVariants([
      { name: 'engine', run: engineCount, setup: forgetTotals },
      { name: 'hand', run: f.hand.count },
      ...(f.plain?.count ? [{ name: 'plain', run: f.plain.count }] : []),
    ])
    counts.push({ id: r.id, title: r.title, total: engineOut.total ?? 0, times: ct })
  }
  const tt = rows.at(-1)!.times
  const c = counts.at(-1)?.id === r.id ? counts.at(-1)!.times : undefined
  process.stderr.write(` ${((Date.now() - t0) / 1000).toFixed(1)} s; engine ${tt.engine!.median.toFixed(2)} ms${tt.hand ? `, / hand ${(tt.engine!.median / tt.hand.median).toFixed(2)}` : ''}${c ? `, first count / hand ${(c.engine!.median / c.hand!.median).toFixed(2)}` : ''}\n`)
}

// The in-memory peer, in a phase of its own: its documents (every record as a JS object)
// would otherwise make every garbage collection of the phases above slower, and the
// engine, which allocates more than a prepared statement, would pay for the peer's heap.
let peerLoadMs: number | undefined
if (!skip.has('mingo')) {
  process.stderr.write('  suite: mingo: loading the documents ...\n')
  const t = performance.now()
  let peers: Record<string, PeerQuery> | undefined = peerQueries(loadPeerData(db), params)
  peerLoadMs = performance.now() - t
  for (const [i, row] of rows.entries()) {
    const peer = peers[row.id]
    if (!peer) continue
    process.stderr.write(`  suite: mingo: ${row.id} ...\n`)
    const engineOut = await mix.find((m) => m.id === row.id)!.engine()
    rows[i] = { ...row, mingoAgrees: same(engineOut, { ...peer.page(), total: peer.count() }) }
    Object.assign(row.times, await timeVariants([{ name: 'mingo', run: peer.page }]))
    const c = counts.find((x) => x.id === row.id)
    if (c && !skip.has('counts')) Object.assign(c.times, await timeVariants([{ name: 'mingo', run: peer.count }]))
    rows[i] = { ...rows[i]!, times: row.times }
  }
  peers = undefined
}

let pages: PagesResult | undefined
if (!skip.has('pages')) pages = await measurePages(engine, db, params, forms)

let similar: SimilarQuality | undefined
if (!skip.has('similar')) {
  process.stderr.write('  suite: similar companies against an exhaustive search ...\n')
  const ids = [params.companyId, ...spreadCompanyIds(db, companies, 3, params.companyId)]
  const per: { id: number; overlap: number; scoreRatio: number; exhaustiveMs: number }[] = []
  for (const id of ids) {
    try {
    // Served from the index (LSH candidates, exact scores): its overlap with the exhaustive answer.
    const fast = await similarCompanies(vdb, id)
    const t = performance.now()
    const full = await exhaustiveSimilar(vdb, id)
    const fullMs = performance.now() - t
    const mean = (xs: { score: number }[]) => xs.reduce((s, x) => s + x.score, 0) / Math.max(1, xs.length)
    per.push({ id, overlap: overlapWith(fast, full), scoreRatio: mean(fast) / Math.max(1e-12, mean(full)), exhaustiveMs: fullMs })
    } catch (error) {
      errors.push(`similar companies of ${id}, exhaustive search: ${String(error)}`)
    }
  }
  similar = { companies: per }
}

let load: HttpLoadResult | undefined
if (!skip.has('http')) {
  const body = mix.find((m) => m.id === 'investors-foreign')!.http!.body!
  load = await httpLoad({ database: file, key, companies, queryBody: body })
}

const missed = writeReport({
  companies, perPage: PER_PAGE, seconds: (Date.now() - started) / 1000, peerLoadMs, params: { deepPage: params.deepPage, deepHits: params.deepHits, companyId: params.companyId, investorSlug: params.investorSlug },
  rows, counts, pages, similar, load, errors,
})
await engine.close()
await vdb.close()
if (missed > 0 || errors.length > 0) process.exitCode = 1
