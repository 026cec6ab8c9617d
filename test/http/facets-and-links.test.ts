/**
 * Facets (`facets`, `facet_limit`), pages without totals (`total=none`, `count=false`) and the
 * `Link` header on GET /companies, GET /fundings, POST /queries and GET /queries/:id, on the
 * fixture: facet counts against direct SQL on the SQLite fixture, the response schemas, the Link
 * relations at first, middle and last pages with and without a total, the API key kept out of
 * every link, and the 400s naming the parameter.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { problemSchema } from '../../src/http/schemas/common.js'
import { companyListPageSchema, companyListSchema, fundingListPageSchema, fundingListSchema } from '../../src/http/schemas/listings.js'
import { queryPageSchema } from '../../src/http/schemas/queries.js'
import { BASE, createHarness } from './harness.js'

const h = await createHarness()
afterAll(async () => { await h.close() })

const rows = <T = Record<string, unknown>>(query: string, ...args: unknown[]): T[] => h.vdb.sqlite.prepare(query).all(...args) as T[]

/** A facet computed by hand in SQL on the fixture: groups ranked by count desc, value asc (byte order). */
function expectedFacet(groups: { value: string | null; n: number }[], limit: number) {
  const values = groups.filter((g) => g.value !== null).map((g) => ({ value: g.value!, count: g.n }))
    .sort((a, b) => b.count - a.count || Buffer.compare(Buffer.from(a.value), Buffer.from(b.value)))
  return {
    values: values.slice(0, limit),
    other: values.slice(limit).reduce((s, v) => s + v.count, 0),
    missing: groups.filter((g) => g.value === null).reduce((s, g) => s + g.n, 0),
  }
}

/** The links of a Link header by relation. */
function links(res: Response): Record<string, URL> {
  const header = res.headers.get('link') ?? ''
  const out: Record<string, URL> = {}
  for (const part of header.split(/,\s*(?=<)/)) {
    const m = /^<([^>]+)>;\s*rel="([a-z]+)"$/.exec(part.trim())
    if (m) out[m[2]!] = new URL(m[1]!)
  }
  return out
}

async function problem(res: Response, status = 400) {
  expect(res.status).toBe(status)
  return problemSchema.parse(await res.json())
}

describe('facets on the listings', () => {
  test('GET /companies: counts per value under the filter equal direct SQL, with other and missing', async () => {
    const res = await h.get('/companies?stage=a|b&facets=country,industries,last_funding_date&facet_limit=3')
    expect(res.status).toBe(200)
    const body = companyListSchema.parse(await res.json())
    const where = "stage in ('a', 'b')"
    const total = rows<{ n: number }>(`select count(*) as n from companies where ${where}`)[0]!.n
    expect(body.meta.total_record_count).toBe(total)
    expect(Object.keys(body.facets!)).toEqual(['country', 'industries', 'last_funding_date'])
    expect(body.facets!.country).toEqual(expectedFacet(rows(`select country as value, count(*) as n from companies where ${where} group by country`), 3))
    expect(body.facets!.industries).toEqual(expectedFacet(rows(
      `select ci.value as value, count(*) as n from companies c left join company_industries ci on ci.company_id = c.id where ${where.replace('stage', 'c.stage')} group by ci.value`), 3))
    expect(body.facets!.last_funding_date).toEqual(expectedFacet(rows(
      `select substr(last_funding_date, 1, 4) as value, count(*) as n from companies where ${where} group by 1`), 3))
    // Non-trivial: values beyond the limit, and records without a value.
    expect(body.facets!.industries!.other).toBeGreaterThan(0)
    expect(Object.values(body.facets!).some((f) => f.missing > 0), 'some facet counts records without a value').toBe(true)
    const country = body.facets!.country!
    expect(country.values.reduce((s, v) => s + v.count, 0) + country.other + country.missing).toBe(total)
  })

  test('GET /fundings: the default limit is 10, and a single-valued facet sums to the total', async () => {
    const body = fundingListSchema.parse(await h.json('/fundings?facets=series|rounds_funding_date'))
    expect(fundingListPageSchema.safeParse(body).success).toBe(true)
    const series = body.facets!.series!
    expect(series.values.length).toBe(10)
    expect(series.values.reduce((s, v) => s + v.count, 0) + series.other + series.missing).toBe(body.meta.total_record_count)
    expect(series).toEqual(expectedFacet(rows('select series as value, count(*) as n from fundings group by series'), 10))
  })

  test('an unknown or unfacetable field, and a bad limit, are 400s naming the parameter', async () => {
    const unknown = await problem(await h.get('/companies?facets=stage,industrys'))
    expect(unknown.issues).toEqual([expect.objectContaining({ code: 'unknown_field', path: '/facets', suggestions: ['industries'] })])
    const name = await problem(await h.get('/companies?facets=name'))
    expect(name.issues![0]).toMatchObject({ code: 'not_facetable', path: '/facets' })
    expect(name.issues![0]!.allowed).toContain('stage')
    const limit = await problem(await h.get('/fundings?facets=series&facet_limit=101'))
    expect(limit.issues![0]).toMatchObject({ code: 'limit_exceeded', path: '/facet_limit' })
    const zero = await problem(await h.get('/fundings?facets=series&facet_limit=0'))
    expect(zero.issues![0]).toMatchObject({ code: 'invalid_value', path: '/facet_limit' })
    const empty = await problem(await h.get('/fundings?facets='))
    expect(empty.issues![0]).toMatchObject({ code: 'empty_list', path: '/facets' })
  })
})

