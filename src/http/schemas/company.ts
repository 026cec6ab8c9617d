/**
 * @module zod schemas of the company detail endpoints' responses (spec 2.3–2.8). The route specs
 * reference them (the OpenAPI document is derived from them) and the tests parse every response
 * with them.
 *
 * Missing values (grammar-docs/guides/serving.md, "Missing values", views/missing-values.ts): a plain spec `string` the
 * data lacks is `""`; an integer, a "string (numeric)", a date or a datetime the data lacks is
 * `null` (any 0, "0" or date there would be made up: the one deliberate deviation from the spec's
 * non-nullable types); a field the spec marks nullable (2.5 total_funding, 2.7 email) is `null`;
 * arrays are always arrays, `[]` when there is nothing. A missing stage shows "Unknown" (spec 3).
 */
import { z } from 'zod'
import { isoDate, numericString, sqlDatetime, utcDatetime } from './common.js'

/** 2.3.5 recorded_at: 'YYYY-MM-DD HH:MM:SS UTC'; est_monthly_uniques carries '+0000', with or without a space. */
const recordedAt = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} ?(UTC|\+0000)$/, "a 'YYYY-MM-DD HH:MM:SS UTC' (or '+0000') timestamp")

/** A plain spec string: '' when unknown. */
const text = z.string()
const integer = z.number().int()
/** A "string (numeric)": null when unknown. */
const numeric = numericString.nullable()
/** An integer the data may lack: null when unknown. */
const unknownInteger = integer.nullable()
/** last_funding_date: "both YYYYMMDD and YYYY-MM-DD forms occur" (spec 2.3). */
const fundingDate = z.string().regex(/^[0-9]{4}-?[0-9]{2}-?[0-9]{2}$/, 'a YYYY-MM-DD or YYYYMMDD date')

/** 2.3.1 */
export const iosStoreAppSchema = z.object({
  developer_url: text,
  ios_store_id: text,
  ios_store_url: text,
  app_name: text,
}).describe('An ios store app.')

/** 2.3.2 */
export const androidStoreAppSchema = z.object({
  id: unknownInteger,
  app_name: text,
  package_id: text,
  company_id: integer,
  company_name: text,
  company_domain: text,
  play_url: text,
}).describe('An android store app.')

/** 2.3.3 */
export const fundingItemSchema = z.object({
  amount: unknownInteger.describe('Null when the amount was not disclosed.'),
  currency: text,
  series: z.string().describe('Series; an empty string occurs.'),
  funding_date: isoDate.nullable(),
  news_url: text,
  source: text,
  investor_ids: z.array(integer),
  investors: z.string().describe('Investor names separated by commas.'),
}).describe('A funding item of a company detail.')

/** 2.3.4 */
export const acquisitionItemSchema = z.object({
  event_id: integer,
  closed_date: isoDate.nullable(),
  company_id: unknownInteger,
  company_name: text,
  company_domain: text,
}).describe('An acquisition: the other party of the event.')

/** 2.3.5 */
export const timeSeriesPointSchema = z.object({
  recorded_at: recordedAt,
  score: z.union([numericString, z.number()]).nullable().describe('A string or a number, as recorded; may be negative.'),
}).describe('A time series point.')

const series = z.array(timeSeriesPointSchema)

/** 2.3 stories: the detail's own story shape. */
export const detailStorySchema = z.object({
  title: text,
  url: text,
  date: utcDatetime.nullable(),
  source: text,
})

