/**
 * @module Authentication (spec section 5): the key arrives as `?key=` or `Authorization: Bearer`;
 * a missing, unknown or revoked key is 403 (never 401, design section 6) with a JSON body. The key
 * is looked up by its hash and never logged; the error bodies do not echo it either. A host's own
 * authentication and quota replace these through the hooks of access.ts.
 */
import { createHash } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes, routePath } from 'hono/route'
import { KeyRefusedError, type Authorization } from '../engine.js'
import { admits } from '../execute/key-check.js'
import type { ApiKeyRecord, QuotaState } from '../store/api-keys.js'
import type { AuthResult, Identity, QuotaContext, QuotaHook, QuotaInfo, QuotaResult } from './access.js'
import type { AppDeps, HttpEnv, RouteSpec } from './context.js'
import { problemResponse } from './problem.js'
import { quotaExceeded, quotaHeaders, UNCOUNTED_PATHS } from './quota.js'

/**
 * The tenant of a request made with a built-in key (`CallOptions.tenant`: heavy calls are scheduled
 * fairly across tenants, grammar-docs/guides/fairness.md): known before the key is checked, since
 * the check may ride with the route's call. A short hash of the key: the key itself is never kept
 * (not even as a map key in memory) and cannot be read back from it; a different derivation from
 * the stored key hash, so the two never match.
 */
export function tenantOfKey(key: string): string {
  return 'key:' + createHash('sha256').update('ventureql tenant\0').update(key, 'utf8').digest('base64url').slice(0, 22)
}

/** The tenant of a request a host's auth hook let in: its owner. */
export const tenantOfOwner = (owner: string): string => 'owner:' + owner

/**
 * Whether the route answered a fairness refusal (`TenantBusyError`, 429 with Retry-After): the
 * only 429 a route answers itself (quota refusals come from this middleware, before or after it).
 */
const refusedForFairness = (c: Context<HttpEnv>): boolean => c.res.status === 429

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
 *
 * With the built-in keys, a route whose spec says `carriesKeyCheck` gets the check deferred: it
 * rides with the route's first engine call (execute/key-check.ts), one engine call instead of
 * two, and that call runs only if the key passes. The refusal (403, 429) replaces whatever the route
 * answered, so a bad key is refused as before (403 before 404 or 400), and a route that answered
 * without an engine call (a malformed id) has the check run on its own afterwards, counted as
 * before. If the carrying call fails (503), the request was counted only if its check had run.
 */
