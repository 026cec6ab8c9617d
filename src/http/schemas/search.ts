/**
 * @module Wire shape of GET /search (spec 4.9, 2.9): a bare array of results, one shape per
 * object_type. The route spec (OpenAPI) and the tests use these same schemas.
 *
 * Missing values (grammar-docs/guides/serving.md, "Missing values", views/missing-values.ts) follow the spec's types, also
 * for fields that do not apply to the object type: the string `company_domain` of an investor is
 * '', a company's `investor_funding` is 0 (as the original service sent it, NUMBERS_WHEN_UNKNOWN),
 * an investor's `company_funding` and `company_mattermark_score` are null, and so is an investor's
 * `company_keywords` (nullable). For
 * a company, `object_slug` is its domain (the :domain of GET /domains/:domain/companies), '' when
 * unknown; `company_keywords` its keywords, [] when it has none; `company_funding` its
 * total_funding exactly as GET /companies/:id shows it (0 when it never raised, null when its
 * rounds' amounts are undisclosed); `company_mattermark_score` its svc_score rounded, null when the
 * company has no score.
 */
import { z } from 'zod'

const id = z.number().int().min(0).describe('Use as :id of GET /companies/:id or GET /investors/:id.')
const dollars = z.number().int().min(0)

export const companySearchResultSchema = z.object({
  object_type: z.literal('company'),
  object_name: z.string(),
  object_slug: z.string().describe('The company\'s website domain.'),
  company_domain: z.string(),
  company_funding: dollars.nullable().describe('total_funding: U.S. dollars; 0 when the company never raised, null when its rounds\' amounts are undisclosed.'),
  company_keywords: z.array(z.string()).describe('The company\'s keywords; [] when it has none.'),
  company_mattermark_score: z.number().int().nullable().describe('The company\'s svc_score, rounded (this exact name, as the original service sent it); null when unknown.'),
  investor_funding: z.literal(0).describe('Does not apply to a company: 0, as the original service sent it (clients add it up).'),
  object_id: id,
}).strict()

export const investorSearchResultSchema = z.object({
  object_type: z.literal('investor'),
  object_name: z.string(),
  object_slug: z.string().describe('The investor\'s svc_slug.'),
  company_domain: z.literal('').describe('Does not apply to an investor: \'\' (a string).'),
  company_funding: z.null().describe('Does not apply to an investor.'),
  company_keywords: z.null().describe('Does not apply to an investor.'),
  company_mattermark_score: z.null().describe('Does not apply to an investor.'),
  investor_funding: dollars.nullable().describe('U.S.-dollar total of the funding rounds the investor took part in.'),
  object_id: id,
}).strict()

export const searchResultSchema = z.discriminatedUnion('object_type', [companySearchResultSchema, investorSearchResultSchema])
  .describe('A search result.')

export const searchResponseSchema = z.array(searchResultSchema)
  .describe('Search results, best first: exact name matches, then names that start with the term, then other matches by more words matched '
    + 'and fewer typos; then the more important records first (companies by svc_score and total_funding, investors by portfolio size and deals).')

export const SEARCH_DEFAULT_RESULTS = 10
export const SEARCH_MAX_RESULTS = 50
export const SEARCH_MAX_TERM_LENGTH = 200

export const searchQueryParams = z.object({
  term: z.string().min(1).max(SEARCH_MAX_TERM_LENGTH)
    .describe(`The text to search for (required, at most ${SEARCH_MAX_TERM_LENGTH} characters). Every word must start a word of the name, `
      + 'domain (companies) or slug (investors); case and accents are ignored.'),
  object_types: z.string().optional()
    .describe('company and/or investor (plurals accepted): `object_types=company`, `object_types[]=company` repeated, or `company|investor`. Default both.'),
  per_page: z.string().optional()
    .describe(`Most results returned (default ${SEARCH_DEFAULT_RESULTS}; values above ${SEARCH_MAX_RESULTS} are lowered to it).`),
  typo: z.enum(['0', '1', '2', 'auto']).optional()
    .describe('Typo tolerance: 0 exact prefixes only; 1 or 2 edits at most per word of 5+ letters; auto 1 edit from 5 letters, 2 from 9 '
      + '(an insertion, deletion, substitution or swap of neighbouring letters is one edit). Default: the server\'s, auto unless configured.'),
})
