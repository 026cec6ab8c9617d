/**
 * @module Authentication (spec section 5): the key arrives as `?key=` or `Authorization: Bearer`;
 * a missing, unknown or revoked key is 403 (never 401, design section 6) with a JSON body. The key
 * is looked up by its hash and never logged; the error bodies do not echo it either. A host's own
 * authentication and quota replace these through the hooks of access.ts.
 */
import type { MiddlewareHandler } from 'hono'
import type { QuotaState } from '../store/api-keys.js'
import type { AuthResult, Identity, QuotaInfo } from './access.js'
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
 * Authentication and quota before every route but the public ones: the host's hooks when
 * `createApp` was given them (access.ts), else the built-in API keys and quotas. Sets the caller's
 * identity (and quota, if any) on the context, and the X-Quota-* headers on the response.
 */
export function authMiddleware(deps: AppDeps): MiddlewareHandler<HttpEnv> {
  const { auth, quota } = deps.options
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next()
    const now = deps.options.clock()
    const path = c.req.path.replace(/\/+$/, '') || '/'
    const counted = !UNCOUNTED_PATHS.has(path)

    let identity: Identity
    let state: QuotaInfo | undefined
    if (auth === undefined && quota === undefined) {
      // The built-in default: the key check and the quota count in one engine call.
      const checked = await checkApiKey(deps, c.req.raw, now, counted)
      if (checked instanceof Response) return checked
      if (!checked.quota.allowed && counted) return quotaExceeded(checked.quota, now)
      identity = checked.identity
      state = checked.quota
      c.set('dataVersion', checked.dataVersion)
    } else {
      if (auth) {
        const result = await auth(c.req.raw)
        if (!result.ok) return authRefusal(result)
        identity = validIdentity(result.identity)
      } else {
        const checked = await checkApiKey(deps, c.req.raw, now, false)
        if (checked instanceof Response) return checked
        identity = checked.identity
      }
      if (quota) {
        const decided = await quota(c.req.raw, { identity, now, count: counted })
        if (!decided.allowed && typeof decided.quota?.reset !== 'number') {
          throw new TypeError('createApp quota hook: a refusal must carry its quota ({ limit, remaining, reset, start }) for Retry-After and X-Quota-*')
        }
        if (!decided.allowed && counted) return quotaExceeded(decided.quota, now, decided.detail)
        state = decided.quota
      }
    }
    c.set('identity', identity)
    if (state) c.set('quota', state)
    await next()
    if (state) for (const [name, value] of Object.entries(quotaHeaders(state))) c.res.headers.set(name, value)
  }
}

/**
 * The built-in check (spec section 5): 403 for a missing, unknown or revoked key; else the key's
 * identity and quota state, counted when `count` is true (one atomic statement, store/api-keys.ts).
 */
async function checkApiKey(deps: AppDeps, request: Request, now: Date, count: boolean): Promise<Response | { identity: Identity; quota: QuotaState; dataVersion: number | undefined }> {
  const key = requestKey(request)
  if (key === undefined) {
    return problemResponse(403, { detail: 'An API key is required: send it as the `key` query parameter or as `Authorization: Bearer <key>`.' })
  }
  // The engine's own budget, not the routes' (queryTimeoutMs): a key check is one indexed lookup.
  // A GET's ETag is the data version (caching.ts): read in the same engine call as the key.
  const withDataVersion = request.method === 'GET' || request.method === 'HEAD'
  const checked = await deps.engine.access.authorize(key, now, count, { signal: request.signal, withDataVersion })
  if (!checked.ok) {
    return problemResponse(403, { detail: checked.reason === 'revoked' ? 'The API key has been revoked and is no longer valid.' : 'The API key is not valid.' })
  }
  return { identity: { owner: String(checked.key.keyId), plan: checked.key.plan }, quota: checked.quota, dataVersion: checked.dataVersion }
}

function authRefusal(result: Extract<AuthResult, { ok: false }>): Response {
  const status = result.status ?? 403
  return problemResponse(status, {
    detail: result.detail ?? (status === 401 ? 'Authentication is required.' : 'This request is not allowed.'),
    ...(result.headers ? { headers: { ...result.headers } } : {}),
  })
}

/** A hook's identity, checked once here so that a host's mistake is a clear fault, not a confusing 400 later. */
function validIdentity(identity: Identity): Identity {
  if (typeof identity?.owner !== 'string' || identity.owner === '' || identity.owner.length > 200) {
    throw new TypeError(`createApp auth hook: identity.owner must be a non-empty string of at most 200 characters, got ${JSON.stringify(identity?.owner)}`)
  }
  if (identity.plan !== undefined && identity.plan !== 'full' && identity.plan !== 'trial') {
    throw new TypeError(`createApp auth hook: identity.plan must be 'full' or 'trial', got ${JSON.stringify(identity.plan)}`)
  }
  return identity
}
