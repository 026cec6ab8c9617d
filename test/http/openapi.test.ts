/**
 * GET /openapi.json: a valid OpenAPI 3.1 document (checked by an independent validator), listing
 * every RouteSpec with its parameters, security and error responses, every `$ref` resolving, and
 * schemas that accept the server's real responses (checked with ajv against the document, not with
 * the zod schemas it was derived from).
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiPath } from '../../src/http/openapi.js'
import { OPENAPI_EXAMPLES } from '../../src/http/routes/openapi.js'
import { WITHOUT_EXAMPLE } from '../../src/docs/openapi-examples.js'
import { openApiDocumentSchema } from '../../src/http/schemas/openapi.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { createHarness, BASE, type Harness } from './harness.js'

let h: Harness
let doc: any
beforeAll(async () => {
  h = await createHarness()
  const res = await h.get('/openapi.json', { key: null })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  doc = await res.json()
})
afterAll(async () => { await h.close() })

const ERROR_STATUSES = ['400', '403', '404', '429', '500', '503']

/** Every `$ref` in the document with the JSON Pointer of where it sits. */
function refsOf(node: unknown, at = ''): { at: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => refsOf(v, `${at}/${i}`))
  if (node === null || typeof node !== 'object') return []
  return Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ at, ref: v }] : refsOf(v, `${at}/${k}`)))
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined
  return ref.slice(2).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, token) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined), root)
}

