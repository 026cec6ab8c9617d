/**
 * GET /companies (spec 4.1) through the fetch handler, on the 400-company fixture: every parameter
 * against an expectation computed independently with direct SQL on the fixture's tables (the exact
 * id set, walking every page), combined parameters, the list and query-string forms of design
 * section 6, paging and the trial rule, sorting, the 400s, and a hostile-input table over every
 * parameter (never a 5xx). Every 200 body is parsed by the same zod schema the OpenAPI document
 * is derived from.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { LIST_PARAMETERS } from '../../src/parse/list-params.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { companyListSchema } from '../../src/http/schemas/listings.js'
import { BASE, createHarness } from './harness.js'

/**
 * The clock of this file: a few days after the fixture's latest funding event, so that every date
 * phrase selects some companies and leaves out others (the fixture's dates end in mid-2024).
 */
const DATA_NOW = new Date('2024-06-20T08:00:00Z')
const h = await createHarness({ app: { clock: () => DATA_NOW } })
afterAll(async () => { await h.close() })

const rows = <T = Record<string, unknown>>(query: string, ...args: unknown[]): T[] => h.vdb.sqlite.prepare(query).all(...args) as T[]
const ids = (where: string, ...args: unknown[]): number[] => rows<{ id: number }>(`select id from companies where ${where} order by id`, ...args).map((r) => r.id)
const TOTAL = ids('1').length

/** Every company id a listing selects, walking all its pages at the largest page size. */
async function listAll(path: string): Promise<{ ids: number[]; total: number }> {
  const sep = path.includes('?') ? '&' : '?'
  const out: number[] = []
  let total = -1
  for (let page = 1; ; page++) {
    const body = companyListSchema.parse(await h.json(`${path}${sep}per_page=50&page=${page}`))
    total = body.meta.total_record_count
    expect(body.meta.current_page).toBe(page)
    out.push(...body.companies.map((c) => Number(c.id)))
    if (page >= body.meta.total_pages) break
  }
  expect(out).toHaveLength(total)
  return { ids: out.sort((a, b) => a - b), total }
}

async function expectSelects(path: string, expected: number[]): Promise<void> {
  const got = await listAll(path)
  expect(got.ids).toEqual(expected)
  expect(got.total).toBe(expected.length)
}

async function problem(path: string, status = 400) {
  const res = await h.get(path)
  expect(res.status, path).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return problemSchema.parse(await res.json())
}

//// expectations independent of the code under test ////

/** Parameter → column, as spec 4.1 names them (hand-written here, not read from the table under test). */
const NUMERIC_COLUMNS: readonly (readonly [string, string])[] = [
  ['svc_score', 'svc_score'], ['momentum_score', 'momentum_score'], ['employees', 'employees'],
  ['employees_month_ago', 'employees_month_ago'], ['employees_added_in_month', 'employees_added_in_month'],
  ['employees_mom', 'employees_mom'], ['cached_uniques', 'website_uniques'], ['cached_uniques_week_ago', 'cached_uniques_week_ago'],
  ['uniques_wow', 'uniques_wow'], ['cached_uniques_month_ago', 'cached_uniques_month_ago'], ['uniques_mom', 'uniques_mom'],
  ['cached_mobile_downloads', 'mobile_downloads'], ['cached_mobile_downloads_week_ago', 'cached_mobile_downloads_week_ago'],
  ['mobile_downloads_wow', 'mobile_downloads_wow'], ['cached_mobile_downloads_month_ago', 'cached_mobile_downloads_month_ago'],
  ['mobile_downloads_mom', 'mobile_downloads_mom'], ['total_funding', 'total_funding'], ['last_funding_amount', 'last_funding_amount'],
]

type Case = readonly [label: string, query: string, where: string, args: unknown[]]

