/**
 * POST /queries and GET /queries/:query_id (spec 4.14, 4.15, 2.14) through the fetch handler:
 * body forms (JSON, url-encoded, multipart, no content type), content-addressed ids, paging through
 * a stored query, results against direct SQL on the fixture, issues for invalid filters, the body
 * limit, the paging cap and trial rule, and hostile bodies (never a 5xx).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { problemSchema } from '../../src/http/schemas/common.js'
import { queryEnvelopeSchema, queryEnvelopeSchemaFor } from '../../src/http/schemas/queries.js'
import { createHarness, type Harness } from './harness.js'
import { datasets } from '../../src/catalog/index.js'
import { queryResultView } from '../../src/http/views/missing-values.js'

const investorResult = queryResultView(datasets.investors)

let h: Harness
const internalErrors: unknown[] = []
beforeAll(async () => { h = await createHarness({ app: { onInternalError: (e) => { internalErrors.push(e) } } }) })
afterAll(async () => {
  await h.close()
  // No test in this file may reach the fault barrier: every bad input is the client's, so 4xx.
  expect(internalErrors).toEqual([])
})

/** The spec's example (4.14), with the industry as the fixture's vocabulary spells it. */
const SPEC_EXAMPLE = {
  dataset: 'investor',
  filter: { and: [{ portfolio_size: { gte: 10 } }, { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech'] } } } }] },
  sort: [{ portfolio_size: 'desc' }],
}

function post(body: NonNullable<RequestInit['body']>, contentType?: string, options: { key?: string | null } = {}): Promise<Response> {
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {}
  return h.request('/queries', { ...options, init: { method: 'POST', body, headers } })
}
const postJson = (body: unknown, options: { key?: string | null } = {}) => post(JSON.stringify(body), 'application/json', options)

/** A form body with one key per parameter, `filter` and `sort` as JSON text (design section 6). */
function formOf(request: Record<string, unknown>): URLSearchParams {
  const form = new URLSearchParams()
  for (const [k, v] of Object.entries(request)) form.set(k, typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v))
  return form
}

async function envelope(res: Response, dataset: 'investors' | 'companies' | 'fundings' = 'investors') {
  const text = await res.text()
  expect(res.status, text).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = JSON.parse(text)
  queryEnvelopeSchema.parse(body)
  return queryEnvelopeSchemaFor(dataset).parse(body) as any
}

async function problem(res: Response, status: number) {
  const text = await res.text()
  expect(res.status, text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return problemSchema.parse(JSON.parse(text)) as any
}

/** Ids of investors matching the spec example, in its order, computed in SQL without the engine. */
function specExampleIdsBySql(): number[] {
  return (h.vdb.sqlite.prepare(`
    select i.id from investors i
    where i.portfolio_size >= 10
      and exists (select 1 from investments v join company_industries ci on ci.company_id = v.company_id
                  where v.investor_id = i.id and ci.value = 'Fintech')
    order by i.portfolio_size is null, i.portfolio_size desc, i.id asc`).pluck().all() as number[])
}

describe('POST /queries', () => {
  it('runs the spec example: results equal direct SQL on the fixture, envelope per spec 2.14', async () => {
    const expected = specExampleIdsBySql()
    expect(expected.length).toBeGreaterThan(3) // the fixture must make this a real test
    const body = await envelope(await postJson({ ...SPEC_EXAMPLE, per_page: 50 }))
    expect(body.results.map((r: any) => r.investor_id)).toEqual(expected.slice(0, 50))
    expect(body.meta).toEqual({ total_record_count: expected.length, total_pages: Math.ceil(expected.length / 50), current_page: 1, per_page: 50 })
    expect(body.query_id).toBe(body.query.query_id)
    expect(body.query).toMatchObject({ dataset: 'investors', sort: [{ portfolio_size: 'desc' }], query_version: expect.any(Number) })
    expect(body.query.filter).toEqual({
      and: [
        { foreign: { dataset: 'companies', filter: { industries: { has_any: ['Fintech'] } }, match: 'any' } },
        { portfolio_size: { gte: 10 } },
      ],
    })
    // Each record is the 2.11 shape, every field from the row.
    const first = h.vdb.sqlite.prepare('select * from investors where id = ?').get(expected[0]) as any
    expect(body.results[0]).toMatchObject({ investor_id: first.id, name: first.name, portfolio_size: first.portfolio_size, svc_slug: first.svc_slug, resource_type: 'investor' })
  })

  it('shows fundings results as the funding event of spec 2.10, with investors and industry from the tables', async () => {
    const expected = h.vdb.sqlite.prepare(`select id from fundings where series = 'a' and amount >= 1000000
      order by amount is null, amount desc, id asc limit 50`).pluck().all() as number[]
    expect(expected.length).toBeGreaterThan(3)
    const body = await envelope(await postJson({ dataset: 'fundings', filter: { series: 'a', amount: { gte: 1_000_000 } }, sort: [{ amount: 'desc' }], per_page: 50 }), 'fundings')
    expect(body.results.map((r: any) => Number(r.id))).toEqual(expected)
    const slugsOf = h.vdb.sqlite.prepare(`select i.svc_slug from funding_investors fi join investors i on i.id = fi.investor_id where fi.funding_id = ? order by i.svc_slug`).pluck()
    const industriesOf = h.vdb.sqlite.prepare(`select value from company_industries where company_id = ? order by value`).pluck()
    let withInvestors = 0
    for (const r of body.results) {
      expect(r.funding_id).toBe(r.id)
      expect(r.series).toBe('a')
      const slugs = slugsOf.all(Number(r.id)) as string[]
      if (slugs.length > 0) withInvestors++
      expect(r.investor_slugs === '' ? [] : r.investor_slugs.split(',').sort()).toEqual(slugs)
      expect(r.industry === '' ? [] : r.industry.split(', ')).toEqual(industriesOf.all(Number(r.company_id)))
    }
    expect(withInvestors).toBeGreaterThan(0)
  })

  it('stores the query: the id is in stored_queries after the POST', async () => {
    const body = await envelope(await postJson({ dataset: 'investors', filter: { number_of_deals: { gte: 41 } } }))
    expect(await h.servedValue('select dataset from stored_queries where query_id = ?', body.query_id)).toBe('investors')
    expect(await h.servedValue('select query_version from stored_queries where query_id = ?', body.query_id)).toBe(body.query.query_version)
  })

  it('gives the same query_id for JSON, url-encoded, multipart and content-type-less bodies', async () => {
    const json = await envelope(await postJson(SPEC_EXAMPLE))
    const urlencoded = await envelope(await post(formOf(SPEC_EXAMPLE).toString(), 'application/x-www-form-urlencoded'))
    const multipart = new FormData()
    for (const [k, v] of formOf(SPEC_EXAMPLE)) multipart.set(k, v)
    const mp = await envelope(await h.request('/queries', { init: { method: 'POST', body: multipart } }))
    const bareJson = await envelope(await post(JSON.stringify(SPEC_EXAMPLE)))
    const bareForm = await envelope(await post(formOf(SPEC_EXAMPLE).toString(), 'text/plain'))
    for (const other of [urlencoded, mp, bareJson, bareForm]) {
      expect(other.query_id).toBe(json.query_id)
      expect(other.results).toEqual(json.results)
    }
  })

  it('gives the same query_id whatever the key order, array order or duplicate list members', async () => {
    const variants = [
      SPEC_EXAMPLE,
      { sort: [{ portfolio_size: 'desc' }], filter: { and: [{ foreign: { filter: { industries: { in: ['Fintech', 'Fintech'] } }, dataset: 'companies' } }, { portfolio_size: { gte: 10 } }] }, dataset: 'investors' },
      { dataset: 'investors', filter: { and: [{ portfolio_size: { gte: 10 } }, { and: [{ foreign: { dataset: 'companies', filter: { industries: 'Fintech' }, match: 'any' } }] }] }, sort: [{ portfolio_size: 'DESC' }] },
    ]
    const ids = new Set<string>()
    for (const v of variants) ids.add((await envelope(await postJson(v))).query_id)
    expect(ids.size).toBe(1)
    // A different filter is a different id.
    const other = await envelope(await postJson({ ...SPEC_EXAMPLE, filter: { portfolio_size: { gte: 11 } } }))
    expect(ids.has(other.query_id)).toBe(false)
  })

  it('reports the engine\'s issues as 400 with JSON Pointer paths and did-you-mean', async () => {
    const body = await problem(await postJson({ dataset: 'investor', filter: { and: [{ type: 'vc' }, { portfolio_sise: { gte: 3 } }] } }), 400)
    expect(body.issues).toEqual([expect.objectContaining({ code: 'unknown_field', path: '/filter/and/1/portfolio_sise', suggestions: ['portfolio_size'] })])
    expect(body.error).toContain('portfolio_size')

    const many = await problem(await postJson({ dataset: 'investors', filter: { type: 'v c', portfolio_size: { gte: 'ten' } }, sort: [{ nme: 'asc' }] }), 400)
    const codes = many.issues.map((i: any) => `${i.code} ${i.path}`).sort()
    expect(codes).toEqual(['invalid_value /filter/portfolio_size/gte', 'unknown_enum_value /filter/type', 'unknown_field /sort/0/nme'].sort())

    const dataset = await problem(await postJson({ dataset: 'investers' }), 400)
    expect(dataset.issues[0]).toMatchObject({ code: 'unknown_dataset', path: '/dataset' })
    expect(dataset.issues[0].suggestions).toContain('investors')

    const missing = await problem(await postJson({ filter: {} }), 400)
    expect(missing.issues[0]).toMatchObject({ code: 'missing_key', path: '/dataset' })
  })

  it('answers a structural issue (a bad sort direction) and a semantic one (an unknown field) together', async () => {
    const request = { dataset: 'companies', filter: { contry: 'USA' }, sort: [{ name: 'upwards' }] }
    for (const res of [await postJson(request), await post(formOf(request), 'application/x-www-form-urlencoded')]) {
      const body = await problem(res, 400)
      expect(body.issues.map((i: any) => [i.code, i.path])).toEqual([['invalid_sort', '/sort/0/name'], ['unknown_field', '/filter/contry']])
      expect(body.issues[1].suggestions[0]).toBe('country')
    }
  })

  it('refuses invalid JSON with a 400 naming the body, and a form field with invalid JSON naming the field', async () => {
    const body = await problem(await post('{"dataset": "investors", ', 'application/json'), 400)
    expect(body.issues[0]).toMatchObject({ code: 'invalid_json', path: '' })
    expect(body.error).toMatch(/not valid JSON/)
    const field = await problem(await post('dataset=investors&filter=%7Bportfolio_size', 'application/x-www-form-urlencoded'), 400)
    expect(field.issues[0]).toMatchObject({ code: 'invalid_json', path: '/filter' })
    const sort = await problem(await post('dataset=investors&sort=desc', 'application/x-www-form-urlencoded'), 400)
    expect(sort.issues[0]).toMatchObject({ code: 'invalid_json', path: '/sort' })
    const bad = await problem(await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 'application/json'), 400)
    expect(bad.error).toMatch(/UTF-8/)
  })

  it('refuses a form field sent twice with different values, and accepts blank filter/sort fields as absent', async () => {
    const twice = await problem(await post('dataset=investors&dataset=companies', 'application/x-www-form-urlencoded'), 400)
    expect(twice.issues[0]).toMatchObject({ code: 'invalid_value', path: '/dataset' })
    const blank = await envelope(await post('dataset=investors&filter=&sort=', 'application/x-www-form-urlencoded'))
    const none = await envelope(await postJson({ dataset: 'investors' }))
    expect(blank.query_id).toBe(none.query_id)
  })

  it('answers on /queries/ too (trailing slash), with a query string that starts with ?&', async () => {
    const res = await h.request('/queries/?&', { init: { method: 'POST', body: JSON.stringify({ dataset: 'investors', per_page: 3 }), headers: { 'content-type': 'application/json' } } })
    expect((await envelope(res)).results).toHaveLength(3)
  })

  it('ignores a `key` member in the body (authentication reads the query string or the header)', async () => {
    const body = await envelope(await postJson({ dataset: 'investors', key: 'whatever' }))
    expect(body.meta.total_record_count).toBe((h.vdb.sqlite.prepare('select count(*) from investors').pluck().get() as number))
  })

  it('refuses a body over maxBodyBytes with 413, by Content-Length and by what is read', async () => {
    const limit = h.engine.limits.maxBodyBytes
    const big = JSON.stringify({ dataset: 'companies', filter: { name: 'x'.repeat(limit) } })
    const declared = await problem(await postJson(JSON.parse(big)), 413)
    expect(declared.issues[0]).toMatchObject({ code: 'limit_exceeded', path: '' })
    expect(declared.error).toContain(`${limit} bytes`)
    // A streamed body has no Content-Length: the limit is enforced while reading.
    const bytes = new TextEncoder().encode(big)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 65536) controller.enqueue(bytes.subarray(i, i + 65536))
        controller.close()
      },
    })
    const streamed = await h.request('/queries', { init: { method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit })
    expect((await problem(streamed, 413)).error).toContain(`more than ${limit} bytes`)
    // Just under the limit passes the body reader and the engine judges the query. Single strings
    // are capped at maxStringLength, so the bulk is a list of 100-character names.
    const names: string[] = []
    const underOf = () => JSON.stringify({ dataset: 'companies', filter: { name: { in: names } } })
    while (underOf().length < limit - 300) names.push(String(names.length).padStart(100, 'x'))
    expect(names.length).toBeLessThanOrEqual(h.engine.limits.maxListLength)
    const under = underOf()
    expect(new TextEncoder().encode(under).length).toBeLessThanOrEqual(limit)
    // One this large is over maxStoredQueryBytes (grammar-docs, "Stored queries"): a 400 that
    // names that limit, not a 413; a quarter of it is stored.
    const judged = await problem(await postJson(JSON.parse(under)), 400)
    expect(judged.issues[0]).toMatchObject({ code: 'limit_exceeded', path: '/filter' })
    expect(judged.issues[0].message).toContain('(maxStoredQueryBytes)')
    names.length = Math.floor(names.length / 4)
    expect((await postJson(JSON.parse(underOf()))).status).toBe(200)
  })

  it('lowers per_page above the cap to the cap and shows it in meta', async () => {
    const body = await envelope(await postJson({ dataset: 'companies', per_page: 500 }), 'companies')
    expect(body.meta.per_page).toBe(h.engine.limits.maxPerPage)
    expect(body.results).toHaveLength(h.engine.limits.maxPerPage)
    const form = await envelope(await post('dataset=companies&per_page=500&page=2', 'application/x-www-form-urlencoded'), 'companies')
    expect(form.meta).toMatchObject({ per_page: h.engine.limits.maxPerPage, current_page: 2 })
  })

  it('refuses bad paging values with a 400 naming the parameter', async () => {
    for (const [page, per_page, path] of [[0, 5, '/page'], ['two', 5, '/page'], [1, -1, '/per_page'], [1, 2.5, '/per_page'], [[1], 5, '/page'], [1, null, '/per_page']] as const) {
      const body = await problem(await postJson({ dataset: 'investors', page, per_page }), 400)
      expect(body.issues[0]).toMatchObject({ code: 'invalid_page', path })
    }
  })

  it('gives a trial key page 1 (at most 50 results) and refuses page 2 with 403 saying why', async () => {
    const first = await envelope(await postJson({ dataset: 'companies', per_page: 500 }, { key: h.trialKey }), 'companies')
    expect(first.results.length).toBeLessThanOrEqual(50)
    expect(first.meta.per_page).toBeLessThanOrEqual(50)
    const second = await problem(await postJson({ dataset: 'companies', page: 2 }, { key: h.trialKey }), 403)
    expect(second.error).toMatch(/Trial keys receive the first page only/)
  })
})

