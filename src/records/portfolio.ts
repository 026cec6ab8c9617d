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
import { sql } from 'kysely'
import { primaryKeyColumn } from '../catalog/index.js'
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { COMPANIES, INVESTORS } from '../store/sql-names.js'
import { companyCol, FIRST_INVESTED_ON, PORTFOLIO_LINK } from './investor.js'
import { nullsLast } from './order.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'

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

const INVESTOR_EXISTS = queryShape<{ id: number }, { found: number }>('portfolio: investor exists', (db, _d, p) =>
  db.selectFrom(INVESTORS.table).select((eb) => eb.lit(1).as('found')).where(primaryKeyColumn(INVESTORS), '=', p.id))

const COUNT = queryShape<{ id: number }, { total: number | string }>('portfolio: size', (db, _d, p) =>
  db.selectFrom(P.table).select((eb) => eb.fn.countAll().as('total')).where(P.fromKey, '=', p.id))

// The page is cut from the link rows first, then joined to companies: only `limit` company rows
// are read whatever the offset. A link row without a company row still shows, with its id.
const PAGE = queryShape<{ id: number; limit: number; offset: number }, PortfolioCompany>('portfolio: page', (db, d, p) => {
  const links = db.selectFrom(P.table)
    .select([`${P.toKey} as company_id`, `${FIRST_INVESTED_ON} as first_invested_on`])
    .where(P.fromKey, '=', p.id)
    .orderBy(d.binaryText(sql.ref(FIRST_INVESTED_ON)), nullsLast(d, 'desc')).orderBy(P.toKey)
    .limit(p.limit).offset(p.offset)
  return db.selectFrom(links.as('p'))
    .leftJoin(`${COMPANIES.table} as c`, `c.${primaryKeyColumn(COMPANIES)}`, 'p.company_id')
    .leftJoin(`${DETAIL_TABLES.companyExtra} as x`, 'x.company_id', 'p.company_id')
    .select((eb) => [
      'p.company_id as id', `c.${companyCol('name')} as company_name`, `c.${companyCol('website')} as domain`,
      eb.fn.coalesce('x.stage_raw', `c.${companyCol('stage')}`).as('stage'), `c.${companyCol('location')} as location`,
      `c.${companyCol('last_funding_date')} as last_funding_date`, `c.${companyCol('total_funding')} as total_funding`,
      'p.first_invested_on as investor_first_invested_on',
    ])
    .orderBy(d.binaryText(sql.ref('p.first_invested_on')), nullsLast(d, 'desc')).orderBy('p.company_id')
})

/**
 * One page of an investor's portfolio; undefined when no investor has this id. `page` counts
 * from 1; a page past the end is empty (with the true total).
 *
 * @example
 * investorPortfolio(engine.database, 8, { page: 2, perPage: 50 })?.companies.length
 */
export async function investorPortfolio(vdb: VentureDb, id: number, paging: { page: number; perPage: number }): Promise<PortfolioPage | undefined> {
  if (!Number.isSafeInteger(id)) return undefined
  return recordSession(vdb).snapshot(async (s): Promise<PortfolioPage | undefined> => {
    if ((await s.first(INVESTOR_EXISTS, { id })) === undefined) return undefined
    const total = Number((await s.first(COUNT, { id }))?.total ?? 0)
    const offset = (paging.page - 1) * paging.perPage
    // Past the end (also any offset too large to bind exactly) there is nothing to read.
    if (offset >= total) return { total, companies: [] }
    return { total, companies: await s.all(PAGE, { id, limit: paging.perPage, offset }) }
  })
}
