/**
 * @module The parameter table of the list endpoints (`LIST_PARAMETERS`): name, format and catalog
 * field of every parameter, and what each format accepts (`FORMATS`), which messages, OpenAPI and
 * the docs page read.
 */
import { type DatasetName, type FieldDef, type FieldTypeKind, datasets, getField } from '../../catalog/index.js'
import { type Result } from '../../errors/issue.js'
import { type Range } from './ranges.js'

/** The endpoints whose query parameters are a filter. */
export type ListEndpoint = 'companies' | 'fundings'

/**
 * How a parameter's text is read. Each format has one reader below and one entry in `FORMATS`
 * (accepted forms and the filter it becomes, for messages, OpenAPI and the docs page).
 */
export type ParamFormat =
  | 'text_contains'
  | 'domain'
  | 'numeric_range'
  | 'date_range'
  | 'date'
  | 'founding_phrase'
  | 'funding_phrase'
  | 'list'
  | 'country_list'
  | 'enum_list'
  | 'tags_list'
  | 'flag'
  | 'investor_slugs'
  | 'investor_ids'

export interface ListParamDef {
  /** The query parameter name, as clients send it (spec 4.1, 4.10). */
  readonly name: string
  readonly format: ParamFormat
  /** The catalog field the parameter filters on: of the endpoint's dataset, or of `via` for a `foreign`. */
  readonly field: string
  /** A related dataset whose records the field belongs to (`investors=<slug>`): the condition is a `foreign`. */
  readonly via?: DatasetName
  /** What the parameter means (spec wording). */
  readonly meaning: string
}

export const p = (name: string, format: ParamFormat, field: string, meaning: string, via?: DatasetName): ListParamDef =>
  Object.freeze({ name, format, field, meaning, ...(via ? { via } : {}) })

export const COMPANY_PARAMETERS: readonly ListParamDef[] = [
  p('domain', 'domain', 'website', 'Company website domain.'),
  p('company_name', 'text_contains', 'name', 'Company name.'),
  p('added_date', 'date_range', 'added_date', 'Date the company started being tracked.'),
  p('svc_score', 'numeric_range', 'svc_score', 'Current score.'),
  p('momentum_score', 'numeric_range', 'momentum_score', 'Latest weekly momentum score; negatives allowed.'),
  p('employees', 'numeric_range', 'employees', 'Current employee count.'),
  p('employees_month_ago', 'numeric_range', 'employees_month_ago', 'Employee count one month ago.'),
  p('employees_added_in_month', 'numeric_range', 'employees_added_in_month', 'Employees added this month.'),
  p('employees_mom', 'numeric_range', 'employees_mom', 'Percent employee growth in that month.'),
  p('cached_uniques', 'numeric_range', 'website_uniques', 'Estimated monthly unique visitors.'),
  p('cached_uniques_week_ago', 'numeric_range', 'cached_uniques_week_ago', 'Estimated monthly unique visitors in the past 7 days.'),
  p('uniques_wow', 'numeric_range', 'uniques_wow', 'Percent change of visitors over 7 days.'),
  p('cached_uniques_month_ago', 'numeric_range', 'cached_uniques_month_ago', 'Estimated monthly unique visitors in the past month.'),
  p('uniques_mom', 'numeric_range', 'uniques_mom', 'Percent change of visitors over a month.'),
  p('cached_mobile_downloads', 'numeric_range', 'mobile_downloads', 'Estimated monthly downloads from the U.S. ios store.'),
  p('cached_mobile_downloads_week_ago', 'numeric_range', 'cached_mobile_downloads_week_ago', 'The same, one week ago.'),
  p('mobile_downloads_wow', 'numeric_range', 'mobile_downloads_wow', 'Change in downloads over the past week.'),
  p('cached_mobile_downloads_month_ago', 'numeric_range', 'cached_mobile_downloads_month_ago', 'Downloads in the past month.'),
  p('mobile_downloads_mom', 'numeric_range', 'mobile_downloads_mom', 'Change in downloads over a month.'),
  p('est_founding_date', 'founding_phrase', 'est_founding_date', 'Estimated founding date.'),
  p('stage', 'enum_list', 'stage', 'Most recent funding round.'),
  p('investors', 'investor_slugs', 'svc_slug', 'Investors that invested in the company (investor svc_slug).', 'investors'),
  p('total_funding', 'numeric_range', 'total_funding', 'Total publicly reported money raised, U.S. dollars only.'),
  p('last_funding_date', 'funding_phrase', 'last_funding_date', 'Date of the last funding event.'),
  p('last_funding_amount', 'numeric_range', 'last_funding_amount', 'Amount of the most recent funding event.'),
  p('location', 'list', 'location', 'Metro region of the company.'),
  p('state', 'list', 'state', 'State of headquarters (U.S.).'),
  p('country', 'country_list', 'country', 'Three-letter country codes.'),
  p('has_mobile', 'flag', 'has_mobile', '1: only companies with a mobile app; 0: excludes them.'),
  p('has_android_store', 'flag', 'has_android_store', 'The same, for android store apps.'),
  p('has_ios_store', 'flag', 'has_ios_store', 'The same, for ios store apps.'),
  p('play_category', 'tags_list', 'play_categories', 'Android store categories of the company\'s apps.'),
  p('ios_store_category', 'tags_list', 'ios_store_categories', 'Ios store categories of the company\'s apps.'),
  p('business_models', 'tags_list', 'business_models', 'Business models.'),
  p('industries', 'tags_list', 'industries', 'Industries.'),
  p('keywords', 'tags_list', 'keywords', 'Keywords associated with the company.'),
]

