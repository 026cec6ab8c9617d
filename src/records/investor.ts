/**
 * @module The investor detail record (spec 4.12, shape 2.12): the investor's row, its portfolio and
 * deal aggregates, its most recent funding round with every investor of that round, and its latest
 * filings. Reads go through the indexed link tables only (`investments` by its primary key
 * (investor_id, company_id), `funding_investors` by its investor index, tag tables by company), so
 * the cost grows with the investor's portfolio, never with the dataset (1M-company database,
 * machine shared: the largest portfolio, 3,776 companies and 4,449 deals, ~40 ms warm; the median
 * investor, 27 companies, ~0.2 ms).
 *
 * Values are returned as stored (null where unknown); the HTTP view decides the wire forms.
 *
 * Decisions the spec leaves open (pinned by test/records/investor.test.ts and test/http/investors.test.ts):
 * - Counts of `{name, count}` lists are sorted count desc, then name asc (binary order); companies
 *   whose location is unknown are left out of those lists rather than counted as "". (A company
 *   without a known stage has the stage "Unknown", stored so: it is counted under that name.)
 * - `deal_aggregates.series` counts funding events; a round without a series counts under ''
 *   (spec 4.11: responses show an empty string).
 * - `deal_aggregates.quarterly` counts the distinct companies of the deals in each calendar
 *   quarter (a company raising twice in one quarter counts once), newest quarter first; deals
 *   without a date belong to no quarter.
 * - `top_industries` counts the investor's investments (portfolio companies, the `investments`
 *   table) per industry, the top {@link TOP_INDUSTRIES_LIMIT}.
 * - `most_recent_funding` is the latest dated round (ties: the higher event id), with every
 *   tracked investor of that round; null when the investor has no deals.
 * - `most_recent_filings` are the latest {@link RECENT_FILINGS_LIMIT} filings, newest first.
 */
import { sql } from 'kysely'
import { primaryKeyColumn } from '../catalog/index.js'
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { columnName, COMPANIES, FUNDINGS, INVESTORS, linkNames, tagTableOf } from '../store/sql-names.js'
import { nullsLast } from './order.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'

/** How many industries `top_industries` lists. */
export const TOP_INDUSTRIES_LIMIT = 10
/** How many filings `most_recent_filings` lists. */
export const RECENT_FILINGS_LIMIT = 10

//// SQL names, all from the catalog (design 2: nothing outside it hard-codes a field name) ////

export const companyCol = (field: string): string => columnName(COMPANIES, field)
const investorCol = (field: string): string => columnName(INVESTORS, field)
const fundingCol = (field: string): string => columnName(FUNDINGS, field)

/** investors → companies: the portfolio, with `first_invested_on` (spec 2.13). */
export const PORTFOLIO_LINK = linkNames('investors', 'companies')
/** investors → fundings: the deals. */
const DEALS_LINK = linkNames('investors', 'fundings')
/** fundings → investors: the investors of a round. */
const ROUND_LINK = linkNames('fundings', 'investors')
/** Column of the portfolio link table holding the date of the first deal with the company. */
export const FIRST_INVESTED_ON = 'first_invested_on'

const I_ID = primaryKeyColumn(INVESTORS)
const C_ID = primaryKeyColumn(COMPANIES)
const F_ID = primaryKeyColumn(FUNDINGS)
const t = DETAIL_TABLES

/** The four company breakdowns of portfolio_aggregates and of each quarter, by the dimension's wire name. */
export const DIMENSIONS = Object.freeze(['stages', 'locations', 'business_models', 'industries'] as const)
export type Dimension = (typeof DIMENSIONS)[number]

//// Statements ////

/*
 * Why the counting happens in JS: each breakdown as its own GROUP BY re-reads the company rows
 * or tag rows of every company (13 passes for portfolio, quarters, series, top industries and the
 * latest round). On the 1M database the largest investor (3,776 companies, 4,449 deals) took 83 ms
 * that way, each pass ~4 ms of primary-key lookups. Reading the deals once, the portfolio's
 * stage/location once and each tag table once (4 passes) and counting in memory: ~40 ms, and the
 * median investor 0.7 → 0.2 ms. The reads stay bounded by the investor's own link rows.
 */
