/**
 * @module POST /queries and GET /queries/:query_id (spec 4.14, 4.15, 2.14): structured queries on
 * the engine's stored queries. The handlers only read the request into the engine's input, apply
 * the paging rules every paged endpoint shares (paging.ts: `per_page` lowered to the cap, a trial
 * key's page 2 refused), and map the engine's issues to problem+json. All query logic, ids and
 * paging live in the engine.
 *
 * Decisions, documented here and in the OpenAPI description:
 * - The body is JSON, or form-encoded (`application/x-www-form-urlencoded`, `multipart/form-data`)
 *   with one key per parameter and `filter` and `sort` as JSON text (design section 6). Without a
 *   content type, or with another one, the body is read as JSON when it parses as JSON, else as a
 *   form. A blank `filter=` or `sort=` form field is the same as leaving it out.
 * - A `key` member in the body is dropped: it is the authentication parameter, which is read from
 *   the query string or the Authorization header only (spec section 5), and a client that sends
 *   every parameter in the body should not get an "unknown key" issue for it.
 * - `query.sort` is always present: the stored query keeps the effective sort (the dataset's
 *   default when none was given), it is part of the query's identity and decides the pages, and
 *   GET cannot tell whether the original request spelled it out. Spec 2.14 "sort (when given)" is
 *   read as "the sort, when there is one", and there always is.
 * - `query.query_version` is on POST as well as GET: the same stored query looks the same from both.
 * - A stored query that no longer checks (`query_outdated`) is 400, like every other request the
 *   client must change (post the filter again); spec section 7's status table has no 409 or 410,
 *   and clients written for the original service know 400. An unknown id is 404.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { DatasetName } from '../../catalog/define.js'
import { datasets, resolveDataset } from '../../catalog/index.js'
import { checkFacets } from '../../check/facets.js'
import type { CallOptions, PageWithoutTotal, QueryEnvelope } from '../../engine.js'
import type { ResultRecord } from '../../execute/records.js'
import { previewValue } from '../../errors/format.js'
import { childPath, issue, type Issue } from '../../errors/issue.js'
import { guardInput } from '../../parse/guard.js'
import { answerOptionsOfBody, answerOptionsOfParams, facetIssuesAt, linkHeader, requestTarget, withoutNearMissExemptions, type AnswerOptions } from '../answer-options.js'
import { checkedIdentity } from '../auth.js'
import { baseUrlOf, callOptions, type AppDeps, type HttpEnv, type RouteModule } from '../context.js'
import { readPaging } from '../paging.js'
import { misspeltParameterIssues, parameterNames, QueryParams } from '../params.js'
import { issuesResponse } from '../problem.js'
import { QUERY_COST_HEADER, queryCostHeader } from '../query-cost.js'
import { answerOptionParams } from '../schemas/answer-options.js'
import { pagingParams } from '../schemas/common.js'
import { storedFieldsParam } from '../schemas/fields.js'
import { pickMembers, wireSelection, type WireSelection } from '../fields.js'
import { queryPageSchema, queryRequestSchema } from '../schemas/queries.js'
import { fundingIds, fundingViews } from '../views/funding.js'
import { queryResultView } from '../views/missing-values.js'
import { z } from 'zod'

//// reading the body ////

type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly response: Response }

const refuse = (issues: Issue[], status = 400): Read<never> => ({ ok: false, response: issuesResponse(issues, status) })

/**
 * The one body limit of the app (`hono/body-limit` on POST /queries, the only route that reads a
 * body): a declared Content-Length over `maxBytes` is refused before anything is read, a body
 * without one (chunked) is read until it passes the limit and no further. The refusal is the
 * problem+json every other bad request gets, and passes through the quota middleware like them.
 */
function bodyLimitOf(maxBytes: number): MiddlewareHandler<HttpEnv> {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      const declared = c.req.header('content-length')
      const got = declared !== undefined && /^[0-9]+$/.test(declared.trim()) && !c.req.raw.headers.has('transfer-encoding')
        ? `${Number(declared)} bytes`
        : `more than ${maxBytes} bytes`
      return issuesResponse([issue({
        code: 'limit_exceeded',
        path: '',
        message: `The request body is ${got}; the limit (maxBodyBytes) is ${maxBytes} bytes.`,
        expected: `at most ${maxBytes} bytes`,
        got,
      })], 413)
    },
  })
  // A body that stops mid-way (the client went) is a 400 that nobody reads, not a fault of ours.
  return async (c, next) => {
    let reached = false
    try {
      return await limit(c, () => ((reached = true), next()))
    } catch (error) {
      if (reached) throw error
      return clientGone()
    }
  }
}

