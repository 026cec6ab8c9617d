/**
 * @module Who may call, and how much: the hooks through which a host server puts its own
 * authentication and quota in front of the app (`createApp(engine, { auth, quota })`), and the
 * default, the built-in API keys and per-key quotas kept in the database (spec sections 5 and 8).
 *
 *   request ─ auth hook (identity, or 401/403) ─ quota hook (allowed + X-Quota-*, or 429) ─ route
 *
 * Every request but GET /openapi.json passes both. The routes need two things of the caller: an
 * owner for the queries it stores (stored-query bounds are kept per owner) and its plan (a trial
 * caller gets the first page only, at most `trialMaxResults` results).
 */

/** The caller as the app needs to know it. */
export interface Identity {
  /**
   * Who owns the queries this caller stores (POST /queries): an opaque non-empty string of at most
   * 200 characters, e.g. a user or tenant id. Storage bounds are kept per owner.
   */
  readonly owner: string
  /** `trial`: the first page only, at most `trialMaxResults` results (spec sections 1 and 5). Default `full`. */
  readonly plan?: 'full' | 'trial'
}

/** What an auth hook answers: the caller's identity, or a refusal (403 unless it says 401). */
export type AuthResult =
  | { readonly ok: true; readonly identity: Identity }
  | {
    readonly ok: false
    /** 403 (the default, as for the built-in keys) or 401 (then send `WWW-Authenticate` in `headers`). */
    readonly status?: 401 | 403
    /** The problem's `detail`: why, and what to send instead. */
    readonly detail?: string
    readonly headers?: Readonly<Record<string, string>>
  }

/**
 * Authenticates one request (its headers, URL, cookies). A hook that throws is a fault: the
 * request is answered 500 and reported to `onInternalError`.
 */
export type AuthHook = (request: Request) => AuthResult | Promise<AuthResult>

/** A quota as the X-Quota-* headers and GET /ratelimit/usage show it. */
export interface QuotaInfo {
  /** Requests allowed per period (X-Quota-Limit). */
  readonly limit: number
  /** Requests left in this period (X-Quota-Remaining). */
  readonly remaining: number
  /** Unix seconds at which the next period starts (X-Quota-Reset). */
  readonly reset: number
  /** Unix seconds at which this period started (GET /ratelimit/usage `quota_period`). */
  readonly start: number
}

export interface QuotaContext {
  readonly identity: Identity
  /** The app's clock (`AppOptions.clock`). */
  readonly now: Date
  /**
   * Whether this request counts: false for GET /ratelimit/usage, which reads the quota without
   * using it (spec 4.16). A hook that counts should count only when this is true.
   */
  readonly count: boolean
}

/**
 * What a quota hook answers. With `quota`, the response carries the X-Quota-* headers and
 * GET /ratelimit/usage shows it; without, neither (and GET /ratelimit/usage is 404). A refusal
 * is 429 with Retry-After until `quota.reset`; GET /ratelimit/usage is never refused.
 */
export type QuotaResult =
  | { readonly allowed: true; readonly quota?: QuotaInfo }
  | { readonly allowed: false; readonly quota: QuotaInfo; readonly detail?: string }

/** Decides, and records, one authenticated request against the caller's quota. */
export type QuotaHook = (request: Request, context: QuotaContext) => QuotaResult | Promise<QuotaResult>