export function authMiddleware(deps: AppDeps): MiddlewareHandler<HttpEnv> {
  const { auth, quota } = deps.options
  const carriers = carryingRoutes(deps.routes)
  return async (c, next) => {
    // A path no endpoint answers is a 404 for everyone, keyed or not, and costs no quota.
    if (PUBLIC_PATHS.has(c.req.path) || !reachesEndpoint(c)) return next()
    const now = deps.options.clock()
    const path = c.req.path.replace(/\/+$/, '') || '/'
    const counted = !UNCOUNTED_PATHS.has(path)

    let identity: Identity
    let state: QuotaInfo | undefined
    if (auth === undefined && quota === undefined) {
      const key = requestKey(c.req.raw)
      if (key === undefined) return missingKey()
      const tenant = tenantOfKey(key)
      c.set('call', { ...c.get('call'), tenant })
      // A GET's ETag is the data version (caching.ts): read in the same engine call as the key.
      const withDataVersion = c.req.method === 'GET' || c.req.method === 'HEAD'
      // The engine's own budget, not the routes' (queryTimeoutMs), when the check runs on its own: it is one indexed lookup.
      const checkOptions = { signal: c.req.raw.signal, withDataVersion }
      // While the tenant's heavy calls are refused (fairness), the key is checked without counting,
      // and the request counted only if the route answers something else (a light lookup still runs).
      const deferCount = counted && deps.engine.tenantRefusal(tenant) !== undefined
      const countNow = counted && !deferCount
      const countAfterRoute = async (checked: QuotaState): Promise<void> => {
        if (refusedForFairness(c)) {
          for (const [name, value] of Object.entries(quotaHeaders(checked))) c.res.headers.set(name, value)
          return
        }
        const counting = decide(await deps.engine.access.authorize(key, now, true, checkOptions), true, now)
        if (counting instanceof Response) return replaceAnswer(c, counting)
        for (const [name, value] of Object.entries(quotaHeaders(counting.quota))) c.res.headers.set(name, value)
      }
      if (carriesKeyCheck(c, carriers)) {
        const check = deps.engine.access.defer(key, now, countNow, checkOptions)
        c.set('keyCheck', check)
        c.set('call', { ...c.get('call'), keyCheck: check })
        await next()
        let authorization: Authorization
        let countedNow = countNow
        try {
          authorization = await check.outcome()
        } catch (error) {
          // Run on its own after the route, the check failed: answered as a failed check always was (onError: 503).
          if (!check.carried) throw error
          // The call that carried it failed (over its budget, cancelled, unavailable), and its answer
          // stands. The key's state, read on its own without counting, decides between that answer
          // and a refusal and gives the quota headers; if that fails too, the answer goes out as it is.
          try {
            authorization = await deps.engine.access.authorize(key, now, false, checkOptions)
          } catch {
            return
          }
          countedNow = false
        }
        const decided = decide(authorization, countedNow, now)
        if (decided instanceof Response) {
          replaceAnswer(c, decided)
          return
        }
        if (deferCount) return countAfterRoute(decided.quota)
        for (const [name, value] of Object.entries(quotaHeaders(decided.quota))) c.res.headers.set(name, value)
        return
      }
      if (deferCount) {
        const checked = decide(await deps.engine.access.authorize(key, now, false, checkOptions), false, now)
        if (checked instanceof Response) return checked
        c.set('identity', checked.identity)
        c.set('quota', checked.quota)
        c.set('dataVersion', checked.dataVersion)
        await next()
        return countAfterRoute(checked.quota)
      }
      const decided = decide(await deps.engine.access.authorize(key, now, counted, checkOptions), counted, now)
      if (decided instanceof Response) return decided
      identity = decided.identity
      state = decided.quota
      c.set('dataVersion', decided.dataVersion)
    } else {
      if (auth) {
        const result = await auth(c.req.raw)
        if (!result.ok) return authRefusal(result)
        identity = validIdentity(result.identity)
      } else {
        const key = requestKey(c.req.raw)
        if (key === undefined) return missingKey()
        const decided = decide(await deps.engine.access.authorize(key, now, false, { signal: c.req.raw.signal }), false, now)
        if (decided instanceof Response) return decided
        identity = decided.identity
      }
      const tenant = tenantOfOwner(identity.owner)
      c.set('call', { ...c.get('call'), tenant })
      if (quota) {
        // As with the built-in keys: while the tenant's heavy calls are refused, the hook counts the
        // request only once the route answered something other than that refusal.
        const deferCount = counted && deps.engine.tenantRefusal(tenant) !== undefined
        const decided = await askQuota(quota, c.req.raw, { identity, now, count: counted && !deferCount })
        if (!decided.allowed && counted && !deferCount) return quotaExceeded(decided.quota, now, decided.detail)
        if (deferCount) {
          c.set('identity', identity)
          if (decided.quota) c.set('quota', decided.quota)
          await next()
          if (refusedForFairness(c)) {
            if (decided.quota) for (const [name, value] of Object.entries(quotaHeaders(decided.quota))) c.res.headers.set(name, value)
            return
          }
          const counting = await askQuota(quota, c.req.raw, { identity, now, count: true })
          if (!counting.allowed) return replaceAnswer(c, quotaExceeded(counting.quota, now, counting.detail))
          if (counting.quota) for (const [name, value] of Object.entries(quotaHeaders(counting.quota))) c.res.headers.set(name, value)
          return
        }
        state = decided.quota
      }
    }
    c.set('identity', identity)
    if (state) c.set('quota', state)
    await next()
    // A route may have counted more against the quota (an export's reservation): its state is the one shown.
    const shown = c.get('quota') ?? state
    if (shown) for (const [name, value] of Object.entries(quotaHeaders(shown))) c.res.headers.set(name, value)
  }
}