function numericCases(): Case[] {
  const cases: Case[] = []
  for (const [param, column] of NUMERIC_COLUMNS) {
    const values = rows<{ v: number }>(`select ${column} as v from companies where ${column} is not null order by ${column}`).map((r) => r.v)
    const q1 = values[Math.floor(values.length / 4)]!
    const median = values[Math.floor(values.length / 2)]!
    const q3 = values[Math.floor((values.length * 3) / 4)]!
    cases.push(
      [`${param} from~to`, `${param}=${q1}~${q3}`, `${column} between ? and ?`, [q1, q3]],
      [`${param} from~`, `${param}=${q3}~`, `${column} >= ?`, [q3]],
      [`${param} ~to`, `${param}=~${q1}`, `${column} <= ?`, [q1]],
      [`${param} single`, `${param}=${median}`, `${column} = ?`, [median]],
    )
  }
  return cases
}

/** Day cut-offs for DATA_NOW (2024-06-20), worked out by hand. */
const CUTOFF = {
  3: '2024-03-20', 6: '2023-12-20', 9: '2023-09-20', 12: '2023-06-20', 13: '2023-05-20', 16: '2023-02-20', 18: '2022-12-20',
  24: '2022-06-20', 36: '2021-06-20', 60: '2019-06-20', 120: '2014-06-20',
} as const

function phraseCases(): Case[] {
  const raised = (months: keyof typeof CUTOFF): string => `last_funding_date >= '${CUTOFF[months]}'`
  const notRaised = (months: keyof typeof CUTOFF): string => `(last_funding_date is null or last_funding_date < '${CUTOFF[months]}')`
  const founded = (months: keyof typeof CUTOFF): string => `est_founding_date >= '${CUTOFF[months]}'`
  return [
    ['not in past 3 months', 'last_funding_date=not+in+past+3+months', notRaised(3), []],
    ['not in past 6 months', 'last_funding_date=not in past 6 months', notRaised(6), []],
    ['not in past 9 months', 'last_funding_date=not%20in%20past%209%20months', notRaised(9), []],
    ['not in past year', 'last_funding_date=Not+In+Past+Year', notRaised(12), []],
    ['not in past 13 months', 'last_funding_date=not in past 13 months', notRaised(13), []],
    ['not in past 16 months', 'last_funding_date=not in past 16 months', notRaised(16), []],
    ['not in past 18 months', 'last_funding_date=not in past 18 months', notRaised(18), []],
    ['not in past 2 years', 'last_funding_date=not in past 2 years', notRaised(24), []],
    ['never raised', 'last_funding_date=never raised', 'last_funding_date is null', []],
    ['raised in past 3 months', 'last_funding_date=raised in past 3 months', raised(3), []],
    ['raised in past 6 months', 'last_funding_date=raised in past 6 months', raised(6), []],
    ['raised in past 9 months', 'last_funding_date=raised in past 9 months', raised(9), []],
    ['raised in past year', 'last_funding_date=RAISED IN PAST YEAR', raised(12), []],
    ['raised in past 2 years', 'last_funding_date=raised++in+past+2+years', raised(24), []],
    ['has ever raised', 'last_funding_date=has ever raised', 'last_funding_date is not null', []],
    ['within 3 months', 'est_founding_date=within 3 months', founded(3), []],
    ['within 6 months', 'est_founding_date=within 6 months', founded(6), []],
    ['within 9 months', 'est_founding_date=within 9 months', founded(9), []],
    ['within 1 year', 'est_founding_date=within 1 year', founded(12), []],
    ['within 2 years', 'est_founding_date=within 2 years', founded(24), []],
    ['within 3 years', 'est_founding_date=within+3+years', founded(36), []],
    ['within 5 years', 'est_founding_date=Within 5 Years', founded(60), []],
    ['within 10 years', 'est_founding_date=within 10 years', founded(120), []],
  ]
}

/** The two commonest values of a tag table, so a list of them selects a non-trivial set. */
function topTags(table: string): [string, string] {
  const top = rows<{ value: string }>(`select value from ${table} group by value order by count(*) desc, value limit 2`).map((r) => r.value)
  return [top[0]!, top[1]!]
}

