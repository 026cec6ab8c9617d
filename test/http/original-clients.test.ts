/**
 * Requests exactly as the original service's public PHP client builds them
 * (RapidSoftwareSolutions/Marketplace-Mattermark-Package, src/routes/*.php): its own parameter
 * names (`mattermark_score`, `has_google_play`, `has_itunes`, `itunes_category`), a start date
 * alone for `added_date` and `funding_date_range`, `?&` at the start, lists as repeated keys, the
 * key as `Authorization: Bearer`, and `GET /ratelimit/quota`. Each answer must equal the answer
 * to the same request in the spec's names, and select what direct SQL on the fixture says. Also:
 * an empty parameter value is absent.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { companyListSchema, fundingListSchema } from '../../src/http/schemas/listings.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { usageResponseSchema } from '../../src/http/schemas/usage.js'
import { LIST_PARAMETERS } from '../../src/parse/list-params.js'
import { createHarness } from './harness.js'

const h = await createHarness()
afterAll(async () => { await h.close() })

const rows = <T = Record<string, unknown>>(query: string, ...args: unknown[]): T[] => h.vdb.sqlite.prepare(query).all(...args) as T[]
const companyIds = (where: string, ...args: unknown[]) => rows<{ id: number }>(`select id from companies where ${where} order by id`, ...args).map((r) => r.id)
const fundingIds = (where: string, ...args: unknown[]) => rows<{ id: number }>(`select id from fundings where ${where} order by id`, ...args).map((r) => r.id)
const TOTAL_COMPANIES = companyIds('1').length

type Args = Record<string, string | readonly string[]>

/**
 * getCompaniesList.php: its arguments (the client's camelCase names) → the query string it sends.
 * The tables and the order are the package's: `$optionalParams` renames, `$bodyParams['query']`
 * orders, `has_*` become 1/0 from 'true'/other, `stage` and `est_founding_date` are pipe-joined,
 * the `$exValue` lists repeat their key, and a start date without an end is sent alone.
 */
function phpCompaniesList(args: Args): string {
  const rename: Record<string, string> = {
    location: 'location', domain: 'domain', companyName: 'company_name', mattermarkScore: 'mattermark_score', momentumScore: 'momentum_score',
    employees: 'employees', estFoundingDates: 'est_founding_date', stages: 'stage', hasGooglePlay: 'has_google_play', hasItunes: 'has_itunes',
    playCategory: 'play_category', itunesCategory: 'itunes_category', businessModels: 'business_models', industries: 'industries',
    keywords: 'keywords', page: 'page', perPage: 'per_page',
  }
  const order = ['domain', 'company_name', 'added_date', 'mattermark_score', 'momentum_score', 'employees', 'est_founding_date', 'stage', 'investors',
    'total_funding', 'last_funding_date', 'last_funding_amount', 'location', 'state', 'has_google_play', 'has_itunes', 'play_category', 'itunes_category',
    'business_models', 'industries', 'keywords', 'page', 'per_page']
  const repeated = ['location', 'state', 'play_category', 'itunes_category', 'business_models', 'industries', 'keywords']
  const data: Record<string, string | readonly string[]> = {}
  for (const [k, v] of Object.entries(args)) if (rename[k] && v !== '' && v.length !== 0) data[rename[k]!] = v
  for (const k of ['est_founding_date', 'stage']) if (Array.isArray(data[k])) data[k] = (data[k] as string[]).join('|')
  for (const k of ['has_google_play', 'has_itunes']) if (data[k] !== undefined) data[k] = data[k] === 'true' ? '1' : '0'
  const query: [string, string | readonly string[]][] = order.filter((k) => data[k] !== undefined).map((k) => [k, data[k]!])
  const start = args.startAddedDate as string | undefined
  const end = args.endAddedDate as string | undefined
  if (start && !end) query.push(['added_date', start])
  if (start && end) query.push(['added_date', `${start}~${end}`])
  let qs = '/companies?'
  for (const [k, v] of query) {
    if (repeated.includes(k)) for (const one of v as readonly string[]) qs += `&${k}=${one}`
    else qs += `&${k}=${v as string}`
  }
  // Guzzle sends the URI as built, spaces percent-encoded.
  return qs.replace(/ /g, '%20')
}

