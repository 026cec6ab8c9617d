/**
 * @module Wire shapes of GET /investors/:id (spec 2.12) and GET /investors/:id/portfolio (spec
 * 2.13). The route specs (OpenAPI) and the tests use these same schemas.
 *
 * Missing values (grammar-docs/guides/serving.md, "Missing values", views/missing-values.ts): the spec types these fields
 * as plain strings and integers, never nullable. A text field the data lacks is sent as '' (still
 * a string, as the spec says); a number or a date the data lacks is sent as null, because any
 * integer or date put there would be a made-up value (0 funds sold is a claim, and '' is not a
 * YYYY-MM-DD date). A company without a stage shows "Unknown" (spec 3), as its detail does.
 * `most_recent_funding` is null when the investor has no round on record.
 */
import { z } from 'zod'
import { isoDate, metaSchema, pagingParams } from './common.js'

const count = z.number().int().min(0)
const unknownInteger = z.number().int().nullable()
const unknownDate = isoDate.nullable()

/** One entry of a breakdown: a value and how many records have it. */
export const nameCountSchema = z.object({ name: z.string(), count: count.min(1) })

/** A list of {name, count}, sorted count desc, then name asc. */
const nameCounts = z.array(nameCountSchema)

/** The four company breakdowns of portfolio_aggregates and of each quarter. */
export const breakdownSchema = z.object({
  stages: nameCounts,
  locations: nameCounts,
  business_models: nameCounts,
  industries: nameCounts,
}).strict()

/** One quarter of deal_aggregates.quarterly: a one-key object, the key the quarter's first day. */
export const quarterSchema = z.record(
  isoDate.regex(/^[0-9]{4}-(01|04|07|10)-01$/, 'the first day of a quarter'),
  breakdownSchema,
).refine((quarter) => Object.keys(quarter).length === 1, 'exactly one quarter per entry')

export const mostRecentFundingSchema = z.object({
  funding_date: unknownDate,
  amount: unknownInteger,
  /** '' where the round has no series (spec 4.11). */
  series: z.string(),
  company: z.object({ id: z.number().int(), company_name: z.string() }).strict(),
  /** Every tracked investor of the round, this one included. */
  investors: z.array(z.object({ svc_slug: z.string(), display_name: z.string() }).strict()).min(1),
}).strict()

export const filingSchema = z.object({
  entity_name: z.string(),
  total_offering: unknownInteger,
  total_sold: unknownInteger,
  filing_date: unknownDate,
  form: z.string(),
}).strict()

/** GET /investors/:id (spec 2.12). */
export const investorDetailSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  svc_slug: z.string(),
  website: z.string(),
  type: z.string(),
  location: z.string(),
  portfolio_path: z.string().min(1),
  portfolio_size: count,
  number_of_deals: count,
  three_year_funds_sold: unknownInteger,
  funding_rounds_path: z.string().min(1),
  est_most_recent_fund_date: unknownDate,
  most_recent_funding: mostRecentFundingSchema.nullable(),
  portfolio_aggregates: breakdownSchema,
  deal_aggregates: z.object({
    series: nameCounts,
    quarterly: z.array(quarterSchema),
  }).strict(),
  top_industries: z.array(z.object({ industry_name: z.string(), investments: count.min(1) }).strict()),
  most_recent_filings: z.array(filingSchema),
}).strict().describe('Investor detail.')

/** One company of a portfolio (spec 2.13). */
export const portfolioCompanySchema = z.object({
  id: z.number().int(),
  company_name: z.string(),
  domain: z.string(),
  stage: z.string(),
  location: z.string(),
  last_funding_date: unknownDate,
  total_funding: unknownInteger,
  investor_first_invested_on: unknownDate,
}).strict()

/** GET /investors/:id/portfolio (spec 2.13). */
export const portfolioSchema = z.object({
  companies: z.array(portfolioCompanySchema),
  meta: metaSchema,
}).strict().describe('Investor portfolio, most recent first investment first.')

export const investorPathParams = z.object({
  id: z.string().describe('Investor identifier (object_id of a search result, investor_id of a query result).'),
})

export const portfolioQueryParams = z.object({ ...pagingParams })