/** 2.3 Company detail (GET /companies/:id, GET /domains/:domain/companies). */
export const companyDetailSchema = z.object({
  name: text,
  id: numericString.describe('The company identifier, as a string.'),
  description: text,
  website: text.describe('The canonical domain.'),
  svc_score: numeric,
  employees: numeric,
  employees_month_ago: numeric,
  employees_6_months_ago: numeric,
  website_uniques: numeric,
  mobile_downloads: numeric,
  mobile_score: numeric,
  stage: z.string().describe('Stage, as the record spelled it; "Unknown" when none is known.'),
  total_funding: unknownInteger.describe('U.S. dollars only (0 when every known round was in another currency); null when no funding is known.'),
  last_funding_amount: unknownInteger,
  last_funding_date: fundingDate.nullable(),
  location: text,
  city: text,
  state: text,
  zip: text,
  country: z.union([z.string().regex(/^[A-Z]{3}$/, 'a three-letter country code'), z.literal('')]).describe("Three-letter country code; '' when unknown."),
  microblog_handle: text,
  socialnet_handle: text,
  professionalnet_id: unknownInteger,
  added_date: sqlDatetime.nullable(),
  revenue_range: text,
  ios_store_apps: z.array(iosStoreAppSchema),
  android_store_apps: z.array(androidStoreAppSchema),
  funding: z.array(fundingItemSchema),
  acquired_by: z.array(acquisitionItemSchema),
  acquired_companies: z.array(acquisitionItemSchema),
  est_founding_date: isoDate.nullable(),
  business_models: z.array(z.string()),
  industries: z.array(z.string()),
  stories: z.array(detailStorySchema).describe('The 50 latest stories, newest first.'),
  growth_scores: series,
  mindshare_scores: series,
  svc_weekly_momentum: series,
  employee_count: series,
  web_rank: series,
  socialnet_talking_count: series,
  socialnet_like_count: series,
  microblog_follower_count: series,
  microblog_mentions: z.array(timeSeriesPointSchema).max(0).describe('Deprecated: always an empty list.'),
  professionalnet_follower_count: series,
  ios_store_usa_weekly_downloads: series,
  inbound_links: series,
  est_monthly_uniques: series,
}).describe('Company detail.')

/** 2.4 */
export const storySchema = z.object({
  id: integer,
  title: text,
  url: text,
  published_at: utcDatetime.nullable(),
  source_title: text,
}).describe('A news story.')
export const storiesSchema = z.array(storySchema).max(50).describe('The 50 latest stories, newest first.')

/** 2.5 */
export const similarCompanySchema = z.object({
  company_name: text,
  description: text,
  description_plain_text: text.describe('The description with HTML and markdown removed.'),
  domain: text,
  id: integer,
  probability: z.number().gt(0).lte(1).describe('1.0 for the best match, lower for the others.'),
  stage: z.string(),
  total_funding: unknownInteger.describe('Nullable: null when no funding is known.'),
}).describe('A similar company.')
export const similarCompaniesSchema = z.array(similarCompanySchema).max(20).describe('At most 20 similar companies, most similar first.')

/** 2.6 */
export const personSchema = z.object({
  name: text,
  title: text,
  path: text.describe('Address of a professional profile.'),
}).describe('A person.')
export const peopleSchema = z.array(personSchema).describe('Key personnel.')

/** 2.7 */
export const contactSchema = z.object({
  company_id: integer,
  name: z.string(),
  email: z.string().nullable().describe('Null means contact information is unavailable; that is a normal answer.'),
}).describe('A contact.')

/** 2.8 */
export const techItemSchema = z.object({ company_id: integer, title: z.string() }).describe('A technology item.')
export const techStackSchema = z.array(techItemSchema).describe('The technology stack.')

//// parameters (documentation; the handlers validate them themselves) ////

export const companyIdParams = z.object({
  id: z.string().describe('Company identifier (a positive integer). Anything else is a 404: no such company can exist.'),
})
export const companyIdAsCompanyIdParams = z.object({
  company_id: z.string().describe('Company identifier (a positive integer). Anything else is a 404: no such company can exist.'),
})
export const domainParams = z.object({
  domain: z.string().describe('Canonical website domain, any case; a leading `www.` and a trailing dot are ignored.'),
})
export const contactQuery = z.object({
  full_name: z.string().describe('Full name of the person (URL-encoded). Required, at most 200 characters.'),
})