export const FUNDING_PARAMETERS: readonly ListParamDef[] = [
  p('amount', 'numeric_range', 'amount', 'Money reported raised in the round.'),
  p('city', 'list', 'city', 'City names.'),
  p('country', 'country_list', 'country', 'Three-letter country codes.'),
  p('funding_date_range', 'date_range', 'rounds_funding_date', 'Range of funding dates.'),
  p('investor_ids', 'investor_ids', 'investor_id', 'Investor identifiers.', 'investors'),
  p('investor_slugs', 'investor_slugs', 'svc_slug', 'Investor slugs (svc_slug).', 'investors'),
  p('series', 'enum_list', 'series', 'Series of the round.'),
  p('rounds_funding_date', 'date', 'rounds_funding_date', 'Date of the funding event.'),
]

/** Every filter parameter of each listing endpoint, in the order conditions are built. */
export const LIST_PARAMETERS: Readonly<Record<ListEndpoint, readonly ListParamDef[]>> = Object.freeze({
  companies: Object.freeze(COMPANY_PARAMETERS),
  fundings: Object.freeze(FUNDING_PARAMETERS),
})

/** The dataset each endpoint lists. */
export const LIST_DATASET: Readonly<Record<ListEndpoint, DatasetName>> = Object.freeze({ companies: 'companies', fundings: 'fundings' })

/** Parameters every listing takes besides its filters. `key` is the API key (auth reads it). */
export const CONTROL_PARAMETERS = Object.freeze(['page', 'per_page', 'sort', 'key'] as const)

/** The field a parameter filters on, from the catalog; the table is checked against it at load. */
export function paramField(endpoint: ListEndpoint, def: ListParamDef): FieldDef {
  const dataset = datasets[def.via ?? LIST_DATASET[endpoint]]
  const f = getField(dataset, def.field)
  if (!f) throw new Error(`list-params: ${endpoint} parameter ${def.name} names ${dataset.name}.${def.field}, which the catalog does not define`)
  return f
}

/** The field types each format can filter on: a format reads text into values of these types. */
export const FORMAT_FIELD_KINDS: Readonly<Record<ParamFormat, readonly FieldTypeKind[]>> = Object.freeze({
  text_contains: ['string'],
  domain: ['string'],
  numeric_range: ['integer', 'number'],
  date_range: ['date', 'datetime'],
  date: ['date'],
  founding_phrase: ['date'],
  funding_phrase: ['date'],
  list: ['string'],
  country_list: ['string'],
  enum_list: ['enum'],
  tags_list: ['tags'],
  flag: ['boolean'],
  investor_slugs: ['string'],
  investor_ids: ['integer'],
})

// A renamed catalog field, or a format put on a field of the wrong type, fails here, at load, not
// on the first request that uses the parameter.
for (const endpoint of Object.keys(LIST_PARAMETERS) as ListEndpoint[]) {
  for (const def of LIST_PARAMETERS[endpoint]) {
    const kind = paramField(endpoint, def).type.kind
    if (!FORMAT_FIELD_KINDS[def.format].includes(kind)) {
      throw new Error(`list-params: ${endpoint} parameter ${def.name} has format ${def.format}, which cannot filter a ${kind} field`)
    }
  }
}


export interface FormatDoc {
  /** The accepted forms, in words (used in 400 messages and OpenAPI descriptions). */
  readonly accepts: string
  /** What the parameter becomes in the filter language. */
  readonly becomes: string
}

/** Phrase → months before today (UTC) of `est_founding_date` (spec 4.1). */
export const FOUNDING_PHRASES: Readonly<Record<string, number>> = Object.freeze({
  'within 3 months': 3,
  'within 6 months': 6,
  'within 9 months': 9,
  'within 1 year': 12,
  'within 2 years': 24,
  'within 3 years': 36,
  'within 5 years': 60,
  'within 10 years': 120,
})

/**
 * The `last_funding_date` phrases (spec 4.1): a window of months before today, or whether the
 * company ever raised. "not in past N" is the exact complement of "raised in past N": companies
 * that never raised are included (they did not raise in the past N months).
 */
