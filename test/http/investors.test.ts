/**
 * GET /investors/:id (spec 4.12, shape 2.12) and GET /investors/:id/portfolio (spec 4.13, shape
 * 2.13) through the fetch handler. Every expected value is recomputed here in plain JS from the
 * fixture's tables read with simple SELECTs (no GROUP BY, no join), never through the record
 * lookups, and compared with the whole response body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { problemSchema } from '../../src/http/schemas/common.js'
import { investorDetailSchema, portfolioSchema } from '../../src/http/schemas/investor.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
let model: Model
beforeAll(async () => {
  h = await createHarness()
  model = loadModel(h)
})
afterAll(async () => { await h.close() })

//// The reference model: the fixture's rows, and the expected bodies computed from them ////

interface InvestorRow { id: number; name: string | null; svc_slug: string | null; website: string | null; type: string | null; location: string | null; portfolio_size: number; number_of_deals: number; three_year_funds_sold: number | null; est_most_recent_fund_date: string | null }
interface CompanyRow { id: number; name: string | null; website: string | null; stage: string | null; location: string | null; last_funding_date: string | null; total_funding: number | null }
interface FundingRow { id: number; company_id: number; company_name: string | null; series: string | null; rounds_funding_date: string | null; amount: number | null }
interface FilingRow { investor_id: number; position: number; entity_name: string | null; total_offering: number | null; total_sold: number | null; filing_date: string | null; form: string | null }

interface Model {
  investors: InvestorRow[]
  companies: Map<number, CompanyRow>
  stageRaw: Map<number, string>
  industries: Map<number, string[]>
  businessModels: Map<number, string[]>
  fundings: Map<number, FundingRow>
  /** funding_investors rows. */
  links: { funding_id: number; investor_id: number }[]
  /** investments rows. */
  investments: { investor_id: number; company_id: number; first_invested_on: string | null }[]
  paths: Map<number, { portfolio_path: string | null; funding_rounds_path: string | null }>
  filings: FilingRow[]
}

function loadModel(harness: Harness): Model {
  const all = <T>(sql: string) => harness.vdb.sqlite.prepare(sql).all() as T[]
  const tags = (table: string, column: string) => {
    const out = new Map<number, string[]>()
    for (const r of all<{ company_id: number; v: string }>(`select company_id, ${column} as v from ${table}`)) out.set(r.company_id, [...(out.get(r.company_id) ?? []), r.v])
    return out
  }
  return {
    investors: all<InvestorRow>('select id, name, svc_slug, website, type, location, portfolio_size, number_of_deals, three_year_funds_sold, est_most_recent_fund_date from investors'),
    companies: new Map(all<CompanyRow>('select id, name, website, stage, location, last_funding_date, total_funding from companies').map((c) => [c.id, c])),
    stageRaw: new Map(all<{ company_id: number; stage_raw: string }>('select company_id, stage_raw from companies_extra where stage_raw is not null').map((r) => [r.company_id, r.stage_raw])),
    industries: tags('company_industries', 'value'),
    businessModels: tags('company_business_models', 'value'),
    fundings: new Map(all<FundingRow>('select id, company_id, company_name, series, rounds_funding_date, amount from fundings').map((f) => [f.id, f])),
    links: all('select funding_id, investor_id from funding_investors'),
    investments: all('select investor_id, company_id, first_invested_on from investments'),
    paths: new Map(all<{ investor_id: number; portfolio_path: string | null; funding_rounds_path: string | null }>('select * from investor_details').map((r) => [r.investor_id, r])),
    filings: all<FilingRow>('select * from investor_filings'),
  }
}

