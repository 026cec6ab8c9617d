/**
 * Where the fixed cost of a page goes (issue 9): for a few listing requests of the suite's mix,
 * page 1 with its total cached, the median of the engine call and of each step it takes, measured
 * one by one on the same connection (inline). `npx tsx bench/page-overhead.ts` (BENCH_COMPANIES).
 */
import { checkQuery } from '../src/check/index.js'
import { resolveLimits } from '../src/check/limits.js'
import { DIALECTS } from '../src/compile/index.js'
import { planQuery } from '../src/compile/plan.js'
import { createEngine } from '../src/engine.js'
import { cachedTotal } from '../src/execute/counts.js'
import { fetchKeys, loadRecords } from '../src/execute/run.js'
import { canonicalQuery, queryIdOf } from '../src/execute/stored-queries.js'
import { parseQuery } from '../src/parse/index.js'
import { dataVersion } from '../src/store/open.js'
import { openBenchDatabase } from './support/dataset.js'
import { listingRequest, PER_PAGE } from './suite/mix.js'

const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb })
const limits = resolveLimits({})
const dialect = DIALECTS.sqlite
const runs = Number(process.env.BENCH_RUNS ?? 301)

const requests: Record<string, Record<string, unknown>> = {
  'companies-all': listingRequest('/companies'),
  'companies-design': listingRequest('/companies?stage=a|b&country=USA&employees=50~200&sort=-svc_score'),
  'companies-industries': listingRequest('/companies?industries=Fintech|Software'),
  'fundings-dates': listingRequest('/fundings?funding_date_range=2020-01-01~2020-12-31'),
  'companies-not-or': { dataset: 'companies', filter: { not: { or: [{ country: 'USA' }, { employees: { lt: 10 } }] } }, per_page: PER_PAGE },
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

async function time(fn: () => unknown): Promise<number> {
  const xs: number[] = []
  for (let i = 0; i < 20; i++) await fn()
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    await fn()
    xs.push(performance.now() - t)
  }
  return median(xs)
}

const ctxBase = { db: vdb.db, dialect, readonly: false, sqlite: vdb.sqlite }
const rows: string[] = []
for (const [id, request] of Object.entries(requests)) {
  const r = await engine.list(request)
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  const parsed = parseQuery(request, limits)
  if (!parsed.ok) throw new Error('parse')
  const checked = checkQuery(parsed.value, limits)
  if (!checked.ok) throw new Error('check')
  const canonical = canonicalQuery(checked.value)
  const queryId = queryIdOf(canonical)
  const plan = planQuery(checked.value, dialect)
  const ctx = { ...ctxBase, dataVersion: await dataVersion(vdb) }
  const total = await cachedTotal(ctx, plan, queryId)
  const keys = await fetchKeys(ctx, plan, { limit: PER_PAGE, matches: total })
  const ids = keys.map((k) => k.id)
  const t = {
    engine: await time(() => engine.list(request)),
    parse: await time(() => parseQuery(request, limits)),
    check: await time(() => checkQuery(parsed.value, limits)),
    canonicalId: await time(() => queryIdOf(canonicalQuery(checked.value))),
    plan: await time(() => planQuery(checked.value, dialect)),
    kyselyKeys: await time(() => plan.keysQuery(vdb.db, { limit: PER_PAGE }).compile()),
    dataVersion: await time(() => dataVersion(vdb)),
    cachedTotal: await time(() => cachedTotal(ctx, plan, queryId)),
    fetchKeys: await time(() => fetchKeys(ctx, plan, { limit: PER_PAGE, matches: total })),
    loadRecords: await time(() => loadRecords(ctx, plan, ids)),
  }
  rows.push(`| ${id} | ${Object.values(t).map((v) => v.toFixed(3)).join(' | ')} |`)
  process.stderr.write(`${id} done\n`)
}
console.log(`| request | engine.list | parse | check | canonical+id | plan | Kysely keys compile | data version | cached total | keys | records |`)
console.log(`|---|---|---|---|---|---|---|---|---|---|---|`)
console.log(rows.join('\n'))
await engine.close()
