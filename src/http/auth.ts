/**
 * @module Authentication (spec section 5): the key arrives as `?key=` or `Authorization: Bearer`;
 * a missing, unknown or revoked key is 403 (never 401, design section 6) with a JSON body. The key
 * is looked up by its hash and never logged; the error bodies do not echo it either.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppDeps, HttpEnv } from './context.js'
import { problemResponse } from './problem.js'
import { quotaExceeded, quotaHeaders, UNCOUNTED_PATHS } from './quota.js'

/** Paths that answer without a key: the API description. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/openapi.json'])

/** The key of a request, from the Authorization header (Bearer) or else the `key` parameter. */
export function requestKey(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (header) {
    const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header)
    if (m) return m[1]
  }
  const fromQuery = new URL(request.url).searchParams.get('key')
  return fromQuery === null || fromQuery.trim() === '' ? undefined : fromQuery.trim()
}

/**
 * The key check and the quota count in one engine call (one round trip to a worker): 403 for a
 * missing, unknown or revoked key; 429 over the quota (quota.ts); else the key and its quota state
 * on the context, and the X-Quota-* headers on the response.
 */
export function authMiddleware(deps: AppDeps): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next()
    const key = requestKey(c.req.raw)
    if (key === undefined) {
      return problemResponse(403, { detail: 'An API key is required: send it as the `key` query parameter or as `Authorization: Bearer <key>`.' })
    }
    const now = deps.options.clock()
    const path = c.req.path.replace(/\/+$/, '') || '/'
    const counted = !UNCOUNTED_PATHS.has(path)
    // The engine's own budget, not the routes' (queryTimeoutMs): a key check is one indexed lookup.
    // A GET's ETag is the data version (caching.ts): read in the same engine call as the key.
    const withDataVersion = c.req.method === 'GET' || c.req.method === 'HEAD'
    const checked = await deps.engine.access.authorize(key, now, counted, { signal: c.req.raw.signal, withDataVersion })
    if (!checked.ok) {
      return problemResponse(403, { detail: checked.reason === 'revoked' ? 'The API key has been revoked and is no longer valid.' : 'The API key is not valid.' })
    }
    const state = checked.quota
    if (!state.allowed && counted) return quotaExceeded(state, now)
    c.set('apiKey', checked.key)
    c.set('quota', state)
    c.set('dataVersion', checked.dataVersion)
    await next()
    for (const [name, value] of Object.entries(quotaHeaders(state))) c.res.headers.set(name, value)
  }
}
