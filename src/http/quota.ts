/**
 * @module Quotas (spec section 8): every authenticated response carries X-Quota-Limit,
 * X-Quota-Remaining and X-Quota-Reset (unix seconds, start of the next period); a request over the
 * quota is 429 with a JSON body and Retry-After. GET /ratelimit/usage reads the counter without
 * counting (spec 4.16). Counting is one atomic statement (store/api-keys.ts), run with the key
 * check in one engine call (auth.ts), so concurrent requests never overspend.
 */
import type { QuotaInfo } from './access.js'
import { problemResponse } from './problem.js'

/** GET /ratelimit/usage, and /ratelimit/quota, the original service's older path of it. */
export const USAGE_PATHS = Object.freeze(['/ratelimit/usage', '/ratelimit/quota'] as const)

/** Paths whose calls do not count against the quota. */
export const UNCOUNTED_PATHS: ReadonlySet<string> = new Set(USAGE_PATHS)

export function quotaHeaders(state: QuotaInfo): Record<string, string> {
  return {
    'X-Quota-Limit': String(state.limit),
    'X-Quota-Remaining': String(state.remaining),
    'X-Quota-Reset': String(state.reset),
  }
}

/** 429 with Retry-After (seconds until the period resets) and the quota headers. */
export function quotaExceeded(state: QuotaInfo, now: Date, detail?: string): Response {
  const retryAfter = Math.max(1, state.reset - Math.floor(now.getTime() / 1000))
  return problemResponse(429, {
    detail: detail ?? `The quota of ${state.limit} requests for this period is used up; it resets at ${new Date(state.reset * 1000).toISOString()}.`,
    extra: { quota_reset: state.reset },
    headers: { ...quotaHeaders(state), 'Retry-After': String(retryAfter) },
  })
}
