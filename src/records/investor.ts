/**
 * @module The investor detail record (spec 4.12, shape 2.12): the investor's row, its portfolio and
 * deal aggregates, its most recent funding round with every investor of that round, and its latest
 * filings. Everything is read with GROUP BY over the indexed link tables (`investments` by its
 * primary key (investor_id, company_id), `funding_investors` by its investor index), so the cost
 * grows with the investor's portfolio, never with the dataset: on the 1,000,000-company database
 * the largest portfolio (3,776 companies, 4,449 deals) is measured in bench notes of the report.
 *
 * Values are returned as stored (null where unknown); the HTTP view decides the wire forms.
 *
 * Decisions the spec leaves open (each pinned by test/http/investors.test.ts):
 * - Counts of `{name, count}` lists are sorted count desc, then name asc (binary order); companies
 *   whose stage or location is unknown are left out of those lists rather than counted as "".
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
import type BetterSqlite3 from 'better-sqlite3'
import { datasets, findRelation, type DatasetDef, type DatasetName } from '../catalog/index.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import type { VentureDb } from '../store/open.js'

/** How many industries `top_industries` lists. */
export const TOP_INDUSTRIES_LIMIT = 10
/** How many filings `most_recent_filings` lists. */
export const RECENT_FILINGS_LIMIT = 10

