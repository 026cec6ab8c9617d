/**
 * Wire compatibility (design section 6): how clients of the original service call it. Trailing
 * slashes, `?&` and `&&`, `+` and `%20`, `%7C` pipes, repeated and `[]` list parameters, the key as
 * `?key=` or Bearer, 403 never 401, exactly 200, JSON whatever `Accept` says, HEAD and OPTIONS, and
 * absolute item URLs that can be fetched back. Expectations come from direct SQL on the fixture.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey, revokeApiKey } from '../../src/store/api-keys.js'
import { BASE, createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness() })
afterAll(async () => { await h.close() })

/** A request exactly as written (no re-encoding), with the full key appended by hand when asked. */
function raw(pathAndQuery: string, init: RequestInit = {}): Promise<Response> {
  return h.app.fetch(new Request(`${BASE}${pathAndQuery}`, init))
}
const sql = <T>(text: string, ...params: unknown[]): T[] => h.vdb.sqlite.prepare(text).all(...params) as T[]
const idsOf = (body: { companies: { id: string }[] }) => body.companies.map((c) => c.id)

describe('paths with and without a trailing slash', () => {
  const someCompany = () => sql<{ id: number }>('select id from companies order by id limit 1')[0]!.id
  const someInvestor = () => sql<{ id: number }>('select id from investors order by portfolio_size desc, id limit 1')[0]!.id
  const paths = () => [
    '/companies?stage=a',
    '/fundings?per_page=5',
    '/search?term=ac',
    '/ratelimit/usage',
    `/companies/${someCompany()}`,
    `/companies/${someCompany()}/stories`,
    `/companies/${someCompany()}/similar`,
    `/companies/${someCompany()}/people`,
    `/companies/${someCompany()}/tech_stack`,
    `/investors/${someInvestor()}`,
    `/investors/${someInvestor()}/portfolio?per_page=5`,
  ]

  it('answers every list and detail endpoint the same with a slash before the query string', async () => {
    for (const path of paths()) {
      const [bare, query = ''] = path.split('?')
      const withSlash = `${bare}/${query ? `?${query}` : ''}`
      const a = await h.get(path)
      const b = await h.get(withSlash)
      const textA = await a.text()
      expect(a.status, `${path}: ${textA.slice(0, 200)}`).toBe(200)
      expect(b.status, withSlash).toBe(200)
      expect(await b.text(), withSlash).toBe(textA)
    }
  })

  it('accepts POST /queries/ like POST /queries', async () => {
    const body = JSON.stringify({ dataset: 'investors', filter: { portfolio_size: { gte: 5 } }, per_page: 3 })
    const init = { method: 'POST', body, headers: { 'content-type': 'application/json' } }
    const a = await h.request('/queries', { init })
    const b = await h.request('/queries/', { init })
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect((await b.json() as any).query_id).toBe((await a.json() as any).query_id)
  })
})