/** Binary (code point) order, as SQLite compares text. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function countNames(names: Iterable<string | null>): { name: string; count: number }[] {
  const counts = new Map<string, number>()
  for (const n of names) if (n !== null) counts.set(n, (counts.get(n) ?? 0) + 1)
  return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || byText(a.name, b.name))
}

function breakdownOf(m: Model, companyIds: readonly number[]) {
  const companies = companyIds.map((id) => m.companies.get(id))
  return {
    stages: countNames(companies.map((c) => c?.stage ?? null)),
    locations: countNames(companies.map((c) => c?.location ?? null)),
    business_models: countNames(companyIds.flatMap((id) => m.businessModels.get(id) ?? [])),
    industries: countNames(companyIds.flatMap((id) => m.industries.get(id) ?? [])),
  }
}

/** The first day of a date's calendar quarter. */
function quarterOf(date: string): string {
  const month = Number(date.slice(5, 7))
  return `${date.slice(0, 4)}-${String(Math.floor((month - 1) / 3) * 3 + 1).padStart(2, '0')}-01`
}

function dealsOf(m: Model, investorId: number): FundingRow[] {
  return m.links.filter((l) => l.investor_id === investorId).map((l) => m.fundings.get(l.funding_id)!)
}

function expectedDetail(m: Model, inv: InvestorRow) {
  const deals = dealsOf(m, inv.id)
  const portfolio = m.investments.filter((x) => x.investor_id === inv.id).map((x) => x.company_id)

  const latest = [...deals].sort((a, b) =>
    (a.rounds_funding_date === null ? 1 : 0) - (b.rounds_funding_date === null ? 1 : 0)
    || byText(b.rounds_funding_date ?? '', a.rounds_funding_date ?? '') || b.id - a.id)[0]
  const roundInvestors = latest
    ? m.links.filter((l) => l.funding_id === latest.id).map((l) => m.investors.find((i) => i.id === l.investor_id)!)
      .sort((a, b) => byText(a.name ?? '', b.name ?? '') || a.id - b.id)
    : []

  const quarters = new Map<string, Set<number>>()
  for (const d of deals) {
    if (d.rounds_funding_date === null) continue
    const q = quarterOf(d.rounds_funding_date)
    quarters.set(q, (quarters.get(q) ?? new Set()).add(d.company_id))
  }

  const paths = m.paths.get(inv.id)
  const filings = m.filings.filter((f) => f.investor_id === inv.id)
    .sort((a, b) => (a.filing_date === null ? 1 : 0) - (b.filing_date === null ? 1 : 0) || byText(b.filing_date ?? '', a.filing_date ?? '') || a.position - b.position)
    .slice(0, 10)

  return {
    id: inv.id,
    name: inv.name ?? '',
    svc_slug: inv.svc_slug ?? '',
    website: inv.website ?? '',
    type: inv.type ?? '',
    location: inv.location ?? '',
    portfolio_path: paths?.portfolio_path ?? `/investors/${inv.id}/portfolio`,
    portfolio_size: portfolio.length,
    number_of_deals: deals.length,
    three_year_funds_sold: inv.three_year_funds_sold,
    funding_rounds_path: paths?.funding_rounds_path ?? `/fundings?investor_slugs=${inv.svc_slug}`,
    est_most_recent_fund_date: inv.est_most_recent_fund_date,
    most_recent_funding: latest
      ? {
          funding_date: latest.rounds_funding_date,
          amount: latest.amount,
          series: latest.series ?? '',
          company: { id: latest.company_id, company_name: m.companies.get(latest.company_id)?.name ?? latest.company_name ?? '' },
          investors: roundInvestors.map((i) => ({ svc_slug: i.svc_slug ?? '', display_name: i.name ?? '' })),
        }
      : null,
    portfolio_aggregates: breakdownOf(m, portfolio),
    deal_aggregates: {
      series: countNames(deals.map((d) => d.series ?? '')),
      quarterly: [...quarters].sort(([a], [b]) => byText(b, a)).map(([q, ids]) => ({ [q]: breakdownOf(m, [...ids]) })),
    },
    top_industries: countNames(portfolio.flatMap((id) => m.industries.get(id) ?? [])).slice(0, 10)
      .map(({ name, count }) => ({ industry_name: name, investments: count })),
    most_recent_filings: filings.map((f) => ({
      entity_name: f.entity_name ?? '', total_offering: f.total_offering, total_sold: f.total_sold, filing_date: f.filing_date, form: f.form ?? '',
    })),
  }
}

