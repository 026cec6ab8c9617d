/**
 * @module What the app tells about each request it answers: a request id (the client's
 * `X-Request-Id` when it is a sane token, else a new UUID), returned in the `X-Request-Id` response
 * header, and one entry per request for the log and the metrics. An entry holds the route pattern
 * (`/companies/:id`) and the path, never the query string (it may carry `?key=`), and neither
 * holds a key-shaped run (`redactKeys`): a client may put its key in a path or in X-Request-Id.
 */
import { randomUUID } from 'node:crypto'
import type { Context } from 'hono'
import { routePath } from 'hono/route'
import { capText, redactKeys } from '../errors/format.js'

export const REQUEST_ID_HEADER = 'X-Request-Id'

/** One answered request. */
export interface RequestEntry {
  readonly requestId: string
  readonly method: string
  /** The endpoint's pattern (`/companies/:id`); `(none)` when no endpoint answers the path. */
  readonly route: string
  /** The path without the query string, key-shaped runs redacted, capped at 200 characters. */
  readonly path: string
  /** The answer's status, or 499 when the client went away first (`CLIENT_CLOSED_REQUEST`). */
  readonly status: number
  readonly ms: number
}

/** An incoming id is kept when it is a short token; anything else (or a key-shaped one) gets a fresh id. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

export function requestIdOf(request: Request): string {
  const sent = request.headers.get(REQUEST_ID_HEADER)?.trim()
  return sent !== undefined && SANE_REQUEST_ID.test(sent) && redactKeys(sent) === sent ? sent : randomUUID()
}

/** The pattern of the endpoint that answered, or `(none)` (only the catch-all middleware matched). */
export function routeOf(c: Context): string {
  const pattern = routePath(c, -1)
  return pattern === '' || pattern === '*' || pattern === '/*' ? '(none)' : pattern
}

export const loggablePath = (path: string): string => capText(path, 200)

/**
 * nginx's "client closed request": the client went away before its answer (the request's signal,
 * aborted by the server bridge when the connection closes). Nobody receives the answer, a 503 for
 * a call abandoned in the queue included: logged and counted as a 5xx it would page someone for a
 * client's impatience.
 */
export const CLIENT_CLOSED_REQUEST = 499

/** The status the log and metrics record: `CLIENT_CLOSED_REQUEST` when the client is gone, else the answer's. */
export function loggedStatus(request: Request, status: number): number {
  return request.signal.aborted ? CLIENT_CLOSED_REQUEST : status
}