function clientGone(): Response {
  return issuesResponse([issue({ code: 'invalid_type', path: '', message: 'The client closed the connection before sending the whole body.', expected: 'a whole request body' })])
}

/** The body's bytes (`bodyLimitOf` has held them to the limit), or the refusal of a body cut short. */
async function readBodyBytes(request: Request): Promise<Read<Uint8Array>> {
  try {
    return { ok: true, value: new Uint8Array(await request.arrayBuffer()) }
  } catch {
    return { ok: false, response: clientGone() }
  }
}

function decodeUtf8(bytes: Uint8Array): Read<string> {
  try {
    return { ok: true, value: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }
  } catch {
    return refuse([issue({ code: 'invalid_json', path: '', message: 'The request body is not valid UTF-8 text.', expected: 'UTF-8 text' })])
  }
}

function parseJson(text: string, path: string, what: string): Read<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return refuse([issue({
      code: 'invalid_json',
      path,
      message: `${what} is not valid JSON: ${reason}`,
      expected: 'JSON',
      got: previewValue(text),
    })])
  }
}

/** Form fields whose values are JSON text (design section 6). */
const JSON_FIELDS: ReadonlySet<string> = new Set(['filter', 'sort'])

/**
 * A form (each parameter a separate key) as the engine's request object. A key sent twice with
 * different values is refused: which one was meant is a guess.
 */
function formToRequest(entries: Iterable<[string, unknown]>): Read<Record<string, unknown>> {
  const values = new Map<string, string[]>()
  const issues: Issue[] = []
  for (const [name, value] of entries) {
    if (typeof value !== 'string') {
      issues.push(issue({ code: 'invalid_type', path: childPath('', name), message: `Form field \`${name}\` is a file upload; parameters are text.`, expected: 'text', got: 'a file' }))
      continue
    }
    const list = values.get(name)
    if (list) list.push(value)
    else values.set(name, [value])
  }
  const request: Record<string, unknown> = {}
  for (const [name, sent] of values) {
    const distinct = [...new Set(sent)]
    const path = childPath('', name)
    if (distinct.length > 1) {
      issues.push(issue({
        code: 'invalid_value', path,
        message: `Form field \`${name}\` takes one value; it was sent ${sent.length} times with different values.`,
        expected: 'one value', got: previewValue(sent),
      }))
      continue
    }
    const text = distinct[0]!
    if (!JSON_FIELDS.has(name)) {
      request[name] = text
      continue
    }
    if (text.trim() === '') continue
    const parsed = parseJson(text, path, `Form field \`${name}\``)
    if (!parsed.ok) return parsed
    request[name] = parsed.value
  }
  return issues.length > 0 ? refuse(issues) : { ok: true, value: request }
}

function wrongContentType(type: string): Issue {
  return issue({
    code: 'invalid_type',
    path: '',
    message: `The request body is JSON, but its Content-Type header says ${type} (what \`curl -d\` sends unless told otherwise); send the header \`Content-Type: application/json\` with a JSON body.`,
    expected: 'Content-Type: application/json',
    got: `Content-Type: ${type}`,
  })
}

function mediaType(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
}

