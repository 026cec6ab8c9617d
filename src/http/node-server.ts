/**
 * @module The Node bridge: runs a Web-standard `fetch(Request) => Response` handler (the app of
 * `createApp`) on `node:https`, or `node:http` behind a TLS-terminating proxy.
 *
 * The Request/Response translation is @hono/node-server's `getRequestListener` rather than a
 * hand-written adapter: it is the adapter Hono tests against, it validates the request target and
 * Host header (a malformed one becomes a RequestError we answer with 400 instead of a crash), aborts
 * the Request's signal when the client goes away, and streams response bodies with backpressure.
 * We create the server ourselves so that TLS options, timeouts and the body limit stay here.
 *
 * @example
 * import { createEngine } from 'ventureql'
 * import { createApp, startNodeServer } from 'ventureql/http'
 * const app = createApp(createEngine({ database: 'ventureql.db' }))
 * const server = await startNodeServer({ fetch: app.fetch, port: 8443, tls: { cert, key } })
 * console.log(server.url)   // https://127.0.0.1:8443
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { Socket, type AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { getRequestListener, RequestError, type HttpBindings } from '@hono/node-server'
import { loggedStatus } from './observe.js'
import { gracefulCloser, RETRY_AFTER_SECONDS, type CloseOptions, type CloseSummary, type GracefulCloser, type RawResponse } from './graceful-close.js'
import { problemResponse } from './problem.js'
import { rawUrlRefusal } from './raw-url.js'
import { markOversized, oversizedAnswered, oversizedBodyResponse } from './oversized-body.js'

export type { CloseOptions, CloseSummary } from './graceful-close.js'

export interface NodeServerOptions {
  /** The handler, e.g. `createApp(engine).fetch`. It receives the full URL (`https://host:port/path?query`). */
  readonly fetch: (request: Request) => Promise<Response>
  /** Port to listen on; 0 picks a free one (see `RunningServer.port`). Default 8443. */
  readonly port?: number
  /** Address to bind. Default 127.0.0.1 (this machine only). */
  readonly host?: string
  /** PEM certificate and key: HTTPS. Absent: plain HTTP, meant for running behind a TLS-terminating proxy. */
  readonly tls?: { readonly cert: string; readonly key: string }
  /**
   * Largest request body accepted: a larger declared Content-Length is 413 before the app sees it
   * and the connection closes. A body without one reaches the app, whose one body limit
   * (`hono/body-limit` on POST /queries, routes/queries.ts) reads no more than this. Default 1,000,000 bytes.
   */
  readonly maxBodyBytes?: number
  /**
   * Time a client has to send the request headers, from connecting or from the end of its previous
   * response: it is then answered 408 and disconnected, within a quarter of a second of the limit. Over
   * HTTPS the TLS handshake has the same limit. Default 10 s (slow-loris protection).
   */
  readonly headersTimeoutMs?: number
  /** Time a client has to send the whole request, checked as the header limit is. Default 30 s. */
  readonly requestTimeoutMs?: number
  /**
   * Idle time before a keep-alive connection is closed, as announced in `Keep-Alive: timeout=`;
   * Node closes it a second after that, so that a client reusing it at the last moment is not
   * reset. Default 5 s.
   */
  readonly keepAliveTimeoutMs?: number
  /**
   * Called once per answered request with the path only: the query string is left out because it
   * may carry the API key (`?key=`).
   */
  readonly onAccess?: (entry: AccessEntry) => void
  /**
   * Replace the process's global `Request` and `Response` with @hono/node-server's lightweight
   * ones, which the adapter writes to the socket directly: a `Response` of the platform's own class
   * is read back through its body stream instead (about a tenth of the main thread's time under
   * load). Off by default, as a host application may rely on the
   * platform's classes; `ventureql serve`, whose process is its own, turns it on.
   */
  readonly overrideGlobalObjects?: boolean
}

export interface AccessEntry {
  /**
   * `app`: the fetch handler answered; `server`: the bridge did (413 before the body, 503 while
   * closing, CONNECT, 499 for a body its client cut off).
   */
  readonly source: 'app' | 'server'
  readonly method: string
  /** The path without the query string. */
  readonly path: string
  /** 499 (nginx's "client closed request") when the client went away before its answer. */
  readonly status: number
  readonly ms: number
}