const INVESTOR = queryShape<{ id: number }, InvestorRow>('investor detail: row', (db, _d, p) =>
  db.selectFrom(`${INVESTORS.table} as i`).leftJoin(`${t.investorDetails} as d`, 'd.investor_id', `i.${I_ID}`)
    .select((eb) => [
      `i.${I_ID} as id`, `i.${investorCol('name')} as name`, `i.${investorCol('svc_slug')} as svc_slug`,
      `i.${investorCol('website')} as website`, `i.${investorCol('type')} as type`, `i.${investorCol('location')} as location`,
      // Counts, which materialise sets for every investor (0 without deals); coalesce for a
      // database loaded without it.
      eb.fn.coalesce(`i.${investorCol('portfolio_size')}`, eb.lit(0)).as('portfolio_size'),
      eb.fn.coalesce(`i.${investorCol('number_of_deals')}`, eb.lit(0)).as('number_of_deals'),
      `i.${investorCol('three_year_funds_sold')} as three_year_funds_sold`,
      `i.${investorCol('est_most_recent_fund_date')} as est_most_recent_fund_date`,
      'd.portfolio_path as portfolio_path', 'd.funding_rounds_path as funding_rounds_path',
    ])
    .where(`i.${I_ID}`, '=', p.id))

const DEALS = queryShape<{ id: number }, DealRow>('investor detail: deals', (db, _d, p) =>
  db.selectFrom(`${DEALS_LINK.table} as l`).innerJoin(`${FUNDINGS.table} as e`, `e.${F_ID}`, `l.${DEALS_LINK.toKey}`)
    .select([
      `e.${F_ID} as id`, `e.${fundingCol('company_id')} as company_id`, `e.${fundingCol('series')} as series`,
      `e.${fundingCol('rounds_funding_date')} as date`, `e.${fundingCol('amount')} as amount`, `e.${fundingCol('company_name')} as company_name`,
    ])
    .where(`l.${DEALS_LINK.fromKey}`, '=', p.id))

const PORTFOLIO_COMPANIES = queryShape<{ id: number }, { company_id: number; stage: string | null; location: string | null }>('investor detail: portfolio companies', (db, _d, p) =>
  db.selectFrom(`${PORTFOLIO_LINK.table} as p`).leftJoin(`${COMPANIES.table} as c`, `c.${C_ID}`, `p.${PORTFOLIO_LINK.toKey}`)
    .select([`p.${PORTFOLIO_LINK.toKey} as company_id`, `c.${companyCol('stage')} as stage`, `c.${companyCol('location')} as location`])
    .where(`p.${PORTFOLIO_LINK.fromKey}`, '=', p.id))

/** The tag rows of the investor's portfolio companies: one pass over the tag table's primary key. */
const portfolioTags = (field: 'industries' | 'business_models') => {
  const tags = tagTableOf(COMPANIES, field)
  return queryShape<{ id: number }, { company_id: number; name: string }>(`investor detail: portfolio ${field}`, (db, _d, p) =>
    db.selectFrom(`${PORTFOLIO_LINK.table} as p`).innerJoin(`${tags.table} as x`, `x.${tags.ownerColumn}`, `p.${PORTFOLIO_LINK.toKey}`)
      .select([`x.${tags.ownerColumn} as company_id`, `x.${tags.valueColumn} as name`])
      .where(`p.${PORTFOLIO_LINK.fromKey}`, '=', p.id))
}
const PORTFOLIO_INDUSTRIES = portfolioTags('industries')
const PORTFOLIO_BUSINESS_MODELS = portfolioTags('business_models')

const COMPANY_NAME = queryShape<{ id: number }, { name: string | null }>('investor detail: company name', (db, _d, p) =>
  db.selectFrom(COMPANIES.table).select(`${companyCol('name')} as name`).where(C_ID, '=', p.id))

