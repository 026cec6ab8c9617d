/**
 * @module GET /search (spec 4.9, 2.9): type-ahead over companies and investors, a bare array of at
 * most `per_page` results (default 10, at most 50; trial keys at most their result cap). Matching
 * and ranking live in `records/search.ts`; this module reads the parameters, and
 * `views/search-result.ts` shapes the wire form of `schemas/search.ts`.
 *
 * `object_types` arrives in every form of design section 6 (`=company`, `[]=company`, repeated,
 * pipe-joined); `companies` and `investors` are accepted as well, since the dataset names of
 * POST /queries are plural and clients mix them up. A term without any letter or digit (`*`, `"`)
 * is a valid request that matches nothing: 200 and [].
 */
import type { Context } from 'hono'
import { previewValue } from '../../errors/format.js'
import { issue, type Issue } from '../../errors/issue.js'
import {
  MAX_SEARCH_WORDS, SEARCH_OBJECT_TYPES, searchWords, type SearchObjectType, type TypoMode,
} from '../../records/search.js'
import { callerIdentity } from '../auth.js'
import { callOptions, type AppDeps, type HttpEnv, type RouteModule } from '../context.js'
import { misspeltParameterIssues, parameterNames, QueryParams } from '../params.js'
import { issuesResponse, problemResponse } from '../problem.js'
import {
  SEARCH_DEFAULT_RESULTS, SEARCH_MAX_RESULTS, SEARCH_MAX_TERM_LENGTH, searchQueryParams, searchResponseSchema,
} from '../schemas/search.js'
import { searchResultView } from '../views/search-result.js'

const OBJECT_TYPE_NAMES: Readonly<Record<string, SearchObjectType>> = Object.freeze({
  company: 'company',
  companies: 'company',
  investor: 'investor',
  investors: 'investor',
})

const POSITIVE_INTEGER = /^[0-9]{1,15}$/

interface SearchParams {
  readonly term: string
  readonly objectTypes: readonly SearchObjectType[]
  readonly perPage: number
  readonly typo: TypoMode
}

const TYPO_VALUES: Readonly<Record<string, TypoMode>> = Object.freeze({ 0: 0, 1: 1, 2: 2, auto: 'auto' })

function readTypo(params: QueryParams, fallback: TypoMode, issues: Issue[]): TypoMode {
  const one = params.one('typo')
  if (!one.ok) {
    issues.push(...one.issues)
    return fallback
  }
  if (one.value === undefined) return fallback
  const mode = Object.hasOwn(TYPO_VALUES, one.value.toLowerCase()) ? TYPO_VALUES[one.value.toLowerCase()] : undefined
  if (mode === undefined) {
    issues.push(issue({
      code: 'unknown_enum_value', path: '/typo',
      message: `Parameter \`typo\` does not know ${previewValue(one.value)}; it takes 0, 1, 2 or auto.`,
      expected: '0, 1, 2 or auto', got: previewValue(one.value), allowed: Object.keys(TYPO_VALUES),
    }))
    return fallback
  }
  return mode
}

function readTerm(params: QueryParams, issues: Issue[]): string | undefined {
  const one = params.one('term')
  if (!one.ok) {
    issues.push(...one.issues)
    return undefined
  }
  const term = one.value
  if (term === undefined) {
    issues.push(issue({
      code: 'missing_key', path: '/term',
      message: 'Parameter `term` is required: the text to search for.',
      expected: 'a non-blank text', got: 'nothing',
    }))
    return undefined
  }
  // `one` trims, so whitespace only (spaces, tabs, newlines) arrives here as ''.
  if (term === '') {
    issues.push(issue({
      code: 'invalid_value', path: '/term',
      message: 'Parameter `term` is blank; send the text to search for.',
      expected: 'a non-blank text', got: previewValue(params.all('term')[0] ?? ''),
    }))
    return undefined
  }
  if (term.length > SEARCH_MAX_TERM_LENGTH) {
    issues.push(issue({
      code: 'limit_exceeded', path: '/term',
      message: `Parameter \`term\` is ${term.length} characters long; at most ${SEARCH_MAX_TERM_LENGTH} are accepted.`,
      expected: `at most ${SEARCH_MAX_TERM_LENGTH} characters`, got: `${term.length} characters`,
    }))
    return undefined
  }
  const words = new Set(searchWords(term).map((w) => w.toLowerCase())).size
  if (words > MAX_SEARCH_WORDS) {
    issues.push(issue({
      code: 'limit_exceeded', path: '/term',
      message: `Parameter \`term\` has ${words} different words; at most ${MAX_SEARCH_WORDS} are accepted.`,
      expected: `at most ${MAX_SEARCH_WORDS} words`, got: `${words} words`,
    }))
    return undefined
  }
  return term
}

