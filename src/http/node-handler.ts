/**
 * @module The app as a Node `(req, res)` handler, to mount in a server the host already runs:
 * node:http, Express, Fastify (`reply.raw`), Koa, Connect. It imports none of them; it speaks
 * Node's IncomingMessage and ServerResponse, which they all hand out.
 *
 * The Request/Response translation is @hono/node-server's `getRequestListener`, as in
 * node-server.ts (which adds TLS, timeouts and graceful shutdown for a server of its own).
 *
 * One thing differs from a bare server: a body parser the host registered earlier
 * (`express.json()`, `express.urlencoded()`, Fastify's content-type parsers) has already read the
 * request stream, so there is no body left to read. The handler then rebuilds the body from what
 * the parser produced (`req.body`, or the `body` argument): a Buffer or string as it is, a parsed
 * form as a form, anything else parsed as JSON. The bytes may differ from what the client sent
 * (JSON whitespace, key order), never the meaning. A parsed body it cannot rebuild (a nested object
 * from a form parser, or an unknown content type) is answered 415 with what to change.
 *
 * @example
 * // node:http
 * createServer(toNodeHandler(createApp(engine))).listen(8080)
 * // Express, also after express.json()
 * server.use('/data', (req, res) => handler(req, res))
 * // Fastify: the parsed body travels as the third argument
 * fastify.all('/*', (request, reply) => { reply.hijack(); return handler(request.raw, reply.raw, request.body) })
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { getRequestListener, RequestError } from '@hono/node-server'
import { resolveLimits } from '../check/limits.js'
import { guardInput } from '../parse/guard.js'
import { issuesResponse, problemResponse } from './problem.js'

/**
 * The bounds a parser's object is checked against before it is serialised again: the default
 * nesting depth; its size is the parser's own business (the app checks the rebuilt body's).
 */
const REBUILD_LIMITS = resolveLimits({ maxBodyBytes: Number.POSITIVE_INFINITY })

/** A Node request handler over the app; resolves when the response has been written. */
export type NodeHandler = (
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  /**
   * A body an earlier parser produced, when it is not on `req.body` (Fastify's `request.body`).
   * A function here is ignored: Express and Connect pass `next` third.
   */
  body?: unknown,
) => Promise<void>

export interface NodeHandlerOptions {
  /** Where faults of the bridge itself are reported (the app's own faults go to `onInternalError`). Default: stderr. */
  readonly onError?: (error: unknown) => void
}

/** The app (or any `fetch(Request) => Response` handler) as a Node `(req, res)` handler. */
export function toNodeHandler(app: { fetch(request: Request): Promise<Response> }, options: NodeHandlerOptions = {}): NodeHandler {
  const onError = options.onError ?? ((error: unknown) => {
    process.stderr.write(`ventureql: node handler fault: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  })
  const listener = getRequestListener((request) => app.fetch(request), {
    // Keep the process's Request and Response as they are: the host may rely on them.
    overrideGlobalObjects: false,
    errorHandler: (error) => {
      // A malformed request target or Host header: the app was not called.
      if (error instanceof RequestError) return problemResponse(400, { detail: 'The request could not be parsed: the URL or Host header is malformed.' })
      onError(error)
      return problemResponse(500, { detail: 'Internal server error; retry later.' })
    },
  })
  return async (req, res, body) => {
    const parsed = typeof body === 'function' || body === undefined ? req.body : body
    // Only when the stream is gone: a parser that left it unread (or a GET) loses nothing.
    if (parsed !== undefined && req.readableEnded && !hasRawBody(req)) {
      // A parser's object is walked before it is serialised again: JSON.stringify recurses, and
      // express.json() parses 50,000 levels within its default 100 KB. Refused as the app refuses
      // such a body itself (`guardInput`, a 400 with the issue), not as a RangeError.
      const guarded = typeof parsed === 'object' && parsed !== null && !(parsed instanceof Uint8Array)
        ? guardInput(parsed, REBUILD_LIMITS, 'The request body')
        : { ok: true as const, value: parsed }
      if (!guarded.ok) {
        await writeResponse(res, issuesResponse([...guarded.issues], 400))
        return
      }
      const rebuilt = rebuildBody(guarded.value, String(req.headers['content-type'] ?? ''))
      if (typeof rebuilt === 'string') {
        await writeResponse(res, problemResponse(415, { detail: rebuilt }))
        return
      }
      // getRequestListener reads a Buffer `rawBody` instead of the stream (as on Cloud Functions).
      Object.defineProperty(req, 'rawBody', { value: rebuilt, configurable: true, enumerable: false })
    } else if (req.readableEnded && !hasRawBody(req)) {
      // Read by someone and nothing left behind: an empty body, rather than waiting on a stream that has ended.
      Object.defineProperty(req, 'rawBody', { value: Buffer.alloc(0), configurable: true, enumerable: false })
    }
    await listener(req, res)
  }
}

function hasRawBody(req: IncomingMessage): boolean {
  return Buffer.isBuffer((req as { rawBody?: unknown }).rawBody)
}

/** The body's bytes from a parser's result, or why they cannot be rebuilt. */
function rebuildBody(parsed: unknown, contentType: string): Buffer | string {
  if (Buffer.isBuffer(parsed)) return parsed
  if (parsed instanceof Uint8Array) return Buffer.from(parsed.buffer, parsed.byteOffset, parsed.byteLength)
  if (typeof parsed === 'string') return Buffer.from(parsed, 'utf8')
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams()
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
          return `The form field \`${key}\` was parsed by an earlier body parser into a structure that cannot be sent on as a form; `
            + 'parse forms flat (express.urlencoded({ extended: false })) or mount ventureql before the parser.'
        }
        form.append(key, String(item))
      }
    }
    return Buffer.from(form.toString(), 'utf8')
  }
  if (type === '' || type === 'application/json' || type.endsWith('+json')) return Buffer.from(JSON.stringify(parsed), 'utf8')
  return `The request body (${type}) was read by an earlier body parser and cannot be rebuilt; mount ventureql before the parser, or leave this content type unparsed.`
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer())
  res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': body.byteLength })
  res.end(body)
}
