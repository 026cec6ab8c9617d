/**
 * @module Error responses: every failure is `application/problem+json` (RFC 9457) with an `error`
 * string, because clients of the original service only notice failures through an `error` key
 * (design section 3). Bodies are built by the pure formatters of `errors/format.ts`.
 */
import type { Issue } from '../errors/issue.js'
import { retryAfterOf } from '../execute/fair-queue.js'
import { capText, toProblem } from '../errors/format.js'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8'

const TITLES: Readonly<Record<number, string>> = {
  400: 'Invalid request',
  403: 'Forbidden',
  404: 'Not found',
  413: 'Request too large',
  429: 'Rate limit exceeded',
  500: 'Internal server error',
  503: 'Service unavailable',
}

export interface ProblemFields {
  /** One sentence saying what went wrong and what to do; it is also the `error` string. */
  readonly detail: string
  readonly title?: string
  readonly issues?: readonly Issue[]
  /** Extra members (e.g. `retry_after`, `error_id`). */
  readonly extra?: Readonly<Record<string, unknown>>
  readonly headers?: Readonly<Record<string, string>>
}

/** Longest `detail` of a problem body; it may quote the request (a path), which has no length limit of its own. */
const MAX_DETAIL_LENGTH = 1000

export function problemResponse(status: number, fields: ProblemFields): Response {
  const title = fields.title ?? TITLES[status] ?? 'Error'
  const detail = capText(fields.detail, MAX_DETAIL_LENGTH)
  const body = {
    type: `urn:ventureql:problem:${title.toLowerCase().replace(/[^a-z]+/g, '-')}`,
    title,
    status,
    detail,
    error: detail,
    ...(fields.issues ? { issues: fields.issues } : {}),
    ...fields.extra,
  }
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...fields.headers } })
}

/** Seconds a client is told to wait after a query ran out of its time budget. */
export const QUERY_TIMEOUT_RETRY_AFTER_SECONDS = 5

/** Issue codes that are the server's state, not the request's fault: 503 with Retry-After. */
const UNAVAILABLE_ISSUES: ReadonlySet<string> = new Set(['query_timeout', 'query_cancelled'])

/**
 * A 400 (or `status`) for issues from the engine or the parameter parser; 503 with Retry-After when
 * the engine stopped the query (its time budget ran out, or it was cancelled).
 */
export function issuesResponse(issues: readonly Issue[], status = 400): Response {
  const busy = issues.find((i) => i.code === 'tenant_busy')
  if (busy !== undefined) return tenantBusyResponse(busy)
  const unavailable = issues.some((i) => UNAVAILABLE_ISSUES.has(i.code))
  const code = unavailable ? 503 : status
  const problem = toProblem(issues, code)
  return new Response(JSON.stringify({ ...problem, title: TITLES[code] ?? problem.title }), {
    status: code,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...(unavailable ? { 'Retry-After': String(QUERY_TIMEOUT_RETRY_AFTER_SECONDS) } : {}) },
  })
}

export const notFound = (what: string): Response => problemResponse(404, { detail: what })

/**
 * 429 with Retry-After for a heavy call refused to its tenant (`TenantBusyError`: its backlog of
 * waiting queries is full, or its worker time per minute used up; grammar-docs/guides/fairness.md).
 * The auth middleware adds the quota headers, unchanged: the request is not counted.
 */
export function tenantBusyResponse(refusal: Issue): Response {
  const retryAfter = retryAfterOf(refusal) ?? 1
  return problemResponse(429, {
    detail: refusal.message,
    issues: [refusal],
    extra: { retry_after: retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  })
}
