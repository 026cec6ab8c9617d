/**
 * Issue 11, item 11: a parameter name that is a near miss of one the endpoint takes (`contry` for
 * `country`) is a 400 `unknown_parameter` with did-you-mean suggestions, reported with the other
 * bad parameters in one answer; a name far from every parameter (tracking parameters, cache
 * busters, parameters of other endpoints) stays ignored. Every GET endpoint that takes parameters,
 * on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nearMissDistance, nearMisses } from '../../src/errors/did-you-mean.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { companyListSchema, fundingListSchema } from '../../src/http/schemas/listings.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
let investorId: number
let companyId: number
beforeAll(async () => {
  h = await createHarness({ companies: 60 })
  investorId = (h.vdb.sqlite.prepare('select min(id) as id from investors').get() as { id: number }).id
  companyId = (h.vdb.sqlite.prepare('select min(id) as id from companies').get() as { id: number }).id
})
afterAll(async () => { await h?.close() })

async function problem(path: string) {
  const res = await h.get(path)
  const text = await res.text()
  expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(400)
  const body = problemSchema.parse(JSON.parse(text))
  return { ...body, issues: body.issues ?? [] }
}

const brief = (issues: readonly { code: string; path: string; suggestions?: readonly string[] }[]) =>
  issues.map((i) => [i.code, i.path, ...(i.suggestions ? [i.suggestions] : [])])

describe('a near miss of a known parameter name is a 400 with did-you-mean', () => {
  it('GET /companies?contry=USA (the issue\'s example)', async () => {
    const body = await problem('/companies?contry=USA')
    expect(body.issues).toEqual([{
      code: 'unknown_parameter', path: '/contry',
      message: 'GET /companies has no parameter "contry". Did you mean "country"?',
      expected: 'a parameter of GET /companies', got: '"contry"', suggestions: ['country'],
      allowed: expect.arrayContaining(['country', 'stage', 'page', 'per_page', 'sort', 'key']),
    }])
    expect(body.error).toContain('Did you mean "country"?')
  })

  it('typos of one or two edits, a case difference, brackets: each named', async () => {
    const cases: [string, string, string][] = [
      ['/companies?stge=a', '/stge', 'stage'],
      ['/companies?industires=Fintech', '/industires', 'industries'],
      ['/companies?has_moble=1', '/has_moble', 'has_mobile'],
      ['/companies?Country=USA', '/Country', 'country'],
      ['/companies?per-page=5', '/per-page', 'per_page'],
      ['/companies?perpage=5', '/perpage', 'per_page'],
      ['/companies?pages=2', '/pages', 'page'],
      ['/companies?keyword[]=ai', '/keyword', 'keywords'],
      ['/companies?totl_fundng=1~', '/totl_fundng', 'total_funding'],
      ['/fundings?investor_id=3', '/investor_id', 'investor_ids'],
      ['/fundings?serie=seed', '/serie', 'series'],
    ]
    for (const [path, at, meant] of cases) {
      const body = await problem(path)
      expect(brief(body.issues), path).toEqual([['unknown_parameter', at, [meant]]])
    }
  })

  it('reported together with the bad values and the other misspelt names', async () => {
    const body = await problem('/companies?contry=USA&stage=z&employes=5&employees=lots')
    expect(brief(body.issues).map(([code, path]) => [code, path])).toEqual([
      ['unknown_parameter', '/contry'], ['unknown_parameter', '/employes'], ['invalid_value', '/employees'], ['unknown_enum_value', '/stage'],
    ])
  })

  it('every other GET endpoint that takes parameters: search, portfolio, a stored query\'s pages, contact', async () => {
    expect(brief((await problem('/search?term=a&object_type=company')).issues)).toEqual([['unknown_parameter', '/object_type', ['object_types']]])
    expect(brief((await problem('/search?trem=a')).issues).map(([c, p]) => [c, p])).toEqual([['unknown_parameter', '/trem'], ['missing_key', '/term']])
    expect(brief((await problem(`/investors/${investorId}/portfolio?perpage=5`)).issues)).toEqual([['unknown_parameter', '/perpage', ['per_page']]])
    const posted = await h.request('/queries', { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset: 'investors' }) } })
    const { query_id } = await posted.json() as { query_id: string }
    expect(brief((await problem(`/queries/${query_id}?Page=2`)).issues)).toEqual([['unknown_parameter', '/Page', ['page']]])
    expect(brief((await problem(`/companies/${companyId}/contact?fullname=Ann+Lee`)).issues).map(([c, p]) => [c, p]))
      .toEqual([['unknown_parameter', '/fullname'], ['missing_key', '/full_name']])
  })
})

describe('a name far from every known one stays ignored', () => {
  /** Names clients send that are no parameter of the endpoint: tracking, cache busters, other endpoints' parameters. */
  const FOREIGN = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', '_', 'cb', 'callback', 'ref', 'fbclid', 'v', 'ts', 'format',
    'lang', 'q', 'limit', 'offset', 'name', 'id', 'type', 'tag', 'region', 'api_key', 'token', 'sort_by', 'filter[stage]', 'industry']

  it('GET /companies and GET /fundings: the full listing, as without them', async () => {
    const query = FOREIGN.map((n) => `${encodeURIComponent(n)}=x`).join('&')
    const companies = companyListSchema.parse(await h.json(`/companies?${query}&amount=5&city=Berlin&series=seed&investor_ids=1`))
    expect(companies.meta.total_record_count).toBe(companyListSchema.parse(await h.json('/companies')).meta.total_record_count)
    const fundings = fundingListSchema.parse(await h.json(`/fundings?${query}&stage=a&state=CA&domain=x.com&investors=a&employees=5`))
    expect(fundings.meta.total_record_count).toBe(fundingListSchema.parse(await h.json('/fundings')).meta.total_record_count)
  })

  it('the other endpoints too', async () => {
    const query = FOREIGN.map((n) => `${encodeURIComponent(n)}=x`).join('&')
    for (const path of [`/search?term=a&${query}`, `/investors/${investorId}/portfolio?${query}&sort=x`]) {
      expect((await h.get(path)).status, path).toBe(200)
    }
  })

  it('the threshold: case only under 3 characters, 1 edit for 3 to 5, 2 from 6; never a containing name', () => {
    expect([1, 2, 3, 5, 6, 12].map((n) => nearMissDistance('x'.repeat(n)))).toEqual([0, 0, 1, 1, 2, 2])
    expect(nearMisses('ref', ['key'])).toEqual([])
    expect(nearMisses('KEY', ['key'])).toEqual(['key'])
    expect(nearMisses('utm_term', ['term'])).toEqual([])
    expect(nearMisses('name', ['company_name', 'page'])).toEqual([])
    expect(nearMisses('contry', ['country', 'county', 'city'])).toEqual(['country', 'county'])
  })
})

describe('every parameter the endpoints take is accepted, as before', () => {
  it('the spec\'s own example (4.1) and the names of each route\'s OpenAPI parameters', async () => {
    expect((await h.get('/companies?stage=a|b&employees=50~200&industries=Fintech&last_funding_date=raised+in+past+year&country=USA')).status).toBe(200)
    const spec = await h.json('/openapi.json')
    let checked = 0
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      const names = ((item.get?.parameters ?? []) as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name)
      if (names.length === 0 || path.includes('{')) continue
      // Each name sent with an empty value: refused only for its value, never as an unknown name.
      for (const name of names) {
        checked++
        const res = await h.get(`${path}?${name}=`)
        if (res.status === 400) {
          const body = problemSchema.parse(await res.json())
          expect((body.issues ?? []).map((i) => i.code), `${path}?${name}=`).not.toContain('unknown_parameter')
        }
      }
    }
    expect(checked).toBeGreaterThan(40)
  })
})