describe('query strings as clients write them', () => {
  it('ignores empty pairs: ?& at the start, && inside, & at the end', async () => {
    const expected = await h.json('/companies?stage=b')
    const res = await raw(`/companies?&stage=b&&key=${encodeURIComponent(h.fullKey)}&&`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(expected)
    const expectedTotal = sql<{ n: number }>("select count(*) n from companies where stage = 'b'")[0]!.n
    expect(expected.meta.total_record_count).toBe(expectedTotal)
  })

  it('reads spaces sent as + and as %20 alike', async () => {
    const { id, name } = sql<{ id: number; name: string }>("select id, name from companies where name like '% %' order by id limit 1")[0]!
    const plus = await h.json(`/companies?company_name=${name.split(' ').map(encodeURIComponent).join('+')}`)
    const pct = await h.json(`/companies?company_name=${encodeURIComponent(name)}`)
    expect(plus).toEqual(pct)
    expect(idsOf(plus)).toContain(String(id))
    // Spaces inside a list value too: 'No Known Funding' and 'Pre Series A'.
    const stages = await h.json('/companies?stage=No+Known+Funding|Pre%20Series%20A&per_page=50')
    const expected = sql<{ n: number }>("select count(*) n from companies where stage in ('No Known Funding', 'Pre Series A')")[0]!.n
    expect(stages.meta.total_record_count).toBe(expected)
    expect(expected).toBeGreaterThan(0)
  })

  it('merges pipes (| and %7C), repeated keys and [] keys into one OR list', async () => {
    const expected = sql<{ n: number }>("select count(*) n from companies where stage in ('a', 'c')")[0]!.n
    const forms = ['stage=a|c', 'stage=a%7Cc', 'stage=a%7cc', 'stage=a&stage=c', 'stage[]=a&stage[]=c', 'stage%5B%5D=a&stage%5B%5D=c', 'stage=a&stage[]=c']
    const bodies = []
    for (const form of forms) {
      const body = await h.json(`/companies?${form}&per_page=50`)
      expect(body.meta.total_record_count, form).toBe(expected)
      bodies.push(body)
    }
    for (const body of bodies) expect(body).toEqual(bodies[0])
    expect(expected).toBeGreaterThan(sql<{ n: number }>("select count(*) n from companies where stage = 'a'")[0]!.n)
  })

  it('accepts object_types as a value, as object_types[] and repeated', async () => {
    const term = sql<{ name: string }>('select name from investors order by id limit 1')[0]!.name.slice(0, 3)
    const onlyCompanies = await h.json(`/search?term=${encodeURIComponent(term)}&object_types=company`)
    expect(await h.json(`/search?term=${encodeURIComponent(term)}&object_types[]=company`)).toEqual(onlyCompanies)
    expect(await h.json(`/search?term=${encodeURIComponent(term)}&object_types%5B%5D=company`)).toEqual(onlyCompanies)
    for (const r of onlyCompanies) expect(r.object_type).toBe('company')
    const onlyInvestors = await h.json(`/search?term=${encodeURIComponent(term)}&object_types[]=investor`)
    expect(onlyInvestors.length).toBeGreaterThan(0)
    for (const r of onlyInvestors) expect(r.object_type).toBe('investor')
    const both = await h.json(`/search?term=${encodeURIComponent(term)}&object_types[]=company&object_types[]=investor`)
    const neither = await h.json(`/search?term=${encodeURIComponent(term)}`)
    expect(new Set(both.map((r: any) => `${r.object_type}:${r.object_id}`))).toEqual(new Set(neither.map((r: any) => `${r.object_type}:${r.object_id}`)))
    expect(both.some((r: any) => r.object_type === 'investor')).toBe(true)
  })
})

describe('the API key', () => {
  it('works as ?key= and as Authorization: Bearer with the same answer', async () => {
    const byQuery = await h.get('/companies?stage=c')
    const byHeader = await h.get('/companies?stage=c', { bearer: true })
    expect(byQuery.status).toBe(200)
    expect(byHeader.status).toBe(200)
    expect(await byHeader.text()).toBe(await byQuery.text())
    const lowerCase = await raw('/companies?stage=c', { headers: { authorization: `bearer ${h.fullKey}` } })
    expect(lowerCase.status).toBe(200)
  })

  it('answers 403, never 401, for every kind of bad key, with a JSON body and no WWW-Authenticate', async () => {
    const revoked = await createApiKey(h.served, { plan: 'full', quota: 10, period: 'day' })
    if (!revoked.ok) throw new Error('key')
    await revokeApiKey(h.served, revoked.value.record.prefix)
    const cases: [string, RequestInit][] = [
      ['/companies', {}],
      ['/companies?key=', {}],
      ['/companies?key=wrong', {}],
      [`/companies?key=${encodeURIComponent(revoked.value.key)}`, {}],
      ['/companies', { headers: { authorization: 'Bearer wrong' } }],
      ['/companies', { headers: { authorization: `Basic ${Buffer.from(`${h.fullKey}:`).toString('base64')}` } }],
      ['/companies', { headers: { authorization: `Bearer ${revoked.value.key}` } }],
      [`/companies?key=${'k'.repeat(10_000)}`, {}],
      ['/companies?key=%E0%A4%A', {}],
      ['/companies?key=%00', {}],
      ["/companies?key=' OR '1'='1", {}],
      ['/fundings?key[]=x', {}],
    ]
    for (const [path, init] of cases) {
      const res = await raw(path, init)
      expect(res.status, path).toBe(403)
      expect(res.headers.get('www-authenticate')).toBeNull()
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(typeof ((await res.json()) as any).error).toBe('string')
    }
  })
})

describe('statuses and content types', () => {
  it('answers success with exactly 200, POST /queries included', async () => {
    const post = await h.request('/queries', { init: { method: 'POST', body: JSON.stringify({ dataset: 'investor' }), headers: { 'content-type': 'application/json' } } })
    expect(post.status).toBe(200)
    const form = await h.request('/queries', { init: { method: 'POST', body: new URLSearchParams({ dataset: 'investor', filter: '{"portfolio_size":{"gte":2}}' }) } })
    expect(form.status).toBe(200)
    for (const path of ['/companies', '/fundings', '/ratelimit/usage', '/search?term=a']) expect((await h.get(path)).status, path).toBe(200)
  })

  it('answers JSON whatever Accept says, for successes and errors alike', async () => {
    for (const accept of ['text/html', 'application/xml', 'text/plain', '*/*', 'image/png;q=1, application/json;q=0']) {
      const ok = await h.get('/companies?stage=a', { init: { headers: { accept } } })
      expect(ok.status, accept).toBe(200)
      expect(ok.headers.get('content-type'), accept).toMatch(/^application\/json/)
      expect(Array.isArray(((await ok.json()) as any).companies)).toBe(true)
      for (const [path, key, status] of [['/nothing', undefined, 404], ['/companies', null, 403], ['/companies?stage=zz', undefined, 400]] as const) {
        const bad = await h.get(path, { key, init: { headers: { accept } } })
        expect(bad.status, `${path} ${accept}`).toBe(status)
        expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/)
        expect(typeof ((await bad.json()) as any).error).toBe('string')
      }
    }
  })

  it('answers HEAD like GET without a body (same status and headers), and OPTIONS with a JSON 404 (no CORS preflight)', async () => {
    const get = await h.get('/companies?stage=a')
    const head = await h.request('/companies?stage=a', { init: { method: 'HEAD' } })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
    expect(head.headers.get('x-quota-limit')).toBe(get.headers.get('x-quota-limit'))
    expect(await head.text()).toBe('')
    const headMissing = await h.request('/companies/999999999', { init: { method: 'HEAD' } })
    expect(headMissing.status).toBe(404)
    const options = await h.request('/companies', { init: { method: 'OPTIONS' } })
    expect(options.status).toBe(404)
    expect(options.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    // Without a key too: no endpoint answers OPTIONS, and a request no endpoint answers needs no key.
    expect((await h.request('/companies', { key: null, init: { method: 'OPTIONS' } })).status).toBe(404)
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await h.request('/companies', { init: { method } })
      expect(res.status, method).toBe(404)
    }
  })
})

