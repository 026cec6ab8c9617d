/**
 * The investor record lookups on a hand-made dataset whose every expected value is worked out by
 * hand below: ties (two companies first invested on the same day, two rounds on the same day), a
 * company raising twice in one quarter, rounds without a series or a date, a company without stage
 * or location, a raw stage spelling, more filings than are listed, and an investor record without
 * paths (the view derives them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { investorDetailSchema, portfolioSchema } from '../../src/http/schemas/investor.js'
import { investorDetail } from '../../src/records/investor.js'
import { investorPortfolio } from '../../src/records/portfolio.js'
import { createApiKey } from '../../src/store/api-keys.js'
import { ingestAll } from '../../src/store/ingest.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'

const company = (id: number, name: string, extra: Record<string, unknown>) => ({ type: 'company', record: { id, name, website: `${name.toLowerCase()}.com`, ...extra } })
const funding = (id: number, company_id: number, date: string | null, series: string | null, investor_ids: number[], amount: number | null = 1_000_000) =>
  ({ type: 'funding', record: { id, company_id, rounds_funding_date: date, series, investor_ids, amount, currency: 'USD' } })

const filings = Array.from({ length: 12 }, (_, i) => ({
  entity_name: `Alpha Fund ${i}`, total_offering: 1000 * (i + 1), total_sold: 500 * (i + 1),
  // Month i+1 of 2020; the last one has no date.
  filing_date: i === 11 ? null : `2020-${String(i + 1).padStart(2, '0')}-15`, form: 'D',
}))

const RECORDS = [
  { type: 'investor', record: { investor_id: 1, name: 'Alpha Ventures', svc_slug: 'alpha', type: 'vc', most_recent_filings: filings } },
  { type: 'investor', record: { investor_id: 2, name: 'Beta Angels', svc_slug: 'beta', type: 'angel', location: 'Paris', website: 'https://beta.example', portfolio_path: '/custom/beta', funding_rounds_path: '/custom/beta/rounds' } },
  { type: 'investor', record: { investor_id: 3, name: 'Gamma Labs', svc_slug: 'gamma', type: 'accelerator' } },
  company(10, 'Tenco', { stage: 'a', location: 'Paris', industries: ['Fintech', 'Software'], business_models: ['SaaS'] }),
  company(11, 'Elevenco', { industries: ['Software'] }),
  company(12, 'Twelveco', { stage: 'b', location: 'Paris', industries: ['Health'] }),
  company(13, 'Thirteenco', { stage: 'no known funding', location: 'Berlin', industries: ['Fintech'] }),
  funding(100, 10, '2024-02-10', 'a', [1, 2]),
  funding(101, 10, '2024-03-01', null, [1]),
  funding(102, 11, '2024-02-10', 'a', [1]),
  funding(103, 12, '2023-12-31', 'b', [1]),
  funding(104, 13, '2024-04-01', 'seed', [1]),
  funding(105, 13, null, null, [1]),
  funding(106, 12, '2024-04-01', 'c', [2, 1], 7_500_000),
]

let vdb: SqliteVentureDb
let engine: Engine
beforeAll(() => {
  vdb = openDatabase(':memory:')
  const summary = ingestAll(vdb, RECORDS)
  expect(summary.rejected).toEqual([])
  engine = createEngine({ database: vdb })
})
afterAll(async () => {
  await engine.close()
  await vdb.close()
})

describe('investorDetail', () => {
  it('computes every aggregate as worked out by hand', async () => {
    const detail = (await investorDetail(vdb, 1))!
    expect(detail).toMatchObject({
      id: 1, name: 'Alpha Ventures', svc_slug: 'alpha', website: null, location: null,
      portfolio_path: null, funding_rounds_path: null, portfolio_size: 4, number_of_deals: 7,
    })
    expect(detail.portfolio_aggregates).toEqual({
      // Elevenco was imported without a stage: it has the stage Unknown (grammar-docs/guides/serving.md, "Missing values"),
      // counted like every company of that stage. It has no location: left out, not counted under ''.
      stages: [{ name: 'No Known Funding', count: 1 }, { name: 'Unknown', count: 1 }, { name: 'a', count: 1 }, { name: 'b', count: 1 }],
      locations: [{ name: 'Paris', count: 2 }, { name: 'Berlin', count: 1 }],
      business_models: [{ name: 'SaaS', count: 1 }],
      industries: [{ name: 'Fintech', count: 2 }, { name: 'Software', count: 2 }, { name: 'Health', count: 1 }],
    })
    // 101 and 105 have no series: '' (spec 4.11).
    expect(detail.deal_aggregates.series).toEqual([
      { name: '', count: 2 }, { name: 'a', count: 2 }, { name: 'b', count: 1 }, { name: 'c', count: 1 }, { name: 'seed', count: 1 },
    ])
    // 105 has no date: in no quarter. Tenco raised twice in Q1 2024 and counts once there.
    expect(detail.deal_aggregates.quarterly).toEqual([
      { quarter: '2024-04-01', companies: 2, breakdown: {
        stages: [{ name: 'No Known Funding', count: 1 }, { name: 'b', count: 1 }],
        locations: [{ name: 'Berlin', count: 1 }, { name: 'Paris', count: 1 }],
        business_models: [],
        industries: [{ name: 'Fintech', count: 1 }, { name: 'Health', count: 1 }],
      } },
      { quarter: '2024-01-01', companies: 2, breakdown: {
        stages: [{ name: 'Unknown', count: 1 }, { name: 'a', count: 1 }],
        locations: [{ name: 'Paris', count: 1 }],
        business_models: [{ name: 'SaaS', count: 1 }],
        industries: [{ name: 'Software', count: 2 }, { name: 'Fintech', count: 1 }],
      } },
      { quarter: '2023-10-01', companies: 1, breakdown: {
        stages: [{ name: 'b', count: 1 }], locations: [{ name: 'Paris', count: 1 }], business_models: [], industries: [{ name: 'Health', count: 1 }],
      } },
    ])
    expect(detail.top_industries).toEqual([
      { industry_name: 'Fintech', investments: 2 }, { industry_name: 'Software', investments: 2 }, { industry_name: 'Health', investments: 1 },
    ])
    // 104 and 106 share the latest date; the higher id wins. Its investors by name.
    expect(detail.most_recent_funding).toEqual({
      funding_id: 106, funding_date: '2024-04-01', amount: 7_500_000, series: 'c',
      company: { id: 12, company_name: 'Twelveco' },
      investors: [{ svc_slug: 'alpha', display_name: 'Alpha Ventures' }, { svc_slug: 'beta', display_name: 'Beta Angels' }],
    })
    // Twelve filings: the ten newest dated ones, newest first; the undated one is not among them.
    expect(detail.most_recent_filings.map((f) => f.filing_date)).toEqual(
      ['2020-11-15', '2020-10-15', '2020-09-15', '2020-08-15', '2020-07-15', '2020-06-15', '2020-05-15', '2020-04-15', '2020-03-15', '2020-02-15'])
    expect(detail.most_recent_filings[0]).toEqual({ entity_name: 'Alpha Fund 10', total_offering: 11_000, total_sold: 5_500, filing_date: '2020-11-15', form: 'D' })
  })

  it('answers an investor without deals with empty aggregates', async () => {
    expect(await investorDetail(vdb, 3)).toMatchObject({
      portfolio_size: 0, number_of_deals: 0, most_recent_funding: null,
      portfolio_aggregates: { stages: [], locations: [], business_models: [], industries: [] },
      deal_aggregates: { series: [], quarterly: [] }, top_industries: [], most_recent_filings: [],
    })
  })

  it('is undefined for an unknown id and for ids that are not safe integers', async () => {
    expect(await investorDetail(vdb, 4)).toBeUndefined()
    expect(await investorDetail(vdb, 1.5)).toBeUndefined()
    expect(await investorDetail(vdb, Number.MAX_SAFE_INTEGER + 2)).toBeUndefined()
  })
})

describe('investorPortfolio', () => {
  it('orders by first investment desc, then company id, across pages (the tie of 2024-02-10 included)', async () => {
    const pages = await Promise.all([1, 2, 3, 4, 5].map(async (page) => (await investorPortfolio(vdb, 1, { page, perPage: 1 }))!))
    expect(pages.map((p) => p.total)).toEqual([4, 4, 4, 4, 4])
    expect(pages.map((p) => p.companies.map((c) => c.id))).toEqual([[13], [10], [11], [12], []])
    expect(pages.map((p) => p.companies[0]?.investor_first_invested_on)).toEqual(['2024-04-01', '2024-02-10', '2024-02-10', '2023-12-31', undefined])
  })

  it('shows the stage as the company detail does (raw spelling) and the company funding fields', async () => {
    const all = (await investorPortfolio(vdb, 1, { page: 1, perPage: 10 }))!.companies
    expect(all[0]).toEqual({
      id: 13, company_name: 'Thirteenco', domain: 'thirteenco.com', stage: 'no known funding', location: 'Berlin',
      last_funding_date: '2024-04-01', total_funding: 2_000_000, investor_first_invested_on: '2024-04-01',
    })
    expect(all[2]).toMatchObject({ id: 11, stage: 'Unknown', location: null })
  })

  it('is undefined for an unknown investor and empty past the end', async () => {
    expect(await investorPortfolio(vdb, 4, { page: 1, perPage: 10 })).toBeUndefined()
    expect(await investorPortfolio(vdb, 1, { page: Number.MAX_SAFE_INTEGER, perPage: 50 })).toEqual({ total: 4, companies: [] })
  })
})

describe('the wire view on this dataset', () => {
  it('derives the paths of an investor imported without them, keeps given ones, and fills unknown text with ""', async () => {
    const key = await createApiKey(vdb, { plan: 'full', quota: 100, period: 'day' })
    if (!key.ok) throw new Error('key')
    const app = createApp(engine)
    const get = async (path: string) => {
      const res = await app.fetch(new Request(`https://api.test${path}`, { headers: { authorization: `Bearer ${key.value.key}` } }))
      expect(res.status).toBe(200)
      return res.json()
    }
    const alpha = investorDetailSchema.parse(await get('/investors/1'))
    expect(alpha).toMatchObject({ website: '', location: '', portfolio_path: '/investors/1/portfolio', funding_rounds_path: '/fundings?investor_slugs=alpha' })
    expect(alpha.deal_aggregates.quarterly.map((q) => Object.keys(q))).toEqual([['2024-04-01'], ['2024-01-01'], ['2023-10-01']])
    expect(alpha.most_recent_funding).not.toHaveProperty('funding_id')
    const beta = investorDetailSchema.parse(await get('/investors/2'))
    expect(beta).toMatchObject({ website: 'https://beta.example', location: 'Paris', portfolio_path: '/custom/beta', funding_rounds_path: '/custom/beta/rounds' })
    const portfolio = portfolioSchema.parse(await get('/investors/1/portfolio?per_page=2&page=2'))
    expect(portfolio.companies.map((c) => [c.id, c.stage, c.location])).toEqual([[11, 'Unknown', ''], [12, 'b', 'Paris']])
    expect(portfolio.meta).toEqual({ total_record_count: 4, total_pages: 2, current_page: 2, per_page: 2 })
  })
})