//// SQL names, all from the catalog (design 2: nothing outside it hard-codes a field name) ////

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`

/** The quoted column of a scalar field; a missing one is a programming error caught at import. */
export function columnOf(ds: DatasetDef, field: string): string {
  const column = ds.fields[field]?.column
  if (!column) throw new Error(`records: ${ds.name}.${field} is not a column in the catalog`)
  return quote(column)
}

/** The quoted table, owner column and value column of a tags field. */
export function tagsOf(ds: DatasetDef, field: string): { table: string; owner: string; value: string } {
  const tags = ds.fields[field]?.tags
  if (!tags) throw new Error(`records: ${ds.name}.${field} is not a tags field in the catalog`)
  return { table: quote(tags.table), owner: quote(tags.ownerColumn), value: quote(tags.valueColumn) }
}

/** The quoted link table of a relation and its two key columns. */
export function linkOf(from: DatasetName, to: DatasetName): { table: string; fromKey: string; toKey: string } {
  const relation = findRelation(from, to)
  if (relation?.kind !== 'link') throw new Error(`records: no link relation ${from} → ${to} in the catalog`)
  return { table: quote(relation.table), fromKey: quote(relation.fromKey), toKey: quote(relation.toKey) }
}

export const COMPANIES = datasets.companies
export const INVESTORS = datasets.investors
export const FUNDINGS = datasets.fundings
export const companyCol = (field: string): string => columnOf(COMPANIES, field)
const investorCol = (field: string): string => columnOf(INVESTORS, field)
const fundingCol = (field: string): string => columnOf(FUNDINGS, field)

/** investors → companies: the portfolio, with `first_invested_on` (spec 2.13). */
export const PORTFOLIO_LINK = linkOf('investors', 'companies')
/** investors → fundings: the deals. */
const DEALS_LINK = linkOf('investors', 'fundings')
/** Column of the portfolio link table holding the date of the first deal with the company. */
export const FIRST_INVESTED_ON = quote('first_invested_on')

//// Prepared statements, one set per connection ////

/**
 * Statements prepared once per connection and kept: a detail lookup runs seven small statements,
 * and preparing them afresh would cost about as much as running them for a small investor.
 */
export function preparedCache<T>(build: (sqlite: BetterSqlite3.Database) => T): (sqlite: BetterSqlite3.Database) => T {
  const cache = new WeakMap<BetterSqlite3.Database, T>()
  return (sqlite) => {
    let statements = cache.get(sqlite)
    if (!statements) cache.set(sqlite, (statements = build(sqlite)))
    return statements
  }
}

const I = { table: quote(INVESTORS.table), id: investorCol('investor_id') }
const C = { table: quote(COMPANIES.table), id: companyCol('id') }
const F = { table: quote(FUNDINGS.table), id: fundingCol('id'), company: fundingCol('company_id'), date: fundingCol('rounds_funding_date') }
const t = DETAIL_TABLES

/** The first day of the calendar quarter of a YYYY-MM-DD text date, as YYYY-MM-DD. */
const quarterStart = (date: string): string =>
  `substr(${date}, 1, 5) || (case when substr(${date}, 6, 2) <= '03' then '01' when substr(${date}, 6, 2) <= '06' then '04' when substr(${date}, 6, 2) <= '09' then '07' else '10' end) || '-01'`

/** The four company breakdowns of portfolio_aggregates and of each quarter, by the dimension's wire name. */
const BREAKDOWNS = [
  { dimension: 'stages', kind: 'column', field: 'stage' },
  { dimension: 'locations', kind: 'column', field: 'location' },
  { dimension: 'industries', kind: 'tags', field: 'industries' },
  { dimension: 'business_models', kind: 'tags', field: 'business_models' },
] as const

export type Dimension = (typeof BREAKDOWNS)[number]['dimension']
export const DIMENSIONS: readonly Dimension[] = Object.freeze(BREAKDOWNS.map((b) => b.dimension))

/**
 * One UNION ALL member per breakdown: `(group, dimension, name, count)` over the companies of the
 * CTE `scope(grp, company_id)`. Values come in as bound parameters; every identifier here is from
 * the catalog.
 */
function breakdownUnion(): string {
  return BREAKDOWNS.map((b) => {
    if (b.kind === 'column') {
      const col = companyCol(b.field)
      return `select s.grp as grp, '${b.dimension}' as dimension, c.${col} as name, count(*) as count
        from scope s join ${C.table} c on c.${C.id} = s.company_id
        where c.${col} is not null group by s.grp, c.${col}`
    }
    const tags = tagsOf(COMPANIES, b.field)
    return `select s.grp as grp, '${b.dimension}' as dimension, x.${tags.value} as name, count(*) as count
      from scope s join ${tags.table} x on x.${tags.owner} = s.company_id
      group by s.grp, x.${tags.value}`
  }).join('\nunion all\n')
}

const statements = preparedCache((sqlite) => ({
  investor: sqlite.prepare(`
    select i.${I.id} as id, i.${investorCol('name')} as name, i.${investorCol('svc_slug')} as svc_slug,
      i.${investorCol('website')} as website, i.${investorCol('type')} as type, i.${investorCol('location')} as location,
      -- Counts, which materialise sets for every investor (0 without deals); coalesce for a
      -- database loaded without it.
      coalesce(i.${investorCol('portfolio_size')}, 0) as portfolio_size, coalesce(i.${investorCol('number_of_deals')}, 0) as number_of_deals,
      i.${investorCol('three_year_funds_sold')} as three_year_funds_sold,
      i.${investorCol('est_most_recent_fund_date')} as est_most_recent_fund_date,
      d.portfolio_path as portfolio_path, d.funding_rounds_path as funding_rounds_path
    from ${I.table} i left join ${t.investorDetails} d on d.investor_id = i.${I.id}
    where i.${I.id} = ?`),
  // One group ('') over the whole portfolio.
  portfolioAggregates: sqlite.prepare(`
    with scope(grp, company_id) as (select '', ${PORTFOLIO_LINK.toKey} from ${PORTFOLIO_LINK.table} where ${PORTFOLIO_LINK.fromKey} = ?)
    ${breakdownUnion()}
    order by dimension, count desc, name`),
  // One group per quarter with deals; the extra '' dimension lists every quarter (with its number
  // of distinct companies), so that a quarter whose companies have no known attributes still shows.
  quarterly: sqlite.prepare(`
    with scope(grp, company_id) as materialized (
      select distinct ${quarterStart(`e.${F.date}`)}, e.${F.company}
      from ${DEALS_LINK.table} l join ${F.table} e on e.${F.id} = l.${DEALS_LINK.toKey}
      where l.${DEALS_LINK.fromKey} = ? and e.${F.date} is not null)
    select grp, '' as dimension, '' as name, count(*) as count from scope group by grp
    union all
    ${breakdownUnion()}
    order by grp desc, dimension, count desc, name`),
  series: sqlite.prepare(`
    select coalesce(e.${fundingCol('series')}, '') as name, count(*) as count
    from ${DEALS_LINK.table} l join ${F.table} e on e.${F.id} = l.${DEALS_LINK.toKey}
    where l.${DEALS_LINK.fromKey} = ?
    group by 1 order by count desc, name`),
  topIndustries: (() => {
    const tags = tagsOf(COMPANIES, 'industries')
    return sqlite.prepare(`
      select x.${tags.value} as industry_name, count(*) as investments
      from ${PORTFOLIO_LINK.table} p join ${tags.table} x on x.${tags.owner} = p.${PORTFOLIO_LINK.toKey}
      where p.${PORTFOLIO_LINK.fromKey} = ?
      group by x.${tags.value} order by investments desc, industry_name limit ${TOP_INDUSTRIES_LIMIT}`)
  })(),
  mostRecentFunding: sqlite.prepare(`
    select e.${F.id} as funding_id, e.${F.date} as funding_date, e.${fundingCol('amount')} as amount,
      e.${fundingCol('series')} as series, e.${F.company} as company_id,
      coalesce(c.${companyCol('name')}, e.${fundingCol('company_name')}) as company_name
    from ${DEALS_LINK.table} l join ${F.table} e on e.${F.id} = l.${DEALS_LINK.toKey}
      left join ${C.table} c on c.${C.id} = e.${F.company}
    where l.${DEALS_LINK.fromKey} = ?
    order by e.${F.date} desc nulls last, e.${F.id} desc limit 1`),
  roundInvestors: (() => {
    const link = linkOf('fundings', 'investors')
    return sqlite.prepare(`
      select i.${investorCol('svc_slug')} as svc_slug, i.${investorCol('name')} as display_name
      from ${link.table} l join ${I.table} i on i.${I.id} = l.${link.toKey}
      where l.${link.fromKey} = ?
      order by i.${investorCol('name')}, i.${I.id}`)
  })(),
  filings: sqlite.prepare(`
    select entity_name, total_offering, total_sold, filing_date, form
    from ${t.investorFilings} where investor_id = ?
    order by filing_date desc nulls last, position limit ${RECENT_FILINGS_LIMIT}`),
}))

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
type BreakdownRow = { grp: string; dimension: Dimension | ''; name: string; count: number }

const emptyBreakdown = (): Record<Dimension, NameCount[]> => ({ stages: [], locations: [], business_models: [], industries: [] })

/**
 * The investor detail of spec 2.12, or undefined when no investor has this id. Reads run in one
 * transaction so the parts agree with each other even while an ingest writes.
 *
 * @example
 * const detail = investorDetail(engine.database, 8)
 * detail?.deal_aggregates.quarterly[0]?.quarter // '2024-04-01'
 */
export function investorDetail(vdb: VentureDb, id: number): InvestorDetail | undefined {
  if (!Number.isSafeInteger(id)) return undefined
  const s = statements(vdb.sqlite)
  return vdb.sqlite.transaction((): InvestorDetail | undefined => {
    const row = s.investor.get(id) as InvestorRow | undefined
    if (!row) return undefined

    const portfolio = emptyBreakdown()
    for (const r of s.portfolioAggregates.all(id) as BreakdownRow[]) {
      if (r.dimension !== '') portfolio[r.dimension].push({ name: r.name, count: r.count })
    }

    // Rows arrive grouped by quarter, newest first; the '' dimension row opens each quarter.
    const quarterly: { quarter: string; companies: number; breakdown: Record<Dimension, NameCount[]> }[] = []
    for (const r of s.quarterly.all(id) as BreakdownRow[]) {
      let current = quarterly[quarterly.length - 1]
      if (!current || current.quarter !== r.grp) quarterly.push((current = { quarter: r.grp, companies: 0, breakdown: emptyBreakdown() }))
      if (r.dimension === '') current.companies = r.count
      else current.breakdown[r.dimension].push({ name: r.name, count: r.count })
    }

    const latest = s.mostRecentFunding.get(id) as Omit<MostRecentFunding, 'company' | 'investors'> & { company_id: number; company_name: string | null } | undefined
    const mostRecentFunding: MostRecentFunding | null = latest
      ? {
          funding_id: latest.funding_id,
          funding_date: latest.funding_date,
          amount: latest.amount,
          series: latest.series,
          company: { id: latest.company_id, company_name: latest.company_name },
          investors: s.roundInvestors.all(latest.funding_id) as RoundInvestor[],
        }
      : null

    return {
      ...row,
      most_recent_funding: mostRecentFunding,
      portfolio_aggregates: portfolio,
      deal_aggregates: { series: s.series.all(id) as NameCount[], quarterly },
      top_industries: s.topIndustries.all(id) as { industry_name: string; investments: number }[],
      most_recent_filings: s.filings.all(id) as Filing[],
    }
  })()
}
