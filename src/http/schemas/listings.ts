/**
 * @module Wire shapes of the listing endpoints: GET /companies (spec 2.2, 4.1) and GET /fundings
 * (spec 2.10, 4.10), and their query parameters, derived from the parameter table of
 * `parse/list-params.ts` so the OpenAPI document lists exactly the parameters the handlers read.
 *
 * Missing values (grammar-docs/guides/serving.md, "Missing values", views/missing-values.ts): plain strings are '' when
 * unknown, the nullable region and state null; amount and the dates are null when unknown, the one
 * deliberate deviation from spec 2.10's non-nullable types (a 0 or '' there would be false data).
 */
import { z } from 'zod'
import { fieldsParam } from './fields.js'
import { FORMATS, LIST_PARAMETER_ALIASES, LIST_PARAMETERS, sortableNames, type ListEndpoint } from '../../parse/list-params.js'
import { answerOptionParams, facetsSchema, withoutTotal } from './answer-options.js'
import { isoDate, metaSchema, numericString, pagingParams, sqlDatetime } from './common.js'

/** Company list item (spec 2.2). */
export const companyListItemSchema = z.object({
  company_name: z.string().describe("'' when unknown."),
  domain: z.string().describe("'' when unknown."),
  id: numericString.describe('Company identifier, as a string.'),
  url: z.url().describe('Absolute address of GET /companies/{id}.'),
}).strict().describe('Company list item.')

export const companyListSchema = z.object({
  meta: metaSchema,
  companies: z.array(companyListItemSchema),
  facets: facetsSchema.optional(),
}).strict().describe('GET /companies.')

/** GET /companies as counted, or under `total=none`. */
export const companyListPageSchema = withoutTotal(companyListSchema)

/** Funding event (spec 2.10). */
export const fundingSchema = z.object({
  id: numericString,
  funding_id: numericString.describe('Equal to id.'),
  company_id: z.union([numericString, z.literal('')]).describe("The company's identifier, as a string; '' when the event names no company."),
  company_name: z.string(),
  investors: z.string().describe('Investor names separated by commas.'),
  investor_slugs: z.string().describe('Investor slugs separated by commas.'),
  series: z.string().describe('Series; an empty string when unknown.'),
  rounds_funding_date: isoDate.nullable().describe('YYYY-MM-DD; null when unknown.'),
  amount: z.number().int().nullable().describe('Amount raised; null when not disclosed (not 0).'),
  currency: z.string(),
  news_url: z.string().describe("Address of the news item; '' when there is none."),
  industry: z.string().describe("The company's industries separated by commas."),
  region: z.string().nullable().describe('Nullable: null when unknown.'),
  city: z.string(),
  state: z.string().nullable().describe('Nullable: null when unknown.'),
  country: z.string().describe("Three-letter country code; '' when unknown."),
  created_on: sqlDatetime.nullable().describe("'YYYY-MM-DD HH:MM:SS'; null when not recorded."),
}).strict().describe('Funding event.')

export const fundingListSchema = z.object({
  meta: metaSchema,
  fundings: z.array(fundingSchema),
  facets: facetsSchema.optional(),
}).strict().describe('GET /fundings.')

/** GET /fundings as counted, or under `total=none`. */
export const fundingListPageSchema = withoutTotal(fundingListSchema)

/** The query parameters of a listing endpoint, one optional string each, described from the table. */
export function listQuerySchema(endpoint: ListEndpoint): z.ZodObject {
  const shape: Record<string, z.ZodOptional<z.ZodString>> = {}
  for (const def of LIST_PARAMETERS[endpoint]) {
    const on = def.via ? `${def.via}.${def.field}` : def.field
    shape[def.name] = z.string().optional().describe(
      `${def.meaning} Accepts ${FORMATS[def.format].accepts}. In the filter language (field \`${on}\`): ${FORMATS[def.format].becomes}.`,
    )
  }
  for (const { alias, name } of LIST_PARAMETER_ALIASES[endpoint]) {
    shape[alias] = z.string().optional().meta({ deprecated: true }).describe(
      `Deprecated: the original service's name of \`${name}\`, read as \`${name}\` (for its existing clients). Sending both with different values is a 400.`,
    )
  }
  shape.sort = z.string().optional().describe(
    `Order: comma-separated field names, each optionally prefixed by - for descending; from ${[...sortableNames(endpoint).keys()].join(', ')}. Default: the dataset's default order.`,
  )
  return z.object({ ...shape, ...pagingParams, ...fieldsParam(endpoint === 'companies' ? 'company-list-items' : 'fundings'), ...answerOptionParams })
}