/** getListOfFundingEvents.php: the start date goes first, alone when there is no end date. */
function phpFundingEvents(args: Args): string {
  let qs = '/fundings?'
  const start = args.startFundingDate as string | undefined
  const end = args.endFundingDate as string | undefined
  if (start && !end) qs += `funding_date_range=${start}&`
  if (start && end) qs += `funding_date_range=${start}~${end}&`
  const rename: Record<string, string> = { amount: 'amount', cities: 'city', countries: 'country', series: 'series', page: 'page', perPage: 'per_page' }
  for (const k of ['amount', 'cities', 'countries', 'series', 'page', 'perPage']) {
    const v = args[k]
    if (v === undefined || v === '') continue
    qs += `&${rename[k]}=${Array.isArray(v) ? v.join('|') : v as string}`
  }
  return qs.replace(/ /g, '%20')
}

async function companies(path: string) {
  const res = await h.get(path, { bearer: true })
  expect(res.status, path).toBe(200)
  const body = companyListSchema.parse(await res.json())
  return { total: body.meta.total_record_count, ids: body.companies.map((c) => Number(c.id)) }
}

async function allCompanyIds(path: string): Promise<number[]> {
  const out: number[] = []
  for (let page = 1; ; page++) {
    const body = companyListSchema.parse(await h.json(`${path}&per_page=50&page=${page}`))
    out.push(...body.companies.map((c) => Number(c.id)))
    if (page >= body.meta.total_pages) break
  }
  return out.sort((a, b) => a - b)
}

const topIosCategory = rows<{ value: string }>('select value from company_ios_store_categories group by value order by count(*) desc, value limit 1')[0]!.value
const midAddedDate = rows<{ d: string }>('select substr(added_date, 1, 10) as d from companies order by added_date limit 1 offset ?', Math.floor(TOTAL_COMPANIES / 2))[0]!.d
const midFundingDate = rows<{ d: string }>('select rounds_funding_date as d from fundings where rounds_funding_date is not null order by rounds_funding_date limit 1 offset (select count(*) / 3 from fundings)')[0]!.d

describe('getCompaniesList.php: the original names and a lone start date select what the spec names do', () => {
  const cases: [string, Args, string, string, unknown[]][] = [
    ['hasItunes true', { hasItunes: 'true', perPage: '50' }, 'has_ios_store=1', 'has_ios_store = 1', []],
    ['hasItunes false', { hasItunes: 'false', perPage: '50' }, 'has_ios_store=0', 'has_ios_store = 0', []],
    ['hasGooglePlay true', { hasGooglePlay: 'true', perPage: '50' }, 'has_android_store=1', 'has_android_store = 1', []],
    ['mattermarkScore', { mattermarkScore: '400~', perPage: '50' }, 'svc_score=400~', 'svc_score >= 400', []],
    ['itunesCategory', { itunesCategory: [topIosCategory], perPage: '50' }, `ios_store_category=${topIosCategory}`, 'id in (select company_id from company_ios_store_categories where value = ?)', [topIosCategory]],
    ['startAddedDate alone', { startAddedDate: midAddedDate, perPage: '50' }, `added_date=${midAddedDate}~`, 'added_date >= ?', [`${midAddedDate} 00:00:00`]],
    ['all together', { hasItunes: 'true', hasGooglePlay: 'false', mattermarkScore: '~900', startAddedDate: '2010-01-01', stages: ['a', 'b', 'c', 'Late'], perPage: '50' },
      'has_ios_store=1&has_android_store=0&svc_score=~900&added_date=2010-01-01~&stage=a|b|c|Late',
      "has_ios_store = 1 and has_android_store = 0 and svc_score <= 900 and added_date >= '2010-01-01' and stage in ('a', 'b', 'c', 'Late')", []],
  ]

  test.each(cases)('%s', async (_label, args, specQuery, where, params) => {
    const php = phpCompaniesList(args)
    const expected = companyIds(where, ...params)
    expect(expected.length, 'the case selects some companies and leaves out others').toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(TOTAL_COMPANIES)
    const got = await companies(php)
    expect(got).toEqual(await companies(`/companies?${specQuery}&per_page=50`))
    expect(got.total).toBe(expected.length)
    expect(await allCompanyIds(php)).toEqual(expected)
  })

  test('the replayed query string uses the original names and the lone date, as the package sends them', () => {
    expect(phpCompaniesList({ hasItunes: 'true', itunesCategory: ['Games', 'Music'], startAddedDate: '2020-01-01', stages: ['a', 'b'] }))
      .toBe('/companies?&stage=a|b&has_itunes=1&itunes_category=Games&itunes_category=Music&added_date=2020-01-01')
  })

  test('an original name and its spec name with different values is a 400 naming both', async () => {
    const res = await h.get('/companies?has_itunes=1&has_ios_store=0')
    expect(res.status).toBe(400)
    const body = problemSchema.parse(await res.json())
    expect(body.issues?.[0]).toMatchObject({ code: 'invalid_value', path: '/has_ios_store' })
    expect(body.issues?.[0]?.message).toMatch(/has_ios_store.*has_itunes/)
  })
})