const ROUND_INVESTORS = queryShape<{ fundingId: number }, RoundInvestor>('investor detail: investors of a round', (db, _d, p) =>
  db.selectFrom(`${ROUND_LINK.table} as l`).innerJoin(`${INVESTORS.table} as i`, `i.${I_ID}`, `l.${ROUND_LINK.toKey}`)
    .select([`i.${investorCol('svc_slug')} as svc_slug`, `i.${investorCol('name')} as display_name`])
    .where(`l.${ROUND_LINK.fromKey}`, '=', p.fundingId)
    .orderBy(`i.${investorCol('name')}`).orderBy(`i.${I_ID}`))

const FILINGS = queryShape<{ id: number; limit: number }, Filing>('investor detail: filings', (db, d, p) =>
  db.selectFrom(t.investorFilings).select(['entity_name', 'total_offering', 'total_sold', 'filing_date', 'form'])
    .where('investor_id', '=', p.id)
    .orderBy(d.binaryText(sql.ref('filing_date')), nullsLast(d, 'desc')).orderBy('position')
    .limit(p.limit))

//// The record ////

export interface NameCount {
  readonly name: string
  readonly count: number
}

export type Breakdown = Readonly<Record<Dimension, readonly NameCount[]>>

export interface QuarterBreakdown {
  /** First day of the quarter, YYYY-MM-DD. */
  readonly quarter: string
  /** Distinct companies of the investor's deals in the quarter. */
  readonly companies: number
  readonly breakdown: Breakdown
}

export interface RoundInvestor {
  readonly svc_slug: string | null
  readonly display_name: string | null
}

export interface MostRecentFunding {
  readonly funding_id: number
  readonly funding_date: string | null
  readonly amount: number | null
  readonly series: string | null
  readonly company: { readonly id: number; readonly company_name: string | null }
  readonly investors: readonly RoundInvestor[]
}

export interface Filing {
  readonly entity_name: string | null
  readonly total_offering: number | null
  readonly total_sold: number | null
  readonly filing_date: string | null
  readonly form: string | null
}

export interface InvestorDetail {
  readonly id: number
  readonly name: string | null
  readonly svc_slug: string | null
  readonly website: string | null
  readonly type: string | null
  readonly location: string | null
  /** As the investor record gave it; null when the record had none (the view derives one). */
  readonly portfolio_path: string | null
  readonly funding_rounds_path: string | null
  readonly portfolio_size: number
  readonly number_of_deals: number
  readonly three_year_funds_sold: number | null
  readonly est_most_recent_fund_date: string | null
  readonly most_recent_funding: MostRecentFunding | null
  readonly portfolio_aggregates: Breakdown
  readonly deal_aggregates: {
    readonly series: readonly NameCount[]
    /** Newest quarter first. */
    readonly quarterly: readonly QuarterBreakdown[]
  }
  readonly top_industries: readonly { readonly industry_name: string; readonly investments: number }[]
  readonly most_recent_filings: readonly Filing[]
}

type InvestorRow = Omit<InvestorDetail, 'most_recent_funding' | 'portfolio_aggregates' | 'deal_aggregates' | 'top_industries' | 'most_recent_filings'>
interface DealRow { id: number; company_id: number; series: string | null; date: string | null; amount: number | null; company_name: string | null }
interface CompanyFacts { stage: string | null; location: string | null; industries: string[]; business_models: string[] }

