/**
 * @module Conditional GETs. A GET's answer is a function of the request (path and query string,
 * without the key), the key's plan (trial keys see less), the public base of URLs in the body, the
 * day (date phrases such as `raised in past 3 months` are relative to it) and the database's data
 * version (bumped by every ingest). The ETag is a hash of exactly these, so a client that sends it
 * back in `If-None-Match` gets `304 Not Modified` before any query runs, until the data (or the day)
 * changes (on routes whose key check rides with their lookup, the lookup runs and only the body is
 * saved: the version comes with the check). `Cache-Control: private, no-cache` says so: keep the answer, revalidate it every time,
 * and never in a shared cache (answers carry the key's quota headers). Answers that change without
 * the data version (quota usage, contact lookups through a custom resolver) and every error carry
 * `Cache-Control: no-store` and no ETag.
 */
import { createHash } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppDeps, HttpEnv } from './context.js'
import { baseUrlOf } from './context.js'
import { UNCOUNTED_PATHS } from './quota.js'

export const CACHEABLE = 'private, no-cache'
export const NOT_CACHEABLE = 'no-store'

/** Paths whose GET answers change without the data version changing. */
function volatile(path: string, deps: AppDeps): boolean {
  if (UNCOUNTED_PATHS.has(path)) return true
  // An export reserves its quota before its first byte: a revalidation would be charged for a 304.
  if (/^\/queries\/[^/]+\/export$/.test(path)) return true
  return deps.options.contactResolver !== undefined && /^\/companies\/[^/]+\/contact$/.test(path)
}

/**
 * A stored query's page is answered 304 only after it has been run: the query may have expired
 * (per-owner storage bound) without the data version changing, and serving a page records its
 * use, which keeps it from expiring. Only the body is saved there, not the work.
 */
function runsAnyway(path: string): boolean {
  return path.startsWith('/queries/')
}

/** The weak validator of a GET (weak: a compressed and an identity answer carry the same one). */
export function entityTag(request: Request, plan: string, base: string, day: string, dataVersion: number): string {
  const url = new URL(request.url)
  url.searchParams.delete('key')
  const hash = createHash('sha256').update([plan, base, day, url.pathname, url.search].join('\u0000')).digest('base64url').slice(0, 22)
  return `W/"v${dataVersion}-${hash}"`
}

/** Whether `If-None-Match` names `tag` (weak comparison, RFC 9110 section 13.1.2). */
export function matches(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false
  if (ifNoneMatch.trim() === '*') return true
  const opaque = tag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === opaque)
}

/**
 * After auth (which reads the data version with the key check, `authorize(..., withDataVersion)`):
 * 304 for a GET whose validator the client holds, else the route's answer with ETag and
 * Cache-Control on a 200, `no-store` on everything else. When the key check rides with the route's
 * call (auth.ts, `carriesKeyCheck`), the version and plan are known only after the route: the route
 * runs, and a held validator turns its 200 into the 304 (the lookup is done, the body is not sent).
 */
export function conditionalGet(deps: AppDeps): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const method = c.req.method
    const path = c.req.path.replace(/\/+$/, '') || '/'
    if ((method !== 'GET' && method !== 'HEAD') || volatile(path, deps)) {
      await next()
      c.res.headers.set('Cache-Control', NOT_CACHEABLE)
      return
    }
    const tagOf = (plan: string, version: number) => entityTag(c.req.raw, plan, baseUrlOf(deps, c.req.raw), deps.options.clock().toISOString().slice(0, 10), version)
    const check = c.get('keyCheck')
    if (check !== undefined) {
      await next()
      const authorization = await check.outcome().catch(() => undefined)
      // Refused or failed: auth answers the refusal, or the failure stands.
      if (!authorization?.ok || authorization.dataVersion === undefined) {
        c.res.headers.set('Cache-Control', NOT_CACHEABLE)
        return
      }
      const tag = tagOf(authorization.key.plan, authorization.dataVersion)
      await finish(c, tag, matches(c.req.header('if-none-match'), tag))
      return
    }
    const version = c.get('dataVersion')
    const identity = c.get('identity')
    if (version === undefined || identity === undefined) {
      await next()
      c.res.headers.set('Cache-Control', NOT_CACHEABLE)
      return
    }
    const tag = tagOf(identity.plan ?? 'full', version)
    const held = matches(c.req.header('if-none-match'), tag)
    if (held && !runsAnyway(path)) return notModified(c, tag)
    await next()
    await finish(c, tag, held)
  }
}

function notModified(c: Context<HttpEnv>, tag: string): Response {
  return c.body(null, 304, { ETag: tag, 'Cache-Control': CACHEABLE, Vary: 'Authorization' })
}

/** After the route: its 200 becomes the 304 when the client holds the tag, else carries the tag. */
async function finish(c: Context<HttpEnv>, tag: string, held: boolean): Promise<void> {
  if (held && c.res.status === 200) {
    await c.res.body?.cancel()
    c.res = notModified(c, tag)
    // Hono carries the replaced answer's headers over; a 304 describes no body of its own.
    for (const name of ['content-type', 'content-length', 'content-encoding']) c.res.headers.delete(name)
    return
  }
  if (c.res.status === 200) {
    c.res.headers.set('ETag', tag)
    c.res.headers.set('Cache-Control', CACHEABLE)
    c.res.headers.append('Vary', 'Authorization')
  } else {
    c.res.headers.set('Cache-Control', NOT_CACHEABLE)
  }
}