describe('pages without totals', () => {
  test('total=none and count=false: the same records, meta without total_record_count and total_pages', async () => {
    const counted = companyListSchema.parse(await h.json('/companies?stage=a|b|c&per_page=7&page=2'))
    for (const option of ['total=none', 'count=false', 'total=NONE']) {
      const res = await h.get(`/companies?stage=a|b|c&per_page=7&page=2&${option}`)
      expect(res.status).toBe(200)
      const body = companyListPageSchema.parse(await res.json())
      expect(body.meta).toEqual({ current_page: 2, per_page: 7 })
      expect(body.companies).toEqual(counted.companies)
    }
  })

  test('a bad total or count value is a 400 naming it', async () => {
    expect((await problem(await h.get('/companies?total=some'))).issues![0]).toMatchObject({ code: 'invalid_value', path: '/total' })
    expect((await problem(await h.get('/fundings?count=no'))).issues![0]).toMatchObject({ code: 'invalid_value', path: '/count' })
  })
})

describe('Link headers', () => {
  test('a middle page links next, prev, first and last; absolute, without the key', async () => {
    const res = await h.get('/companies?stage=a|b&per_page=5&page=2')
    const body = companyListSchema.parse(await res.json())
    expect(body.meta.total_pages).toBeGreaterThan(2)
    const l = links(res)
    expect(Object.keys(l).sort()).toEqual(['first', 'last', 'next', 'prev'])
    for (const url of Object.values(l)) {
      expect(url.origin).toBe(BASE)
      expect(url.pathname).toBe('/companies')
      expect(url.searchParams.has('key')).toBe(false)
      expect(url.searchParams.get('stage')).toBe('a|b')
      expect(url.searchParams.get('per_page')).toBe('5')
    }
    expect(res.headers.get('link')).not.toContain(h.fullKey)
    expect([l.next, l.prev, l.first, l.last].map((u) => u!.searchParams.get('page'))).toEqual(['3', '1', '1', String(body.meta.total_pages)])
    // Following `last` gives the last page, which has no next.
    const last = await h.get(`${l.last!.pathname}${l.last!.search}`)
    expect(Object.keys(links(last)).sort()).toEqual(['first', 'last', 'prev'])
  })

  test('without a total: next while pages are full, never last', async () => {
    const total = rows<{ n: number }>("select count(*) as n from companies where stage in ('a', 'b')")[0]!.n
    const lastPage = Math.ceil(total / 5)
    const full = links(await h.get('/companies?stage=a|b&per_page=5&page=1&total=none'))
    expect(Object.keys(full).sort()).toEqual(['first', 'next'])
    expect(full.next!.searchParams.get('total')).toBe('none')
    const end = links(await h.get(`/companies?stage=a|b&per_page=5&page=${lastPage}&total=none`))
    expect(Object.keys(end).sort()).toEqual(total % 5 === 0 ? ['first', 'next', 'prev'] : ['first', 'prev'])
  })

  test('a trial key is not sent on to page 2', async () => {
    const l = links(await h.get('/fundings?per_page=5', { key: h.trialKey }))
    expect(Object.keys(l).sort()).toEqual(['first', 'last'])
  })
})

describe('stored queries', () => {
  const request = { dataset: 'companies', filter: { employees: { gte: 5 } }, per_page: 10 }
  const post = (body: unknown) => h.request('/queries', { init: { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } })

  test('POST with facets and total=none: the same id as without, facets, meta without total, Link to GET /queries/:id', async () => {
    const plain = queryPageSchema.parse(await (await post(request)).json()) as { query_id: string; meta: { total_record_count: number } }
    const res = await post({ ...request, facets: ['stage', 'industries'], facet_limit: 2, total: 'none' })
    expect(res.status).toBe(200)
    const body = queryPageSchema.parse(await res.json()) as { query_id: string; meta: object; facets: Record<string, { values: unknown[] }> }
    expect(body.query_id).toBe(plain.query_id)
    expect(body.meta).toEqual({ current_page: 1, per_page: 10 })
    expect(body.facets.stage!.values).toHaveLength(2)
    const l = links(res)
    expect(l.next!.pathname).toBe(`/queries/${plain.query_id}`)
    expect(l.next!.searchParams.get('page')).toBe('2')
    expect(l.next!.searchParams.get('facets')).toBe('stage,industries')
    expect(l.last).toBeUndefined()
    // GET with the same options answers the facets of the stored query.
    const got = await h.get(`${l.next!.pathname}${l.next!.search}`)
    const page2 = queryPageSchema.parse(await got.json()) as typeof body
    expect(page2.meta).toEqual({ current_page: 2, per_page: 10 })
    expect(page2.facets).toEqual(body.facets)
    const counted = await h.json(`/queries/${plain.query_id}?facets=stage`)
    expect(counted.facets.stage.values.reduce((s: number, v: { count: number }) => s + v.count, 0) + counted.facets.stage.other + counted.facets.stage.missing)
      .toBe(plain.meta.total_record_count)
    expect(Object.keys(links(await h.get(`/queries/${plain.query_id}`)))).toContain('last')
  })

  test('a bad facet in a body is a 400 at its element, before the query is stored', async () => {
    const bad = await problem(await post({ ...request, filter: { employees: { gte: 7 } }, facets: ['stage', 'nme'] }))
    expect(bad.issues![0]).toMatchObject({ code: 'unknown_field', path: '/facets/1' })
    const bad2 = await problem(await post({ ...request, count: 'maybe' }))
    expect(bad2.issues![0]).toMatchObject({ code: 'invalid_value', path: '/count' })
  })
})