describe('GET /queries/:query_id', () => {
  it('pages through a stored query: pages equal the engine\'s and, joined, direct SQL', async () => {
    const posted = await envelope(await postJson({ ...SPEC_EXAMPLE, per_page: 4 }))
    const expected = specExampleIdsBySql()
    const seen: number[] = []
    for (let page = 1; page <= posted.meta.total_pages + 1; page++) {
      const body = await envelope(await h.get(`/queries/${posted.query_id}?page=${page}&per_page=4`))
      const direct = await h.engine.page(posted.query_id, { page, per_page: 4 })
      if (!direct.ok) throw new Error('engine.page failed')
      // The engine's records with missing values shown by the rule of every endpoint (grammar-docs/guides/serving.md, "Missing values");
      // the engine's `cost` travels in the X-Query-Cost header, not in the body.
      const { cost: _inHeader, ...page1 } = direct.value
      expect(body).toEqual(JSON.parse(JSON.stringify({ ...page1, results: direct.value.results.map(investorResult) })))
      expect(body.meta).toEqual({ total_record_count: expected.length, total_pages: Math.ceil(expected.length / 4), current_page: page, per_page: 4 })
      expect(body.query).toEqual(posted.query)
      seen.push(...body.results.map((r: any) => r.investor_id))
    }
    expect(seen).toEqual(expected)
  })

  it('pages at the per_page the query was posted with when the request gives none, and at the given one otherwise', async () => {
    const request = { dataset: 'companies', filter: { employees: { gte: 2 } }, sort: [{ employees: 'desc' }] }
    const twenty = await envelope(await postJson({ ...request, per_page: 20 }), 'companies')
    const posted = await envelope(await postJson({ ...request, per_page: 5 }), 'companies')
    expect(posted.results).toEqual(twenty.results.slice(0, 5))
    const second = await envelope(await h.get(`/queries/${posted.query_id}?page=2`), 'companies')
    expect(second.meta).toMatchObject({ current_page: 2, per_page: 5 })
    expect(second.results).toEqual(twenty.results.slice(5, 10))
    const given = await envelope(await h.get(`/queries/${posted.query_id}?page=2&per_page=20`), 'companies')
    expect(given.meta.per_page).toBe(20)
  })

  it('defaults to page 1 and the default per_page, caps per_page, and works with a trailing slash', async () => {
    const posted = await envelope(await postJson({ dataset: 'companies', filter: { stage: { in: ['a', 'b'] } } }), 'companies')
    const plain = await envelope(await h.get(`/queries/${posted.query_id}/`), 'companies')
    expect(plain.meta).toMatchObject({ current_page: 1, per_page: h.engine.limits.defaultPerPage })
    const expectedTotal = h.vdb.sqlite.prepare(`select count(*) from companies where stage in ('a', 'b')`).pluck().get()
    expect(plain.meta.total_record_count).toBe(expectedTotal)
    expect(plain.results.every((r: any) => r.stage === 'a' || r.stage === 'b')).toBe(true)
    const capped = await envelope(await h.get(`/queries/${posted.query_id}?per_page=100000`), 'companies')
    expect(capped.meta.per_page).toBe(h.engine.limits.maxPerPage)
  })

  it('answers an unknown id with 404 naming /query_id', async () => {
    const body = await problem(await h.get('/queries/AAAAAAAAAAAAAAAAAAAAAA'), 404)
    expect(body.issues[0]).toMatchObject({ code: 'unknown_query', path: '/query_id' })
    expect((await problem(await h.get(`/queries/${'z'.repeat(10_000)}`), 404)).issues[0].code).toBe('unknown_query')
  })

  it('answers a stored query of another query_version with 400 query_outdated', async () => {
    const posted = await envelope(await postJson({ dataset: 'investors', filter: { type: 'angel' } }))
    await h.mutate('update stored_queries set query_version = 1 where query_id = ?', posted.query_id)
    const body = await problem(await h.get(`/queries/${posted.query_id}`), 400)
    expect(body.issues[0]).toMatchObject({ code: 'query_outdated' })
    expect(body.error).toMatch(/Post its filter again/)
    // Posting it again is idempotent on the id, so the stored row is not refreshed: it stays outdated.
    await h.mutate('update stored_queries set query_version = ? where query_id = ?', posted.query.query_version, posted.query_id)
  })

  it('refuses bad or repeated paging parameters with 400, and a trial key\'s page 2 with 403', async () => {
    const posted = await envelope(await postJson({ dataset: 'investors' }))
    for (const [qs, path] of [['page=0', '/page'], ['page=-1', '/page'], ['per_page=abc', '/per_page'], ['page=1&page=2', '/page'], ['page=99999999999999999999', '/page']] as const) {
      const body = await problem(await h.get(`/queries/${posted.query_id}?${qs}`), 400)
      expect(body.issues[0].path).toBe(path)
    }
    expect((await h.get(`/queries/${posted.query_id}?page=1`, { key: h.trialKey })).status).toBe(200)
    const trial = await problem(await h.get(`/queries/${posted.query_id}?page=2`, { key: h.trialKey }), 403)
    expect(trial.error).toMatch(/Trial keys/)
  })
})