/** Binary (code point) order, as SQLite compares text by default. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** `{name, count}` for each distinct name, count desc then name asc; nulls are not counted. */
class Tally {
  readonly #counts = new Map<string, number>()
  add(name: string | null): void {
    if (name !== null) this.#counts.set(name, (this.#counts.get(name) ?? 0) + 1)
  }
  sorted(): NameCount[] {
    return [...this.#counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || byText(a.name, b.name))
  }
}

function breakdownOf(companyIds: Iterable<number>, facts: ReadonlyMap<number, CompanyFacts>): Breakdown {
  const stages = new Tally()
  const locations = new Tally()
  const businessModels = new Tally()
  const industries = new Tally()
  for (const id of companyIds) {
    // Deal companies are portfolio companies (materialise derives one from the other); a company
    // missing from the facts has no known attributes and adds nothing.
    const f = facts.get(id)
    if (!f) continue
    stages.add(f.stage)
    locations.add(f.location)
    for (const b of f.business_models) businessModels.add(b)
    for (const i of f.industries) industries.add(i)
  }
  return { stages: stages.sorted(), locations: locations.sorted(), business_models: businessModels.sorted(), industries: industries.sorted() }
}

/** The first day of the calendar quarter of a stored YYYY-MM-DD date. */
function quarterOf(date: string): string {
  const month = Number(date.slice(5, 7))
  return `${date.slice(0, 4)}-${String(Math.floor((month - 1) / 3) * 3 + 1).padStart(2, '0')}-01`
}

/** Latest date first, undated last; on the same date the higher event id. */
function laterDeal(a: DealRow, b: DealRow): DealRow {
  if (a.date === null || b.date === null) return a.date === null ? (b.date === null && a.id > b.id ? a : b) : a
  return a.date > b.date || (a.date === b.date && a.id > b.id) ? a : b
}

/**
 * The investor detail of spec 2.12, or undefined when no investor has this id. Reads run in one
 * snapshot so the parts agree with each other even while an ingest writes.
 *
 * @example
 * const detail = await investorDetail(engine.database, 8)
 * detail?.deal_aggregates.quarterly[0]?.quarter // '2024-04-01'
 */
export async function investorDetail(vdb: VentureDb, id: number): Promise<InvestorDetail | undefined> {
  if (!Number.isSafeInteger(id)) return undefined
  return recordSession(vdb).snapshot(async (s): Promise<InvestorDetail | undefined> => {
    const row = await s.first(INVESTOR, { id })
    if (!row) return undefined

    const [companies, industries, businessModels, deals, filings] = await Promise.all([
      s.all(PORTFOLIO_COMPANIES, { id }),
      s.all(PORTFOLIO_INDUSTRIES, { id }),
      s.all(PORTFOLIO_BUSINESS_MODELS, { id }),
      s.all(DEALS, { id }),
      s.all(FILINGS, { id, limit: RECENT_FILINGS_LIMIT }),
    ])
    const facts = new Map<number, CompanyFacts>()
    for (const c of companies) facts.set(c.company_id, { stage: c.stage, location: c.location, industries: [], business_models: [] })
    for (const t of industries) facts.get(t.company_id)?.industries.push(t.name)
    for (const t of businessModels) facts.get(t.company_id)?.business_models.push(t.name)
    const portfolio = breakdownOf(facts.keys(), facts)

    const series = new Tally()
    const companiesByQuarter = new Map<string, Set<number>>()
    let latest: DealRow | undefined
    for (const deal of deals) {
      series.add(deal.series ?? '')
      latest = latest ? laterDeal(latest, deal) : deal
      if (deal.date === null) continue
      const quarter = quarterOf(deal.date)
      let companies = companiesByQuarter.get(quarter)
      if (!companies) companiesByQuarter.set(quarter, (companies = new Set()))
      companies.add(deal.company_id)
    }
    const quarterly = [...companiesByQuarter.keys()].sort((a, b) => byText(b, a)).map((quarter): QuarterBreakdown => {
      const companies = companiesByQuarter.get(quarter)!
      return { quarter, companies: companies.size, breakdown: breakdownOf(companies, facts) }
    })

    let mostRecentFunding: MostRecentFunding | null = null
    if (latest) {
      const [company, investors] = await Promise.all([
        s.first(COMPANY_NAME, { id: latest.company_id }),
        s.all(ROUND_INVESTORS, { fundingId: latest.id }),
      ])
      mostRecentFunding = {
        funding_id: latest.id,
        funding_date: latest.date,
        amount: latest.amount,
        series: latest.series,
        company: { id: latest.company_id, company_name: company?.name ?? latest.company_name },
        investors,
      }
    }

    return {
      ...row,
      most_recent_funding: mostRecentFunding,
      portfolio_aggregates: portfolio,
      deal_aggregates: { series: series.sorted(), quarterly },
      top_industries: portfolio.industries.slice(0, TOP_INDUSTRIES_LIMIT).map((i) => ({ industry_name: i.name, investments: i.count })),
      most_recent_filings: filings,
    }
  })
}