function readObjectTypes(params: QueryParams, issues: Issue[]): SearchObjectType[] {
  const list = params.list('object_types')
  if (list === undefined) return [...SEARCH_OBJECT_TYPES]
  const allowed = Object.keys(OBJECT_TYPE_NAMES)
  if (list.length === 0) {
    issues.push(issue({
      code: 'empty_list', path: '/object_types',
      message: 'Parameter `object_types` was sent empty; name company and/or investor, or leave it out to search both.',
      expected: 'company, investor or both', got: previewValue(params.all('object_types')), allowed,
    }))
    return []
  }
  const out: SearchObjectType[] = []
  for (const value of list) {
    const type = OBJECT_TYPE_NAMES[value.toLowerCase()]
    if (type === undefined) {
      issues.push(issue({
        code: 'unknown_enum_value', path: '/object_types',
        message: `Parameter \`object_types\` does not know ${previewValue(value)}; it takes company and investor.`,
        expected: 'company or investor', got: previewValue(value), allowed,
      }))
    } else if (!out.includes(type)) {
      out.push(type)
    }
  }
  return out
}

function readPerPage(params: QueryParams, cap: number, issues: Issue[]): number {
  const one = params.one('per_page')
  if (!one.ok) {
    issues.push(...one.issues)
    return SEARCH_DEFAULT_RESULTS
  }
  if (one.value === undefined) return Math.min(SEARCH_DEFAULT_RESULTS, cap)
  const n = POSITIVE_INTEGER.test(one.value) ? Number(one.value) : NaN
  if (!Number.isSafeInteger(n) || n < 1) {
    issues.push(issue({
      code: 'invalid_page', path: '/per_page',
      message: 'Parameter `per_page` must be a whole number from 1 up.',
      expected: 'an integer >= 1', got: previewValue(one.value),
    }))
    return SEARCH_DEFAULT_RESULTS
  }
  // Above the cap is lowered, not refused, like every paged endpoint (paging.ts).
  return Math.min(n, cap)
}

async function readParams(c: Context<HttpEnv>, deps: AppDeps): Promise<{ ok: true; value: SearchParams } | { ok: false; response: Response }> {
  const params = QueryParams.of(c.req.raw)
  const issues: Issue[] = misspeltParameterIssues(params, NEAR_MISS_TARGETS, 'GET /search')
  const term = readTerm(params, issues)
  const objectTypes = readObjectTypes(params, issues)
  // The plan matters only when the trial cap is below the search's own: only then is the key
  // checked before the search (else it rides with the search's call, auth.ts).
  const trialCap = Math.min(SEARCH_MAX_RESULTS, deps.options.trialMaxResults)
  const cap = trialCap < SEARCH_MAX_RESULTS && (await callerIdentity(c)).plan === 'trial' ? trialCap : SEARCH_MAX_RESULTS
  const perPage = readPerPage(params, cap, issues)
  const typo = readTypo(params, deps.options.searchTypo, issues)
  if (issues.length > 0 || term === undefined) return { ok: false, response: issuesResponse(issues) }
  return { ok: true, value: { term, objectTypes, perPage, typo } }
}

/**
 * The names GET /search takes whose near misses are refused (other names are ignored). Not `typo`:
 * one edit from it is `type`, a name clients send for other services and that /search has always
 * ignored.
 */
const NEAR_MISS_TARGETS = parameterNames(searchQueryParams).filter((name) => name !== 'typo')

export const searchRoutes: RouteModule = {
  specs: [{
    method: 'get',
    path: '/search',
    summary: 'Type-ahead search over companies and investors',
    description: 'Prefix matching on the words of names, company domains and investor slugs; every word of the term must match, '
      + 'within the typos `typo` allows (default: 1 from 5 letters, 2 from 9) when no record matches the term exactly; then, while fewer than per_page records match, words are dropped from the end. '
      + 'Results are ranked: exact name, then name starting with the term, then more words matched, then fewer typos, then importance. '
      + `A bare array of at most per_page results (default ${SEARCH_DEFAULT_RESULTS}, at most ${SEARCH_MAX_RESULTS}); no paging.`,
    specSection: '4.9',
    heavy: true,
    query: searchQueryParams,
    response: searchResponseSchema,
    authenticated: true,
    carriesKeyCheck: true,
  }],
  register(app, deps) {
    app.get('/search', async (c) => {
      const read = await readParams(c, deps)
      if (!read.ok) return read.response
      const { term, objectTypes, perPage, typo } = read.value
      const hits = await deps.engine.records.search({ term, objectTypes, limit: perPage, typo, typoThreshold: deps.options.searchTypoThreshold }, callOptions(c))
      if (hits === undefined) {
        // Not the client's fault and not a bug: the database predates the index and was opened read-only.
        return problemResponse(503, {
          detail: 'Search is unavailable: this database has no search index yet. Opening it once with migrations (not read-only) builds it.',
        })
      }
      return c.json(hits.map(searchResultView))
    })
  },
}
