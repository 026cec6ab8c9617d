/**
 * `X-Query-Cost` (src/http/query-cost.ts): every response that ran a filter says what it cost, as
 * the engine's `cost` (units per record, records, predicted ms), and CORS exposes it to browsers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/app.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness({ companies: 120 }) })
afterAll(async () => { await h.close() })

const COST = /^units=(\d+), rows=(\d+), ms=(\d+)$/
const FILTER = { dataset: 'companies', filter: { or: [{ country: 'USA' }, { foreign: { dataset: 'investors', filter: { type: 'vc' } } }] } }

function parsed(response: Response): { units: number; rows: number; ms: number } {
  const header = response.headers.get('x-query-cost')
  expect(header, 'X-Query-Cost').toMatch(COST)
  const [, units, rows, ms] = COST.exec(header!)!
  return { units: Number(units), rows: Number(rows), ms: Number(ms) }
}

describe('X-Query-Cost', () => {
  it('POST /queries and GET /queries/{id}: the engine\'s cost of the filter, the same on both', async () => {
    const posted = await h.request('/queries', { init: { method: 'POST', body: JSON.stringify(FILTER), headers: { 'content-type': 'application/json' } } })
    expect(posted.status).toBe(200)
    const body = await posted.json() as { query_id: string }
    expect(body).not.toHaveProperty('cost')
    const cost = parsed(posted)
    const explained = await h.engine.explain(FILTER)
    if (!explained.ok) throw new Error(JSON.stringify(explained.issues))
    expect(cost).toEqual({ units: explained.value.cost.units, rows: explained.value.cost.rows, ms: explained.value.cost.ms })
    expect(cost.units).toBeGreaterThan(1)
    expect(cost.rows).toBe(120)
    const paged = await h.get(`/queries/${body.query_id}?page=1`)
    expect(paged.status).toBe(200)
    expect(parsed(paged)).toEqual(cost)
  })

  it('GET /companies and GET /fundings: a filter costs more than none', async () => {
    const all = parsed(await h.get('/companies'))
    const filtered = parsed(await h.get('/companies?stage=a&country=USA'))
    expect(all.units).toBe(0)
    expect(filtered.units).toBeGreaterThan(all.units)
    expect(filtered.ms).toBeGreaterThanOrEqual(all.ms)
    const fundings = parsed(await h.get('/fundings?series=a'))
    expect(fundings.units).toBeGreaterThan(0)
    // Not sent where no filter ran.
    expect((await h.get('/companies/1')).headers.get('x-query-cost')).toBeNull()
  })

  it('is documented in the OpenAPI document on exactly the operations that run a filter', async () => {
    const doc = await h.json('/openapi.json')
    const documented = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops).filter(([, op]) => op.responses?.['200']?.headers?.['X-Query-Cost']).map(([method]) => `${method} ${path}`))
    expect(documented.sort()).toEqual(['get /companies', 'get /fundings', 'get /queries/{query_id}', 'post /queries'])
  })

  it('is exposed to browsers when CORS is on', async () => {
    const app = createApp(h.engine, { corsOrigins: ['https://app.example'] })
    const r = await app.fetch(new Request('http://localhost/companies', { headers: { origin: 'https://app.example', authorization: `Bearer ${h.fullKey}` } }))
    expect(r.headers.get('access-control-expose-headers') ?? '').toMatch(/X-Query-Cost/)
  })
})
