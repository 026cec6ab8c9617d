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