describe('getListOfFundingEvents.php: a lone start date is "from that date"', () => {
  test('startFundingDate alone', async () => {
    const php = phpFundingEvents({ startFundingDate: midFundingDate, perPage: '50' })
    expect(php).toBe(`/fundings?funding_date_range=${midFundingDate}&&per_page=50`)
    const expected = fundingIds('rounds_funding_date >= ?', midFundingDate)
    expect(expected.length).toBeGreaterThan(50)
    const body = fundingListSchema.parse(await (await h.get(php, { bearer: true })).json())
    const spec = fundingListSchema.parse(await h.json(`/fundings?funding_date_range=${midFundingDate}~&per_page=50`))
    expect(body).toEqual(spec)
    expect(body.meta.total_record_count).toBe(expected.length)
  })

  test('startFundingDate and endFundingDate', async () => {
    const php = phpFundingEvents({ startFundingDate: '2015-01-01', endFundingDate: midFundingDate, countries: ['USA', 'GBR'] })
    const body = fundingListSchema.parse(await (await h.get(php, { bearer: true })).json())
    expect(body.meta.total_record_count).toBe(fundingIds("rounds_funding_date between '2015-01-01' and ? and country in ('USA', 'GBR')", midFundingDate).length)
  })
})

describe('every date_range parameter: a single date means from that date', () => {
  const dateRanges = [...LIST_PARAMETERS.companies.filter((d) => d.format === 'date_range').map((d) => ['companies', d.name] as const),
    ...LIST_PARAMETERS.fundings.filter((d) => d.format === 'date_range').map((d) => ['fundings', d.name] as const)]

  test('the table has one for each listing', () => {
    expect(dateRanges.map(([e, n]) => `${e}.${n}`)).toEqual(['companies.added_date', 'fundings.funding_date_range'])
  })

  test('GET /companies?added_date=<day> (and YYYYMMDD) equals ?added_date=<day>~', async () => {
    const expected = companyIds('added_date >= ?', `${midAddedDate} 00:00:00`)
    expect(await allCompanyIds(`/companies?added_date=${midAddedDate}`)).toEqual(expected)
    expect(await allCompanyIds(`/companies?added_date=${midAddedDate.replace(/-/g, '')}`)).toEqual(expected)
    expect(await allCompanyIds(`/companies?added_date=${midAddedDate}~`)).toEqual(expected)
  })

  test('GET /fundings?funding_date_range=<day> equals ?funding_date_range=<day>~', async () => {
    const single = fundingListSchema.parse(await h.json(`/fundings?funding_date_range=${midFundingDate}&per_page=50&sort=id`))
    const from = fundingListSchema.parse(await h.json(`/fundings?funding_date_range=${midFundingDate}~&per_page=50&sort=id`))
    expect(single).toEqual(from)
    expect(single.meta.total_record_count).toBe(fundingIds('rounds_funding_date >= ?', midFundingDate).length)
  })

  test('rounds_funding_date (a date, not a range) still means that day', async () => {
    const body = fundingListSchema.parse(await h.json(`/fundings?rounds_funding_date=${midFundingDate}&per_page=50`))
    expect(body.meta.total_record_count).toBe(fundingIds('rounds_funding_date = ?', midFundingDate).length)
    expect(body.fundings.every((f) => f.rounds_funding_date === midFundingDate)).toBe(true)
  })
})

describe('GET /ratelimit/quota, the original path of /ratelimit/usage', () => {
  test('answers the same record, with the key as Bearer, and does not count', async () => {
    const { key, record } = await h.newKey(30)
    const quota = await h.get('/ratelimit/quota', { key, bearer: true })
    expect(quota.status).toBe(200)
    const usage = await h.get('/ratelimit/usage', { key, bearer: true })
    const q = usageResponseSchema.parse(await quota.json())
    expect(q).toEqual(usageResponseSchema.parse(await usage.json()))
    expect(q[0]!.quota_remaining).toBe(30)
    expect(quota.headers.get('x-quota-remaining')).toBe('30')
    expect(await h.quotaUsed(record.keyId)).toBe(0)
    expect((await h.get('/ratelimit/quota', { key: 'not-a-key' })).status).toBe(403)
  })
})

