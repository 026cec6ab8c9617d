/**
 * @module The steps GET /companies and GET /fundings share: query parameters → the filter language
 * (`parse/list-params.ts`), paging and the trial rule (`paging.ts`), `engine.list`, and the
 * engine's own issues (limits, values it refuses) reported under the parameter that caused them.
 * The endpoints differ only in their dataset, default page size, parameter names and item view. A
 * parameter name that is a near miss of one the endpoint takes is refused with the bad values, in
 * one answer (`misspeltParameterIssues`); other unknown names are ignored.
 */
import type { Context } from 'hono'
import type { PageMeta } from '../../engine.js'
import type { ResultRecord } from '../../execute/records.js'
import { datasets } from '../../catalog/index.js'
import { checkFacets } from '../../check/facets.js'
import { issuesInParameterTerms, listRequest, parseListParams, type ListEndpoint } from '../../parse/list-params.js'
import { answerOptionsOfParams, facetIssuesAt, linkHeader, requestTarget, withoutNearMissExemptions } from '../answer-options.js'
import { checkedIdentity } from '../auth.js'
import { baseUrlOf, callOptions, type AppDeps, type HttpEnv } from '../context.js'
import { readPaging } from '../paging.js'
import { misspeltParameterIssues, QueryParams } from '../params.js'
import { issuesResponse } from '../problem.js'
import type { Result } from '../../errors/issue.js'
import { wireSelection, type WireRecords, type WireSelection } from '../fields.js'
import { QUERY_COST_HEADER, queryCostHeader } from '../query-cost.js'

export interface ListingRoute {
  readonly endpoint: ListEndpoint
  readonly defaultPerPage: number
  /** The parameter names the endpoint takes (`parameterNames` of its route spec's query): near misses of them are refused. */
  readonly parameters: readonly string[]
  /** Which records `fields` picks from (http/fields.ts). */
  readonly records: WireRecords
  /** The page's items under the endpoint's key (`companies`, `fundings`), with only the selected members when there is a selection. */
  readonly render: (results: readonly ResultRecord[], c: Context<HttpEnv>, selection: WireSelection | undefined) => Record<string, unknown> | Promise<Record<string, unknown>>
}

export async function runListing(c: Context<HttpEnv>, deps: AppDeps, route: ListingRoute): Promise<Response> {
  const params = QueryParams.of(c.req.raw)
  const misspelt = misspeltParameterIssues(params, withoutNearMissExemptions(route.parameters), `GET /${route.endpoint}`)
  const parsed = parseListParams(route.endpoint, params, { now: deps.options.clock() })
  const page = params.one('page')
  const perPage = params.one('per_page')
  const fields = fieldsParameter(params, route.records)
  const options = answerOptionsOfParams(params)
  const facetIssues = options.ok && options.value.facets !== undefined
    ? facetIssuesAt(checkFacets(datasets[route.endpoint], options.value.facets, options.value.facetLimit), '/facets')
    : []
  if (misspelt.length > 0 || !parsed.ok || !page.ok || !perPage.ok || !fields.ok || !options.ok || facetIssues.length > 0) {
    return issuesResponse([
      ...misspelt, ...(parsed.ok ? [] : parsed.issues), ...(page.ok ? [] : page.issues), ...(perPage.ok ? [] : perPage.issues),
      ...(fields.ok ? [] : fields.issues), ...(options.ok ? [] : options.issues), ...facetIssues,
    ])
  }
  const caller = checkedIdentity(c)
  const paging = readPaging(deps, caller, { page: page.value, per_page: perPage.value }, route.defaultPerPage)
  if (!paging.ok) return paging.response

  const request = listRequest(parsed.value, paging.page, paging.perPage)
  const selection = fields.value
  const picked = selection ? { ...request, fields: selection.engineFields } : request
  const listed = options.value.withoutTotal
    ? await deps.engine.listWithoutTotal(picked, callOptions(c))
    : await deps.engine.list(picked, callOptions(c))
  if (!listed.ok) return issuesResponse(issuesInParameterTerms(parsed.value, listed.issues))
  let facets: Record<string, unknown> | undefined
  if (options.value.facets !== undefined) {
    const counted = await deps.engine.facets(request, options.value.facets, { ...callOptions(c), limit: options.value.facetLimit })
    if (!counted.ok) return issuesResponse(facetIssuesAt(counted, '/facets'))
    facets = counted.value.facets
  }
  const meta: PageMeta | { current_page: number; per_page: number } = listed.value.meta
  c.header(QUERY_COST_HEADER, queryCostHeader(listed.value.cost))
  c.header('Link', linkHeader(requestTarget(baseUrlOf(deps, c.req.raw), c.req.raw), {
    page: meta.current_page, perPage: meta.per_page, returned: listed.value.results.length,
    ...('total_pages' in meta ? { totalPages: (meta as PageMeta).total_pages } : {}),
    ...(caller.plan === 'trial' ? { maxPage: 1 } : {}),
  }))
  return c.json({ meta, ...(await route.render(listed.value.results, c, selection)), ...(facets ? { facets } : {}) })
}

/** The `fields` parameter of a request (one comma-separated value), resolved for the records (`http/fields.ts`). */
export function fieldsParameter(params: QueryParams, records: WireRecords): Result<WireSelection | undefined> {
  const raw = params.one('fields')
  return raw.ok ? wireSelection(records, raw.value) : raw
}