describe('list items carry an absolute, fetchable url', () => {
  it('points each company list item at its detail endpoint on the origin that was called', async () => {
    const body = await h.json('/companies?stage=d&per_page=50')
    const expectedIds = sql<{ id: number }>("select id from companies where stage = 'd'").map((r) => String(r.id)).sort()
    expect(idsOf(body).sort()).toEqual(expectedIds)
    for (const item of body.companies) {
      expect(item.url).toBe(`${BASE}/companies/${item.id}`)
      const detail = await h.app.fetch(new Request(item.url, { headers: { authorization: `Bearer ${h.fullKey}` } }))
      expect(detail.status).toBe(200)
      const company = (await detail.json()) as any
      expect(company.name).toBe(item.company_name)
      expect(String(company.id ?? item.id)).toBe(item.id)
    }
  })

  it('follows the request\'s origin, or the configured base URL', async () => {
    const elsewhere = await h.app.fetch(new Request(`http://127.0.0.1:9999/companies?stage=e&key=${encodeURIComponent(h.fullKey)}`))
    const items = ((await elsewhere.json()) as any).companies
    expect(items.length).toBeGreaterThan(0)
    for (const item of items) expect(item.url).toBe(`http://127.0.0.1:9999/companies/${item.id}`)
    const configured = await createHarness({ companies: 30, app: { baseUrl: 'https://data.example.com/v1/' } })
    try {
      const list = await configured.json('/companies')
      for (const item of list.companies) expect(item.url).toBe(`https://data.example.com/v1/companies/${item.id}`)
    } finally {
      await configured.close()
    }
  })
})