export interface RunningServer {
  /** The base URL clients use, e.g. `https://127.0.0.1:8443` (`localhost` when bound to every interface). */
  readonly url: string
  readonly protocol: 'https' | 'http'
  readonly host: string
  readonly port: number
  readonly server: Server
  /**
   * Stops gracefully within `timeoutMs` (default 10,000): connections clients already made are
   * still accepted for a moment (closing the listening socket at once would reset them), every
   * request received is answered, each with `Connection: close`, idle keep-alive connections are
   * closed, and then it resolves. Requests still running shortly before the timeout are answered
   * 503 with Retry-After; responses already streaming then are cut. Later calls return the same
   * promise. The engine is the caller's to close: `options.onRefused` is the moment to stop its
   * statements so that they end within the timeout too. (`graceful-close.ts` has the steps.)
   */
  close(timeoutMs?: number, options?: CloseOptions): Promise<CloseSummary>
}

/** Raised when the server cannot listen (port in use, no permission, bad address). */
export class ListenError extends Error {
  override readonly name = 'ListenError'
  constructor(message: string, readonly code: string | undefined) {
    super(message)
  }
}

const DEFAULTS = Object.freeze({
  port: 8443,
  host: '127.0.0.1',
  maxBodyBytes: 1_000_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  shutdownTimeoutMs: 10_000,
})

/** Default of `RunningServer.close(timeoutMs)` and of `ventureql serve --shutdown-timeout`. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = DEFAULTS.shutdownTimeoutMs

/** Starts listening; resolves once the port is bound, rejects with a ListenError otherwise. */
export async function startNodeServer(options: NodeServerOptions): Promise<RunningServer> {
  const host = options.host ?? DEFAULTS.host
  const protocol = options.tls ? 'https' : 'http'
  // Built now so the close can write it synchronously, wherever it is.
  const unavailable = await rawResponse(problemResponse(503, {
    detail: `The server is shutting down; retry in ${RETRY_AFTER_SECONDS} s.`,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    extra: { retry_after: RETRY_AFTER_SECONDS },
  }))
  const headersTimeoutMs = options.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs
  const timing = {
    // Node checks the header and request limits only every `connectionsCheckingInterval`, 30 s by
    // default, with which a connection that sends its headers slowly, or nothing, stays open up to
    // 40 s against a 10 s limit (scripts/connection-timeouts.ts). A check every 250 ms walks the
    // list of connections with a request in progress: cheap.
    connectionsCheckingInterval: checkingInterval(headersTimeoutMs, requestTimeoutMs),
  }
  // A TCP connection that never completes its TLS handshake gets no HTTP parser, hence none of the
  // HTTP limits: the handshake gets the header limit (Node's default is 120 s).
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, handshakeTimeout: headersTimeoutMs || 120_000, ...timing })
    : createHttpServer(timing)
  const closer = gracefulCloser(server, {
    unavailable,
    ...(options.onAccess ? { onRefused: accessLogger(options.onAccess, unavailable.status) } : {}),
  })
  server.on('request', bridge(options, closer))
  server.headersTimeout = headersTimeoutMs
  server.requestTimeout = requestTimeoutMs
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? DEFAULTS.keepAliveTimeoutMs
  // A request line or header block Node cannot parse: answer 400 when the socket still takes it.
  // Without a listener Node does the same; with one we also keep a reset client from logging noise.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy()
    const rawUrl = error.code === 'HPE_INVALID_URL' ? rawUrlRefusal((error as { rawPacket?: Buffer }).rawPacket) : undefined
    if (rawUrl !== undefined) {
      void rawResponse(rawUrl).then(({ status, headers, body }) => {
        const head = `HTTP/1.1 ${status} Bad Request\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}`
          + `content-length: ${body.byteLength}\r\nconnection: close\r\n\r\n`
        if (socket.writable) socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]))
        else socket.destroy()
      })
      return
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
    const body = JSON.stringify({ title: 'Bad request', status, detail: 'The request could not be parsed.', error: 'The request could not be parsed.' })
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n`
      + `content-type: application/problem+json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
  })
  // A failed TLS handshake (an untrusting browser) is the client's problem. A plain-HTTP request is
  // a common slip (`http://` for `https://`): OpenSSL recognises it by its first bytes, and the
  // client is told in plain HTTP on the socket under the TLS layer (Node's `_parent` of the TLS
  // socket; where it is missing the connection closes as before), as nginx does, instead of an empty reply.
  const plainHttpHint = await rawResponse(problemResponse(400, {
    detail: 'This port speaks HTTPS only: the request was sent as plain HTTP. Use an https:// URL.',
  }))
  server.on('tlsClientError', (error: NodeJS.ErrnoException, socket) => {
    const raw = (socket as unknown as { _parent?: unknown })._parent
    if (error.code !== 'ERR_SSL_HTTP_REQUEST' || !(raw instanceof Socket) || !raw.writable) return void socket.destroy()
    const head = `HTTP/1.1 400 Bad Request\r\n${Object.entries(plainHttpHint.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}`
      + `content-length: ${plainHttpHint.body.byteLength}\r\nconnection: close\r\n\r\n`
    raw.on('error', () => raw.destroy())
    raw.end(Buffer.concat([Buffer.from(head, 'latin1'), plainHttpHint.body]))
  })
  // CONNECT (a proxy tunnel) never reaches 'request': Node hands it to 'connect' and, with no
  // listener, closes the connection without a word. This is no proxy: answer it as every unknown
  // method is answered, a JSON 404, and close (the socket is the client's tunnel, not reusable).
  const connectRefusal = await rawResponse(problemResponse(404, { detail: 'No endpoint answers CONNECT: this server is no proxy.' }))
  server.on('connect', (incoming: IncomingMessage, socket: Duplex) => {
    const started = performance.now()
    const head = `HTTP/1.1 404 Not Found\r\n${Object.entries(connectRefusal.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}`
      + `content-length: ${connectRefusal.body.byteLength}\r\nconnection: close\r\n\r\n`
    socket.on('error', () => socket.destroy())
    socket.end(Buffer.concat([Buffer.from(head, 'latin1'), connectRefusal.body]))
    options.onAccess?.({ source: 'server', method: 'CONNECT', path: '(tunnel)', status: 404, ms: performance.now() - started })
  })

  return new Promise((resolvePromise, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening)
      reject(new ListenError(listenMessage(error, host, options.port ?? DEFAULTS.port), error.code))
    }
    const onListening = () => {
      server.off('error', onError)
      // After start-up a server error (e.g. EMFILE on accept) must not kill the process.
      server.on('error', (error) => process.stderr.write(`ventureql: server error: ${error.message}\n`))
      const port = (server.address() as AddressInfo).port
      resolvePromise(Object.freeze({
        url: `${protocol}://${urlHost(host)}:${port}`,
        protocol, host, port, server,
        close: (timeoutMs?: number, closeOptions?: CloseOptions) => closer.close(timeoutMs ?? DEFAULTS.shutdownTimeoutMs, closeOptions),
      }))
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(options.port ?? DEFAULTS.port, host)
  })
}

