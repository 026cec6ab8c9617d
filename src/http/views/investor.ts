/**
 * @module Investor records in the wire shapes of spec 2.12 and 2.13. Unknown values follow
 * missing-values.ts: '' for plain strings, null for numbers and dates, [] for arrays. Views only rename and fill: every
 * count and order comes from the record lookups.
 */
import type { z } from 'zod'
import type { PageMeta } from '../../engine.js'
import type { Breakdown, InvestorDetail } from '../../records/investor.js'
import type { PortfolioCompany, PortfolioPage } from '../../records/portfolio.js'
import type { breakdownSchema, investorDetailSchema, portfolioCompanySchema, portfolioSchema } from '../schemas/investor.js'
import { dateOrNull, integerOrNull, stageText, text } from './missing-values.js'

/** Same key order as spec 2.12 lists them. (Copies: the record's lists are read-only, the wire type's are not.) */
function breakdownView(b: Breakdown): z.infer<typeof breakdownSchema> {
  return { stages: [...b.stages], locations: [...b.locations], business_models: [...b.business_models], industries: [...b.industries] }
}

export function investorDetailView(detail: InvestorDetail): z.infer<typeof investorDetailSchema> {
  const funding = detail.most_recent_funding
  return {
    id: detail.id,
    name: text(detail.name),
    svc_slug: text(detail.svc_slug),
    website: text(detail.website),
    type: text(detail.type),
    location: text(detail.location),
    // Records imported without paths get the ones this service answers at.
    portfolio_path: detail.portfolio_path || `/investors/${detail.id}/portfolio`,
    portfolio_size: detail.portfolio_size,
    number_of_deals: detail.number_of_deals,
    three_year_funds_sold: integerOrNull(detail.three_year_funds_sold),
    funding_rounds_path: detail.funding_rounds_path || (detail.svc_slug
      ? `/fundings?investor_slugs=${encodeURIComponent(detail.svc_slug)}`
      : `/fundings?investor_ids=${detail.id}`),
    est_most_recent_fund_date: dateOrNull(detail.est_most_recent_fund_date),
    // An object, not a scalar: null when the investor has no round on record (there is nothing to describe).
    most_recent_funding: funding && {
      funding_date: dateOrNull(funding.funding_date),
      amount: integerOrNull(funding.amount),
      series: text(funding.series),
      company: { id: funding.company.id, company_name: text(funding.company.company_name) },
      investors: funding.investors.map((i) => ({ svc_slug: text(i.svc_slug), display_name: text(i.display_name) })),
    },
    portfolio_aggregates: breakdownView(detail.portfolio_aggregates),
    deal_aggregates: {
      series: [...detail.deal_aggregates.series],
      quarterly: detail.deal_aggregates.quarterly.map((q) => ({ [q.quarter]: breakdownView(q.breakdown) })),
    },
    top_industries: [...detail.top_industries],
    most_recent_filings: detail.most_recent_filings.map((f) => ({
      entity_name: text(f.entity_name),
      total_offering: integerOrNull(f.total_offering),
      total_sold: integerOrNull(f.total_sold),
      filing_date: dateOrNull(f.filing_date),
      form: text(f.form),
    })),
  }
}

function portfolioCompanyView(c: PortfolioCompany): z.infer<typeof portfolioCompanySchema> {
  return {
    id: c.id,
    company_name: text(c.company_name),
    domain: text(c.domain),
    // The same text the company's detail and similar-company entries show for it ("Unknown" when none).
    stage: stageText(c.stage),
    location: text(c.location),
    last_funding_date: dateOrNull(c.last_funding_date),
    total_funding: integerOrNull(c.total_funding),
    investor_first_invested_on: dateOrNull(c.investor_first_invested_on),
  }
}

export function portfolioView(page: PortfolioPage, paging: { page: number; perPage: number }): z.infer<typeof portfolioSchema> {
  const meta: PageMeta = {
    total_record_count: page.total,
    total_pages: Math.ceil(page.total / paging.perPage),
    current_page: paging.page,
    per_page: paging.perPage,
  }
  return { companies: page.companies.map(portfolioCompanyView), meta }
}