/** A quota hook's answer, checked: a refusal must say when the period resets. */
async function askQuota(quota: QuotaHook, request: Request, context: QuotaContext): Promise<QuotaResult> {
  const decided = await quota(request, context)
  if (!decided.allowed && typeof decided.quota?.reset !== 'number') {
    throw new TypeError('createApp quota hook: a refusal must carry its quota ({ limit, remaining, reset, start }) for Retry-After and X-Quota-*')
  }
  return decided
}

/**
 * The caller's identity in a route. With a deferred key check (a `carriesKeyCheck` route) this runs
 * the check first, on its own: a route that needs the plan before its engine call (a trial cap)
 * pays the second call only then. Throws `KeyRefusedError` when the key does not pass; the
 * middleware then answers the refusal.
 */
export async function callerIdentity(c: Context<HttpEnv>): Promise<Identity> {
  const check = c.get('keyCheck')
  if (check === undefined) return checkedIdentity(c)
  const authorization = await check.outcome()
  if (!admits(authorization, check.request.count) || !authorization.ok) throw new KeyRefusedError(authorization)
  return identityOf(authorization.key)
}

/** `METHOD /pattern` (Hono's `:param` form) of every route that lets its first engine call carry the key check. */
function carryingRoutes(routes: readonly RouteSpec[]): ReadonlySet<string> {
  return new Set(routes.filter((r) => r.carriesKeyCheck).map((r) => `${r.method.toUpperCase()} ${r.path.replace(/\{([^}]+)\}/g, ':$1')}`))
}

/**
 * Whether the route that will answer carries the key check: every endpoint matching the request
 * (not the `app.use` middleware, registered for ALL methods) must, since the first of them answers.
 */
function carriesKeyCheck(c: Context<HttpEnv>, carriers: ReadonlySet<string>): boolean {
  const endpoints = matchedRoutes(c).filter((route) => route.method !== 'ALL')
  return endpoints.length > 0 && endpoints.every((route) => carriers.has(`${route.method} ${route.path}`))
}

/** Whether an endpoint (not only the `app.use` middleware, registered for ALL methods) matches the request's method and path. */
function reachesEndpoint(c: Context<HttpEnv>): boolean {
  return matchedRoutes(c).some((route) => route.method !== 'ALL')
}

/**
 * The caller's identity in a route whose key check ran before it (every route without
 * `carriesKeyCheck`). A carrying route that reads it here is a bug (it would see no plan, so no
 * trial caps): it fails loudly instead; such a route reads it with `callerIdentity`.
 */
export function checkedIdentity(c: Context<HttpEnv>): Identity {
  const identity = c.get('identity')
  if (identity === undefined) throw new Error(`${c.req.method} ${routePath(c, -1)} read the caller's identity before its key check ran: a route with carriesKeyCheck reads it with callerIdentity(c)`)
  return identity
}

function missingKey(): Response {
  return problemResponse(403, { detail: 'An API key is required: send it as the `key` query parameter or as `Authorization: Bearer <key>`.' })
}

const identityOf = (key: ApiKeyRecord): Identity => ({ owner: String(key.keyId), plan: key.plan })

/**
 * The built-in check's verdict (spec section 5): 403 for an unknown or revoked key, 429 for a
 * counted request over the quota; else the key's identity and quota state.
 */
function decide(checked: Authorization, counted: boolean, now: Date): Response | { identity: Identity; quota: QuotaState; dataVersion: number | undefined } {
  if (!checked.ok) {
    return problemResponse(403, { detail: checked.reason === 'revoked' ? 'The API key has been revoked and is no longer valid.' : 'The API key is not valid.' })
  }
  if (!checked.quota.allowed && counted) return quotaExceeded(checked.quota, now)
  return { identity: identityOf(checked.key), quota: checked.quota, dataVersion: checked.dataVersion }
}

/**
 * Puts a refusal in place of the route's answer. Hono carries the old answer's headers over (CORS
 * and its Vary among them, which the refusal needs too); those that describe the old body or its
 * caching go.
 */
function replaceAnswer(c: Context<HttpEnv>, refusal: Response): void {
  c.res = refusal
  for (const name of ['content-length', 'content-encoding', 'etag', 'cache-control']) {
    if (!refusal.headers.has(name)) c.res.headers.delete(name)
  }
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