/** The request listener: graceful-close bookkeeping, the declared body size, Request/Response translation, access log. */
function bridge(options: NodeServerOptions, closer: GracefulCloser): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes
  const onAccess = options.onAccess
  const handle = getRequestListener(
    async (request, env) => {
      const { outgoing } = env as HttpBindings
      const started = performance.now()
      let response: Response
      try {
        response = await options.fetch(request)
      } catch (error) {
        // The error handler below answers it, unless the close already has.
        throw closer.claim(outgoing) ? error : ANSWERED_BY_CLOSE
      }
      if (!closer.claim(outgoing)) {
        // The close answered 503 while the application was still working; its answer has nowhere to go.
        await response.body?.cancel().catch(() => {})
        throw ANSWERED_BY_CLOSE
      }
      if (onAccess) onAccess({ source: 'app', method: request.method, path: pathOf(request.url), status: loggedStatus(request, response.status), ms: performance.now() - started })
      return response
    },
    {
      // The process's Request and Response are kept as they are unless asked (see the option).
      overrideGlobalObjects: options.overrideGlobalObjects ?? false,
      errorHandler: (error) => {
        // Returning nothing tells the adapter not to write a response.
        if (error === ANSWERED_BY_CLOSE) return
        // A malformed request target or Host header: the app was not called.
        if (error instanceof RequestError) return problemResponse(400, { detail: 'The request could not be parsed: the URL or Host header is malformed.' })
        // The app's fetch never rejects; this is a fault of the bridge itself.
        process.stderr.write(`ventureql: bridge fault: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
        return problemResponse(500, { detail: 'Internal server error; retry later.' })
      },
    },
  )
  /**
   * Refused before a byte of the body is read, and the connection closes so the rest is not parsed.
   * The app still answers (a bodiless copy, oversized-body.ts) so that the refusal carries the quota
   * headers of an authenticated request; a handler that does not know the mark gets the bridge's 413.
   */
  const refuseOversized = async (incoming: IncomingMessage, outgoing: ServerResponse, declared: number): Promise<void> => {
    const started = performance.now()
    let response = oversizedBodyResponse(maxBodyBytes, declared)
    const copy = bodilessCopy(incoming)
    if (copy !== undefined) {
      markOversized(copy, maxBodyBytes, declared)
      try {
        const answered = await options.fetch(copy)
        if (oversizedAnswered(copy)) response = answered
        else await answered.body?.cancel().catch(() => {})
      } catch {
        // The bridge's own 413 stands.
      }
    }
    if (!closer.claim(outgoing)) return
    await respondDirectly(outgoing, response, { connection: 'close' }).catch(() => outgoing.destroy())
    onAccess?.({ source: 'server', method: incoming.method ?? '', path: (incoming.url ?? '/').split('?')[0]!, status: response.status, ms: performance.now() - started })
  }
  return (incoming, outgoing) => {
    if (!closer.admit(incoming, outgoing)) return
    const declared = Number(incoming.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      void refuseOversized(incoming, outgoing, declared)
      return
    }
    handle(incoming, outgoing).catch((error: unknown) => {
      process.stderr.write(`ventureql: response failed: ${error instanceof Error ? error.message : String(error)}\n`)
      outgoing.destroy()
    })
  }
}

/** How often Node checks the header and request limits: every 250 ms, or a fortieth of the shorter limit. */
function checkingInterval(headersTimeoutMs: number, requestTimeoutMs: number): number {
  const shorter = Math.min(...[headersTimeoutMs, requestTimeoutMs].filter((ms) => ms > 0), 10_000)
  return Math.max(10, Math.min(250, Math.floor(shorter / 40)))
}

/** Thrown to the adapter for a request the graceful close has already answered. */
const ANSWERED_BY_CLOSE = Symbol('answered by close')

function accessLogger(onAccess: (entry: AccessEntry) => void, status: number): (incoming: IncomingMessage, startedAt: number) => void {
  return (incoming, startedAt) => onAccess({
    source: 'server', method: incoming.method ?? '', path: (incoming.url ?? '/').split('?')[0]!, status, ms: performance.now() - startedAt,
  })
}

/** The request without its body (nor the headers that describe it), or undefined when its target or Host cannot make a URL. */
function bodilessCopy(incoming: IncomingMessage): Request | undefined {
  try {
    const scheme = (incoming.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'
    const target = incoming.url ?? '/'
    const url = target.startsWith('/') ? new URL(`${scheme}://${incoming.headers.host ?? 'localhost'}${target}`) : new URL(target)
    const headers = new Headers()
    for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
      const name = incoming.rawHeaders[i]!
      if (!/^(content-length|transfer-encoding|content-encoding)$/i.test(name)) headers.append(name, incoming.rawHeaders[i + 1]!)
    }
    return new Request(url, { method: incoming.method ?? 'GET', headers })
  } catch {
    return undefined
  }
}

async function respondDirectly(outgoing: ServerResponse, response: Response, extra: Record<string, string> = {}): Promise<void> {
  const { status, headers, body } = await rawResponse(response)
  outgoing.writeHead(status, { ...headers, ...extra, 'content-length': body.byteLength })
  outgoing.end(body)
}

async function rawResponse(response: Response): Promise<RawResponse> {
  return { status: response.status, headers: Object.fromEntries(response.headers), body: Buffer.from(await response.arrayBuffer()) }
}

function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const query = url.indexOf('?', start)
  return start < 0 ? '/' : url.slice(start, query < 0 ? undefined : query)
}

/** The host part of the printed URL: every-interface binds are reached as localhost; IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return 'localhost'
  return host.includes(':') ? `[${host}]` : host
}

function listenMessage(error: NodeJS.ErrnoException, host: string, port: number): string {
  switch (error.code) {
    case 'EADDRINUSE': return `port ${port} on ${host} is already in use; stop the other server or choose another port with --port`
    case 'EACCES': return `no permission to listen on port ${port} on ${host}; ports below 1024 need privileges, choose another with --port`
    case 'EADDRNOTAVAIL': return `the address ${host} is not an address of this machine; choose another with --host`
    default: return `cannot listen on ${host}:${port}: ${error.message}`
  }
}
