/**
 * @module The answer options of paged endpoints (schemas/answer-options.ts), read from a query
 * string or a POST /queries body, and the RFC 8288 `Link` header of every paged answer.
 *
 * Link: absolute URLs of the same endpoint with `page` set to `first` (1), `prev`, `next` and, when
 * the total is known, `last`. They keep every parameter the request sent except the API key: a
 * `key` in the query string is never echoed into a header that proxies log and clients forward,
 * so a client following a link authenticates as it did the first time (the header, or its own
 * `key`). Without a total, `next` is given when the page is full (the next page may be empty).
 */
import { previewValue } from '../errors/format.js'
import { issue, type Issue, type Result } from '../errors/issue.js'
import { KEY_PARAMETER, type QueryParams } from './params.js'

/**
 * Answer options not offered as the near miss of a name sent (`misspeltParameterIssues`): `count`
 * is two edits from `amount`, a GET /fundings parameter that clients send to GET /companies too,
 * which must stay ignored there. `count` itself is read all the same.
 */
export function withoutNearMissExemptions(parameters: readonly string[]): readonly string[] {
  return parameters.filter((name) => name !== 'count')
}

export interface AnswerOptions {
  /** Facet fields as sent (checked by the engine), or undefined when none were asked for. */
  readonly facets?: readonly string[]
  readonly facetLimit?: unknown
  /** `total=none` / `count=false`: answer the page without counting. */
  readonly withoutTotal: boolean
}

type Read = { readonly ok: true; readonly value: AnswerOptions } | { readonly ok: false; readonly issues: readonly Issue[] }

const splitNames = (values: readonly string[]): string[] =>
  values.flatMap((v) => v.split(/[,|]/)).map((v) => v.trim()).filter((v) => v !== '')

function totalIssue(name: 'total' | 'count', value: unknown, expected: string): Issue {
  return issue({
    code: 'invalid_value', path: `/${name}`,
    message: `Parameter \`${name}\` takes ${expected}; got ${previewValue(value)}.`,
    expected, got: previewValue(value),
  })
}

/** Whether `total`/`count` ask for no count: `total=none|exact`, `count=false|true` (strings or, in a body, booleans). */
function readWithoutTotal(total: unknown, count: unknown, issues: Issue[]): boolean {
  let without = false
  if (total !== undefined) {
    const t = typeof total === 'string' ? total.trim().toLowerCase() : total
    if (t === 'none') without = true
    else if (t !== 'exact') issues.push(totalIssue('total', total, '`none` or `exact`'))
  }
  if (count !== undefined) {
    const c = typeof count === 'string' ? count.trim().toLowerCase() : count
    if (c === false || c === 'false') without = true
    else if (c !== true && c !== 'true') issues.push(totalIssue('count', count, '`false` or `true`'))
  }
  return without
}

/** The options from a GET endpoint's query string. */
export function answerOptionsOfParams(params: QueryParams): Read {
  const issues: Issue[] = []
  const one = (name: string): unknown => {
    const r = params.one(name)
    if (!r.ok) issues.push(...r.issues)
    return r.ok ? r.value : undefined
  }
  const facetLimit = one('facet_limit')
  const withoutTotal = readWithoutTotal(one('total'), one('count'), issues)
  const facets = params.has('facets') ? splitNames(params.all('facets')) : undefined
  if (issues.length > 0) return { ok: false, issues }
  return { ok: true, value: { ...(facets ? { facets } : {}), ...(facetLimit !== undefined ? { facetLimit } : {}), withoutTotal } }
}

/** The options from a POST /queries body, and the body without them (the query the engine stores). */
export function answerOptionsOfBody(body: Record<string, unknown>): { read: Read; rest: Record<string, unknown> } {
  const { facets, facet_limit: facetLimit, total, count, ...rest } = body
  const issues: Issue[] = []
  const withoutTotal = readWithoutTotal(total, count, issues)
  let names: unknown = facets
  if (typeof facets === 'string') names = splitNames([facets])
  if (issues.length > 0) return { read: { ok: false, issues }, rest }
  return { read: { ok: true, value: { ...(facets !== undefined ? { facets: names as string[] } : {}), ...(facetLimit !== undefined ? { facetLimit } : {}), withoutTotal } }, rest }
}

/** The paging a Link header describes. `totalPages` undefined: the total was not counted. */
export interface LinkPaging {
  readonly page: number
  readonly perPage: number
  readonly returned: number
  readonly totalPages?: number
  /** The last page the caller may fetch (a trial key: 1), when it is limited. */
  readonly maxPage?: number
}

/** The `Link` header (RFC 8288) of a page: `target` is the endpoint's absolute URL with the parameters to keep. */
export function linkHeader(target: URL, paging: LinkPaging): string {
  const at = (page: number): string => {
    const url = new URL(target)
    url.searchParams.delete(KEY_PARAMETER)
    url.searchParams.delete(`${KEY_PARAMETER}[]`)
    url.searchParams.set('page', String(page))
    url.searchParams.set('per_page', String(paging.perPage))
    return url.toString()
  }
  const links: string[] = []
  const last = paging.totalPages === undefined ? undefined : Math.max(1, paging.totalPages)
  const hasNext = (last === undefined ? paging.returned >= paging.perPage : paging.page < last) && paging.page < (paging.maxPage ?? Infinity)
  if (hasNext) links.push(`<${at(paging.page + 1)}>; rel="next"`)
  if (paging.page > 1) links.push(`<${at(last === undefined ? paging.page - 1 : Math.min(paging.page - 1, last))}>; rel="prev"`)
  links.push(`<${at(1)}>; rel="first"`)
  if (last !== undefined) links.push(`<${at(last)}>; rel="last"`)
  return links.join(', ')
}

/** The URL a GET request's links start from: the app's base URL and the request's path and query. */
export function requestTarget(base: string, request: Request): URL {
  const url = new URL(request.url)
  return new URL(`${base}${url.pathname}${url.search}`)
}

/**
 * The issues of a facet check, located at the parameter: a query string's `facets` is one
 * parameter, so `/facets/2` (the third name) becomes `/facets`; a body keeps the element's index.
 */
export function facetIssuesAt(checked: Result<unknown>, facetsPath: '/facets' | 'body'): Issue[] {
  if (checked.ok) return []
  if (facetsPath === 'body') return [...checked.issues]
  return checked.issues.map((i) => (i.path.startsWith('/facets/') ? issue({ ...i, path: '/facets' }) : i))
}
