/**
 * The same generated requests to the HTTP app on SQLite and on PostgreSQL loaded with the same data
 * (the fixture and its copy), with the same key: identical status, body and quota headers (issue 8,
 * item 6). Every endpoint: detail lookups by id (existing and not), by domain, the company
 * sub-resources, contacts, investor detail and portfolio pages, search terms, /companies and
 * /fundings with generated parameter combinations, structured queries (generated filters and sorts)
 * and their pages by id. Requests go one at a time to each app, in the same order, so the quota
 * counters move alike.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatasetName } from '../../src/catalog/define.js'
import { createEngine, type Engine } from '../../src/engine.js'
import { createApp, type VentureApp } from '../../src/http/app.js'
import { FOUNDING_PHRASES, FUNDING_PHRASES, LIST_PARAMETERS, type ListEndpoint, type ListParamDef } from '../../src/parse/list-params.js'
import { distinctValues, loadSnapshot, type Snapshot } from '../../src/reference/index.js'
import { createApiKey, hashApiKey } from '../../src/store/api-keys.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { PostgresVentureDb, SqliteVentureDb } from '../../src/store/open.js'
import { filterArbitraries, type FilterArbitraries } from '../../src/testing/arbitraries.js'
import { numRuns } from '../support/num-runs.js'
import { testSchema, type TestSchema } from './support.js'

const NOW = new Date('2026-06-15T12:00:00Z')
const BASE = 'https://api.test'

let schema: TestSchema
let source: SqliteVentureDb
let target: PostgresVentureDb
let engines: Engine[]
let apps: [VentureApp, VentureApp]
let key: string
let snapshot: Snapshot
let arbs: FilterArbitraries
/** Requests compared, by kind, and how many answered 200: the generators must reach real data. */
const seen = new Map<string, { total: number; ok: number }>()

beforeAll(async () => {
  schema = await testSchema('http_diff')
  source = await createFixtureDatabase()
  target = await schema.open()
  await copyToPostgres(source, target)
  // One key text in both databases (keys are stored by hash).
  const made = await createApiKey(source, { plan: 'full', quota: 1_000_000, period: 'day' }, NOW)
  if (!made.ok) throw new Error('key')
  key = made.value.key
  await target.db.insertInto('api_keys').values({
    key_hash: hashApiKey(key), key_prefix: made.value.record.prefix, plan: 'full', quota_limit: 1_000_000, quota_period: 'day', label: null, created_at: NOW.toISOString(),
  }).execute()
  engines = [createEngine({ database: source }), createEngine({ database: target })]
  apps = [createApp(engines[0]!, { clock: () => NOW }), createApp(engines[1]!, { clock: () => NOW })]
  snapshot = await loadSnapshot(source)
  arbs = filterArbitraries(snapshot)
})

afterAll(async () => {
  for (const e of engines ?? []) await e.close()
  await schema?.drop()
  await source?.close()
})

interface Answer { status: number; body: string; headers: Record<string, string | null> }

