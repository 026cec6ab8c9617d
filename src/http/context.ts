/**
 * @module What every route handler gets: the engine, the record lookups' database, the clock and
 * the resolved options, plus the authenticated key on the request context. Route modules export a
 * `RouteModule`: how they mount, and a `RouteSpec` per endpoint from which the OpenAPI document is
 * derived (the same zod schemas the tests validate responses with).
 */
import type { Hono } from 'hono'
import type { z } from 'zod'
import type { Context } from 'hono'
import type { CallOptions, DeferredKeyCheck, Engine } from '../engine.js'
import type { HttpMetrics } from './metrics.js'
import type { RequestEntry } from './observe.js'
import type { AuthHook, Identity, QuotaHook, QuotaInfo } from './access.js'
import type { DocumentedAccess, OpenApiSecurity } from './openapi.js'
import type { TypoMode } from '../records/search.js'

export interface AppOptions {
  /**
   * Authenticates each request (all but GET /openapi.json) with the host's own scheme: sessions,
   * JWTs, mTLS, a gateway's header. Default: the built-in API keys (`?key=` or `Authorization:
   * Bearer`, kept in the database; `ventureql keys`). See access.ts for the contract.
   */
  readonly auth?: AuthHook
  /**
   * Decides and records each authenticated request against the caller's quota, and supplies the
   * X-Quota-* headers (or none). Default: the built-in per-key quotas when `auth` is not given
   * either; no quota when a custom `auth` is. `false`: no quota, also with the built-in keys.
   */
  readonly quota?: QuotaHook | false
  /**
   * Absolute base address used in `url` fields and paths of responses (e.g. `https://api.example.com`).
   * Default: the origin of each request, so item URLs are fetchable from where the client called.
   */
  readonly baseUrl?: string
  /** The clock for date phrases (`raised in past 3 months`) and quota periods. Default: `new Date()`. */
  readonly clock?: () => Date
  /** Contact lookups allowed to run at once before GET /companies/:id/contact answers 400 (spec 4.7). Default 4. */
  readonly contactConcurrency?: number
  /**
   * Looks up the e-mail of `fullName` at a company for GET /companies/:company_id/contact (spec
   * 4.7); null when unknown. Lets a deployment plug in its contact infrastructure. Default: the
   * contacts stored in the database.
   */
  readonly contactResolver?: (companyId: number, fullName: string) => Promise<string | null>
  /** Default page size of GET /companies (spec section 8 and design section 6: 10). */
  readonly companiesPerPage?: number
  /** Default page size of GET /fundings and other paged endpoints (design section 6: 50). */
  readonly defaultPerPage?: number
  /** Most results a trial key receives (spec section 1: 50). */
  readonly trialMaxResults?: number
  /** GET /search's typo tolerance when a request sends no `typo`: 0, 1, 2 or `auto` (the default). */
  readonly searchTypo?: TypoMode
  /**
   * GET /search tries typos and dropped words only when fewer than this many records match the term
   * exactly (Typesense's `typo_tokens_threshold`): a positive integer, default 1. Set it to the
   * largest `per_page` (50) to fill every short page with typo hits, as Meilisearch does.
   */
  readonly searchTypoThreshold?: number
  /**
   * Records per batch of an export (GET /queries/:query_id/export): each batch is one engine call,
   * with the call's budget, taking its turn among other calls. Default 1,000.
   */
  readonly exportBatchRows?: number
  /**
   * Milliseconds each engine call of a route may take (a query, a listing, a record lookup) before
   * the request is answered 503 `query_timeout` with Retry-After. Default: the engine's `timeoutMs`.
   * The key check keeps the engine's budget.
   */
  readonly queryTimeoutMs?: number
  /**
   * Where internal faults are reported (the stack, never the request's key). Default: stderr.
   * Responses never carry it.
   */
  readonly onInternalError?: (error: unknown, where: { method: string; path: string; errorId: string; requestId?: string | undefined }) => void
  /**
   * Called once per request the app answers (request id, method, route pattern, path without the
   * query string, status, milliseconds): the request log of `serve`. Default: nothing.
   */
  readonly onRequest?: (entry: RequestEntry) => void
  /**
   * Prometheus metrics (`createMetrics(engine)`, metrics.ts): counted for every request and served,
   * without a key, at GET /metrics. Default: none, and /metrics is a 404.
   */
  readonly metrics?: HttpMetrics
  /**
   * Origins whose browser pages may call the API (CORS): exact origins such as
   * `https://app.example.com`, or `*` for any. Default: none; no CORS headers, and a preflight
   * (OPTIONS) is a 404 like any other method the API does not answer.
   */
  readonly corsOrigins?: readonly string[]
  /** Compress responses of 1 KiB or more by Accept-Encoding (brotli or gzip). Default true. */
  readonly compression?: boolean
  /**
   * Serve the API reference page at GET /docs (Swagger UI over GET /openapi.json, no key needed;
   * docs-page.ts). Default true; false leaves /docs an unknown path like any other (behind the key check).
   */
  readonly docsPage?: boolean
  /**
   * How GET /openapi.json (and the /docs page over it) describes the host's authentication when
   * `auth` replaces the built-in keys: its security schemes, and which of them an operation takes
   * (default: any one). Without it, the document declares no scheme at all rather than the API
   * keys the server no longer takes. Only with `auth`.
   */
  readonly openApiSecurity?: OpenApiSecurity
}

