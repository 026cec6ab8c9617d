/**
 * @module GET /investors/:id (spec 4.12) and GET /investors/:id/portfolio (spec 4.13): record
 * lookups in `records/`, shaped by `views/investor.ts`. An id that is not a whole number cannot
 * name an investor, so it is a 404 like an unknown one (the resource does not exist), not a 400.
 */
import type { Context } from 'hono'
import { z } from 'zod'
import { detailSelection, pickMembers } from '../fields.js'
import { previewValue } from '../../errors/format.js'
import type { Issue } from '../../errors/issue.js'
import { checkedIdentity } from '../auth.js'
import { callOptions, type AppDeps, type HttpEnv, type RouteModule } from '../context.js'
import { readPaging } from '../paging.js'
import { misspeltParameterIssues, parameterNames, QueryParams } from '../params.js'
import { issuesResponse, notFound } from '../problem.js'
import { memberFieldsParam } from '../schemas/fields.js'
import { investorDetailSchema, investorPathParams, portfolioCompanySchema, portfolioQueryParams, portfolioSchema } from '../schemas/investor.js'
import { investorDetailView, portfolioView } from '../views/investor.js'

/** Investor ids are positive integers; 15 digits keeps every accepted id an exact JS number. */
const INVESTOR_ID = /^[0-9]{1,15}$/

function investorIdOf(c: Context<HttpEnv>): number | undefined {
  const raw = c.req.param('id') ?? ''
  return INVESTOR_ID.test(raw) ? Number(raw) : undefined
}

const noInvestor = (c: Context<HttpEnv>): Response =>
  notFound(`No investor has id ${previewValue(c.req.param('id') ?? '', 40)}; ids are the object_id of GET /search results or the investor_id of investor query results.`)

/** `fields` of the investor detail (its top-level members) and of a portfolio's companies (http/fields.ts, `detailSelection`). */
const DETAIL_MEMBERS = Object.keys(investorDetailSchema.shape)
const DETAIL_QUERY = z.object(memberFieldsParam(DETAIL_MEMBERS))
const PORTFOLIO_MEMBERS = Object.keys(portfolioCompanySchema.shape)
const PORTFOLIO_QUERY = portfolioQueryParams.extend(memberFieldsParam(PORTFOLIO_MEMBERS, { each: true }))

function detail(deps: AppDeps) {
  return async (c: Context<HttpEnv>): Promise<Response> => {
    const id = investorIdOf(c)
    const raw = QueryParams.of(c.req.raw).one('fields')
    const fields = raw.ok ? detailSelection(DETAIL_MEMBERS, raw.value, 'The investor detail') : raw
    if (!fields.ok) return issuesResponse(fields.issues)
    const record = id === undefined ? undefined : await deps.engine.records.investorDetail(id, callOptions(c))
    if (!record) return noInvestor(c)
    return c.json(pickMembers(investorDetailView(record), fields.value))
  }
}

/** The names GET /investors/:id/portfolio takes: a near miss of one is refused, other names are ignored. */
const PORTFOLIO_PARAMETERS = parameterNames(PORTFOLIO_QUERY)

function portfolio(deps: AppDeps) {
  return async (c: Context<HttpEnv>): Promise<Response> => {
    const id = investorIdOf(c)
    if (id === undefined) return noInvestor(c)

    const params = QueryParams.of(c.req.raw)
    const page = params.one('page')
    const perPage = params.one('per_page')
    const raw = params.one('fields')
    const fields = raw.ok ? detailSelection(PORTFOLIO_MEMBERS, raw.value, 'A portfolio company') : raw
    const issues: Issue[] = [
      ...misspeltParameterIssues(params, PORTFOLIO_PARAMETERS, 'GET /investors/{id}/portfolio'),
      ...(page.ok ? [] : page.issues), ...(perPage.ok ? [] : perPage.issues), ...(fields.ok ? [] : fields.issues),
    ]
    if (issues.length > 0 || !fields.ok) return issuesResponse(issues)
    const paging = readPaging(deps, checkedIdentity(c), {
      page: page.ok ? page.value : undefined,
      per_page: perPage.ok ? perPage.value : undefined,
    }, deps.options.defaultPerPage)
    if (!paging.ok) return paging.response

    const found = await deps.engine.records.investorPortfolio(id, { page: paging.page, perPage: paging.perPage }, callOptions(c))
    if (!found) return noInvestor(c)
    const view = portfolioView(found, paging)
    return c.json({ ...view, companies: view.companies.map((company) => pickMembers(company, fields.value)) })
  }
}

export const investorRoutes: RouteModule = {
  specs: [
    {
      method: 'get',
      path: '/investors/{id}',
      summary: 'Investor detail',
      description: 'The investor with portfolio and deal aggregates, its most recent funding round and latest filings. '
        + 'Breakdowns are sorted by count, then name; quarters newest first; top_industries counts portfolio companies (top 10).',
      specSection: '4.12',
      heavy: true,
      pathParams: investorPathParams,
      query: DETAIL_QUERY,
      response: investorDetailSchema,
      authenticated: true,
    },
    {
      method: 'get',
      path: '/investors/{id}/portfolio',
      summary: 'Investor portfolio',
      description: 'The companies the investor invested in, most recent first investment first (then by company id), paged.',
      specSection: '4.13',
      heavy: true,
      pathParams: investorPathParams,
      query: PORTFOLIO_QUERY,
      response: portfolioSchema,
      authenticated: true,
    },
  ],
  register(app, deps) {
    app.get('/investors/:id', detail(deps))
    app.get('/investors/:id/portfolio', portfolio(deps))
  },
}