async function answer(app: VentureApp, method: string, path: string, body?: string): Promise<Answer> {
  const res = await app.fetch(new Request(`${BASE}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body } : {}),
  }))
  const headers: Record<string, string | null> = {}
  for (const h of ['content-type', 'x-quota-limit', 'x-quota-remaining', 'x-quota-reset', 'retry-after']) headers[h] = res.headers.get(h)
  return { status: res.status, body: await res.text(), headers }
}

/** Sends the request to both apps and requires identical answers; returns SQLite's. */
async function same(kind: string, method: string, path: string, body?: string): Promise<Answer> {
  const lite = await answer(apps[0], method, path, body)
  const pg = await answer(apps[1], method, path, body)
  const tally = seen.get(kind) ?? { total: 0, ok: 0 }
  tally.total++
  if (lite.status === 200) tally.ok++
  seen.set(kind, tally)
  expect({ status: pg.status, headers: pg.headers }, `${method} ${path}`).toEqual({ status: lite.status, headers: lite.headers })
  // Error bodies carry a random error id on a 500; there must be none.
  expect(lite.status, `${method} ${path}: ${lite.body.slice(0, 300)}`).not.toBe(500)
  expect(JSON.parse(pg.body), `${method} ${path}`).toEqual(JSON.parse(lite.body))
  return lite
}

const ids = (dataset: DatasetName): number[] => [...snapshot.datasets[dataset].rows.keys()]
const values = (dataset: DatasetName, field: string) => distinctValues(snapshot, dataset, field).map(String)

/** A parameter value in the form its format takes, from values that occur in the data. */
function paramValue(endpoint: ListEndpoint, def: ListParamDef): fc.Arbitrary<string> {
  const dataset: DatasetName = def.via ?? (endpoint === 'companies' ? 'companies' : 'fundings')
  const occurring = values(dataset, def.field)
  const one = occurring.length > 0 ? fc.constantFrom(...occurring) : fc.constant('x')
  const list = fc.uniqueArray(one, { minLength: 1, maxLength: 3 }).map((xs) => xs.join('|'))
  switch (def.format) {
    case 'text_contains': return one.map((v) => v.slice(1, 4))
    case 'domain': return one
    case 'numeric_range': return fc.tuple(one, one).chain(([a, b]) => {
      const [lo, hi] = Number(a) <= Number(b) ? [a, b] : [b, a]
      return fc.constantFrom(`${lo}~${hi}`, `${lo}~`, `~${hi}`)
    })
    case 'date_range': return fc.tuple(one, one).map(([a, b]) => (a <= b ? `${a.slice(0, 10)}~${b.slice(0, 10)}` : `${b.slice(0, 10)}~${a.slice(0, 10)}`))
    case 'date': return one.map((v) => v.slice(0, 10))
    case 'founding_phrase': return fc.constantFrom(...Object.keys(FOUNDING_PHRASES))
    case 'funding_phrase': return fc.constantFrom(...Object.keys(FUNDING_PHRASES))
    case 'flag': return fc.constantFrom('0', '1')
    case 'investor_ids': return fc.uniqueArray(fc.constantFrom(...ids('investors').map(String)), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('|'))
    default: return list
  }
}

function listingPath(endpoint: ListEndpoint): fc.Arbitrary<string> {
  const defs = LIST_PARAMETERS[endpoint]
  return fc.tuple(
    fc.uniqueArray(fc.constantFrom(...defs), { minLength: 0, maxLength: 3 }).chain((chosen) =>
      fc.tuple(...chosen.map((d) => paramValue(endpoint, d).map((v) => `${d.name}=${encodeURIComponent(v)}`)))),
    fc.integer({ min: 1, max: 3 }),
    fc.constantFrom(1, 5, 10, 50),
  ).map(([params, page, perPage]) => `/${endpoint}?${[...params, `page=${page}`, `per_page=${perPage}`].join('&')}`)
}

describe('the HTTP app on SQLite and on PostgreSQL, same data', () => {
  it('answers every company and investor endpoint alike', async () => {
    const companies = [...ids('companies').slice(0, 60), 999_999, 0]
    for (const id of companies) {
      await same('company detail', 'GET', `/companies/${id}`)
      await same('company sub-resources', 'GET', `/companies/${id}/stories`)
      await same('company sub-resources', 'GET', `/companies/${id}/similar`)
      await same('company sub-resources', 'GET', `/companies/${id}/people`)
      await same('company sub-resources', 'GET', `/companies/${id}/tech_stack`)
    }
    const people = await source.db.selectFrom('company_people').select(['company_id', 'name']).limit(20).execute() as { company_id: number; name: string }[]
    for (const p of people) {
      await same('contact', 'GET', `/companies/${p.company_id}/contact?full_name=${encodeURIComponent(p.name)}`)
      await same('contact', 'GET', `/companies/${p.company_id}/contact?full_name=${encodeURIComponent(p.name.toUpperCase())}`)
    }
    for (const website of values('companies', 'website').slice(0, 20)) {
      for (const spelling of [website, website.toUpperCase(), `www.${website}`, `${website}.`]) await same('domain', 'GET', `/domains/${encodeURIComponent(spelling)}/companies`)
    }
    await same('domain', 'GET', '/domains/no-such-domain.example/companies')
    for (const id of [...ids('investors'), 999_999]) {
      await same('investor', 'GET', `/investors/${id}`)
      for (const paging of ['', '?page=2&per_page=3', '?per_page=50']) await same('portfolio', 'GET', `/investors/${id}/portfolio${paging}`)
    }
  })

  it('answers search terms alike', async () => {
    const names = values('companies', 'name').concat(values('investors', 'name'))
    const terms = new Set<string>(['a', 'q', 'z', 'ab', 'tec', 'labs', 'venture cap', 'ÅCME', '"quoted"', 'name:a', '*', '%_'])
    for (const name of names.slice(0, 40)) {
      terms.add(name)
      for (let n = 1; n <= 4; n++) terms.add(name.slice(0, n))
    }
    for (const term of terms) {
      for (const types of ['', '&object_types=company', '&object_types[]=investor', '&per_page=50']) {
        await same('search', 'GET', `/search?term=${encodeURIComponent(term)}${types}`)
      }
    }
  })

  it('answers generated listings of /companies and /fundings alike', async () => {
    for (const endpoint of ['companies', 'fundings'] as const) {
      await fc.assert(fc.asyncProperty(listingPath(endpoint), async (path) => {
        await same(`/${endpoint}`, 'GET', path)
      }), { numRuns: numRuns(60) })
    }
  })

  it('answers generated structured queries and their pages alike', async () => {
    await fc.assert(fc.asyncProperty(arbs.request(), fc.constantFrom(1, 7, 50), async (request, perPage) => {
      const posted = await same('POST /queries', 'POST', '/queries', JSON.stringify({ ...request, per_page: perPage }))
      if (posted.status !== 200) return
      const id = (JSON.parse(posted.body) as { query_id: string }).query_id
      await same('GET /queries/:id', 'GET', `/queries/${id}?page=2&per_page=${perPage}`)
    }), { numRuns: numRuns(60) })
  })

  it('reached real data on every kind of request (the generators are not trivial)', () => {
    for (const kind of ['company detail', 'company sub-resources', 'contact', 'domain', 'investor', 'portfolio', 'search', '/companies', '/fundings', 'POST /queries', 'GET /queries/:id']) {
      const tally = seen.get(kind)
      expect(tally, kind).toBeDefined()
      expect(tally!.ok, kind).toBeGreaterThan(0)
    }
  })
})