export interface ResolvedOptions {
  /** Undefined (with `quota` undefined too): the built-in keys and quotas in one engine call. */
  readonly auth: AuthHook | undefined
  /** Undefined: none, unless `auth` is undefined too (the built-in default). */
  readonly quota: QuotaHook | undefined
  readonly baseUrl: string | undefined
  readonly clock: () => Date
  readonly contactConcurrency: number
  /** Undefined: the database lookup of `records/contact.ts`. */
  readonly contactResolver: AppOptions['contactResolver']
  readonly companiesPerPage: number
  readonly defaultPerPage: number
  readonly trialMaxResults: number
  readonly searchTypo: TypoMode
  readonly searchTypoThreshold: number
  readonly exportBatchRows: number
  readonly queryTimeoutMs: number | undefined
  readonly onInternalError: NonNullable<AppOptions['onInternalError']>
  readonly onRequest: AppOptions['onRequest']
  readonly metrics: HttpMetrics | undefined
  readonly corsOrigins: readonly string[]
  readonly compression: boolean
  readonly docsPage: boolean
  /** Who may call and how much, as GET /openapi.json describes it. */
  readonly documentedAccess: DocumentedAccess
}

/** Shared by every route: built once by `createApp`. */
export interface AppDeps {
  /** Queries, record lookups and key checks: all database work goes through it (off the event loop). */
  readonly engine: Engine
  readonly options: ResolvedOptions
  /** Every mounted endpoint's spec, for the OpenAPI document (GET /openapi.json). */
  readonly routes: readonly RouteSpec[]
}

/** Hono's environment: what the auth and quota middleware put on each request's context. */
export interface HttpEnv {
  Variables: {
    /**
     * The authenticated caller (access.ts). Undefined in a route that carries the key check until
     * after it: routes read it with `checkedIdentity(c)` or `callerIdentity(c)` (auth.ts).
     */
    identity: Identity | undefined
    /** The caller's quota, when the quota in force reports one (absent: no X-Quota-* headers). */
    quota: QuotaInfo | undefined
    /** The per-call options of this request's engine calls (`callOptions`). */
    call: CallOptions
    /** The database's data version, read with the key check of a GET (caching.ts). */
    dataVersion: number | undefined
    /**
     * The built-in key check, deferred to ride with the route's first engine call (a route whose
     * spec says `carriesKeyCheck`; auth.ts). `identity` is set only after the route, and
     * `dataVersion` not at all (caching.ts reads it from the check): in the route,
     * `callerIdentity(c)` answers the identity.
     */
    keyCheck: DeferredKeyCheck | undefined
    /** This request's id (observe.ts), also in the X-Request-Id response header. */
    requestId: string
  }
}

export type HttpApp = Hono<HttpEnv>

/** One endpoint, as the OpenAPI document describes it. Paths use OpenAPI's `{param}` form. */
export interface RouteSpec {
  readonly method: 'get' | 'post'
  readonly path: string
  readonly summary: string
  readonly description?: string
  /** Spec section this endpoint implements, e.g. '4.1'. */
  readonly specSection: string
  /** Path parameters, each a string schema with a description. */
  readonly pathParams?: z.ZodObject
  /** Query parameters (documentation: the handlers parse the raw query string themselves, see params.ts). */
  readonly query?: z.ZodObject
  /** Request body (POST). */
  readonly body?: z.ZodType
  /** The 200 response body. */
  readonly response: z.ZodType
  /**
   * The 200 response's media types and their schemas, when it is not JSON (a streamed export):
   * replaces `application/json` in the OpenAPI document. `response` then describes one item.
   */
  readonly responseMediaTypes?: Readonly<Record<string, z.ZodType>>
  /** Whether the endpoint requires an API key (everything but the OpenAPI document). */
  readonly authenticated?: boolean
  /**
   * The handler's first database work is one engine call made with `callOptions(c)`, and it reads
   * the caller's identity only through `callerIdentity(c)`: the built-in key check then runs inside
   * that call (one engine call instead of two; auth.ts).
   */
  readonly carriesKeyCheck?: boolean
  /** The handler runs a filter and answers its cost in `X-Query-Cost` (query-cost.ts), documented in the OpenAPI document. */
  readonly queryCost?: boolean
  /**
   * The handler's engine call is heavy (not one of `LIGHT_OPERATIONS`): it queues per caller and is
   * answered 429 `tenant_busy` with Retry-After when the caller's backlog is full or its query time
   * per minute is used up (`TenantBusyError`; grammar-docs/guides/fairness.md). The OpenAPI document
   * lists that 429.
   */
  readonly heavy?: boolean
  /** A path kept for the original service's existing clients: marked deprecated in the OpenAPI document. */
  readonly deprecated?: boolean
  /** The answer is a page with a `Link` header (RFC 8288: first, prev, next, last), which the OpenAPI document then describes. */
  readonly paged?: boolean
}

export interface RouteModule {
  readonly specs: readonly RouteSpec[]
  register(app: HttpApp, deps: AppDeps): void
}

/**
 * Per-call options of a route's engine calls: the request's signal, so a query stops when the
 * client goes away (the Node bridge aborts it), and the app's `queryTimeoutMs` when set.
 */
export function callOptions(c: Context<HttpEnv>): CallOptions {
  return c.get('call') ?? { signal: c.req.raw.signal }
}

/** The absolute base for URLs in responses: the configured one, else the request's origin. */
export function baseUrlOf(deps: AppDeps, request: Request): string {
  if (deps.options.baseUrl) return deps.options.baseUrl.replace(/\/+$/, '')
  return new URL(request.url).origin
}
