/**
 * @module GET /companies (and /companies/; spec 4.1): every parameter of 4.1 becomes the filter
 * language through `parse/list-params.ts`, the engine runs it unstored (`engine.list`), and each
 * record becomes a list item with the absolute address of its detail (spec 2.2). Paging and the
 * trial rule are `paging.ts`'s, with a default page of `companiesPerPage` (10, spec section 8).
 */
import type { Context } from 'hono'
import type { ResultRecord } from '../../execute/records.js'
import type { AppDeps, HttpEnv, RouteModule } from '../context.js'
import { baseUrlOf } from '../context.js'
import { companyListItem } from '../views/company-list-item.js'
import { queryResultView } from '../views/missing-values.js'
import { datasets } from '../../catalog/index.js'
import { pickMembers } from '../fields.js'
import { companyListPageSchema, listQuerySchema } from '../schemas/listings.js'
import { parameterNames } from '../params.js'
import { runListing } from './listing.js'

/** The query parameters (spec 4.1): for the OpenAPI document, and to tell a misspelt name from an unrelated one. */
const COMPANIES_QUERY = listQuerySchema('companies')
const COMPANIES_PARAMETERS = parameterNames(COMPANIES_QUERY)

export const companyListRoutes: RouteModule = {
  specs: [{
    method: 'get',
    path: '/companies',
    summary: 'List and filter companies',
    description: 'Every parameter is optional; several parameters AND together, and the values of one list parameter OR '
      + '(pipe-joined, repeated or with []). A misspelt parameter name (a near miss of one listed here, such as `contry`) is a 400 '
      + 'with did-you-mean suggestions; other unknown names are ignored. An unknown or malformed value is a 400 '
      + 'naming the parameter and the accepted forms. Also reachable as /companies/. '
      + 'See grammar-docs/list-parameters.md for each parameter\'s filter-language equivalent.',
    specSection: '4.1',
    queryCost: true,
    heavy: true,
    paged: true,
    query: COMPANIES_QUERY,
    response: companyListPageSchema,
    authenticated: true,
  }],
  register(app, deps) {
    app.get('/companies', (c) => listCompanies(c, deps))
  },
}

const companyResult = queryResultView(datasets.companies)

async function listCompanies(c: Context<HttpEnv>, deps: AppDeps): Promise<Response> {
  return runListing(c, deps, {
    endpoint: 'companies',
    parameters: COMPANIES_PARAMETERS,
    defaultPerPage: deps.options.companiesPerPage,
    records: 'company-list-items',
    render: (results: readonly ResultRecord[], _c, selection) => {
      const base = baseUrlOf(deps, c.req.raw)
      if (selection === undefined) return { companies: results.map((r) => companyListItem(r, base)) }
      // Picked catalog fields show as in POST /queries results (missing-values.ts), the item's own members as always.
      return { companies: results.map((r) => pickMembers({ ...companyResult(r), ...companyListItem(r, base) }, selection)) }
    },
  })
}
