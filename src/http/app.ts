/**
 * @module The HTTP layer on one screen: a Web-standard `fetch(Request) => Response` handler (Hono),
 * so it mounts in any server (`node-server.ts` is the Node HTTPS bridge; Bun, Deno and serverless
 * runtimes call `fetch` directly). It holds no query logic: routes turn parameters into engine
 * requests or record lookups, and views shape rows into the spec's wire format.
 *
 *   request ─ auth + quota (403, 429, X-Quota-*) ─ route ─ engine / records ─ view ─ JSON
 *
 * Every database call goes through the engine, which runs it off the event loop (a worker thread
 * per connection) within a time budget; a call over budget is a 503 with `Retry-After`.
 *
 * @example
 * import { createEngine } from 'ventureql'
 * import { createApp } from 'ventureql/http'
 * const app = createApp(createEngine({ database: 'ventureql.db' }))
 * const res = await app.fetch(new Request('https://localhost/companies?stage=a|b&key=...'))
 */
import { randomUUID } from 'node:crypto'
import { Hono } from 'hono'
import { DEFAULT_TYPO_THRESHOLD, TYPO_MODES } from '../records/search.js'
import { HTTPException } from 'hono/http-exception'
import { EngineClosedError, InvalidInputError, KeyRefusedError, QueryCancelledError, QueryTimeoutError, TenantBusyError, type Engine } from '../engine.js'
import { authMiddleware, requestKey } from './auth.js'
import type { QuotaHook } from './access.js'
import type { DocumentedAccess } from './openapi.js'
import type { AppDeps, AppOptions, HttpEnv, ResolvedOptions, RouteSpec } from './context.js'
import { isUnavailable } from '../store/unavailable.js'
import { issuesResponse, PROBLEM_CONTENT_TYPE, problemResponse, tenantBusyResponse } from './problem.js'
import { capText, REDACTED_KEY, redactKeys } from '../errors/format.js'
import { ROUTE_MODULES } from './routes/index.js'
import { cors } from 'hono/cors'
import { conditionalGet } from './caching.js'
import { compressed } from './compression.js'
import { loggablePath, loggedStatus, REQUEST_ID_HEADER, requestIdOf, routeOf, type RequestEntry } from './observe.js'
import { registerOps } from './ops.js'
import { registerDocsPage } from './docs-page.js'
import { refuseOversized } from './oversized-body.js'

export interface VentureApp {
  /** Answers one request. Never rejects: every failure is a problem+json response. */
  fetch(request: Request): Promise<Response>
  /** The endpoints mounted, as the OpenAPI document describes them. */
  readonly routes: readonly RouteSpec[]
}

