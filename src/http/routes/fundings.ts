/**
 * @module GET /fundings (spec 4.10): every parameter of 4.10 becomes the filter language through
 * `parse/list-params.ts`, the engine runs it unstored (`engine.list`), and each record becomes a
 * funding event of spec 2.10, its investors and industries looked up for the whole page at once.
 * Paging and the trial rule are `paging.ts`'s, with a default page of `defaultPerPage` (50).
 */
import { callOptions, type RouteModule } from '../context.js'
import { fundingListPageSchema, listQuerySchema } from '../schemas/listings.js'
import { fundingIds, fundingViews } from '../views/funding.js'
import { parameterNames } from '../params.js'
import { pickMembers } from '../fields.js'
import { runListing } from './listing.js'

/** The query parameters (spec 4.10): for the OpenAPI document, and to tell a misspelt name from an unrelated one. */
const FUNDINGS_QUERY = listQuerySchema('fundings')
const FUNDINGS_PARAMETERS = parameterNames(FUNDINGS_QUERY)

export const fundingRoutes: RouteModule = {
  specs: [{
    method: 'get',
    path: '/fundings',
    summary: 'List and filter funding events',
    description: 'Every parameter is optional; several parameters AND together, and the values of one list parameter OR '
      + '(pipe-joined, repeated or with []). investor_ids and investor_slugs select rounds in which any of the investors took part. '
      + 'A misspelt parameter name (a near miss of one listed here, such as `contry`) is a 400 with did-you-mean suggestions; '
      + 'other unknown names are ignored. An unknown or malformed value is a 400 naming the parameter and the accepted forms. '
      + 'See grammar-docs/list-parameters.md.',
    specSection: '4.10',
    queryCost: true,
    heavy: true,
    paged: true,
    query: FUNDINGS_QUERY,
    response: fundingListPageSchema,
    authenticated: true,
  }],
  register(app, deps) {
    app.get('/fundings', (c) => runListing(c, deps, {
      endpoint: 'fundings',
      parameters: FUNDINGS_PARAMETERS,
      defaultPerPage: deps.options.defaultPerPage,
      records: 'fundings',
      render: async (results, c, selection) => {
        // The extras lookup (investors, industries) only when the selection shows one of them.
        const extras = selection === undefined || selection.extras ? await deps.engine.records.fundingExtras(fundingIds(results), callOptions(c)) : new Map()
        return { fundings: fundingViews(extras, results).map((view) => pickMembers(view, selection)) }
      },
    }))
  },
}
