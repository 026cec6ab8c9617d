/**
 * @module Authentication (spec section 5): the key arrives as `?key=` or `Authorization: Bearer`;
 * a missing, unknown or revoked key is 403 (never 401, design section 6) with a JSON body. The key
 * is looked up by its hash and never logged; the error bodies do not echo it either.
 */
import type { MiddlewareHandler } from 'hono'
import { findApiKey } from '../store/api-keys.js'
import type { AppDeps, HttpEnv } from './context.js'
import { problemResponse } from './problem.js'

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

export function authMiddleware(deps: AppDeps): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next()
    const key = requestKey(c.req.raw)
    if (key === undefined) {
      return problemResponse(403, { detail: 'An API key is required: send it as the `key` query parameter or as `Authorization: Bearer <key>`.' })
    }
    const record = findApiKey(deps.database, key)
    if (!record) return problemResponse(403, { detail: 'The API key is not valid.' })
    if (record.revokedAt !== null) return problemResponse(403, { detail: 'The API key has been revoked and is no longer valid.' })
    c.set('apiKey', record)
    await next()
  }
}
