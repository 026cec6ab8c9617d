/**
 * @module An investor's portfolio (spec 4.13, shape 2.13): the companies it invested in, with the
 * date of its first deal in each, one page at a time.
 *
 * Order: `investor_first_invested_on` descending (most recent investments first, unknown dates
 * last), then company id ascending, so every company appears exactly once across pages.
 *
 * Paging is a bounded OFFSET over the investor's own rows of the `investments` link table (read by
 * its primary key prefix, investor_id), not over the dataset: the largest portfolio of the
 * 1,000,000-company database holds 3,776 companies, so the sort and skip touch at most that many
 * index entries, and company rows are joined for the page only (measured there: its first page of
 * 50 in ~0.5 ms, its last, page 76, in ~1.6 ms; a keyset would save about a millisecond).
 */
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import type { SqliteVentureDb } from '../store/open.js'
import { companyCol, FIRST_INVESTED_ON, PORTFOLIO_LINK } from './investor.js'
import { columnOf, COMPANIES, INVESTORS, preparedCache } from '../store/sql-names.js'

export interface PortfolioCompany {
  readonly id: number
  readonly company_name: string | null
  readonly domain: string | null
  /** The stage as the company detail shows it (its raw spelling where the record had one). */
  readonly stage: string | null
  readonly location: string | null
  readonly last_funding_date: string | null
  readonly total_funding: number | null
  readonly investor_first_invested_on: string | null
}

export interface PortfolioPage {
  /** Companies in the whole portfolio. */
  readonly total: number
  readonly companies: readonly PortfolioCompany[]
}

const P = PORTFOLIO_LINK
const companies = `"${COMPANIES.table}"`
const investors = `"${INVESTORS.table}"`
const ORDER = `${FIRST_INVESTED_ON} desc nulls last, ${P.toKey}`

const statements = preparedCache((sqlite) => ({
  investorExists: sqlite.prepare(`select 1 from ${investors} where ${columnOf(INVESTORS, 'investor_id')} = ?`).pluck(),
  count: sqlite.prepare(`select count(*) from ${P.table} where ${P.fromKey} = ?`).pluck(),
  // The page is cut from the link rows first, then joined to companies: only `limit` company rows
  // are read whatever the offset. A link row without a company row still shows, with its id.
  page: sqlite.prepare(`
    select p.company_id as id, c.${companyCol('name')} as company_name, c.${companyCol('website')} as domain,
      coalesce(x.stage_raw, c.${companyCol('stage')}) as stage, c.${companyCol('location')} as location,
      c.${companyCol('last_funding_date')} as last_funding_date, c.${companyCol('total_funding')} as total_funding,
      p.first_invested_on as investor_first_invested_on
    from (
      select ${P.toKey} as company_id, ${FIRST_INVESTED_ON} as first_invested_on from ${P.table}
      where ${P.fromKey} = ? order by ${ORDER} limit ? offset ?
    ) p
      left join ${companies} c on c.${companyCol('id')} = p.company_id
      left join ${DETAIL_TABLES.companyExtra} x on x.company_id = p.company_id
    order by p.first_invested_on desc nulls last, p.company_id`),
}))

/**
 * One page of an investor's portfolio; undefined when no investor has this id. `page` counts
 * from 1; a page past the end is empty (with the true total).
 *
 * @example
 * investorPortfolio(engine.database, 8, { page: 2, perPage: 50 })?.companies.length
 */
export function investorPortfolio(vdb: SqliteVentureDb, id: number, paging: { page: number; perPage: number }): PortfolioPage | undefined {
  if (!Number.isSafeInteger(id)) return undefined
  const s = statements(vdb.sqlite)
  return vdb.sqlite.transaction((): PortfolioPage | undefined => {
    if (s.investorExists.get(id) === undefined) return undefined
    const total = s.count.get(id) as number
    const offset = (paging.page - 1) * paging.perPage
    // Past the end (also any offset too large to bind exactly) there is nothing to read.
    if (offset >= total) return { total, companies: [] }
    return { total, companies: s.page.all(id, paging.perPage, offset) as PortfolioCompany[] }
  })()
}