export type FundingPhrase =
  | { readonly kind: 'raised_within'; readonly months: number }
  | { readonly kind: 'not_raised_within'; readonly months: number }
  | { readonly kind: 'never_raised' }
  | { readonly kind: 'ever_raised' }

export const FUNDING_PHRASES: Readonly<Record<string, FundingPhrase>> = Object.freeze({
  'not in past 3 months': { kind: 'not_raised_within', months: 3 },
  'not in past 6 months': { kind: 'not_raised_within', months: 6 },
  'not in past 9 months': { kind: 'not_raised_within', months: 9 },
  'not in past year': { kind: 'not_raised_within', months: 12 },
  'not in past 13 months': { kind: 'not_raised_within', months: 13 },
  'not in past 16 months': { kind: 'not_raised_within', months: 16 },
  'not in past 18 months': { kind: 'not_raised_within', months: 18 },
  'not in past 2 years': { kind: 'not_raised_within', months: 24 },
  'never raised': { kind: 'never_raised' },
  'raised in past 3 months': { kind: 'raised_within', months: 3 },
  'raised in past 6 months': { kind: 'raised_within', months: 6 },
  'raised in past 9 months': { kind: 'raised_within', months: 9 },
  'raised in past year': { kind: 'raised_within', months: 12 },
  'raised in past 2 years': { kind: 'raised_within', months: 24 },
  'has ever raised': { kind: 'ever_raised' },
})

export const FORMATS: Readonly<Record<ParamFormat, FormatDoc>> = Object.freeze({
  text_contains: { accepts: 'any text (at most 500 characters)', becomes: '`{field: {contains: text}}`: case-insensitive substring' },
  domain: { accepts: 'a domain such as `example.com`; case, a leading `www.`, a scheme and a path are ignored', becomes: '`{website: {in: [domain, "www." + domain, ...the spelling sent]}}`' },
  numeric_range: { accepts: '`from~to`, `from~`, `~to` or a single number (equality); negative numbers allowed; decimals where the field is a number', becomes: '`between: [from, to]`, `gte`, `lte`, `eq`' },
  date_range: { accepts: '`from~to`, `from~`, `~to` or a single date, which means from that date on (the same as `from~`); dates as YYYY-MM-DD or YYYYMMDD', becomes: '`between`, `gte`, `lte` (on a datetime field, whole days: from 00:00:00 to 23:59:59)' },
  date: { accepts: 'one date, YYYY-MM-DD or YYYYMMDD', becomes: '`{field: {eq: date}}`' },
  founding_phrase: { accepts: `one of: ${Object.keys(FOUNDING_PHRASES).join(', ')}; or several, pipe-joined (\`within 3 months|within 2 years\`), repeated or with \`[]\`: any of them`, becomes: '`{est_founding_date: {gte: today minus N months}}`; several: `{or: [...]}` of those' },
  funding_phrase: { accepts: `one of: ${Object.keys(FUNDING_PHRASES).join(', ')}`, becomes: '`gte` today minus N months; `not` of that; `is_null: true` / `false`' },
  list: { accepts: 'one or more values, pipe-joined (`a|b`), repeated or with `[]`', becomes: '`{field: {in: [...]}}` (exact values)' },
  country_list: { accepts: 'one or more three-letter country codes (any case), pipe-joined, repeated or with `[]`', becomes: '`{country: {in: [...]}}` (upper-cased)' },
  enum_list: { accepts: 'one or more of the field\'s values (any case), pipe-joined, repeated or with `[]`', becomes: '`{field: {in: [...]}}`' },
  tags_list: { accepts: 'one or more values, pipe-joined, repeated or with `[]`', becomes: '`{field: {has_any: [...]}}`' },
  flag: { accepts: '`1` or `0`', becomes: '`{field: true}` / `{field: false}`' },
  investor_slugs: { accepts: 'one or more investor slugs (svc_slug), pipe-joined, repeated or with `[]`', becomes: '`{foreign: {dataset: "investors", filter: {svc_slug: {in: [...]}}}}`' },
  investor_ids: { accepts: 'one or more investor ids (positive integers), pipe-joined, repeated or with `[]`', becomes: '`{foreign: {dataset: "investors", filter: {investor_id: {in: [...]}}}}`' },
})

/** Longest value of any parameter; longer text is refused rather than matched (no name or slug is this long). */
export const MAX_PARAM_VALUE_LENGTH = 500

/** The subset of `http/params.ts` QueryParams this front-end reads (parse does not depend on http). */
export interface ListParamSource {
  list(name: string): string[] | undefined
  one(name: string): Result<string | undefined>
}

export type FilterHash = Readonly<Record<string, unknown>>
export type SortClause = Readonly<Record<string, 'asc' | 'desc'>>