describe('hostile input: 4xx or 200, never 5xx', () => {
  const deepAnd = (n: number): string => '{"and":['.repeat(n) + '{"portfolio_size":1}' + ']}'.repeat(n)
  const bodies: Array<[string, NonNullable<RequestInit['body']>, string | undefined]> = [
    ['10,000 levels of nested arrays', '['.repeat(10_000) + ']'.repeat(10_000), 'application/json'],
    ['10,000 levels of nested and', `{"dataset":"investors","filter":${deepAnd(10_000)}}`, 'application/json'],
    ['100,000 levels of nested objects', '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000), 'application/json'],
    ['a 20,000-member in list (over maxListLength)', JSON.stringify({ dataset: 'investors', filter: { investor_id: { in: Array.from({ length: 20_000 }, (_, i) => i) } } }), 'application/json'],
    ['a 9,000-member in list (within the limits)', JSON.stringify({ dataset: 'investors', filter: { investor_id: { in: Array.from({ length: 9_000 }, (_, i) => i * 7) } } }), 'application/json'],
    ['a 200,000-member in list (over the body limit)', JSON.stringify({ dataset: 'investors', filter: { investor_id: { in: Array.from({ length: 200_000 }, (_, i) => i) } } }), 'application/json'],
    ['50,000 and children', JSON.stringify({ dataset: 'investors', filter: { and: Array.from({ length: 50_000 }, () => ({ type: 'vc' })) } }), 'application/json'],
    ['SQL in a field name', JSON.stringify({ dataset: 'investors', filter: { 'name; drop table investors; --': 'x' } }), 'application/json'],
    ['SQL in a value', JSON.stringify({ dataset: 'investors', filter: { name: "x' or 1=1; drop table investors; --" } }), 'application/json'],
    ['SQL in the dataset', JSON.stringify({ dataset: 'investors; drop table investors' }), 'application/json'],
    ['SQL in a sort field', JSON.stringify({ dataset: 'investors', sort: [{ '1; drop table investors': 'asc' }] }), 'application/json'],
    ['SQL in a sort direction', JSON.stringify({ dataset: 'investors', sort: [{ name: 'asc; drop table investors' }] }), 'application/json'],
    ['__proto__ keys', '{"dataset":"investors","filter":{"__proto__":{"gte":1}},"__proto__":{"x":1}}', 'application/json'],
    ['constructor as a field', JSON.stringify({ dataset: 'investors', filter: { constructor: { gte: 1 } } }), 'application/json'],
    ['a 10,000-character value', JSON.stringify({ dataset: 'investors', filter: { name: 'ä'.repeat(10_000) } }), 'application/json'],
    ['a 10,000-character field name', JSON.stringify({ dataset: 'investors', filter: { ['f'.repeat(10_000)]: 1 } }), 'application/json'],
    ['a NUL byte in a value', JSON.stringify({ dataset: 'investors', filter: { name: 'a\u0000b' } }), 'application/json'],
    ['a NUL byte in a field name', JSON.stringify({ dataset: 'investors', filter: { 'na\u0000me': 'x' } }), 'application/json'],
    ['a lone surrogate', '{"dataset":"investors","filter":{"name":"\\ud800"}}', 'application/json'],
    ['huge numbers', JSON.stringify({ dataset: 'investors', filter: { portfolio_size: { gte: 1e308 } }, page: 1e300, per_page: 1e300 }), 'application/json'],
    ['negative numbers', JSON.stringify({ dataset: 'investors', filter: { portfolio_size: { between: [-1e20, -1] } }, page: -5 }), 'application/json'],
    ['an array where a scalar is expected', JSON.stringify({ dataset: ['investors'], page: [1], per_page: { n: 1 } }), 'application/json'],
    ['a filter that is an array', JSON.stringify({ dataset: 'investors', filter: [1, 2] }), 'application/json'],
    ['a filter that is a string', JSON.stringify({ dataset: 'investors', filter: 'portfolio_size > 1' }), 'application/json'],
    ['null body', 'null', 'application/json'],
    ['a number body', '42', 'application/json'],
    ['an empty body', '', 'application/json'],
    ['an empty body without content type', '', undefined],
    ['form: bad percent-encoding', 'dataset=%E0%A4%A&filter=%7B%22name%22%3A%22%E0%A4%A%22%7D', 'application/x-www-form-urlencoded'],
    ['form: NUL bytes', 'dataset=investors%00&filter=%7B%22name%22%3A%22a%00%22%7D', 'application/x-www-form-urlencoded'],
    ['form: SQL in keys', "dataset=investors&filter%3B%20drop%20table%20x=1&'%20or%201=1=2", 'application/x-www-form-urlencoded'],
    ['form: deep filter', `dataset=investors&filter=${encodeURIComponent(deepAnd(10_000))}`, 'application/x-www-form-urlencoded'],
    ['form: per_page huge', 'dataset=investors&per_page=999999999999999999999999&page=1', 'application/x-www-form-urlencoded'],
    ['multipart with a broken boundary', '--x\r\nContent-Disposition: form-data; name="dataset"\r\n\r\ninvestors', 'multipart/form-data; boundary=y'],
    ['multipart without a boundary', 'dataset=investors', 'multipart/form-data'],
    ['binary junk without content type', new Uint8Array([0, 255, 1, 254, 0x7b]), undefined],
    ['an unknown content type with JSON', JSON.stringify({ dataset: 'investors' }), 'application/x-weird'],
  ]
  it.each(bodies)('%s', async (_name, body, contentType) => {
    const res = await post(body, contentType)
    expect(res.status).toBeLessThan(500)
    if (res.status !== 200) await problem(res, res.status)
    else queryEnvelopeSchema.parse(await res.json())
  })

  it('a file upload in a multipart field is refused', async () => {
    const form = new FormData()
    form.set('dataset', new Blob(['investors']), 'dataset.txt')
    const body = await problem(await h.request('/queries', { init: { method: 'POST', body: form } }), 400)
    expect(body.issues[0]).toMatchObject({ code: 'invalid_type', path: '/dataset' })
  })

  it('the tables the SQL fragments named are still there', () => {
    expect(h.vdb.sqlite.prepare('select count(*) from investors').pluck().get()).toBeGreaterThan(0)
  })

  const ids: Array<[string, string]> = [
    ['SQL', "' or '1'='1"], ['bad percent-encoding', '%E0%A4%A'], ['path traversal', '..%2F..%2Fetc%2Fpasswd'], ['a NUL byte', 'a%00b'],
    ['10,000 characters', encodeURIComponent('x'.repeat(10_000))], ['an emoji', '%F0%9F%92%A9'], ['a negative number', '-1'], ['a huge number', '1e999'],
  ]
  it.each(ids)('GET /queries/<%s> is 404', async (_name, id) => {
    const res = await h.get(`/queries/${id}?page=1`)
    expect(res.status).toBe(404)
    await problem(res, 404)
  })

  const paging = ['page=%E0%A4%A', 'per_page=%00', 'page[]=1&page[]=2', 'per_page=1e3', 'page=0x10', `page=${'9'.repeat(10_000)}`, 'page=-0', 'per_page= 5 ']
  it.each(paging)('GET /queries/:id?%s is 4xx or 200', async (qs) => {
    const posted = await envelope(await postJson({ dataset: 'investors' }))
    const res = await h.get(`/queries/${posted.query_id}?${qs}`)
    expect(res.status).toBeLessThan(500)
    if (res.status !== 200) await problem(res, res.status)
  })
})
