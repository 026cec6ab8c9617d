/**
 * @module A request whose declared body is over the Node bridge's limit: the bridge refuses it
 * before reading a byte, but the app still answers it (auth, quota, X-Quota-* headers), as it
 * answers every other refusal of an authenticated request. The bridge hands the app a bodiless copy
 * of the request, marked here; the app answers the mark with a 413 and says so, and the bridge falls
 * back to its own 413 when the handler is not an app of `createApp` (the mark was never answered).
 */
import type { MiddlewareHandler } from 'hono'
import type { HttpEnv } from './context.js'
import { problemResponse } from './problem.js'

interface Oversized {
  readonly limit: number
  readonly declared: number
  answered: boolean
}

const marks = new WeakMap<Request, Oversized>()

/** Marks a bodiless stand-in for a request whose declared body (`declared` bytes) is over `limit`. */
export function markOversized(request: Request, limit: number, declared: number): void {
  marks.set(request, { limit, declared, answered: false })
}

/** Whether the handler answered the mark itself (else the bridge answers). */
export function oversizedAnswered(request: Request): boolean {
  return marks.get(request)?.answered === true
}

export function oversizedBodyResponse(limit: number, declared: number): Response {
  return problemResponse(413, { detail: `The request body (${declared} bytes) is larger than the limit of ${limit} bytes.` })
}

/** The app's answer to a marked request, after the key check and quota so that it carries their headers. */
export function refuseOversized(): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const mark = marks.get(c.req.raw)
    if (mark === undefined) return next()
    mark.answered = true
    return oversizedBodyResponse(mark.limit, mark.declared)
  }
}
