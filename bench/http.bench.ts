/**
 * @module The HTTP layer's cost: each endpoint through the fetch handler (`createApp`: routing,
 * key lookup by hash, one quota write, parameter parsing, the view, JSON) against the engine or
 * record call it wraps, in the same run. The handler is meant to be thin: for lookups that take
 * milliseconds the ratio should be close to 1; for sub-millisecond lookups the fixed cost (key hash
 * and lookup, the quota write, routing: ~0.1-0.2 ms warm) dominates a 0.07 ms record read, so their
 * targets are looser. Every case is called 50 times before timing, so the JIT has compiled the
 * handler's path (the measure's single warm-up run left the detail at 0.56 ms, 0.19 ms when warm).
 * Listings keep their totals cached across runs on both sides (the engine caches per query).
 */
import { createEngine } from '../src/engine.js'
import { createApp } from '../src/http/app.js'
import { companyDetail } from '../src/records/company.js'
import { investorDetail } from '../src/records/investor.js'
import { investorPortfolio } from '../src/records/portfolio.js'
import { searchRecords } from '../src/records/search.js'
import { similarCompanies } from '../src/records/similar.js'
import { latestStories } from '../src/records/stories.js'
import { createApiKey, quotaStatus } from '../src/store/api-keys.js'
import { benchCompanies, openBenchDatabase } from './support/dataset.js'
import { runBench, type Case } from './support/measure.js'

const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb })
const app = createApp(engine, { baseUrl: 'https://bench.test' })
const made = await createApiKey(vdb, { plan: 'full', quota: 1_000_000_000, period: 'day', label: 'bench/http' })
if (!made.ok) throw new Error('bench: could not create a key')
const key = made.value.key

async function call(path: string): Promise<unknown> {
  const res = await app.fetch(new Request(`https://bench.test${path}`, { headers: { authorization: `Bearer ${key}` } }))
  // The body is read as text, as a server would write it out; parsing it is the client's cost.
  const body = await res.text()
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`)
  return body
}
async function list(request: unknown): Promise<unknown> {
  const r = await engine.list(request)
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value
}

const db = vdb.sqlite
// A well-connected company (many tags) and the investor with the largest portfolio: the costly cases.
const companyId = db.prepare('select company_id from company_industries group by company_id order by count(*) desc, company_id limit 1').pluck().get() as number
const investor = db.prepare('select id, svc_slug from investors order by portfolio_size desc, id limit 1').get() as { id: number; svc_slug: string }

const cases: Case[] = [
  {
    name: 'GET /companies/:id', maxRatio: 10,
    subject: () => call(`/companies/${companyId}`),
    baseline: () => companyDetail(vdb, companyId), baselineName: 'companyDetail',
  },
  {
    name: 'GET /companies/:id/similar', maxRatio: 1.5,
    subject: () => call(`/companies/${companyId}/similar`),
    baseline: () => similarCompanies(vdb, companyId), baselineName: 'similarCompanies',
  },
  {
    name: 'GET /companies/:id/stories', maxRatio: 25,
    subject: () => call(`/companies/${companyId}/stories`),
    baseline: () => latestStories(vdb, companyId), baselineName: 'latestStories',
  },
  {
    name: 'GET /search?term=tec', maxRatio: 4,
    subject: () => call('/search?term=tec'),
    baseline: () => searchRecords(vdb, { term: 'tec', objectTypes: ['company', 'investor'], limit: 10 }), baselineName: 'searchRecords',
  },
  {
    name: 'GET /investors/:id (largest portfolio)', maxRatio: 1.5,
    subject: () => call(`/investors/${investor.id}`),
    baseline: () => investorDetail(vdb, investor.id), baselineName: 'investorDetail',
  },
  {
    name: 'GET /investors/:id/portfolio?page=2 (largest)', maxRatio: 4,
    subject: () => call(`/investors/${investor.id}/portfolio?page=2&per_page=50`),
    baseline: () => investorPortfolio(vdb, investor.id, { page: 2, perPage: 50 }), baselineName: 'investorPortfolio',
  },
  {
    name: 'GET /companies?stage=a|b&country=USA', maxRatio: 2,
    subject: () => call('/companies?stage=a|b&country=USA'),
    baseline: () => list({ dataset: 'companies', filter: { and: [{ stage: { in: ['a', 'b'] } }, { country: { in: ['USA'] } }] }, per_page: 10 }),
    baselineName: 'engine.list',
  },
  {
    name: 'GET /fundings?investor_slugs=<largest>', maxRatio: 2,
    subject: () => call(`/fundings?investor_slugs=${investor.svc_slug}`),
    baseline: () => list({ dataset: 'fundings', filter: { foreign: { dataset: 'investors', filter: { svc_slug: { in: [investor.svc_slug] } } } }, per_page: 50 }),
    baselineName: 'engine.list',
  },
  {
    name: 'GET /ratelimit/usage', maxRatio: 40,
    subject: () => call('/ratelimit/usage'),
    baseline: () => quotaStatus(vdb, made.value.record), baselineName: 'quotaStatus',
  },
]

for (const c of cases) for (let i = 0; i < 50; i++) { await c.subject(); await c.baseline() }

await runBench(`HTTP handler against the call it wraps, ${benchCompanies().toLocaleString('en-US')} companies`, cases)
await engine.close()
await vdb.close()