describe('the document', () => {
  it('is public: no key needed, and no quota headers since no key is charged', async () => {
    const res = await h.get('/openapi.json', { key: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-quota-limit')).toBeNull()
    expect(openApiDocumentSchema.safeParse(await res.json()).success).toBe(true)
  })

  it('is a valid OpenAPI 3.1 document according to an independent validator', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('names the API, its version from package.json and the server it was fetched from', async () => {
    const { default: pkg } = await import('../../package.json', { with: { type: 'json' } })
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.title).toBe('ventureql')
    expect(doc.info.version).toBe(pkg.version)
    expect(doc.servers).toEqual([{ url: BASE }])
  })

  it('lists every RouteSpec of the app, once, at its {param} path', () => {
    expect(h.app.routes.length).toBeGreaterThan(0)
    const operations = Object.entries(doc.paths).flatMap(([path, methods]: [string, any]) => Object.keys(methods).map((m) => `${m} ${path}`))
    expect(operations.sort()).toEqual(h.app.routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort())
    for (const path of Object.keys(doc.paths)) expect(path).not.toMatch(/:/)
    for (const route of h.app.routes) {
      const op = doc.paths[openApiPath(route.path)][route.method]
      expect(op.summary).toBe(route.summary)
      expect(op['x-spec-section']).toBe(route.specSection)
      expect(op.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/)
    }
    const ids = h.app.routes.map((r) => doc.paths[openApiPath(r.path)][r.method].operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('documents every path parameter as required and every query parameter of the RouteSpec, with descriptions', () => {
    for (const route of h.app.routes) {
      const path = openApiPath(route.path)
      const op = doc.paths[path][route.method]
      const params: any[] = op.parameters ?? []
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
      expect(params.filter((p) => p.in === 'path').map((p) => p.name).sort(), path).toEqual([...inPath].sort())
      for (const p of params.filter((p) => p.in === 'path')) expect(p.required).toBe(true)
      expect(params.filter((p) => p.in === 'query').map((p) => p.name).sort(), path).toEqual(Object.keys(route.query?.shape ?? {}).sort())
      for (const p of params) {
        expect(typeof p.description, `${route.method} ${path} ${p.name}`).toBe('string')
        expect(p.description.length).toBeGreaterThan(0)
        expect(typeof p.schema).toBe('object')
      }
    }
  })

  it('has the two key schemes of spec section 5 and requires one of them on every authenticated operation', () => {
    expect(doc.components.securitySchemes.apiKeyQuery).toEqual(expect.objectContaining({ type: 'apiKey', in: 'query', name: 'key' }))
    expect(doc.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }))
    for (const route of h.app.routes) {
      const op = doc.paths[openApiPath(route.path)][route.method]
      if (route.authenticated === false) expect(op.security).toEqual([])
      else expect(op.security).toEqual([{ apiKeyQuery: [] }, { bearerAuth: [] }])
    }
    expect(doc.paths['/openapi.json'].get.security).toEqual([])
  })

  it('answers every authenticated operation\'s errors (400/403/404/429/500/503) with the Problem schema', () => {
    for (const route of h.app.routes) {
      const op = doc.paths[openApiPath(route.path)][route.method]
      const statuses = route.authenticated === false ? ['500', '503'] : ERROR_STATUSES
      for (const status of statuses) {
        const response: any = resolvePointer(doc, op.responses[status].$ref)
        expect(response?.content['application/problem+json'].schema, `${route.path} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' })
      }
      if (route.authenticated !== false) {
        // Routes that run a filter also answer its cost (src/http/query-cost.ts).
        const cost = route.queryCost ? ['X-Query-Cost'] : []
        // Paged answers also link their pages (src/http/answer-options.ts).
        const link = route.paged ? ['Link'] : []
        expect(Object.keys(op.responses['200'].headers)).toEqual(['X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset', ...cost, ...link])
      }
    }
    expect(doc.components.schemas.Problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'error']))
  })

  it('documents 429 `tenant_busy` with Retry-After on exactly the heavy operations (those not on the light lane)', () => {
    const heavy = h.app.routes.filter((r) => r.heavy).map((r) => `${r.method} ${openApiPath(r.path)}`)
    expect(heavy.sort()).toEqual(['get /companies', 'get /companies/{id}/similar', 'get /fundings', 'get /investors/{id}', 'get /investors/{id}/portfolio', 'get /queries/{query_id}', 'get /search', 'post /queries'])
    for (const route of h.app.routes) {
      if (route.authenticated === false) continue
      const op = doc.paths[openApiPath(route.path)][route.method]
      expect(op.responses['429'], `${route.method} ${route.path}`).toEqual({ $ref: route.heavy ? '#/components/responses/RateLimitedOrBusy' : '#/components/responses/RateLimited' })
    }
    const busy = doc.components.responses.RateLimitedOrBusy
    expect(busy.description).toMatch(/quota for the current period is used up/)
    expect(busy.description).toMatch(/`tenant_busy`, with `retry_after`/)
    expect(busy.description).toMatch(/grammar-docs\/guides\/fairness\.md/)
    expect(busy.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 0 })
  })

  it('resolves every $ref', () => {
    const refs = refsOf(doc)
    expect(refs.length).toBeGreaterThan(10)
    for (const { at, ref } of refs) expect(resolvePointer(doc, ref), `${ref} at ${at}`).toBeDefined()
  })
})

describe('the document\'s schemas accept the server\'s real responses', () => {
  // ajv reads the whole document so that `#/components/...` references resolve inside it.
  const ajvFor = () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    ajv.addSchema({ ...doc, $id: 'openapi.json' })
    return ajv
  }
  const pointerOf = (...tokens: string[]) => tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')

  function validateAgainstDocument(ajv: Ajv2020, method: string, path: string, status: string, contentType: string, body: unknown) {
    // Error responses are `$ref`s to components.responses; ajv follows `$ref` only inside schemas.
    const response = doc.paths[path][method].responses[status]
    const at = typeof response.$ref === 'string' ? response.$ref.slice(2) : pointerOf('paths', path, method, 'responses', status)
    const validate = ajv.compile({ $ref: `openapi.json#/${at}/content/${pointerOf(contentType)}/schema` })
    const valid = validate(body)
    return { valid, errors: validate.errors }
  }

  /** A real request per route; a route without one here fails the test so that new routes get one. */
  function sampleRequests(): Record<string, () => Promise<Response>> {
    const company = h.vdb.sqlite.prepare('select id, website from companies where website is not null order by id limit 1').get() as { id: number; website: string }
    const investor = h.vdb.sqlite.prepare('select id from investors order by portfolio_size desc, id limit 1').get() as { id: number }
    const body = JSON.stringify({ dataset: 'investors', filter: { portfolio_size: { gte: 1 } }, per_page: 5 })
    return {
      'get /companies': () => h.get('/companies?stage=a|b|c&per_page=5'),
      'get /companies/{id}': () => h.get(`/companies/${company.id}`),
      'get /domains/{domain}/companies': () => h.get(`/domains/${encodeURIComponent(company.website)}/companies`),
      'get /companies/{id}/stories': () => h.get(`/companies/${company.id}/stories`),
      'get /companies/{id}/similar': () => h.get(`/companies/${company.id}/similar`),
      'get /companies/{id}/people': () => h.get(`/companies/${company.id}/people`),
      'get /companies/{company_id}/contact': () => h.get(`/companies/${company.id}/contact?full_name=Nobody+Known`),
      'get /companies/{company_id}/tech_stack': () => h.get(`/companies/${company.id}/tech_stack`),
      'get /search': () => h.get('/search?term=a'),
      'get /fundings': () => h.get('/fundings?per_page=5'),
      'get /investors/{id}': () => h.get(`/investors/${investor.id}`),
      'get /investors/{id}/portfolio': () => h.get(`/investors/${investor.id}/portfolio?per_page=5`),
      'post /queries': () => h.request('/queries', { init: { method: 'POST', body, headers: { 'content-type': 'application/json' } } }),
      'get /queries/{query_id}': async () => {
        const created = await h.request('/queries', { init: { method: 'POST', body, headers: { 'content-type': 'application/json' } } })
        const { query_id } = await created.json() as { query_id: string }
        return h.get(`/queries/${query_id}?page=2&per_page=2`)
      },
      'get /queries/{query_id}/export': async () => {
        const created = await h.request('/queries', { init: { method: 'POST', body, headers: { 'content-type': 'application/json' } } })
        const { query_id } = await created.json() as { query_id: string }
        return h.get(`/queries/${query_id}/export`)
      },
      'get /ratelimit/usage': () => h.get('/ratelimit/usage'),
      'get /ratelimit/quota': () => h.get('/ratelimit/quota'),
      'get /openapi.json': () => h.get('/openapi.json', { key: null }),
    }
  }

  it('for a 200 of every route, and the route\'s zod schema agrees', async () => {
    const ajv = ajvFor()
    const samples = sampleRequests()
    for (const route of h.app.routes) {
      const path = openApiPath(route.path)
      const sample = samples[`${route.method} ${path}`]
      expect(sample, `no sample request for ${route.method} ${path}: add one`).toBeDefined()
      const res = await sample!()
      const text = await res.text()
      expect(res.status, `${route.method} ${path}: ${text.slice(0, 300)}`).toBe(200)
      if (route.responseMediaTypes) {
        // A streamed file (an export): its media type is documented, and each NDJSON line is a record the route describes.
        const type = res.headers.get('content-type')!.split(';')[0]!
        expect(Object.keys(doc.paths[path][route.method].responses['200'].content)).toContain(type)
        const lines = text.trim().split('\n')
        expect(lines.length).toBeGreaterThan(0)
        for (const line of lines) expect(route.response.safeParse(JSON.parse(line)).success, `${route.method} ${path} (zod)`).toBe(true)
        continue
      }
      const body = JSON.parse(text)
      const checked = validateAgainstDocument(ajv, route.method, path, '200', 'application/json', body)
      expect(checked.errors ?? [], `${route.method} ${path}`).toEqual([])
      expect(route.response.safeParse(body).success, `${route.method} ${path} (zod)`).toBe(true)
    }
  })

  it('for the errors: 403 without a key, 404 for an unknown company, 400 for a bad parameter', async () => {
    const ajv = ajvFor()
    const cases: [string, string, Promise<Response>][] = [
      ['/ratelimit/usage', '403', h.get('/ratelimit/usage', { key: null })],
      ['/companies/{id}', '404', h.get('/companies/999999999')],
      ['/companies', '400', h.get('/companies?stage=zz')],
    ]
    for (const [path, status, pending] of cases) {
      const res = await pending
      expect(String(res.status)).toBe(status)
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      const body = await res.json()
      const checked = validateAgainstDocument(ajv, 'get', path, status, 'application/problem+json', body)
      expect(checked.errors ?? [], `${path} ${status}`).toEqual([])
      expect(problemSchema.safeParse(body).success).toBe(true)
    }
  })

  it('rejects what the spec forbids (the document is not a match-anything schema)', () => {
    const ajv = ajvFor()
    // spec 2.15: integers; a string quota_limit is not the documented shape.
    expect(validateAgainstDocument(ajv, 'get', '/ratelimit/usage', '200', 'application/json',
      [{ quota_limit: '10', quota_remaining: 1, quota_reset: 1, quota_period: 1 }]).valid).toBe(false)
    // spec 2.2: id is a string.
    expect(validateAgainstDocument(ajv, 'get', '/companies', '200', 'application/json',
      { meta: { total_record_count: 1, total_pages: 1, current_page: 1, per_page: 10 }, companies: [{ company_name: 'x', domain: 'x.com', id: 1, url: 'https://x/companies/1' }] }).valid).toBe(false)
    expect(validateAgainstDocument(ajv, 'get', '/companies', '400', 'application/problem+json', { status: 400 }).valid).toBe(false)
  })
})

describe('the examples (src/http/openapi-examples.json)', () => {
  const withExample = () => h.app.routes.filter((r) => !Object.hasOwn(WITHOUT_EXAMPLE, `${r.method} ${openApiPath(r.path)}`))

  it('cover every operation but the document itself, each with a request, a 200 answer and a line in the description', () => {
    expect(Object.keys(WITHOUT_EXAMPLE)).toEqual(['get /openapi.json', 'get /queries/{query_id}/export'])
    expect(withExample().length).toBe(h.app.routes.length - 2)
    for (const route of withExample()) {
      const path = openApiPath(route.path)
      const op = doc.paths[path][route.method]
      expect(op.responses['200'].content['application/json'].example, `${route.method} ${path}`).toBeDefined()
      expect(op.description, `${route.method} ${path}`).toMatch(/\n\nExample: `(GET|POST) \//)
    }
    const own = doc.paths['/openapi.json'].get
    expect(own.responses['200'].content['application/json'].example).toBeUndefined()
  })

  it('give every path parameter an example, and query examples only for documented parameters, each valid for its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    for (const route of withExample()) {
      const path = openApiPath(route.path)
      const op = doc.paths[path][route.method]
      const sent = OPENAPI_EXAMPLES.operations[`${route.method} ${path}`]!.request
      const params: any[] = op.parameters ?? []
      for (const p of params.filter((p) => p.in === 'path')) expect(p.example, `${path} {${p.name}}`).toEqual(expect.any(String))
      // What the example sends is exactly what the document shows as examples (none undocumented, none left out).
      expect(Object.fromEntries(params.filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, p.example])), path).toEqual(sent.query ?? {})
      for (const p of params.filter((p) => p.example !== undefined)) {
        expect(ajv.validate(p.schema, p.example), `${route.method} ${path} ${p.name}: ${ajv.errorsText()}`).toBe(true)
      }
      if (route.body) {
        const body = op.requestBody.content['application/json']
        expect(body.example, `${route.method} ${path} body`).toEqual(sent.body)
        expect(route.body.safeParse(body.example).success).toBe(true)
      }
    }
  })

  it('show answers that the document\'s own 200 schemas and the routes\' zod schemas accept', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    ajv.addSchema({ ...doc, $id: 'openapi.json' })
    const pointer = (...tokens: string[]) => tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
    for (const route of withExample()) {
      const path = openApiPath(route.path)
      const example = doc.paths[path][route.method].responses['200'].content['application/json'].example
      const validate = ajv.compile({ $ref: `openapi.json#/${pointer('paths', path, route.method, 'responses', '200', 'content', 'application/json', 'schema')}` })
      expect(validate(example), `${route.method} ${path}: ${ajv.errorsText(validate.errors)}`).toBe(true)
      expect(route.response.safeParse(example).success, `${route.method} ${path} (zod)`).toBe(true)
    }
  })

  it('hold no API key, and the description says how to authorise in the /docs page', () => {
    expect(JSON.stringify(doc)).not.toMatch(/vql_[A-Za-z0-9_-]{8,}/)
    expect(doc.info.description).toContain('GET /docs')
    expect(doc.info.description).toContain('**Authorize**')
    expect(doc.info.description).toContain(OPENAPI_EXAMPLES.source)
  })
})

describe('the servers entry', () => {
  it('follows the configured base URL when one is set', async () => {
    const other = await createHarness({ companies: 20, app: { baseUrl: 'https://data.example.com/' } })
    try {
      const res = await other.get('/openapi.json', { key: null })
      expect(((await res.json()) as any).servers).toEqual([{ url: 'https://data.example.com' }])
    } finally {
      await other.close()
    }
  })
})

describe('the original service\'s names', () => {
  it('are listed as deprecated parameters of GET /companies, and nothing else is deprecated', async () => {
    const { LIST_PARAMETER_ALIASES } = await import('../../src/parse/list-params.js')
    const params = doc.paths['/companies'].get.parameters as { name: string; deprecated?: boolean; description?: string }[]
    const deprecated = params.filter((p) => p.deprecated).map((p) => p.name).sort()
    expect(deprecated).toEqual(LIST_PARAMETER_ALIASES.companies.map((a) => a.alias).sort())
    expect(deprecated).toEqual(['has_google_play', 'has_itunes', 'itunes_category', 'mattermark_score'])
    for (const { alias, name } of LIST_PARAMETER_ALIASES.companies) {
      expect(params.find((p) => p.name === alias)?.description).toContain(`\`${name}\``)
    }
  })

  it('GET /ratelimit/quota is a deprecated operation, GET /ratelimit/usage is not', () => {
    expect(doc.paths['/ratelimit/quota'].get.deprecated).toBe(true)
    expect(doc.paths['/ratelimit/usage'].get.deprecated).toBeUndefined()
  })
})
