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
 *
 * By parameter family: the table and formats (list-params/table.ts), ranges, phrases and dates,
 * domains and sort each in a file of list-params/; this file reads a request with them.
 */
import { type DatasetName } from '../catalog/index.js'
import { enumParser, isInvalid, parseDate } from '../catalog/values.js'
import { type IssueCode } from '../errors/codes.js'
import { didYouMean, suggestionList } from '../errors/did-you-mean.js'
import { previewValue } from '../errors/format.js'
import { type Issue, type Result, fail, issue, ok } from '../errors/issue.js'
import { inAliasTerms, resolveAliases } from './list-params/aliases.js'
import { domainSpellings } from './list-params/domains.js'
import { fundingPhraseFilter, monthsBefore, normalisePhrase } from './list-params/phrases.js'
import { fromSingleDate, parseDateRange, parseNumericRange, rangeOperator, wholeDays } from './list-params/ranges.js'
import { readSort } from './list-params/sort.js'
import { FORMATS, FORMAT_FIELD_KINDS, FOUNDING_PHRASES, FUNDING_PHRASES, type FilterHash, LIST_DATASET, LIST_PARAMETERS, type ListEndpoint, type ListParamDef, type ListParamSource, MAX_PARAM_VALUE_LENGTH, type SortClause, paramField } from './list-params/table.js'

export { LIST_PARAMETER_ALIASES, type ParamAlias } from './list-params/aliases.js'
export { domainSpellings, normaliseDomain } from './list-params/domains.js'
export { monthsBefore, normalisePhrase } from './list-params/phrases.js'
export { type Range, type RangeResult, parseDateRange, parseNumericRange } from './list-params/ranges.js'
export { sortableNames } from './list-params/sort.js'
export { CONTROL_PARAMETERS, FORMATS, FOUNDING_PHRASES, FUNDING_PHRASES, type FilterHash, type FormatDoc, type FundingPhrase, LIST_DATASET, LIST_PARAMETERS, type ListEndpoint, type ListParamDef, type ListParamSource, MAX_PARAM_VALUE_LENGTH, type ParamFormat, type SortClause, paramField } from './list-params/table.js'

//// the request ////


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
 * are ignored (clients of the original service send extras such as cache busters); the original's
 * own names for renamed parameters are read as the spec's (`LIST_PARAMETER_ALIASES`); a parameter
 * sent empty (`stage=`, as HTML forms and clients that send every key do) is absent; unknown values
 * of known parameters are issues, all reported together.
 */
export function parseListParams(endpoint: ListEndpoint, source: ListParamSource, options: ListParseOptions): Result<ListFilter> {
  const { source: params, issues: aliasIssues } = resolveAliases(endpoint, source)
  const issues: Issue[] = [...aliasIssues]
  const conditions: FilterHash[] = []
  const parameters: string[] = []
  for (const def of LIST_PARAMETERS[endpoint]) {
    const read = readParameter(endpoint, def, params, options)
    if (read === undefined) continue
    if (!read.ok) {
      const alias = params.sentAs(def.name)
      issues.push(...(alias === undefined ? read.issues : read.issues.map((i) => inAliasTerms(i, def.name, alias))))
    } else {
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
        const parsed = parseDateRange(text)
        if (!parsed.ok) return bad(def, parsed.code, text, parsed.reason)
        const range = fromSingleDate(parsed.value)
        return ok({ [field.name]: rangeOperator(field.type.kind === 'datetime' ? wholeDays(range) : range) })
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

/**
 * A parameter that takes one value: absent or sent empty → no condition; sent twice with different
 * values or too long → issue.
 */
function single(def: ListParamDef, params: ListParamSource, read: (text: string) => Result<FilterHash>): Read {
  const one = params.one(def.name)
  if (!one.ok) return fail(one.issues.map((i) => issue({ ...i, expected: FORMATS[def.format].accepts })))
  if (one.value === undefined || one.value === '') return undefined
  if (one.value.length > MAX_PARAM_VALUE_LENGTH) return tooLong(def, one.value)
  return read(one.value)
}

/**
 * A list parameter: pipe-joined, repeated and `[]` forms merged (QueryParams.list). Sent empty
 * (every value blank: `stage=`, `stage=&stage=`) → no condition; pipes with nothing between them
 * (`stage=|`) → issue, as a malformed list rather than a blank field.
 */
function many(def: ListParamDef, params: ListParamSource, read: (values: string[]) => Result<FilterHash>): Read {
  const values = params.list(def.name)
  if (values === undefined) return undefined
  if (values.length === 0) {
    const blank = params.one(def.name)
    if (blank.ok && blank.value === '') return undefined
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
