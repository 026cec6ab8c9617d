/**
 * GET /openapi.json describes the access the app enforces: the built-in API keys and quotas by
 * default; a host's own authentication (createApp's `auth`) as the schemes the host declares in
 * `openApiSecurity`, or as no scheme at all, never as API keys the server no longer takes; and no
 * X-Quota-* headers or 429 where no quota is in force.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, type AppOptions, type AuthHook, type OpenApiDocument, type QuotaHook } from '../../src/http/index.js'
import { openApiDocumentSchema } from '../../src/http/schemas/openapi.js'
import { BASE, createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness

beforeAll(async () => {
  h = await createHarness({ companies: 40 })
})

afterAll(async () => {
  await h?.close()
})

const sessionAuth: AuthHook = (request) =>
  request.headers.get('cookie')?.includes('sid=') ? { ok: true, identity: { owner: 'session' } } : { ok: false, status: 401, headers: { 'WWW-Authenticate': 'Cookie' } }
const hourlyQuota: QuotaHook = () => ({ allowed: true, quota: { limit: 10, remaining: 9, reset: 2_000_000_000, start: 1_999_996_400 } })

async function documentOf(options: AppOptions): Promise<OpenApiDocument> {
  const res = await createApp(h.engine, { clock: () => HARNESS_NOW, ...options }).fetch(new Request(`${BASE}/openapi.json`))
  expect(res.status).toBe(200)
  const doc = await res.json() as OpenApiDocument
  expect(openApiDocumentSchema.safeParse(doc).success).toBe(true)
  return doc
}

type Operation = OpenApiDocument['paths'][string][string]
const operations = (doc: OpenApiDocument): [string, Operation][] =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [`${method} ${path}`, op] as [string, Operation]))
const authenticatedOps = (doc: OpenApiDocument) => operations(doc).filter(([name]) => name !== 'get /openapi.json')

/** The operations whose engine call is heavy (`RouteSpec.heavy`): each may answer 429 `tenant_busy`, quota or not. */
const HEAVY = new Set(['get /companies', 'get /fundings', 'post /queries', 'get /queries/{query_id}', 'get /search', 'get /companies/{id}/similar', 'get /investors/{id}', 'get /investors/{id}/portfolio'])

describe('the OpenAPI document follows the access in force', () => {
  it('by default: both API key schemes on every operation but the document itself, quota headers and 429', async () => {
    const doc = await documentOf({})
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['apiKeyQuery', 'bearerAuth'])
    expect(authenticatedOps(doc).length).toBeGreaterThanOrEqual(15)
    for (const [, op] of authenticatedOps(doc)) {
      expect(op.security).toEqual([{ apiKeyQuery: [] }, { bearerAuth: [] }])
      expect(Object.keys(op.responses)).toContain('429')
      expect(Object.keys(op.responses)).not.toContain('401')
      expect((op.responses['200'] as { headers?: object }).headers).toHaveProperty('X-Quota-Remaining')
    }
    expect(doc.paths['/openapi.json']!.get!.security).toEqual([])
  })

  it('with an auth hook and no description: no scheme at all, 401 documented, no quota', async () => {
    const doc = await documentOf({ auth: sessionAuth })
    const text = JSON.stringify(doc)
    expect(doc.components.securitySchemes).toEqual({})
    expect(text).not.toMatch(/apiKeyQuery|bearerAuth|Authorization: Bearer|`\?key=`/)
    for (const [name, op] of authenticatedOps(doc)) {
      expect(op).not.toHaveProperty('security')
      expect(Object.keys(op.responses)).toContain('401')
      // No quota: only a heavy call's fair share of the workers answers 429.
      if (HEAVY.has(name)) expect(op.responses['429']).toEqual({ $ref: '#/components/responses/TenantBusy' })
      else expect(Object.keys(op.responses)).not.toContain('429')
      // No quota headers; the cost header of the operations that run a filter, and the Link header of paged answers, stay.
      expect(Object.keys((op.responses['200'] as { headers?: object }).headers ?? {}).filter((h) => h !== 'X-Query-Cost' && h !== 'Link')).toEqual([])
    }
    expect(doc.info.description).toMatch(/authenticated by the host application; this document does not describe how/)
    expect(Object.keys(doc.components.responses)).not.toContain('RateLimited')
  })

  it('with an auth hook described by openApiSecurity (and a quota hook): the host\'s schemes and requirements, quota headers back', async () => {
    const schemes = { session: { type: 'apiKey', in: 'cookie', name: 'sid' }, oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://id.example.com/.well-known/openid-configuration' } }
    const anyOne = await documentOf({ auth: sessionAuth, quota: hourlyQuota, openApiSecurity: { schemes } })
    expect(anyOne.components.securitySchemes).toEqual(schemes)
    for (const [, op] of authenticatedOps(anyOne)) {
      expect(op.security).toEqual([{ session: [] }, { oidc: [] }])
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '429']))
      expect((op.responses['200'] as { headers?: object }).headers).toHaveProperty('X-Quota-Limit')
    }
    const both = await documentOf({ auth: sessionAuth, openApiSecurity: { schemes, requirements: [{ session: [], oidc: ['read'] }] } })
    for (const [, op] of authenticatedOps(both)) expect(op.security).toEqual([{ session: [], oidc: ['read'] }])
  })

  it('with the built-in keys and quota: false: the keys, without quota headers, 429 only for a busy caller of a heavy call', async () => {
    const doc = await documentOf({ quota: false })
    for (const [name, op] of authenticatedOps(doc)) {
      expect(op.security).toEqual([{ apiKeyQuery: [] }, { bearerAuth: [] }])
      if (HEAVY.has(name)) expect(op.responses['429']).toEqual({ $ref: '#/components/responses/TenantBusy' })
      else expect(Object.keys(op.responses)).not.toContain('429')
      // No quota headers; the cost header of the operations that run a filter, and the Link header of paged answers, stay.
      expect(Object.keys((op.responses['200'] as { headers?: object }).headers ?? {}).filter((h) => h !== 'X-Query-Cost' && h !== 'Link')).toEqual([])
    }
  })

  it('refuses a description that cannot be right, naming what is wrong', () => {
    expect(() => createApp(h.engine, { openApiSecurity: { schemes: {} } })).toThrow(/custom auth hook/)
    expect(() => createApp(h.engine, { auth: sessionAuth, openApiSecurity: { schemes: { session: { type: 'apiKey', in: 'cookie', name: 'sid' } }, requirements: [{ sesion: [] }] } }))
      .toThrow(/"sesion", which schemes does not declare/)
    expect(() => createApp(h.engine, { auth: sessionAuth, openApiSecurity: { schemes: null as never } })).toThrow(/schemes must be an object/)
  })
})