describe('page sizes and serialised forms', () => {
  it('defaults to 10 companies and 50 fundings a page and caps per_page at 50', async () => {
    expect((await h.json('/companies')).meta.per_page).toBe(10)
    expect((await h.json('/companies')).companies).toHaveLength(10)
    expect((await h.json('/fundings')).meta.per_page).toBe(50)
    const capped = await h.json('/companies?per_page=500')
    expect(capped.meta.per_page).toBe(50)
    expect(capped.companies).toHaveLength(50)
    const total = sql<{ n: number }>('select count(*) n from companies')[0]!.n
    expect(capped.meta.total_record_count).toBe(total)
    expect(capped.meta.total_pages).toBe(Math.ceil(total / 50))
  })

  it('serialises ids as strings in list items and meta as integers', async () => {
    const body = await h.json('/companies?per_page=3')
    for (const item of body.companies) expect(typeof item.id).toBe('string')
    for (const value of Object.values(body.meta)) expect(Number.isInteger(value)).toBe(true)
    const fundings = await h.json('/fundings?per_page=3')
    for (const f of fundings.fundings) {
      expect(typeof f.id).toBe('string')
      expect(f.funding_id).toBe(f.id)
      expect(typeof f.company_id).toBe('string')
    }
  })
})

describe('hostile requests at the wire level are 4xx or 200, never 5xx', () => {
  const hostile = [
    '/companies/%00', "/companies/' OR 1=1--", `/companies/${'9'.repeat(10_000)}`, '/companies/%E0%A4%A', '/companies/-1',
    '/companies?%E0%A4%A=1', '/companies?stage=%E0%A4%A', '/companies?=&&=&', '/companies?page=-1', `/companies?page=${'9'.repeat(400)}`,
    '/companies?per_page[]=5', '/companies?stage=a;DROP TABLE companies', `/companies?${'x'.repeat(10_000)}=1`,
    '/search?term=%00', "/search?term=' OR 1=1--", '/search?object_types=%7C%7C', '/domains/%2F..%2F/companies', '/..%2F..%2Fetc%2Fpasswd',
    '/fundings?amount=1e400~', '/queries/%00', '/openapi.json?%E0%A4%A',
  ]
  const named = hostile.map((path) => [path.length > 80 ? `${path.slice(0, 40)}... (${path.length} chars)` : path, path] as const)
  it.each(named)('%s', async (_name, path) => {
    const res = await raw(path.includes('?') ? `${path}&key=${encodeURIComponent(h.fullKey)}` : `${path}?key=${encodeURIComponent(h.fullKey)}`)
    expect(res.status).toBeLessThan(500)
    expect(res.headers.get('content-type')).toMatch(/^application\/(problem\+)?json/)
    await res.json()
  })
})
