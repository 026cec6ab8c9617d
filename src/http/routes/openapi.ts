/**
 * @module GET /openapi.json: the OpenAPI 3.1 document of every mounted endpoint. Public (no key,
 * no quota: auth.ts lets it through), so tools can read the API before anyone holds a key. It
 * carries a real example request and answer per operation (openapi-examples.json, produced from the
 * demo database by `npm run openapi-examples`); GET /docs shows it (docs-page.ts).
 */
import { baseUrlOf, type RouteModule, type RouteSpec } from '../context.js'
import { buildOpenApiDocument, type OperationExamples } from '../openapi.js'
import { openApiDocumentSchema } from '../schemas/openapi.js'
import examplesFile from '../openapi-examples.json' with { type: 'json' }

/** The committed examples (bundled into dist/ by tsup, so no file is read at run time). */
export const OPENAPI_EXAMPLES: { readonly source: string; readonly operations: OperationExamples } = {
  source: examplesFile.source,
  operations: examplesFile.operations as unknown as OperationExamples,
}

const openApiSpec: RouteSpec = {
  method: 'get',
  path: '/openapi.json',
  summary: 'The OpenAPI 3.1 document of this API',
  description: 'Derived from the same zod schemas the server\'s tests validate responses with. Needs no API key.',
  specSection: '4',
  response: openApiDocumentSchema,
  authenticated: false,
}

export const openApiRoutes: RouteModule = {
  specs: [openApiSpec],
  register(app, deps) {
    // One document per base URL: the routes never change after createApp, only `servers` does.
    const documents = new Map<string, string>()
    app.get(openApiSpec.path, (c) => {
      const serverUrl = baseUrlOf(deps, c.req.raw)
      let text = documents.get(serverUrl)
      if (text === undefined) {
        text = JSON.stringify(buildOpenApiDocument(deps.routes, { serverUrl, examples: OPENAPI_EXAMPLES.operations, examplesSource: OPENAPI_EXAMPLES.source, access: deps.options.documentedAccess }))
        // Bounded: a client sending many Host headers must not grow this without end.
        if (documents.size >= 16) documents.clear()
        documents.set(serverUrl, text)
      }
      return c.body(text, 200, { 'content-type': 'application/json; charset=utf-8' })
    })
  },
}
