/**
 * @module The second front-end of the filter language (design section 2): the query parameters of
 * GET /companies (spec 4.1) and GET /fundings (spec 4.10) become the SAME request the JSON front-end
 * takes, `{dataset, filter, sort?, page, per_page}`, which the engine then parses, checks and runs
 * like any other. `employees=50~200` is `{employees: {between: [50, 200]}}`, `stage=a|b` is
 * `{stage: {in: ['a', 'b']}}`, `investors=<slug>` is a `foreign` on investors, and
 * `last_funding_date=raised in past 3 months` is a date comparison against an injected clock.
 *
 * The parameters are one declarative table per endpoint (`LIST_PARAMETERS`): name → format → catalog
 * field. The handlers, the OpenAPI query schema and the checks of grammar-docs/list-parameters.md
 * all read it, so a parameter cannot be documented one way and parsed another.
 *
 * Every condition becomes one element of a top-level `and`, in table order, and `parameters[i]`
 * names the parameter behind element `i`: an issue the engine reports at `/filter/and/3/...` is
 * translated back to the parameter that caused it (`parameterPath`). Every problem is reported at
 * once, each naming the parameter, the accepted forms and what was sent; nothing here throws.
 */
import { datasets, getField, type DatasetName, type FieldDef, type FieldTypeKind } from '../catalog/index.js'
import { enumParser, isInvalid, parseDate } from '../catalog/values.js'
import { didYouMean, suggestionList } from '../errors/did-you-mean.js'
import { previewValue } from '../errors/format.js'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import type { IssueCode } from '../errors/codes.js'

//// the parameter table ////

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

const p = (name: string, format: ParamFormat, field: string, meaning: string, via?: DatasetName): ListParamDef =>
  Object.freeze({ name, format, field, meaning, ...(via ? { via } : {}) })