/** The request of POST /queries as the engine's input: JSON, or a form, by content type. */
async function readQueryRequest(request: Request): Promise<Read<unknown>> {
  const read = await readBodyBytes(request)
  if (!read.ok) return read
  const bytes = read.value
  const type = mediaType(request)
  if (type === 'multipart/form-data') {
    let form: FormData
    try {
      form = await new Response(bytes, { headers: { 'content-type': request.headers.get('content-type')! } }).formData()
    } catch {
      return refuse([issue({ code: 'invalid_type', path: '', message: 'The multipart/form-data body could not be read (malformed parts or boundary).', expected: 'a multipart/form-data body' })])
    }
    return formToRequest(form.entries())
  }
  const text = decodeUtf8(bytes)
  if (!text.ok) return text
  if (type === 'application/x-www-form-urlencoded') {
    // `curl -d '{...}'` sends JSON under this type unless told otherwise: a form whose text is a JSON
    // object or array is that slip, and the answer names the header to send instead of reading it as one odd field.
    if (/^\s*[{[]/.test(text.value)) return refuse([wrongContentType(type)])
    return formToRequest(new URLSearchParams(text.value))
  }
  if (type === 'application/json' || type.endsWith('+json')) return parseJson(text.value, '', 'The request body')
  // No usable content type: JSON when it is JSON; a body that starts like JSON gets the JSON error.
  const trimmed = text.value.trimStart()
  if (trimmed === '') return { ok: true, value: {} }
  const json = parseJson(text.value, '', 'The request body')
  if (json.ok || trimmed.startsWith('{') || trimmed.startsWith('[')) return json
  return formToRequest(new URLSearchParams(text.value))
}

//// results ////

/**
 * Wire views per dataset, applied to a page's results after the engine. Every record shows a value
 * the data lacks by the rule of every other endpoint (grammar-docs/guides/serving.md, "Missing values"; the engine's records
 * have null there), so an investor reads here exactly as GET /investors/:id shows it, and a filter
 * on any value shown finds the record again. A funding event is shown as spec 2.10 shows it
 * (`funding_id`, `investors`, `investor_slugs`, `industry` added, one batched lookup per page), the
 * same view as GET /fundings.
 */
export type ResultsView = (records: readonly ResultRecord[], deps: AppDeps, call: CallOptions) => Promise<readonly ResultRecord[]>
const companyResult = queryResultView(datasets.companies)
const investorResult = queryResultView(datasets.investors)
const RESULTS_VIEWS: Readonly<Record<DatasetName, ResultsView>> = {
  companies: async (records) => records.map(companyResult),
  investors: async (records) => records.map(investorResult),
  // A FundingView is an interface (no index signature); the spread makes it a plain record.
  fundings: async (records, deps, call) =>
    fundingViews(await deps.engine.records.fundingExtras(fundingIds(records), call), records).map((view) => ({ ...view })),
}

/** A page of a stored query as the engine answers it, counted or not (`total=none`). */
type AnyEnvelope = Omit<QueryEnvelope, 'meta' | 'cost'> & { readonly meta: QueryEnvelope['meta'] | PageWithoutTotal['meta']; readonly cost?: QueryEnvelope['cost'] }

async function withViews(envelope: AnyEnvelope, deps: AppDeps, call: CallOptions, selection?: WireSelection): Promise<Omit<AnyEnvelope, 'cost'>> {
  const { cost: _inHeader, ...body } = envelope
  return { ...body, results: await resultsView(envelope.query.dataset as DatasetName, selection)(envelope.results, deps, call) }
}

/**
 * The wire view of a dataset's results with a selection's members only. A funding's extras
 * (investors, industries) are looked up only when the selection shows one of them.
 */
export function resultsView(dataset: DatasetName, selection: WireSelection | undefined): ResultsView {
  if (selection === undefined) return RESULTS_VIEWS[dataset]
  const view: ResultsView = dataset === 'fundings' && !selection.extras
    ? async (records) => fundingViews(new Map(), records).map((v) => ({ ...v }))
    : RESULTS_VIEWS[dataset]
  return async (records, deps, call) => (await view(records, deps, call)).map((r) => pickMembers(r, selection))
}

/**
 * The `fields` of a POST /queries body, resolved for its dataset (http/fields.ts) and given to the
 * engine as catalog names. A body whose dataset is unknown goes to the engine as it is, which names
 * the dataset's issue.
 */
function bodySelection(request: Record<string, unknown>): { request: Record<string, unknown>; selection?: WireSelection } | { issues: readonly Issue[] } {
  if (!Object.hasOwn(request, 'fields')) return { request }
  const dataset = typeof request['dataset'] === 'string' ? resolveDataset(request['dataset']) : undefined
  if (dataset === undefined) return { request }
  const selection = wireSelection(dataset.name, request['fields'])
  if (!selection.ok) return { issues: selection.issues }
  const { fields: _wire, ...rest } = request
  return selection.value === undefined ? { request: rest } : { request: { ...rest, fields: selection.value.engineFields }, selection: selection.value }
}

/**
 * The catalog fields to ask the engine for on a stored query's page, before its dataset is known:
 * the names less the members only a funding view has (http/fields.ts); none left, every field.
 * The names are checked against the dataset once the page says which it is (`wireSelection`).
 */
export function engineFieldsBeforeDataset(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const names = raw.split(',').map((n) => n.trim()).filter((n) => n !== '' && !FUNDING_VIEW_ONLY.has(n))
  return names.length === 0 ? undefined : names.join(',')
}
const FUNDING_VIEW_ONLY: ReadonlySet<string> = new Set(['funding_id', 'investors', 'investor_slugs', 'industry'])

/**
 * The answer of a stored query's page: its views, `facets` when asked for (counted by
 * `storedFacets` under the same id), and the Link header to its pages at GET /queries/:query_id.
 */
async function pageAnswer(c: Context<HttpEnv>, deps: AppDeps, envelope: AnyEnvelope, options: AnswerOptions, target: URL, facetsAt: '/facets' | 'body', selection?: WireSelection): Promise<Response> {
  let facets: Record<string, unknown> | undefined
  if (options.facets !== undefined) {
    const counted = await deps.engine.storedFacets(envelope.query_id, options.facets, { ...callOptions(c), limit: options.facetLimit })
    if (!counted.ok) return issuesResponse(facetIssuesAt(counted, facetsAt))
    facets = counted.value.facets
  }
  if (envelope.cost !== undefined) c.header(QUERY_COST_HEADER, queryCostHeader(envelope.cost))
  const meta = envelope.meta
  c.header('Link', linkHeader(target, {
    page: meta.current_page, perPage: meta.per_page, returned: envelope.results.length,
    ...('total_pages' in meta ? { totalPages: (meta as QueryEnvelope['meta']).total_pages } : {}),
    ...(checkedIdentity(c).plan === 'trial' ? { maxPage: 1 } : {}),
  }))
  return c.json({ ...(await withViews(envelope, deps, callOptions(c), selection)), ...(facets ? { facets } : {}) })
}

/** Where the pages of a query posted with `options` are: GET /queries/:id, keeping the facets and `total=none`. */
function storedQueryTarget(deps: AppDeps, request: Request, queryId: string, options: AnswerOptions, selection?: WireSelection): URL {
  const url = new URL(`${baseUrlOf(deps, request)}/queries/${encodeURIComponent(queryId)}`)
  if (selection !== undefined) url.searchParams.set('fields', selection.members.join(','))
  if (options.facets !== undefined) url.searchParams.set('facets', options.facets.join(','))
  if (options.facetLimit !== undefined) url.searchParams.set('facet_limit', String(options.facetLimit))
  if (options.withoutTotal) url.searchParams.set('total', 'none')
  return url
}

//// routes ////

/** Engine issue codes that mean "no such resource" rather than "bad request". */
const NOT_FOUND_CODES: ReadonlySet<string> = new Set(['unknown_query'])

/** A stored-query failure: 404 for an unknown id, else 400; the id's issue points at the path parameter. */
export function pageFailure(issues: readonly Issue[]): Response {
  const located = issues.map((i) => (i.code === 'unknown_query' && i.path === '' ? issue({ ...i, path: '/query_id' }) : i))
  return issuesResponse(located, located.some((i) => NOT_FOUND_CODES.has(i.code)) ? 404 : 400)
}

async function postQuery(c: Context<HttpEnv>, deps: AppDeps): Promise<Response> {
  const read = await readQueryRequest(c.req.raw)
  if (!read.ok) return read.response
  // Right after parsing, before the paging rules or the schemas read it: depth and size (`guardInput`).
  const guarded = guardInput(read.value, deps.engine.limits, 'The request body')
  if (!guarded.ok) return issuesResponse([...guarded.issues])
  let request = guarded.value
  let options: AnswerOptions = { withoutTotal: false }
  if (request !== null && typeof request === 'object' && !Array.isArray(request)) {
    const { key: _authParameter, ...body } = request as Record<string, unknown>
    // The answer options shape the answer, not the query: they are no part of what is stored or of its id.
    const { read, rest } = answerOptionsOfBody(body)
    if (!read.ok) return issuesResponse([...read.issues])
    options = read.value
    // Facet names are checked before the query runs and is stored, when the dataset is known.
    const dataset = typeof rest['dataset'] === 'string' ? resolveDataset(rest['dataset']) : undefined
    if (options.facets !== undefined && dataset !== undefined) {
      const facetIssues = facetIssuesAt(checkFacets(dataset, options.facets, options.facetLimit), 'body')
      if (facetIssues.length > 0) return issuesResponse(facetIssues)
    }
    const paging = readPaging(deps, checkedIdentity(c), { page: rest['page'], per_page: rest['per_page'] }, deps.engine.limits.defaultPerPage)
    if (!paging.ok) return paging.response
    request = { ...rest, page: paging.page, per_page: paging.perPage }
  }
  let selection: WireSelection | undefined
  if (request !== null && typeof request === 'object' && !Array.isArray(request)) {
    const picked = bodySelection(request as Record<string, unknown>)
    if ('issues' in picked) return issuesResponse(picked.issues)
    request = picked.request
    selection = picked.selection
  }
  const call = { ...callOptions(c), owner: checkedIdentity(c).owner }
  const result = options.withoutTotal ? await deps.engine.queryWithoutTotal(request, call) : await deps.engine.query(request, call)
  if (!result.ok) return issuesResponse(result.issues)
  return pageAnswer(c, deps, result.value, options, storedQueryTarget(deps, c.req.raw, result.value.query_id, options, selection), 'body', selection)
}

/** The query parameters of GET /queries/:query_id: a near miss of one is refused, other names are ignored. */
const STORED_PAGE_QUERY = z.object({ ...pagingParams, ...storedFieldsParam, ...answerOptionParams })
const STORED_PAGE_PARAMETERS = parameterNames(STORED_PAGE_QUERY)

async function getQuery(c: Context<HttpEnv>, deps: AppDeps): Promise<Response> {
  const params = QueryParams.of(c.req.raw)
  const page = params.one('page')
  const perPage = params.one('per_page')
  const fields = params.one('fields')
  const options = answerOptionsOfParams(params)
  const issues = [
    ...misspeltParameterIssues(params, withoutNearMissExemptions(STORED_PAGE_PARAMETERS), 'GET /queries/{query_id}'),
    ...(page.ok ? [] : page.issues), ...(perPage.ok ? [] : perPage.issues), ...(fields.ok ? [] : fields.issues), ...(options.ok ? [] : options.issues),
  ]
  if (issues.length > 0 || !page.ok || !perPage.ok || !fields.ok || !options.ok) return issuesResponse(issues)
  const caller = checkedIdentity(c)
  const paging = readPaging(deps, caller, { page: page.value, per_page: perPage.value }, deps.engine.limits.defaultPerPage)
  if (!paging.ok) return paging.response
  // Without per_page, the query's own (what it was posted with) unless a trial cap applies.
  const ownPerPage = perPage.value === undefined && caller.plan !== 'trial'
  const engineFields = engineFieldsBeforeDataset(fields.value)
  const pageArgs = { page: paging.page, ...(ownPerPage ? {} : { per_page: paging.perPage }), ...(engineFields ? { fields: engineFields } : {}) }
  const result = options.value.withoutTotal
    ? await deps.engine.pageWithoutTotal(c.req.param('query_id'), pageArgs, callOptions(c))
    : await deps.engine.page(c.req.param('query_id'), pageArgs, callOptions(c))
  if (!result.ok) return pageFailure(result.issues)
  const selection = wireSelection(result.value.query.dataset as DatasetName, fields.value)
  if (!selection.ok) return issuesResponse(selection.issues)
  return pageAnswer(c, deps, result.value, options.value, requestTarget(baseUrlOf(deps, c.req.raw), c.req.raw), '/facets', selection.value)
}

export const queryRoutes: RouteModule = {
  specs: [
    {
      method: 'post',
      path: '/queries',
      summary: 'Create and run a structured query (beta)',
      description: 'Stores the query under a content-addressed id (the same filter, in any key or array order, gets the same id) '
        + 'and returns its first (or requested) page. The body is JSON, or form-encoded with one key per parameter and '
        + '`filter` and `sort` as JSON text; without a content type it is read as JSON when it parses, else as a form. '
        + 'An invalid filter is a 400 whose `issues` name each problem by JSON Pointer, with did-you-mean suggestions. '
        + 'A body over the size limit is a 413. `per_page` above the cap is lowered to it; trial keys get page 1 only.',
      specSection: '4.14',
      queryCost: true,
      heavy: true,
      paged: true,
      body: queryRequestSchema,
      response: queryPageSchema,
      authenticated: true,
    },
    {
      method: 'get',
      path: '/queries/{query_id}',
      summary: 'Page through a stored query',
      description: 'A page of the stored query. An unknown id is a 404; a query stored under an older query_version that no '
        + 'longer checks is a 400 (`query_outdated`): post its filter again for a current id.',
      specSection: '4.15',
      queryCost: true,
      heavy: true,
      paged: true,
      pathParams: z.object({ query_id: z.string().describe('The id returned by POST /queries.') }),
      query: STORED_PAGE_QUERY,
      response: queryPageSchema,
      authenticated: true,
    },
  ],
  register(app, deps) {
    app.post('/queries', bodyLimitOf(deps.engine.limits.maxBodyBytes), (c) => postQuery(c, deps))
    app.get('/queries/:query_id', (c) => getQuery(c, deps))
  },
}