export function resolveOptions(options: AppOptions = {}): ResolvedOptions {
  if (options.searchTypo !== undefined && !TYPO_MODES.includes(options.searchTypo)) {
    throw new TypeError(`createApp: searchTypo must be 0, 1, 2 or 'auto'; got ${JSON.stringify(options.searchTypo)}`)
  }
  if (options.searchTypoThreshold !== undefined && !(Number.isSafeInteger(options.searchTypoThreshold) && options.searchTypoThreshold >= 1)) {
    throw new TypeError(`createApp: searchTypoThreshold must be a positive integer; got ${JSON.stringify(options.searchTypoThreshold)}`)
  }
  if (options.auth !== undefined && typeof options.auth !== 'function') throw new TypeError('createApp: auth must be a function (request) => AuthResult')
  if (options.quota !== undefined && options.quota !== false && typeof options.quota !== 'function') {
    throw new TypeError('createApp: quota must be a function (request, context) => QuotaResult, or false')
  }
  if (options.openApiSecurity !== undefined) {
    if (options.auth === undefined) throw new TypeError('createApp: openApiSecurity describes a custom auth hook; the built-in API keys describe themselves')
    const schemes = options.openApiSecurity?.schemes
    if (typeof schemes !== 'object' || schemes === null || Array.isArray(schemes)) {
      throw new TypeError('createApp: openApiSecurity.schemes must be an object of OpenAPI Security Scheme Objects by name')
    }
    for (const requirement of options.openApiSecurity.requirements ?? []) {
      for (const name of Object.keys(requirement)) {
        if (!(name in schemes)) throw new TypeError(`createApp: openApiSecurity.requirements names the scheme ${JSON.stringify(name)}, which schemes does not declare`)
      }
    }
  }
  // With the built-in keys, `quota: false` means "keys, no quota": a hook that allows everything, headerless.
  const quota = options.quota === false ? (options.auth ? undefined : allowWithoutQuota) : options.quota
  const documentedAccess: DocumentedAccess = Object.freeze({
    auth: options.auth === undefined ? 'keys' : 'host',
    ...(options.openApiSecurity ? { security: options.openApiSecurity } : {}),
    quota: quota === allowWithoutQuota || (options.auth !== undefined && quota === undefined) ? 'none' : quota === undefined ? 'keys' : 'hook',
  })
  return Object.freeze({
    auth: options.auth,
    quota,
    baseUrl: options.baseUrl,
    clock: options.clock ?? (() => new Date()),
    contactConcurrency: options.contactConcurrency ?? 4,
    contactResolver: options.contactResolver,
    companiesPerPage: options.companiesPerPage ?? 10,
    defaultPerPage: options.defaultPerPage ?? 50,
    trialMaxResults: options.trialMaxResults ?? 50,
    searchTypo: options.searchTypo ?? 'auto',
    searchTypoThreshold: options.searchTypoThreshold ?? DEFAULT_TYPO_THRESHOLD,
    exportBatchRows: options.exportBatchRows ?? 1000,
    queryTimeoutMs: options.queryTimeoutMs,
    onInternalError: options.onInternalError ?? reportToStderr,
    onRequest: options.onRequest,
    metrics: options.metrics,
    corsOrigins: Object.freeze([...(options.corsOrigins ?? [])]),
    compression: options.compression ?? true,
    docsPage: options.docsPage ?? true,
    documentedAccess,
  })
}

/** Headers a browser client may read (CORS): the quota, the request id, caching and retry advice. */
const CORS_EXPOSED_HEADERS = ['X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset', 'X-Request-Id', 'ETag', 'Retry-After', 'X-Query-Cost']

/**
 * The HTTP handler over an engine, on SQLite or PostgreSQL: every database call goes through the
 * engine's operations, which run on either backend.
 */
export function createApp(engine: Engine, options: AppOptions = {}): VentureApp {
  const routes = Object.freeze(ROUTE_MODULES.flatMap((m) => m.specs))
  const deps: AppDeps = Object.freeze({ engine, options: resolveOptions(options), routes })
  // strict: false: `/companies/` is `/companies` (design section 6).
  const app = new Hono<HttpEnv>({ strict: false })

  const { onRequest, metrics, corsOrigins, compression } = deps.options
  // First, so that it sees every answer, including those of the middleware below.
  app.use('*', async (c, next) => {
    const started = performance.now()
    const requestId = requestIdOf(c.req.raw)
    c.set('requestId', requestId)
    await next()
    c.res.headers.set(REQUEST_ID_HEADER, requestId)
    if (!onRequest && !metrics) return
    const entry: RequestEntry = {
      requestId, method: c.req.method, route: routeOf(c), path: loggablePath(c.req.path), status: loggedStatus(c.req.raw, c.res.status), ms: performance.now() - started,
    }
    metrics?.observe({ method: entry.method, route: entry.route, status: entry.status, seconds: entry.ms / 1000 })
    onRequest?.(entry)
  })
  if (corsOrigins.length > 0) {
    app.use('*', cors({
      origin: corsOrigins.includes('*') ? '*' : [...corsOrigins],
      allowMethods: ['GET', 'HEAD', 'POST'],
      allowHeaders: ['Authorization', 'Content-Type', 'If-None-Match', REQUEST_ID_HEADER],
      exposeHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    }))
  }
  const budget = deps.options.queryTimeoutMs
  app.use('*', (c, next) => {
    c.set('call', budget === undefined ? { signal: c.req.raw.signal } : { signal: c.req.raw.signal, timeoutMs: budget })
    return next()
  })
  // Before the key check: no key, no quota.
  registerOps(app, deps)
  if (deps.options.docsPage) registerDocsPage(app, deps)
  app.use('*', authMiddleware(deps))
  app.use('*', refuseOversized())
  app.use('*', conditionalGet(deps))
  for (const module of ROUTE_MODULES) module.register(app, deps)

  app.notFound((c) => problemResponse(404, { detail: `No endpoint answers ${capText(c.req.method, 20)} ${capText(c.req.path, 200)}.` }))
  app.onError((error, c) => errorResponse(error, { method: c.req.method, path: loggablePath(c.req.path), requestId: c.get('requestId') }, deps.options))

  return Object.freeze({
    async fetch(request: Request): Promise<Response> {
      let response: Response
      try {
        response = await withoutKeyText(await app.fetch(request), request)
      } catch (error) {
        // Hono routes errors to onError; this is for faults in the middleware chain itself.
        const requestId = requestIdOf(request)
        response = errorResponse(error, { method: request.method, path: loggablePath(safePath(request)), requestId }, deps.options)
        response.headers.set(REQUEST_ID_HEADER, requestId)
      }
      if (!compression) return response
      try {
        return await compressed(request, response)
      } catch {
        // Compression failing leaves the answer as it was; nothing of it has been sent yet.
        return response
      }
    },
    routes,
  })
}