describe('an empty parameter value is absent', () => {
  test.each([
    ['stage=', ''],
    ['domain=&company_name=', ''],
    ['stage=&country=USA', 'country=USA'],
    ['industries=&has_itunes=&mattermark_score=&added_date=&est_founding_date=&last_funding_date=&employees=1~', 'employees=1~'],
  ])('GET /companies?%s is GET /companies?%s', async (sent, meant) => {
    expect(await companies(`/companies?${sent}&per_page=50`)).toEqual(await companies(`/companies?${meant}&per_page=50`))
  })

  test('every parameter of both listings, sent empty, is a 200 equal to no parameter', async () => {
    for (const endpoint of ['companies', 'fundings'] as const) {
      const all = LIST_PARAMETERS[endpoint].map((d) => `${d.name}=`).join('&')
      const res = await h.get(`/${endpoint}?${all}`)
      expect(res.status, `/${endpoint}?${all}`).toBe(200)
      const none = await h.json(`/${endpoint}`)
      expect(((await res.json()) as { meta: { total_record_count: number } }).meta.total_record_count).toBe(none.meta.total_record_count)
    }
  })

  test.each([
    ['stage=|', '/stage'],
    ['stage=series-z', '/stage'],
    ['employees=~', '/employees'],
    ['domain=%20.', '/domain'],
    ['added_date=someday', '/added_date'],
    ['has_itunes=yes', '/has_itunes'],
  ])('a malformed non-empty value stays a 400: ?%s', async (query, path) => {
    const res = await h.get(`/companies?${query}`)
    expect(res.status).toBe(400)
    expect(problemSchema.parse(await res.json()).issues?.[0]?.path).toBe(path)
  })
})

describe('tag values in any case, in list parameters and in the filter language', () => {
  const tagParams = LIST_PARAMETERS.companies.filter((d) => d.format === 'tags_list')
  const tableOf: Record<string, string> = {
    industries: 'company_industries', keywords: 'company_keywords', business_models: 'company_business_models',
    play_category: 'company_play_categories', ios_store_category: 'company_ios_store_categories',
  }
  const recase = (s: string) => [...s].map((ch, i) => (i % 2 === 0 ? ch.toLowerCase() : ch.toUpperCase())).join('')

  test('every tags parameter is covered', () => {
    expect(tagParams.map((d) => d.name).sort()).toEqual(Object.keys(tableOf).sort())
  })

  test.each(Object.entries(tableOf))('%s: lower, upper and mixed case select what the stored spelling does', async (param, table) => {
    const [stored] = rows<{ value: string }>(`select value from ${table} group by value order by count(*) desc, value limit 1`).map((r) => r.value)
    expect(stored).toMatch(/[A-Za-z]/)
    const expected = companyIds(`id in (select company_id from ${table} where value = ?)`, stored)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(TOTAL_COMPANIES)
    for (const spelling of [stored!, stored!.toLowerCase(), stored!.toUpperCase(), recase(stored!)]) {
      expect(await allCompanyIds(`/companies?${param}=${encodeURIComponent(spelling)}`), spelling).toEqual(expected)
    }
  })

  test('POST /queries: eq, in, has_all and has_none on a tags field in another case', async () => {
    const [a, b] = rows<{ value: string }>('select value from company_industries group by value order by count(*) desc, value limit 2').map((r) => r.value)
    const post = async (filter: unknown) => {
      const res = await h.request('/queries', { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset: 'companies', filter, per_page: 1 }) } })
      expect(res.status).toBe(200)
      return ((await res.json()) as { meta: { total_record_count: number } }).meta.total_record_count
    }
    const withA = companyIds('id in (select company_id from company_industries where value = ?)', a)
    const withBoth = companyIds('id in (select company_id from company_industries where value = ?) and id in (select company_id from company_industries where value = ?)', a, b)
    expect(withBoth.length).toBeGreaterThan(0)
    expect(await post({ industries: a!.toUpperCase() })).toBe(withA.length)
    expect(await post({ industries: { in: [a!.toLowerCase(), 'no such industry'] } })).toBe(withA.length)
    expect(await post({ industries: { has_all: [a!.toLowerCase(), b!.toUpperCase(), a!] } })).toBe(withBoth.length)
    expect(await post({ industries: { has_none: [a!.toUpperCase()] } })).toBe(TOTAL_COMPANIES - withA.length)
  })
})