const COMPANY_PARAMETERS: readonly ListParamDef[] = [
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
  p('stage', 'enum_list', 'stage', 'Most recent funding round (spec 3).'),
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

const FUNDING_PARAMETERS: readonly ListParamDef[] = [
  p('amount', 'numeric_range', 'amount', 'Money reported raised in the round.'),
  p('city', 'list', 'city', 'City names.'),
  p('country', 'country_list', 'country', 'Three-letter country codes.'),
  p('funding_date_range', 'date_range', 'rounds_funding_date', 'Range of funding dates.'),
  p('investor_ids', 'investor_ids', 'investor_id', 'Investor identifiers.', 'investors'),
  p('investor_slugs', 'investor_slugs', 'svc_slug', 'Investor slugs (svc_slug).', 'investors'),
  p('series', 'enum_list', 'series', 'Series of the round (spec 4.11).'),
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
const FORMAT_FIELD_KINDS: Readonly<Record<ParamFormat, readonly FieldTypeKind[]>> = Object.freeze({
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

//// formats ////

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
  date_range: { accepts: '`from~to`, `from~`, `~to` or a single date; dates as YYYY-MM-DD or YYYYMMDD', becomes: '`between`, `gte`, `lte`, `eq` (on a datetime field, whole days: from 00:00:00 to 23:59:59)' },
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

//// the request ////

/** The subset of `http/params.ts` QueryParams this front-end reads (parse does not depend on http). */
export interface ListParamSource {
  list(name: string): string[] | undefined
  one(name: string): Result<string | undefined>
}

export type FilterHash = Readonly<Record<string, unknown>>
export type SortClause = Readonly<Record<string, 'asc' | 'desc'>>

export interface ListFilter {
  readonly dataset: DatasetName
  /** `{}` (every record) or `{and: [...]}`, one element per filtering parameter. */
  readonly filter: FilterHash
  readonly sort?: readonly SortClause[]
  /** The parameter behind each element of `filter.and`. */
  readonly parameters: readonly string[]
}

/** The request `engine.list` takes. */
export interface ListRequest {
  readonly dataset: DatasetName
  readonly filter: FilterHash
  readonly sort?: readonly SortClause[]
  readonly page: number
  readonly per_page: number
}

export interface ListParseOptions {
  /** "Now" for the date phrases (the app's injected clock). */
  readonly now: Date
}

/**
 * Reads every filter parameter of `endpoint` (and `sort`) from `params`. Unknown parameter names
 * are ignored (clients of the original service send extras such as cache busters); unknown values
 * of known parameters are issues, all reported together.
 */
export function parseListParams(endpoint: ListEndpoint, params: ListParamSource, options: ListParseOptions): Result<ListFilter> {
  const issues: Issue[] = []
  const conditions: FilterHash[] = []
  const parameters: string[] = []
  for (const def of LIST_PARAMETERS[endpoint]) {
    const read = readParameter(endpoint, def, params, options)
    if (read === undefined) continue
    if (!read.ok) issues.push(...read.issues)
    else {
      conditions.push(read.value)
      parameters.push(def.name)
    }
  }
  const sort = readSort(endpoint, params)
  if (!sort.ok) issues.push(...sort.issues)
  if (issues.length > 0) return fail(issues)
  return ok(Object.freeze({
    dataset: LIST_DATASET[endpoint],
    filter: conditions.length === 0 ? {} : { and: conditions },
    ...(sort.ok && sort.value ? { sort: sort.value } : {}),
    parameters: Object.freeze(parameters),
  }))
}

/** The engine request for a parsed listing and the paging `readPaging` settled on. */
export function listRequest(parsed: ListFilter, page: number, perPage: number): ListRequest {
  return Object.freeze({
    dataset: parsed.dataset,
    filter: parsed.filter,
    ...(parsed.sort ? { sort: parsed.sort } : {}),
    page,
    per_page: perPage,
  })
}

/**
 * Where an engine issue about a listing request points, in parameter terms: `/filter/and/3/...` is
 * the parameter behind condition 3, `/sort/...` is `/sort`; paging paths stay as they are.
 */
export function parameterPath(parsed: ListFilter, enginePath: string): string {
  const m = /^\/filter\/and\/(\d+)(?:\/|$)/.exec(enginePath)
  if (m) {
    const name = parsed.parameters[Number(m[1])]
    if (name !== undefined) return `/${name}`
  }
  if (enginePath.startsWith('/sort')) return '/sort'
  if (enginePath.startsWith('/filter')) return ''
  return enginePath
}

/** Engine issues with their paths translated by `parameterPath`. */
export function issuesInParameterTerms(parsed: ListFilter, issues: readonly Issue[]): Issue[] {
  return issues.map((i) => issue({ ...i, path: parameterPath(parsed, i.path) }))
}

//// readers ////

type Read = Result<FilterHash> | undefined

function readParameter(endpoint: ListEndpoint, def: ListParamDef, params: ListParamSource, options: ListParseOptions): Read {
  const field = paramField(endpoint, def)
  switch (def.format) {
    case 'text_contains':
      return single(def, params, (text) => ok({ [field.name]: { contains: text } }))
    case 'domain':
      return single(def, params, (text) => {
        const spellings = domainSpellings(text)
        if (spellings === undefined) return bad(def, 'invalid_value', text, 'not a domain such as example.com')
        return ok({ [field.name]: { in: spellings } })
      })
    case 'numeric_range':
      return single(def, params, (text) => {
        const range = parseNumericRange(text, field.type.kind === 'integer' ? 'integer' : 'number')
        return range.ok ? ok({ [field.name]: rangeOperator(range.value) }) : bad(def, range.code, text, range.reason)
      })
    case 'date_range':
      return single(def, params, (text) => {
        const range = parseDateRange(text)
        if (!range.ok) return bad(def, range.code, text, range.reason)
        return ok({ [field.name]: rangeOperator(field.type.kind === 'datetime' ? wholeDays(range.value) : range.value) })
      })
    case 'date':
      return single(def, params, (text) => {
        const day = parseDate(text)
        return isInvalid(day) ? bad(def, 'invalid_value', text, 'not one date') : ok({ [field.name]: { eq: day } })
      })
    case 'founding_phrase':
      return many(def, params, (texts) => foundingPhrases(def, field.name, texts, options.now))
    case 'funding_phrase':
      return single(def, params, (text) => {
        const phrase = lookup(FUNDING_PHRASES, normalisePhrase(text))
        if (phrase === undefined) return unknownPhrase(def, text, Object.keys(FUNDING_PHRASES))
        return ok(fundingPhraseFilter(field.name, phrase, options.now))
      })
    case 'flag':
      return single(def, params, (text) => {
        if (text === '1' || text === '0') return ok({ [field.name]: text === '1' })
        return bad(def, 'invalid_value', text, 'neither 1 (only companies that have it) nor 0 (exclude them)')
      })
    case 'list':
      return many(def, params, (values) => ok({ [field.name]: { in: values } }))
    case 'tags_list':
      return many(def, params, (values) => ok({ [field.name]: { has_any: values } }))
    case 'country_list':
      return many(def, params, (values) => {
        const wrong = values.filter((v) => !/^[A-Za-z]{3}$/.test(v))
        if (wrong.length > 0) return bad(def, 'invalid_value', wrong, 'not three-letter country codes such as USA or GBR')
        return ok({ [field.name]: { in: values.map((v) => v.toUpperCase()) } })
      })
    case 'enum_list':
      return many(def, params, (values) => {
        if (field.type.kind !== 'enum') throw new Error('unreachable: checked at load (FORMAT_FIELD_KINDS)')
        const parse = enumParser(field.type)
        const out: string[] = []
        const issues: Issue[] = []
        for (const v of values) {
          const parsed = parse(v)
          if (isInvalid(parsed)) {
            const suggestions = suggestionList(v, field.type.values)
            issues.push(issue({
              code: 'unknown_enum_value', path: `/${def.name}`,
              message: `Parameter \`${def.name}\` has no value ${previewValue(v)}; the values are: ${field.type.values.join(', ')} (any case).${didYouMean(suggestions)}`,
              expected: `one or more of: ${field.type.values.join(', ')}`,
              got: previewValue(v),
              ...(suggestions.length > 0 ? { suggestions } : {}),
              allowed: [...field.type.values],
            }))
          } else if (!out.includes(parsed)) out.push(parsed)
        }
        return issues.length > 0 ? fail(issues) : ok({ [field.name]: { in: out } })
      })
    case 'investor_slugs':
      return many(def, params, (values) => ok({ foreign: { dataset: def.via, filter: { [field.name]: { in: values } } } }))
    case 'investor_ids':
      return many(def, params, (values) => {
        const wrong = values.filter((v) => !/^[0-9]{1,15}$/.test(v) || Number(v) < 1)
        if (wrong.length > 0) return bad(def, 'invalid_value', wrong, 'not investor ids (whole numbers from 1 up)')
        return ok({ foreign: { dataset: def.via, filter: { [field.name]: { in: values.map(Number) } } } })
      })
  }
}

/** A parameter that takes one value: absent → no condition; sent twice with different values or too long → issue. */
function single(def: ListParamDef, params: ListParamSource, read: (text: string) => Result<FilterHash>): Read {
  const one = params.one(def.name)
  if (!one.ok) return fail(one.issues.map((i) => issue({ ...i, expected: FORMATS[def.format].accepts })))
  if (one.value === undefined) return undefined
  if (one.value.length > MAX_PARAM_VALUE_LENGTH) return tooLong(def, one.value)
  if (one.value === '') return bad(def, 'invalid_value', one.value, 'sent empty')
  return read(one.value)
}

/** A list parameter: pipe-joined, repeated and `[]` forms merged (QueryParams.list); empty → issue. */
function many(def: ListParamDef, params: ListParamSource, read: (values: string[]) => Result<FilterHash>): Read {
  const values = params.list(def.name)
  if (values === undefined) return undefined
  if (values.length === 0) {
    return fail([issue({
      code: 'empty_list', path: `/${def.name}`,
      message: `Parameter \`${def.name}\` was sent with no values; it takes ${FORMATS[def.format].accepts}. Leave it out to match every record.`,
      expected: FORMATS[def.format].accepts, got: '""',
    })])
  }
  const long = values.find((v) => v.length > MAX_PARAM_VALUE_LENGTH)
  if (long !== undefined) return tooLong(def, long)
  return read(values)
}

function bad(def: ListParamDef, code: IssueCode, got: unknown, reason: string): Result<never> {
  const accepts = FORMATS[def.format].accepts
  return fail([issue({
    code, path: `/${def.name}`,
    message: `Parameter \`${def.name}\`: ${reason}; got ${previewValue(got)}. Accepted: ${accepts}.`,
    expected: accepts,
    got: previewValue(got),
  })])
}

function tooLong(def: ListParamDef, value: string): Result<never> {
  return fail([issue({
    code: 'limit_exceeded', path: `/${def.name}`,
    message: `Parameter \`${def.name}\` has a value of ${value.length} characters; values are at most ${MAX_PARAM_VALUE_LENGTH}.`,
    expected: `at most ${MAX_PARAM_VALUE_LENGTH} characters`,
    got: previewValue(value),
  })])
}

function unknownPhrase(def: ListParamDef, text: string, phrases: readonly string[]): Result<never> {
  return fail([unknownPhraseIssue(def, text, phrases)])
}

/**
 * `position`: where the phrase stood among several sent together (`a|b|c`, 1-based), so a client
 * that joins phrases learns which one was refused.
 */
function unknownPhraseIssue(def: ListParamDef, text: string, phrases: readonly string[], position?: { readonly at: number; readonly of: number }): Issue {
  const suggestions = suggestionList(normalisePhrase(text), phrases)
  const which = position ? `phrase ${position.at} of ${position.of}, ${previewValue(text)}, is not one it knows` : `does not know the phrase ${previewValue(text)}`
  const several = def.format === 'founding_phrase' ? ' or several joined by | (any of them)' : ''
  return issue({
    code: 'invalid_value', path: `/${def.name}`,
    message: `Parameter \`${def.name}\` ${which}; it takes one of: ${phrases.join(', ')}${several} (any case; spaces as + or %20).${didYouMean(suggestions)}`,
    expected: `one of: ${phrases.join(', ')}`,
    got: previewValue(text),
    ...(suggestions.length > 0 ? { suggestions } : {}),
    allowed: [...phrases],
  })
}

/**
 * `est_founding_date`: one phrase, or several joined by `|` (also repeated or with `[]`), as clients
 * of the original service send them. Each phrase is a window (`gte` today minus N months) and the
 * windows OR together, like the values of any list parameter: one phrase is the bare comparison,
 * several an `or` of them (the same phrase twice counts once). Every unknown phrase is an issue
 * naming its position.
 */
function foundingPhrases(def: ListParamDef, field: string, texts: readonly string[], now: Date): Result<FilterHash> {
  const phrases = Object.keys(FOUNDING_PHRASES)
  const months: number[] = []
  const issues: Issue[] = []
  texts.forEach((text, k) => {
    const m = lookup(FOUNDING_PHRASES, normalisePhrase(text))
    if (m === undefined) issues.push(unknownPhraseIssue(def, text, phrases, texts.length > 1 ? { at: k + 1, of: texts.length } : undefined))
    else if (!months.includes(m)) months.push(m)
  })
  if (issues.length > 0) return fail(issues)
  const windows = months.map((m) => ({ [field]: { gte: monthsBefore(now, m) } }))
  return ok(windows.length === 1 ? windows[0]! : { or: windows })
}

/** A table entry by a user-given key; `constructor` and friends are not phrases. */
function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined
}

//// ranges ////

/** A parsed range: the operator it becomes and its operand(s). Exported for tests. */
export type Range<T> =
  | { readonly op: 'eq'; readonly value: T }
  | { readonly op: 'gte'; readonly value: T }
  | { readonly op: 'lte'; readonly value: T }
  | { readonly op: 'between'; readonly value: readonly [T, T] }

export type RangeResult<T> = { readonly ok: true; readonly value: Range<T> } | { readonly ok: false; readonly code: IssueCode; readonly reason: string }

const NUMBER_TEXT = /^[+-]?[0-9]+(?:\.[0-9]+)?$/

/**
 * `from~to`, `from~`, `~to` or one number. `kind: 'integer'` refuses decimals and integers beyond
 * 2^53 (they could not be compared exactly). Never throws, whatever the text.
 */
export function parseNumericRange(text: string, kind: 'integer' | 'number'): RangeResult<number> {
  const what = kind === 'integer' ? 'a whole number' : 'a number'
  return parseRange(text, (bound) => {
    if (!NUMBER_TEXT.test(bound)) return undefined
    const n = Number(bound)
    if (kind === 'integer' ? !Number.isSafeInteger(n) : !Number.isFinite(n)) return undefined
    return n === 0 ? 0 : n
  }, what)
}

/** `from~to`, `from~`, `~to` or one date, each YYYY-MM-DD or YYYYMMDD; values as YYYY-MM-DD. */
export function parseDateRange(text: string): RangeResult<string> {
  return parseRange(text, (bound) => {
    const d = parseDate(bound)
    return isInvalid(d) ? undefined : d
  }, 'a date (YYYY-MM-DD or YYYYMMDD)')
}

function parseRange<T extends number | string>(text: string, readBound: (bound: string) => T | undefined, what: string): RangeResult<T> {
  const parts = text.split('~')
  if (parts.length > 2) return { ok: false, code: 'invalid_value', reason: 'a range has at most one `~`' }
  const read = (bound: string): T | RangeResult<T> => {
    const value = readBound(bound.trim())
    return value === undefined ? { ok: false, code: 'invalid_value', reason: `${previewValue(bound.trim())} is not ${what}` } : value
  }
  const isFailure = (v: T | RangeResult<T>): v is RangeResult<T> => typeof v === 'object'
  if (parts.length === 1) {
    const v = read(parts[0]!)
    return isFailure(v) ? v : { ok: true, value: { op: 'eq', value: v } }
  }
  const [loText, hiText] = [parts[0]!.trim(), parts[1]!.trim()]
  if (loText === '' && hiText === '') return { ok: false, code: 'invalid_value', reason: 'a range needs at least one bound' }
  if (hiText === '') {
    const lo = read(loText)
    return isFailure(lo) ? lo : { ok: true, value: { op: 'gte', value: lo } }
  }
  if (loText === '') {
    const hi = read(hiText)
    return isFailure(hi) ? hi : { ok: true, value: { op: 'lte', value: hi } }
  }
  const lo = read(loText)
  if (isFailure(lo)) return lo
  const hi = read(hiText)
  if (isFailure(hi)) return hi
  if (lo > hi) return { ok: false, code: 'invalid_range', reason: `the lower bound ${lo} is above the upper bound ${hi}` }
  return { ok: true, value: { op: 'between', value: [lo, hi] } }
}

function rangeOperator<T>(range: Range<T>): FilterHash {
  return { [range.op]: range.value }
}

/** A date range on a datetime field covers whole days: `from` at 00:00:00, `to` until 23:59:59. */
function wholeDays(range: Range<string>): Range<string> {
  const start = (d: string) => `${d} 00:00:00`
  const end = (d: string) => `${d} 23:59:59`
  switch (range.op) {
    case 'eq': return { op: 'between', value: [start(range.value), end(range.value)] }
    case 'gte': return { op: 'gte', value: start(range.value) }
    case 'lte': return { op: 'lte', value: end(range.value) }
    case 'between': return { op: 'between', value: [start(range.value[0]), end(range.value[1])] }
  }
}

//// phrases and dates ////

/** Lower case, `+` and runs of white space as one space: `Raised+in++past  Year` → `raised in past year`. */
export function normalisePhrase(text: string): string {
  return text.replace(/\+/g, ' ').trim().replace(/\s+/g, ' ').toLowerCase()
}

/**
 * The UTC calendar day `months` months before `now`'s UTC day, as YYYY-MM-DD. A day that the
 * earlier month does not have is clamped to its last day (May 31 minus 3 months is Feb 28/29).
 */
export function monthsBefore(now: Date, months: number): string {
  const total = now.getUTCFullYear() * 12 + now.getUTCMonth() - months
  const year = Math.floor(total / 12)
  const month = total - year * 12 // 0-based
  const day = Math.min(now.getUTCDate(), daysInMonth(year, month))
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

function daysInMonth(year: number, month0: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month0 === 1 && leap ? 29 : MONTH_DAYS[month0]!
}

function fundingPhraseFilter(field: string, phrase: FundingPhrase, now: Date): FilterHash {
  switch (phrase.kind) {
    case 'raised_within': return { [field]: { gte: monthsBefore(now, phrase.months) } }
    // `not` is the exact complement in the language: a company that never raised is included.
    case 'not_raised_within': return { not: { [field]: { gte: monthsBefore(now, phrase.months) } } }
    case 'never_raised': return { [field]: { is_null: true } }
    case 'ever_raised': return { [field]: { is_null: false } }
  }
}

/** Labels of letters (any script: internationalised domains), digits, `_` and inner `-`; two or more labels. */
const HOST_NAME = /^[\p{L}\p{N}_](?:[\p{L}\p{N}_-]*[\p{L}\p{N}_])?(?:\.[\p{L}\p{N}_](?:[\p{L}\p{N}_-]*[\p{L}\p{N}_])?)+$/u

/** The host of an address as sent (case kept): no scheme, path, port, trailing dot or leading `www.`. */
function hostOf(text: string): string {
  let d = text.trim()
  d = d.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
  d = d.split(/[/?#]/, 1)[0] ?? ''
  d = d.replace(/:[0-9]*$/, '').replace(/\.$/, '')
  return /^www\./i.test(d) ? d.slice(4) : d
}

/**
 * A company's domain in canonical form: lower case, without scheme, `www.`, port, path or a
 * trailing dot. Undefined when what remains is not a host name of two or more labels (`www.`
 * alone, `localhost`, text with spaces or quotes), so nothing that cannot match reaches the engine.
 */
export function normaliseDomain(text: string): string | undefined {
  const d = hostOf(text).toLowerCase()
  if (d.length === 0 || d.length > 253) return undefined
  return HOST_NAME.test(d) ? d : undefined
}

/**
 * The stored spellings a domain parameter matches: the canonical form and the spelling sent, each
 * with and without `www.`. Matching them with `in` keeps the lookup on the website index; a
 * case-insensitive comparison (`lower(website) = ?`) would scan every company. Loaders write
 * domains in lower case, so the canonical form finds them; a website imported in mixed case is
 * found when the client spells it the same way.
 */
export function domainSpellings(text: string): string[] | undefined {
  const canonical = normaliseDomain(text)
  if (canonical === undefined) return undefined
  const sent = hostOf(text)
  return [...new Set([canonical, `www.${canonical}`, sent, `www.${sent}`])]
}

//// sort ////

/**
 * `sort=field` (ascending) or `sort=-field` (descending), several comma-separated, applied in
 * order. Field names are the dataset's sortable catalog fields, or a parameter name that stands
 * for one (`cached_uniques` for `website_uniques`). Absent: the dataset's default order.
 */
function readSort(endpoint: ListEndpoint, params: ListParamSource): Result<readonly SortClause[] | undefined> {
  const one = params.one('sort')
  if (!one.ok) return one
  if (one.value === undefined) return ok(undefined)
  const names = sortableNames(endpoint)
  const clauses: SortClause[] = []
  const issues: Issue[] = []
  const expected = `comma-separated field names, each optionally prefixed by - for descending order, from: ${[...names.keys()].join(', ')}`
  if (one.value.length > MAX_PARAM_VALUE_LENGTH) return fail([issue({ code: 'limit_exceeded', path: '/sort', message: `Parameter \`sort\` has ${one.value.length} characters; at most ${MAX_PARAM_VALUE_LENGTH}.`, expected, got: previewValue(one.value) })])
  const seen = new Set<string>()
  for (const raw of one.value.split(',')) {
    const term = raw.trim()
    const descending = term.startsWith('-')
    const name = descending ? term.slice(1).trim() : term
    const field = names.get(name)
    if (field === undefined) {
      const suggestions = suggestionList(name, names.keys())
      issues.push(issue({
        code: name === '' ? 'invalid_sort' : 'not_sortable', path: '/sort',
        message: `Parameter \`sort\` cannot sort on ${previewValue(name)}; it takes ${expected}.${didYouMean(suggestions)}`,
        expected, got: previewValue(term),
        ...(suggestions.length > 0 ? { suggestions } : {}),
      }))
      continue
    }
    if (seen.has(field)) {
      issues.push(issue({ code: 'invalid_sort', path: '/sort', message: `Parameter \`sort\` names ${field} twice.`, expected, got: previewValue(one.value) }))
      continue
    }
    seen.add(field)
    clauses.push({ [field]: descending ? 'desc' : 'asc' })
  }
  return issues.length > 0 ? fail(issues) : ok(Object.freeze(clauses))
}

/** Accepted sort names → catalog field: every sortable field, plus parameter names that stand for one. */
export function sortableNames(endpoint: ListEndpoint): ReadonlyMap<string, string> {
  const dataset = datasets[LIST_DATASET[endpoint]]
  const out = new Map<string, string>()
  for (const f of Object.values(dataset.fields) as FieldDef[]) if (f.sortable) out.set(f.name, f.name)
  for (const def of LIST_PARAMETERS[endpoint]) {
    const f = def.via ? undefined : getField(dataset, def.field)
    if (f?.sortable && !out.has(def.name)) out.set(def.name, f.name)
  }
  return out
}