const allowWithoutQuota: QuotaHook = () => ({ allowed: true })

/** Shorter "keys" are no credential (every real key is 36 characters) and could match innocent text. */
const MIN_SCRUBBED_KEY_LENGTH = 16

/**
 * An error body may quote what the client sent (a body preview, a repeated form field), and the
 * client may have put its key there. The key never goes back out, not even to its sender: error
 * bodies end up in client logs and proxies. Issues and problem details already leave out every
 * key-shaped run (`redactKeys`, whole or cut); this is the last net, for the request's own key in
 * any shape and for any text that reached the body another way. Success bodies are left alone
 * (they are the data asked for).
 */
async function withoutKeyText(response: Response, request: Request): Promise<Response> {
  if (response.status < 400 || !(response.headers.get('content-type') ?? '').startsWith(PROBLEM_CONTENT_TYPE.split(';')[0]!)) return response
  const key = requestKey(request)
  const text = await response.text()
  let scrubbed = redactKeys(text)
  if (key !== undefined && key.length >= MIN_SCRUBBED_KEY_LENGTH) scrubbed = scrubbed.split(key).join(REDACTED_KEY)
  if (scrubbed === text) return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers })
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  return new Response(scrubbed, { status: response.status, statusText: response.statusText, headers })
}

function errorResponse(error: unknown, where: { method: string; path: string; requestId?: string | undefined }, options: ResolvedOptions): Response {
  if (error instanceof HTTPException) {
    const status = error.status
    return problemResponse(status, { detail: error.message || (status === 413 ? 'The request body is too large.' : 'The request could not be processed.') })
  }
  if (error instanceof QueryTimeoutError || error instanceof QueryCancelledError) return issuesResponse([error.issue], 503)
  // An engine call refused its arguments (`guardInput`): what the client sent was too deep or too large.
  if (error instanceof InvalidInputError) return issuesResponse([...error.issues], 400)
  if (error instanceof TenantBusyError) return tenantBusyResponse(error.issue)
  // A route's call carried the key check and the key did not pass: auth.ts puts the refusal (403 or 429) in its place.
  if (error instanceof KeyRefusedError) return problemResponse(403, { detail: 'This request is not allowed.' })
  if (isUnavailable(error) || error instanceof EngineClosedError) {
    return problemResponse(503, { detail: 'The database is busy or unavailable; retry shortly.', headers: { 'Retry-After': '1' } })
  }
  const errorId = randomUUID()
  options.onInternalError(error, { ...where, errorId })
  // Nothing of the fault reaches the client but an id to quote when reporting it.
  return problemResponse(500, { detail: `Internal server error (error id ${errorId}); retry later.`, extra: { error_id: errorId } })
}


function safePath(request: Request): string {
  try {
    return new URL(request.url).pathname
  } catch {
    return '(unparseable URL)'
  }
}

/** The default fault report: method, path (never the query string, which may hold the key), request id and stack. */
function reportToStderr(error: unknown, where: { method: string; path: string; errorId: string; requestId?: string | undefined }): void {
  const stack = error instanceof Error ? error.stack ?? error.message : String(error)
  const request = where.requestId === undefined ? '' : ` (request ${where.requestId})`
  process.stderr.write(`ventureql: internal error ${where.errorId} on ${where.method} ${where.path}${request}\n${stack}\n`)
}
