/**
 * @module The engine on PostgreSQL against the engine on SQLite, same data, same requests, same run:
 * page 1 (`engine.query`, total cached after the first call), a walking client's page 20
 * (`engine.page`, page 19's boundary remembered: a keyset seek) and a first count (`engine.count`,
 * totals cache emptied before each run). The PostgreSQL copy of the benchmark database lives in
 * schema `vq_bench_<companies>` of `VENTUREQL_PG_URL` (default
 * postgresql://postgres@127.0.0.1:5432/test), copied once (~30 s for 100,000 companies) and reused
 * while its companies and data version match the SQLite file. An unreachable server fails the run.
 *
 * Targets are ratios PostgreSQL / SQLite. Every engine call is one or more statements, each a round
 * trip to the server instead of a function call (page 1 of a query: the stored query with the data
 * version and cached total, then the keys with their records; a company detail: one), so a
 * sub-millisecond SQLite page costs PostgreSQL a fixed ~1-2 ms more; the targets bound the plans,
 * not that fixed cost. The run prints the statements each kind of call sends. A company detail
 * (`engine.records.companyDetail`, 50 ids in turn) is a case of its own.
 */
import pg from 'pg'
import { createEngine } from '../src/engine.js'
import { benchCompanies, forgetTotals as forgetTotalsOf, freshCaches, openBenchDatabase } from './support/dataset.js'
import { forgetRememberedTotals } from '../src/store/row-counts.js'
import { BENCH_FILTERS } from './support/filters.js'
import { runBench, type Case } from './support/measure.js'
import { BENCH_PG_URL, benchSchema, freshPostgresCaches, openBenchPostgres } from './support/postgres-copy.js'

const companies = benchCompanies()

/**
 * PostgreSQL / SQLite median bounds: page 1, page 20 (seek), first count. A page on SQLite is ~1-2 ms,
 * mostly JS; PostgreSQL adds ~3 ms of round trips (the very selective page: 0.03 ms of SQL, 4.1 ms
 * against 1.0 ms), so 5 is met by a good plan and missed by a sort of every hit (16-29x before
 * migration 007). Counts read every match on both backends: 3 (6 for the spec's example, whose
 * count walks the portfolio links). Counts whose SQL is (near) free get 5, the page bound, for the
 * same reason: a first count is three or four statements (data version, cached-total lookup, the
 * count, the total's insert), and with no count at all (`{}`: the remembered row count) it measured
 * 0.87 ms on PostgreSQL against 0.22 ms on SQLite, a floor of ~4x; the design filter's count is
 * 0.27 ms of SQL (index-only, EXPLAIN ANALYZE) and measured 3.4x, the very selective one 0.03 ms
 * and 3.5x (one run). A count plan that reads every hit (the design filter's
 * hash semi join, 17.8x; `{}`'s index-only scan of every entry, 11.1x) still misses 5.
 * The very selective filter's page 1 is nothing but round trips (6 hits, 0.03 ms of SQL): after the
 * row and tags queries of a page were issued together (execute/run.ts), it measured 3.30 ms on
 * PostgreSQL against 0.64 ms on SQLite (5.2x), so its bound is 6; a plan that sorted every hit
 * would be 16x or more.
 */
const FREE_COUNT = 5
const TARGETS: Readonly<Record<string, { page1: number; seek: number; count: number }>> = {
  'match-all, default sort': { page1: 5, seek: 5, count: FREE_COUNT },
  'multi-field, sorted (design 8)': { page1: 5, seek: 5, count: FREE_COUNT },
  'very selective': { page1: 6, seek: 5, count: FREE_COUNT },
  'investors via foreign (spec 4.14)': { page1: 5, seek: 5, count: 6 },
}
const DEFAULT_TARGET = { page1: 5, seek: 5, count: 3 }
/** PostgreSQL / SQLite median bound of a company detail (engine.companyDetail). */
const DETAIL_TARGET = 2
const DETAIL_IDS = 50

/**
 * Prints the statements each request kind sends to the server (pg's `Client.query` counted around
 * one call of each, totals cache warm for page 1 and the seek, emptied for the count): the round
 * trips of a call, which are most of a fast call's time on PostgreSQL.
 */
async function roundTrips(): Promise<void> {
  const query = pg.Client.prototype.query
  let sent = 0
  const counting = function (this: pg.Client, ...args: unknown[]) {
    sent++
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  }
  const count = async (call: () => Promise<unknown>) => {
    sent = 0
    pg.Client.prototype.query = counting as typeof query
    try {
      await call()
    } finally {
      pg.Client.prototype.query = query
    }
    return sent
  }
  const lines: string[] = []
  for (const { name, request } of requests) {
    await post.query(request)
    const page1 = await count(() => post.query(request))
    const stored = await post.store(request)
    if (!stored.ok) throw new Error(`bench postgres: ${name}: store failed`)
    await post.page(stored.value.query_id, { page: 2 })
    const page2 = await count(() => post.page(stored.value.query_id, { page: 2 }))
    await forgetTotals.post()
    const first = await count(() => post.count(request))
    lines.push(`${name}: page 1 ${page1}, page 2 ${page2}, first count ${first}`)
  }
  lines.push(`company detail: ${await count(() => post.records.companyDetail(detailIds[0]!))}`)
  console.log(`\n## Statements sent to PostgreSQL per call\n${lines.join('\n')}`)
}

