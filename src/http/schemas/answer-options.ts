/**
 * @module Wire shapes of the answer options every paged listing and query takes besides its
 * filter: facet counts (`facets`, `facet_limit`) and pages without a total (`total=none`,
 * `count=false`). They shape the answer, not the records selected, so they are no part of a
 * stored query or its id. grammar-docs/guides/facets.md and grammar-docs/list-parameters.md.
 */
import { z } from 'zod'
import { DEFAULT_FACET_LIMIT, MAX_FACET_LIMIT } from '../../check/facets.js'

/** The query parameters (GET) of the answer options. */
export const answerOptionParams = {
  facets: z.string().optional().describe(
    'Comma-separated (or pipe-separated) fields to count per value over the filtered records: enum, tags and country fields by value, date fields by year. '
    + 'The answer gets `facets`; a field that cannot be faceted is a 400 naming it.',
  ),
  facet_limit: z.string().optional().describe(`Values listed per facet, by count descending then value: 1 to ${MAX_FACET_LIMIT} (default ${DEFAULT_FACET_LIMIT}); the rest are summed in \`other\`.`),
  total: z.string().optional().describe('`none`: do not count the records; `meta` then has `current_page` and `per_page` only and the Link header no `last`. `exact` (the default) counts.'),
  count: z.string().optional().describe('`false`: the same as `total=none`; `true` (the default) counts.'),
}

/** The same options as members of a POST /queries body. */
export const answerOptionMembers = {
  facets: z.union([z.array(z.string()), z.string()]).optional().describe('Fields to count per value (an array, or comma-separated text in a form); see `facets` of GET /companies. Not part of the stored query.'),
  facet_limit: z.union([z.number().int(), z.string()]).optional().describe(`Values listed per facet, 1 to ${MAX_FACET_LIMIT} (default ${DEFAULT_FACET_LIMIT}).`),
  total: z.string().optional().describe('`none`: do not count; `meta` then has `current_page` and `per_page` only.'),
  count: z.union([z.boolean(), z.string()]).optional().describe('`false`: the same as `total: "none"`.'),
}

/** `meta` of a page answered without counting. */
export const metaWithoutTotalSchema = z.object({
  current_page: z.number().int().min(1),
  per_page: z.number().int().min(1),
}).strict().describe('Paging meta without the total (`total=none`): `total_record_count` and `total_pages` are absent. A page shorter than `per_page` is the last.')

/** A paged answer's schema as counted, or under `total=none` (its `meta` without the total). */
export function withoutTotal<S extends z.ZodObject>(counted: S) {
  return z.union([counted, counted.extend({ meta: metaWithoutTotalSchema })]).describe(`${counted.description ?? ''} \`meta\` lacks the total under \`total=none\`.`.trim())
}

/** One facet: its top values, the sum of the rest, and the records without a value. */
export const facetSchema = z.object({
  values: z.array(z.object({
    value: z.string().describe('The value; a year (`2021`) for a date field.'),
    count: z.number().int().min(1).describe('Records holding it (a tags field counts each record once per value).'),
  }).strict()).describe('The most frequent values, by count descending, ties by value ascending.'),
  other: z.number().int().min(0).describe('The sum of the counts of the values not listed.'),
  missing: z.number().int().min(0).describe('Records of the filtered set without a value (NULL, or no tags at all).'),
}).strict()

/** `facets` of an answer: one facet per field asked for. */
export const facetsSchema = z.record(z.string(), facetSchema).describe('Counts per value of each field named in `facets`, over the records the filter selects (present only when asked for).')