const tagCase = (param: string, table: string): Case => {
  const [a, b] = topTags(table)
  return [param, `${param}=${encodeURIComponent(a)}|${encodeURIComponent(b)}`, `id in (select company_id from ${table} where value in (?, ?))`, [a, b]]
}

const busiestInvestors = rows<{ svc_slug: string; id: number }>(
  'select i.svc_slug, i.id from investors i order by (select count(*) from investments v where v.investor_id = i.id) desc, i.id limit 2',
)
const someCompany = rows<{ id: number; website: string; added_date: string; name: string }>('select id, website, added_date, name from companies where id = 7')[0]!

function otherCases(): Case[] {
  const [inv1, inv2] = busiestInvestors
  const day = someCompany.added_date.slice(0, 10)
  return [
    ['domain, as stored', `domain=${someCompany.website}`, 'website = ?', [someCompany.website]],
    ['domain, any case, www. and scheme', `domain=${encodeURIComponent(`https://WWW.${someCompany.website.toUpperCase()}/`)}`, 'website = ?', [someCompany.website]],
    ['company_name substring', 'company_name=lab', "lower(name) like '%lab%'", []],
    ['company_name any case', 'company_name=LaBs', "lower(name) like '%labs%'", []],
    ['added_date from~to', 'added_date=2015-01-01~2016-12-31', "added_date between '2015-01-01 00:00:00' and '2016-12-31 23:59:59'", []],
    ['added_date from~', 'added_date=2020-01-01~', "added_date >= '2020-01-01 00:00:00'", []],
    ['added_date ~to (YYYYMMDD)', 'added_date=~20140101', "added_date <= '2014-01-01 23:59:59'", []],
    ['added_date single date: from that day', `added_date=${day}`, 'substr(added_date, 1, 10) >= ?', [day]],
    ['stage', 'stage=a|Late', "stage in ('a', 'Late')", []],
    ['stage, other spellings', 'stage=no+known+funding|EXITED (IPO)|pre series a', "stage in ('No Known Funding', 'Exited', 'Pre Series A')", []],
    ['investors', `investors=${inv1!.svc_slug}`, 'id in (select company_id from investments where investor_id = ?)', [inv1!.id]],
    ['investors, two', `investors=${inv1!.svc_slug}|${inv2!.svc_slug}`, 'id in (select company_id from investments where investor_id in (?, ?))', [inv1!.id, inv2!.id]],
    ['investors, unknown slug', 'investors=no-such-investor', '0', []],
    ['location', 'location=San+Francisco+Bay+Area|London', "location in ('San Francisco Bay Area', 'London')", []],
    ['state', 'state=CA|NY', "state in ('CA', 'NY')", []],
    ['country', 'country=usa|GBR', "country in ('USA', 'GBR')", []],
    ['has_mobile=1', 'has_mobile=1', 'has_mobile = 1', []],
    ['has_mobile=0', 'has_mobile=0', 'has_mobile = 0', []],
    ['has_android_store=1', 'has_android_store=1', 'has_android_store = 1', []],
    ['has_android_store=0', 'has_android_store=0', 'has_android_store = 0', []],
    ['has_ios_store=1', 'has_ios_store=1', 'has_ios_store = 1', []],
    ['has_ios_store=0', 'has_ios_store=0', 'has_ios_store = 0', []],
    tagCase('play_category', 'company_play_categories'),
    tagCase('ios_store_category', 'company_ios_store_categories'),
    tagCase('business_models', 'company_business_models'),
    tagCase('industries', 'company_industries'),
    tagCase('keywords', 'company_keywords'),
  ]
}

describe('every parameter of spec 4.1 selects exactly the companies it should', () => {
  const cases = [...numericCases(), ...phraseCases(), ...otherCases()]

  test('the table covers every parameter of the endpoint', () => {
    const covered = new Set(cases.map(([, query]) => query.split('=')[0]))
    expect([...covered].sort()).toEqual(LIST_PARAMETERS.companies.map((d) => d.name).sort())
  })

  test.each(cases)('%s: ?%s', async (_label, query, where, args) => {
    await expectSelects(`/companies?${query}`, ids(where, ...args))
  })

  test('the cases are not trivial: most select some companies and leave out others', () => {
    const sizes = cases.map(([, , where, args]) => ids(where, ...args).length)
    const partial = sizes.filter((n) => n > 0 && n < TOTAL).length
    expect(partial / sizes.length).toBeGreaterThan(0.85)
  })
})

describe('combining parameters and the query-string forms of design section 6', () => {
  test('several parameters AND together', async () => {
    await expectSelects('/companies?stage=a|b|c&country=USA&employees=10~', ids("stage in ('a', 'b', 'c') and country = 'USA' and employees >= 10"))
    const [industry] = topTags('company_industries')
    await expectSelects(
      `/companies?industries=${encodeURIComponent(industry)}&has_mobile=1&last_funding_date=raised+in+past+2+years`,
      ids("id in (select company_id from company_industries where value = ?) and has_mobile = 1 and last_funding_date >= '2022-06-20'", industry),
    )
    const [inv] = busiestInvestors
    await expectSelects(
      `/companies?investors=${inv!.svc_slug}&last_funding_date=not+in+past+year`,
      ids("id in (select company_id from investments where investor_id = ?) and (last_funding_date is null or last_funding_date < '2023-06-20')", inv!.id),
    )
  })

  test.each([
    ['pipe', 'stage=a|b'],
    ['%7C', 'stage=a%7Cb'],
    ['%7c', 'stage=a%7cb'],
    ['repeated', 'stage=a&stage=b'],
    ['[]', 'stage[]=a&stage[]=b'],
    ['%5B%5D', 'stage%5B%5D=a&stage%5B%5D=b'],
    ['mixed', 'stage=a&stage[]=b|a'],
  ])('a list sent %s', async (_form, query) => {
    await expectSelects(`/companies?${query}`, ids("stage in ('a', 'b')"))
  })

  test.each([
    ['?& at the start', '/companies?&stage=a&country=USA'],
    ['&& in the middle', '/companies?stage=a&&country=USA'],
    ['a trailing &', '/companies?stage=a&country=USA&'],
    ['a trailing slash', '/companies/?stage=a&country=USA'],
  ])('%s', async (_label, path) => {
    await expectSelects(path, ids("stage = 'a' and country = 'USA'"))
  })

  test.each([
    ['+', 'location=San+Francisco+Bay+Area'],
    ['%20', 'location=San%20Francisco%20Bay%20Area'],
  ])('spaces as %s', async (_form, query) => {
    await expectSelects(`/companies?${query}`, ids("location = 'San Francisco Bay Area'"))
  })

  test('/companies/?domain=x finds the company (trailing slash, design section 6)', async () => {
    const body = companyListSchema.parse(await h.json(`/companies/?domain=${someCompany.website}`))
    expect(body.companies.map((c) => c.id)).toContain(String(someCompany.id))
  })

  test('a website stored in mixed case is found by its own spelling, with www. and a scheme', async () => {
    const { id, website } = rows<{ id: number; website: string }>('select id, website from companies where id = 9')[0]!
    const mixed = `Mixed${website.toUpperCase()}`
    await h.mutate('update companies set website = ? where id = 9', mixed)
    try {
      await expectSelects(`/companies?domain=${encodeURIComponent(`http://www.${mixed}/`)}`, [id])
    } finally {
      await h.mutate('update companies set website = ? where id = 9', website)
    }
  })

  test('unknown parameter names are ignored', async () => {
    const body = companyListSchema.parse(await h.json('/companies?utm_source=x&cachebuster=123&filter[stage]=a'))
    expect(body.meta.total_record_count).toBe(TOTAL)
  })
})

describe('response shape and paging', () => {
  /** The default order: svc_score descending, companies without a score last, then by id. */
  const byDefaultOrder = () => rows<{ id: number }>('select id from companies order by svc_score is null, svc_score desc, id').map((r) => r.id)

  test('default page: 10 items of spec 2.2, an absolute url per item, meta of spec 2.1', async () => {
    const res = await h.get('/companies')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('x-quota-limit')).not.toBeNull()
    const body = companyListSchema.parse(await res.json())
    expect(body.meta).toEqual({ total_record_count: TOTAL, total_pages: Math.ceil(TOTAL / 10), current_page: 1, per_page: 10 })
    expect(body.companies.map((c) => Number(c.id))).toEqual(byDefaultOrder().slice(0, 10))
    const byId = new Map(rows<{ id: number; name: string; website: string | null }>('select id, name, website from companies').map((r) => [r.id, r]))
    for (const c of body.companies) {
      const row = byId.get(Number(c.id))!
      expect(c).toEqual({ company_name: row.name, domain: row.website ?? '', id: String(row.id), url: `${BASE}/companies/${row.id}` })
    }
  })

  test('page 2 continues where page 1 stopped', async () => {
    const body = companyListSchema.parse(await h.json('/companies?page=2'))
    expect(body.meta).toMatchObject({ current_page: 2, per_page: 10 })
    expect(body.companies.map((c) => Number(c.id))).toEqual(byDefaultOrder().slice(10, 20))
    const deep = companyListSchema.parse(await h.json('/companies?page=7&per_page=25'))
    expect(deep.companies.map((c) => Number(c.id))).toEqual(byDefaultOrder().slice(150, 175))
  })

  test('per_page above the cap is lowered to it (50)', async () => {
    const body = companyListSchema.parse(await h.json('/companies?per_page=500'))
    expect(body.meta.per_page).toBe(50)
    expect(body.companies).toHaveLength(50)
  })

  test('a page past the last is empty, with the true meta', async () => {
    const body = companyListSchema.parse(await h.json('/companies?stage=a&page=999'))
    expect(body.companies).toEqual([])
    expect(body.meta).toMatchObject({ total_record_count: ids("stage = 'a'").length, current_page: 999 })
  })

  test('a trial key gets page 1 (at most 50) and a 403 saying why for page 2', async () => {
    const first = companyListSchema.parse(await h.json('/companies?per_page=100', { key: h.trialKey }))
    expect(first.companies).toHaveLength(50)
    const res = await h.get('/companies?page=2', { key: h.trialKey })
    expect(res.status).toBe(403)
    expect(problemSchema.parse(await res.json()).error).toMatch(/[Tt]rial/)
  })

  test('the base url option makes every item url absolute under it', async () => {
    const other = await createHarness({ companies: 20, app: { baseUrl: 'https://data.example.org/' } })
    try {
      const body = companyListSchema.parse(await other.json('/companies'))
      for (const c of body.companies) expect(c.url).toBe(`https://data.example.org/companies/${c.id}`)
    } finally {
      await other.close()
    }
  })

  test.each([
    ['sort=-employees', 'employees is null, employees desc, id'],
    ['sort=employees', 'employees is null, employees, id'],
    ['sort=-cached_uniques,name', 'website_uniques is null, website_uniques desc, name, id'],
  ])('%s orders the listing', async (query, orderBy) => {
    const body = companyListSchema.parse(await h.json(`/companies?${query}&per_page=50`))
    expect(body.companies.map((c) => Number(c.id))).toEqual(rows<{ id: number }>(`select id from companies order by ${orderBy} limit 50`).map((r) => r.id))
  })
})

describe('bad values are 400s that name the parameter, what it accepts and what was sent', () => {
  test.each([
    ['employees=5~x', '/employees', /from~to/],
    ['momentum_score=~', '/momentum_score', /from~to/],
    ['total_funding=1~2~3', '/total_funding', /at most one `~`/],
    ['svc_score=80~20', '/svc_score', /lower bound 80 is above the upper bound 20/],
    ['employees=12.5', '/employees', /whole number/],
    ['added_date=2020-13-01', '/added_date', /YYYY-MM-DD/],
    ['stage=seed', '/stage', /Unknown, No Known Funding, Pre Series A/],
    ['est_founding_date=within a while', '/est_founding_date', /within 3 months, within 6 months/],
    ['last_funding_date=lately', '/last_funding_date', /not in past 3 months/],
    ['has_mobile=true', '/has_mobile', /1 .* 0/],
    ['has_android_store=-1', '/has_android_store', /1 .* 0/],
    ['has_ios_store=yes', '/has_ios_store', /1 .* 0/],
    ['country=US', '/country', /three-letter/],
    ['domain=nope', '/domain', /domain/],
    ['sort=score', '/sort', /svc_score/],
    ['page=0', '/page', /whole number/],
    ['per_page=ten', '/per_page', /whole number/],
    ['page=1&page=2', '/page', /one value/],
  ])('?%s', async (query, path, mention) => {
    const body = await problem(`/companies?${query}`)
    expect(body.status).toBe(400)
    const issue = body.issues!.find((i) => i.path === path)
    expect(issue, JSON.stringify(body.issues)).toBeDefined()
    expect(`${issue!.message} ${issue!.expected ?? ''}`).toMatch(mention)
    expect(body.error).toContain(path.slice(1))
  })

  test('an unknown stage suggests the nearest value', async () => {
    const body = await problem('/companies?stage=Exitd')
    expect(body.issues![0]!.suggestions).toEqual(['Exited'])
  })

  test('issues the engine finds are reported under the parameter (a list over the engine\'s length limit)', async () => {
    const values = Array.from({ length: h.engine.limits.maxListLength + 1 }, (_, i) => `t${i}`).join('|')
    const body = await problem(`/companies?stage=a&industries=${values}`)
    expect(body.issues!.map((i) => [i.code, i.path])).toEqual([['limit_exceeded', '/industries']])
  })
})

describe('hostile input in every parameter is a 4xx or a 200, never a 5xx', () => {
  const HOSTILE: readonly string[] = [
    "' OR 1=1 --", "1; DROP TABLE companies; --", '") or ("1"="1', 'x'.repeat(10_000), '%E0%A4%A', '%00', 'a%00b', '%FF%FE',
    '-1', '-99999999999999999999', '99999999999999999999', '1e308', '1e309~', 'NaN', 'Infinity', '~', '~~', '|', '%7C%7C',
    '%F0%9F%92%A5', 'null', '{}', '[]', '0x1F', '2020-01-01~x', '%25', '%',
  ]
  const names = [...LIST_PARAMETERS.companies.map((d) => d.name), 'page', 'per_page', 'sort']
  const cases = names.flatMap((name) => [
    ...HOSTILE.map((value) => [name, `${name}=${value}`] as const),
    [name, `${name}[]=1&${name}[]=2`] as const,
    [name, `${name}[0]=x&${name}[1]=y`] as const,
    [name, `${name}=a&${name}=b&${name}=c`] as const,
  ])

  test('every request answers 200 or 400 with a JSON body', async () => {
    const statuses = new Map<number, number>()
    for (const [name, query] of cases) {
      const res = await h.get(`/companies?${query}`)
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      expect([200, 400], `${name}: ${query.slice(0, 80)} → ${res.status}`).toContain(res.status)
      const body = await res.json()
      if (res.status === 200) companyListSchema.parse(body)
      else expect(problemSchema.parse(body).issues?.length ?? 1).toBeGreaterThan(0)
    }
    // Both outcomes occur: the table is not all refused, nor all accepted.
    expect(statuses.get(200)).toBeGreaterThan(0)
    expect(statuses.get(400)).toBeGreaterThan(100)
    // And nothing was dropped or changed.
    expect(ids('1')).toHaveLength(TOTAL)
  })
})