const vdb = openBenchDatabase()
freshCaches(vdb)
const pgdb = await openBenchPostgres(vdb, companies, 'postgres')
await freshPostgresCaches(companies)
const admin = new pg.Pool({ connectionString: BENCH_PG_URL, options: `-c search_path=${benchSchema(companies)}`, max: 1 })

const lite = createEngine({ database: vdb })
const post = createEngine({ database: pgdb })
// As `serve` does: each engine reads its cost statistics before the first timed call.
await Promise.all([lite.ready(), post.ready()])
const forgetTotals = {
  lite: () => forgetTotalsOf(vdb),
  post: async () => { await admin.query('delete from query_totals'); forgetRememberedTotals(pgdb.db) },
}

const requests = [{ name: 'match-all, default sort', request: { dataset: 'companies', filter: {}, per_page: 10 } }, ...BENCH_FILTERS]
const SEEK_PAGE = 20

const ids = (r: { ok: boolean; value?: { results: readonly Record<string, unknown>[] }; issues?: unknown }) => {
  if (!r.ok || !r.value) throw new Error(`bench postgres: ${JSON.stringify(r.issues)}`)
  return JSON.stringify(r.value.results.map((x) => x.id ?? x.investor_id))
}

const cases: Case[] = []
for (const { name, request } of requests) {
  const target = TARGETS[name] ?? DEFAULT_TARGET
  // Same ids and totals on both, or the comparison means nothing.
  const [a, b] = [await lite.query(request), await post.query(request)]
  if (ids(a) !== ids(b) || (a.ok && b.ok && a.value.meta.total_record_count !== b.value.meta.total_record_count)) {
    throw new Error(`bench postgres: ${name}: SQLite and PostgreSQL disagree on page 1`)
  }
  const total = a.ok ? a.value.meta.total_record_count : 0
  cases.push({
    name: `${name} [${total}]: page 1`,
    subject: async () => ids(await post.query(request)),
    baseline: async () => ids(await lite.query(request)),
    baselineName: 'SQLite',
    maxRatio: target.page1,
  })
  const perPage = request.per_page ?? 10
  if (total > SEEK_PAGE * perPage) {
    const [sa, sb] = [await lite.store(request), await post.store(request)]
    if (!sa.ok || !sb.ok || sa.value.query_id !== sb.value.query_id) throw new Error(`bench postgres: ${name}: store failed or ids differ`)
    const id = sa.value.query_id
    // Walk to page SEEK_PAGE once on each, so page SEEK_PAGE - 1's boundary is remembered.
    const [pa, pb] = [await lite.page(id, { page: SEEK_PAGE }), await post.page(id, { page: SEEK_PAGE })]
    if (ids(pa) !== ids(pb)) throw new Error(`bench postgres: ${name}: page ${SEEK_PAGE} differs`)
    cases.push({
      name: `${name}: page ${SEEK_PAGE} (seek)`,
      subject: async () => ids(await post.page(id, { page: SEEK_PAGE })),
      baseline: async () => ids(await lite.page(id, { page: SEEK_PAGE })),
      baselineName: 'SQLite',
      maxRatio: target.seek,
    })
  }
  const count = (engine: typeof lite | typeof post) => async () => {
    const r = await engine.count(request)
    if (!r.ok || r.value !== total) throw new Error(`bench postgres: ${name}: count ${JSON.stringify(r)} != ${total}`)
  }
  cases.push({
    name: `${name}: first count`,
    setup: forgetTotals.post,
    subject: count(post),
    // The SQLite delete is timed with its count (microseconds: a handful of rows).
    baseline: async () => { forgetTotals.lite(); await count(lite)() },
    baselineName: 'SQLite',
    maxRatio: target.count,
  })
}

// Company details: the same ids on both, in the same order, spread over the table.
const detailIds = (vdb.sqlite.prepare('select id from companies order by id').pluck().all() as number[]).filter((_id, i, all) => i % Math.max(1, Math.floor(all.length / DETAIL_IDS)) === 0).slice(0, DETAIL_IDS)
for (const id of detailIds.slice(0, 3)) {
  const [a, b] = [await lite.records.companyDetail(id), await post.records.companyDetail(id)]
  if (a === undefined || JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`bench postgres: company ${id}: SQLite and PostgreSQL details differ`)
}
const detail = (engine: typeof lite | typeof post) => {
  let next = 0
  return async () => {
    const r = await engine.records.companyDetail(detailIds[next++ % detailIds.length]!)
    if (r === undefined) throw new Error(`bench postgres: company detail failed: ${JSON.stringify(r)}`)
  }
}
cases.push({ name: `company detail (${detailIds.length} ids in turn)`, subject: detail(post), baseline: detail(lite), baselineName: 'SQLite', maxRatio: DETAIL_TARGET })

await roundTrips()
await runBench(`PostgreSQL / SQLite, ${companies.toLocaleString('en-US')} companies`, cases)
await lite.close()
await post.close()
await admin.end()
await pgdb.close()
await vdb.close()