/** The whole portfolio in the documented order: first invested on desc (unknown last), then company id. */
function expectedPortfolio(m: Model, investorId: number) {
  return m.investments.filter((x) => x.investor_id === investorId)
    .sort((a, b) => (a.first_invested_on === null ? 1 : 0) - (b.first_invested_on === null ? 1 : 0)
      || byText(b.first_invested_on ?? '', a.first_invested_on ?? '') || a.company_id - b.company_id)
    .map((x) => {
      const c = m.companies.get(x.company_id)
      return {
        id: x.company_id,
        company_name: c?.name ?? '',
        domain: c?.website ?? '',
        stage: m.stageRaw.get(x.company_id) ?? c?.stage ?? 'Unknown',
        location: c?.location ?? '',
        last_funding_date: c?.last_funding_date ?? null,
        total_funding: c?.total_funding ?? null,
        investor_first_invested_on: x.first_invested_on,
      }
    })
}

const largest = () => [...model.investors].sort((a, b) => b.portfolio_size - a.portfolio_size)[0]!

async function problemOf(res: Response, status: number) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return problemSchema.parse(await res.json())
}

//// GET /investors/:id ////

describe('GET /investors/:id', () => {
  it('answers every fixture investor with the spec 2.12 shape and the values recomputed from the tables', async () => {
    expect(model.investors.length).toBe(20)
    for (const inv of model.investors) {
      const res = await h.get(`/investors/${inv.id}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(res.headers.get('x-quota-remaining')).toMatch(/^[0-9]+$/)
      const body = investorDetailSchema.parse(await res.json())
      expect(body).toEqual(expectedDetail(model, inv))
    }
  })

  it('serialises keys in the order of spec 2.12', async () => {
    const body = await h.json(`/investors/${largest().id}`)
    expect(Object.keys(body)).toEqual(['id', 'name', 'svc_slug', 'website', 'type', 'location', 'portfolio_path', 'portfolio_size',
      'number_of_deals', 'three_year_funds_sold', 'funding_rounds_path', 'est_most_recent_fund_date', 'most_recent_funding',
      'portfolio_aggregates', 'deal_aggregates', 'top_industries', 'most_recent_filings'])
  })

  it('counts agree with the materialised investor aggregates and with each other', async () => {
    for (const inv of model.investors) {
      const body = investorDetailSchema.parse(await h.json(`/investors/${inv.id}`))
      expect(body.portfolio_size).toBe(inv.portfolio_size)
      expect(body.number_of_deals).toBe(inv.number_of_deals)
      // Every deal has a series entry ('' when unknown), so the series counts add up to the deals.
      expect(body.deal_aggregates.series.reduce((n, s) => n + s.count, 0)).toBe(inv.number_of_deals)
      // Every fixture company has a stage or not; the stage counts never exceed the portfolio.
      expect(body.portfolio_aggregates.stages.reduce((n, s) => n + s.count, 0)).toBeLessThanOrEqual(inv.portfolio_size)
      expect(body.top_industries.length).toBeLessThanOrEqual(10)
    }
  })

  it('keys quarterly entries by quarter start, newest first, each holding only deals of that quarter', async () => {
    const inv = largest()
    const body = investorDetailSchema.parse(await h.json(`/investors/${inv.id}`))
    const keys = body.deal_aggregates.quarterly.map((q) => Object.keys(q)[0]!)
    expect(keys.length).toBeGreaterThan(8)
    expect(keys).toEqual([...keys].sort().reverse())
    expect(new Set(keys).size).toBe(keys.length)
    const dated = dealsOf(model, inv.id).filter((d) => d.rounds_funding_date !== null)
    for (const key of keys) {
      expect(key).toMatch(/^[0-9]{4}-(01|04|07|10)-01$/)
      const start = new Date(`${key}T00:00:00Z`)
      const end = new Date(start); end.setUTCMonth(end.getUTCMonth() + 3)
      const inQuarter = dated.filter((d) => { const t = new Date(`${d.rounds_funding_date}T00:00:00Z`); return t >= start && t < end })
      expect(inQuarter.length).toBeGreaterThan(0)
    }
    // Every dated deal lands in a listed quarter.
    for (const d of dated) expect(keys).toContain(quarterOf(d.rounds_funding_date!))
  })

  it('counts each company once per quarter even when it raised twice in that quarter with the investor', async () => {
    // Find such a case in the fixture so this test cannot pass vacuously.
    let found: { investor: number; quarter: string; company: number } | undefined
    for (const inv of model.investors) {
      const seen = new Map<string, number>()
      for (const d of dealsOf(model, inv.id)) {
        if (!d.rounds_funding_date) continue
        const key = `${quarterOf(d.rounds_funding_date)}|${d.company_id}`
        seen.set(key, (seen.get(key) ?? 0) + 1)
        if (seen.get(key) === 2 && model.companies.get(d.company_id)?.stage) { found = { investor: inv.id, quarter: quarterOf(d.rounds_funding_date), company: d.company_id }; break }
      }
      if (found) break
    }
    expect(found).toBeDefined()
    const body = investorDetailSchema.parse(await h.json(`/investors/${found!.investor}`))
    const quarter = body.deal_aggregates.quarterly.find((q) => found!.quarter in q)![found!.quarter]!
    const companiesThatQuarter = new Set(dealsOf(model, found!.investor)
      .filter((d) => d.rounds_funding_date && quarterOf(d.rounds_funding_date) === found!.quarter).map((d) => d.company_id))
    const withStage = [...companiesThatQuarter].filter((id) => model.companies.get(id)?.stage).length
    expect(quarter.stages.reduce((n, s) => n + s.count, 0)).toBe(withStage)
  })

  it('gives the most recent round with all its investors, this one among them', async () => {
    let checked = 0
    for (const inv of model.investors.filter((i) => i.number_of_deals > 0)) {
      const body = investorDetailSchema.parse(await h.json(`/investors/${inv.id}`))
      const funding = body.most_recent_funding!
      const latestDate = dealsOf(model, inv.id).map((d) => d.rounds_funding_date ?? '').sort().reverse()[0]
      expect(funding.funding_date).toBe(latestDate)
      expect(funding.investors.map((i) => i.svc_slug)).toContain(inv.svc_slug)
      if (funding.investors.length > 1) checked++
    }
    expect(checked).toBeGreaterThan(0)
  })

  it('answers an investor without deals with empty aggregates and a null most_recent_funding', async () => {
    const idle = model.investors.find((i) => i.number_of_deals === 0)!
    const body = investorDetailSchema.parse(await h.json(`/investors/${idle.id}`))
    expect(body.most_recent_funding).toBeNull()
    expect(body.deal_aggregates).toEqual({ series: [], quarterly: [] })
    expect(body.portfolio_aggregates).toEqual({ stages: [], locations: [], business_models: [], industries: [] })
    expect(body.top_industries).toEqual([])
  })

  it('lists filings newest first', async () => {
    const withFilings = model.investors.filter((i) => model.filings.filter((f) => f.investor_id === i.id).length >= 2)
    expect(withFilings.length).toBeGreaterThan(0)
    for (const inv of withFilings) {
      const dates = investorDetailSchema.parse(await h.json(`/investors/${inv.id}`)).most_recent_filings.map((f) => f.filing_date!)
      expect(dates).toEqual([...dates].sort().reverse())
    }
  })

  it('answers with a trailing slash and with the key as a Bearer token', async () => {
    const id = largest().id
    expect((await h.get(`/investors/${id}/`)).status).toBe(200)
    expect((await h.get(`/investors/${id}`, { bearer: true })).status).toBe(200)
    expect((await h.get(`/investors/${id}`, { key: h.trialKey })).status).toBe(200)
  })

  it('needs a key', async () => {
    await problemOf(await h.get(`/investors/${largest().id}`, { key: null }), 403)
  })

  it('answers an unknown id with a JSON 404 naming the id', async () => {
    const problem = await problemOf(await h.get('/investors/987654'), 404)
    expect(problem.error).toMatch(/No investor has id "987654"/)
  })
})

//// GET /investors/:id/portfolio ////

describe('GET /investors/:id/portfolio', () => {
  it('pages through every company exactly once, in the documented order, with correct meta', async () => {
    const inv = largest()
    const expected = expectedPortfolio(model, inv.id)
    expect(expected.length).toBeGreaterThan(100)
    const perPage = 40
    const pages = Math.ceil(expected.length / perPage)
    const seen: unknown[] = []
    for (let page = 1; page <= pages; page++) {
      const res = await h.get(`/investors/${inv.id}/portfolio?page=${page}&per_page=${perPage}`)
      expect(res.status).toBe(200)
      const body = portfolioSchema.parse(await res.json())
      expect(body.meta).toEqual({ total_record_count: expected.length, total_pages: pages, current_page: page, per_page: perPage })
      expect(body.companies).toEqual(expected.slice((page - 1) * perPage, page * perPage))
      seen.push(...body.companies)
    }
    expect(seen).toEqual(expected)
    expect(new Set(seen.map((c: any) => c.id)).size).toBe(expected.length)
  })

  it('uses the default page size (50) and lowers per_page above the cap to the cap', async () => {
    const inv = largest()
    const first = portfolioSchema.parse(await h.json(`/investors/${inv.id}/portfolio`))
    expect(first.meta).toMatchObject({ current_page: 1, per_page: 50, total_pages: Math.ceil(inv.portfolio_size / 50) })
    expect(first.companies).toEqual(expectedPortfolio(model, inv.id).slice(0, 50))
    const capped = portfolioSchema.parse(await h.json(`/investors/${inv.id}/portfolio?per_page=100000`))
    expect(capped.meta.per_page).toBe(h.engine.limits.maxPerPage)
    expect(capped.companies.length).toBe(Math.min(inv.portfolio_size, h.engine.limits.maxPerPage))
  })

  it('answers a page past the end with no companies and the true meta', async () => {
    const inv = largest()
    const body = portfolioSchema.parse(await h.json(`/investors/${inv.id}/portfolio?page=999&per_page=10`))
    expect(body.companies).toEqual([])
    expect(body.meta).toEqual({ total_record_count: inv.portfolio_size, total_pages: Math.ceil(inv.portfolio_size / 10), current_page: 999, per_page: 10 })
  })

  it('answers an investor without investments with an empty portfolio', async () => {
    const idle = model.investors.find((i) => i.portfolio_size === 0)!
    expect(portfolioSchema.parse(await h.json(`/investors/${idle.id}/portfolio`))).toEqual({
      companies: [], meta: { total_record_count: 0, total_pages: 0, current_page: 1, per_page: 50 },
    })
  })

  it('gives a trial key the first page only, at most 50 results, and a 403 for page 2 saying why', async () => {
    const inv = largest()
    const first = portfolioSchema.parse(await h.json(`/investors/${inv.id}/portfolio?per_page=500`, { key: h.trialKey }))
    expect(first.companies.length).toBeLessThanOrEqual(50)
    expect(first.companies).toEqual(expectedPortfolio(model, inv.id).slice(0, first.meta.per_page))
    const problem = await problemOf(await h.get(`/investors/${inv.id}/portfolio?page=2`, { key: h.trialKey }), 403)
    expect(problem.error).toMatch(/[Tt]rial/)
  })

  it('answers an unknown investor with a JSON 404', async () => {
    await problemOf(await h.get('/investors/987654/portfolio'), 404)
    await problemOf(await h.get('/investors/x1/portfolio'), 404)
  })

  it('refuses a bad page with a 400 naming the parameter, what was expected and what was got', async () => {
    const problem = await problemOf(await h.get(`/investors/${largest().id}/portfolio?page=-3`), 400)
    expect(problem.issues).toEqual([expect.objectContaining({ code: 'invalid_page', path: '/page', expected: 'an integer >= 1', got: '"-3"' })])
    const twice = await problemOf(await h.get(`/investors/${largest().id}/portfolio?per_page=5&per_page=6`), 400)
    expect(twice.issues).toEqual([expect.objectContaining({ code: 'invalid_value', path: '/per_page' })])
  })
})

//// Hostile input: never a 5xx, and the data is left as it was ////

describe('hostile input', () => {
  const long = '9'.repeat(10_000)
  const hostileIds: readonly [string, number][] = [
    ['1%20OR%201=1', 404],
    ["1'%20OR%20'1'='1", 404],
    ['1;DROP%20TABLE%20investors', 404],
    ['%27', 404],
    [long, 404],
    ['x'.repeat(10_000), 404],
    ['%E0%A4%A', 404],
    ['8%00', 404],
    ['%00', 404],
    ['-1', 404],
    ['0', 404],
    ['99999999999999999999', 404],
    ['999999999999999', 404],
    ['1e3', 404],
    ['0x10', 404],
    ['8.0', 404],
    ['%5B8%5D', 404],
    ['%20', 404],
  ]
  it.each(hostileIds.map(([id, status]) => [id.slice(0, 40), status, id] as const))('id %s → %i on both endpoints', async (_title, status, id) => {
    const detail = await h.get(`/investors/${id}`)
    expect(detail.status).toBe(status)
    problemSchema.parse(await detail.json())
    const portfolio = await h.get(`/investors/${id}/portfolio`)
    expect(portfolio.status).toBe(status)
    problemSchema.parse(await portfolio.json())
  })

  const hostilePaging: readonly [string, number, string?][] = [
    ['page=1%20OR%201=1', 400, '/page'],
    ['page=1;DROP%20TABLE%20investments', 400, '/page'],
    ['page=0', 400, '/page'],
    ['page=-1', 400, '/page'],
    ['page=1e3', 400, '/page'],
    ['page=1.5', 400, '/page'],
    [`page=${long}`, 400, '/page'],
    ['page=%E0%A4%A', 400, '/page'],
    ['page=%00', 400, '/page'],
    ['page=1%00', 400, '/page'],
    ['page[]=1&page[]=2', 400, '/page'],
    ['page[]=1', 200],
    ['page=999999999999999', 200],
    ['page=9999999999999999', 400, '/page'],
    ['per_page=0', 400, '/per_page'],
    ['per_page=-5', 400, '/per_page'],
    ['per_page=abc', 400, '/per_page'],
    [`per_page=${long}`, 400, '/per_page'],
    ['per_page=999999999999999', 200],
    ['per_page=%27', 400, '/per_page'],
    ['page=&per_page=', 400, '/page'],
  ]
  it.each(hostilePaging.map(([query, status, path]) => [query.slice(0, 40), status, query, path] as const))('portfolio ?%s → %i', async (_title, status, query, path) => {
    const res = await h.get(`/investors/${largest().id}/portfolio?${query}`)
    expect(res.status).toBe(status)
    const body = await res.json()
    if (status === 200) portfolioSchema.parse(body)
    else {
      const problem = problemSchema.parse(body)
      expect(problem.issues?.map((i) => i.path)).toContain(path)
    }
  })

  it('left the investor tables as they were', () => {
    expect(h.vdb.sqlite.prepare('select count(*) from investors').pluck().get()).toBe(model.investors.length)
    expect(h.vdb.sqlite.prepare('select count(*) from investments').pluck().get()).toBe(model.investments.length)
  })
})
