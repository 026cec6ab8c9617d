/**
 * @module Graceful close of a node:http(s) server, behind `RunningServer.close()`: stop accepting
 * without resetting connections clients already made, answer every request already received,
 * close idle keep-alive connections, all within a timeout.
 *
 * Why not just `server.close()`: it closes the listening socket at once, and the kernel resets
 * every connection still waiting in its accept backlog, which the client already saw as accepted;
 * and it destroys every connection without a request in progress, including fresh ones whose TLS
 * handshake or first request is still on its way. Together these reset 12 to 34 of 50 requests
 * sent at once (scripts/shutdown-probe.ts; grammar-docs/guides/serving.md, "Stopping the server").
 *
 * What `close(timeoutMs)` does instead:
 * 1. Drain: the listener keeps accepting, and every response from now on says `Connection: close`,
 *    so each connection ends after the response it is busy with.
 * 2. Once neither a new connection nor a byte on any connection has come for QUIET_MS,
 *    `server.close()` stops listening; nothing is in transit then, so the connections it destroys
 *    for having no request in progress (idle keep-alive ones) are really idle.
 * 3. Once, in addition, no request is in progress, the connections left (stalled TLS handshakes,
 *    clients that connected and said nothing) are destroyed, and `close` resolves when they are gone.
 * 4. Shortly before the timeout (a tenth of it, at most REFUSE_MARGIN_MS), requests whose response
 *    has not started are answered 503 with Retry-After (the application's later answer is dropped),
 *    and so is every request arriving after that, without running; responses already streaming are
 *    cut. At the timeout every connection is destroyed, after a sweep of at most SWEEP_MAX_MS that
 *    answers 503 what still waits to be accepted or read. Under traffic that never stops, the
 *    listener stays open until then: a 503 is a better answer than a reset.
 *
 * Timers cannot fire while JavaScript runs synchronously (a better-sqlite3 query blocks the event
 * loop), so the timeout can be overrun by the one synchronous step running at that moment. Requests
 * queued behind it do not add to that: each is checked against the clock when it is dispatched.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/**
 * How long nothing must happen (no new connection, no byte received) before the server treats
 * itself as drained. It must cover a round trip or two: a client whose SYN was sent before the
 * signal lands in the backlog one round trip later, and a TLS handshake takes one or two more.
 */
export const QUIET_MS = 250
/** The 503 answers go out this long before the timeout at most, so they are written before the sockets are destroyed. */
export const REFUSE_MARGIN_MS = 500
/** The longest the final sweep (see `sweep`) may add after the timeout. */
export const SWEEP_MAX_MS = 100
/** A restarted server or another replica is usually ready within a few seconds. */
export const RETRY_AFTER_SECONDS = 5

export interface CloseSummary {
  /** Requests answered by the application after `close` was called (in progress then, or received during the drain). */
  readonly completed: number
  /** Requests answered 503 because the timeout was near. */
  readonly refused: number
  /** Responses cut off at the timeout because their headers had already gone out. */
  readonly cut: number
  /** Connections closed by the server without a request in progress (idle keep-alive, or never used). */
  readonly closedIdle: number
  /** Milliseconds from the call of `close` to its resolution. */
  readonly ms: number
}

export interface GracefulCloser {
  /**
   * Called for each request before the application sees it. Returns false when the request was
   * answered 503 here (the timeout is near); otherwise the request is tracked until its response ends.
   */
  admit(incoming: IncomingMessage, outgoing: ServerResponse): boolean
  /**
   * Called when the application's answer (or an error response) is ready to be written. Returns
   * false when the close has already answered the request 503: the answer must be dropped. After
   * true, the close leaves the response to be written (and cuts it only at the timeout).
   */
  claim(outgoing: ServerResponse): boolean
  /** Runs the steps above once; later calls return the same promise. */
  close(timeoutMs: number, options?: CloseOptions): Promise<CloseSummary>
}

export interface CloseOptions {
  /**
   * Called once, right after the requests still running have been answered 503 (step 4, shortly
   * before the timeout): nobody waits for the work behind them any more, and stopping it now (the
   * engine's statements) lets it end within the timeout too. Not called when every request was
   * answered before then.
   */
  readonly onRefused?: () => void
}

/** A response as bytes, so the 503 can be written synchronously when the time comes. */
export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
}

export function gracefulCloser(server: Server, options: {
  /** The 503 to answer with; built by the caller so the error format stays in one place. */
  readonly unavailable: RawResponse
  /** Told of every request answered 503 here (the access log). */
  readonly onRefused?: (incoming: IncomingMessage, startedAt: number) => void
}): GracefulCloser {
  // Raw TCP sockets (for HTTPS the ones under TLS, so handshakes in progress count), and the bytes
  // read by those already closed, so that "bytes received" only ever grows.
  const sockets = new Set<Socket>()
  // An HTTPS request's socket is the TLS socket above the raw one; the peer's address and port
  // identify the raw socket among the live ones.
  const byPeer = new Map<string, Socket>()
  const busy = new Map<Socket, number>()
  let accepted = 0
  let bytesOfClosed = 0
  const inFlight = new Map<ServerResponse, { incoming: IncomingMessage; startedAt: number }>()
  const refusedByClose = new WeakSet<ServerResponse>()
  const claimed = new WeakSet<ServerResponse>()
  let closing: Promise<CloseSummary> | undefined
  let draining = false
  let refuseFrom = Infinity
  let completed = 0
  let refused = 0
  let onSocketsGone: (() => void) | undefined

  const peer = (socket: Socket): string => `${socket.remoteAddress}|${socket.remotePort}`
  server.on('connection', (socket: Socket) => {
    accepted++
    sockets.add(socket)
    const key = peer(socket)
    byPeer.set(key, socket)
    socket.once('close', () => {
      bytesOfClosed += socket.bytesRead
      sockets.delete(socket)
      if (byPeer.get(key) === socket) byPeer.delete(key)
      if (sockets.size === 0) onSocketsGone?.()
    })
  })
  const rawOf = (socket: Socket): Socket | undefined => (sockets.has(socket) ? socket : byPeer.get(peer(socket)))

  /** Changes whenever a connection arrives or any connection receives a byte. */
  const activity = (): string => {
    let bytes = bytesOfClosed
    for (const socket of sockets) bytes += socket.bytesRead
    return `${accepted}:${bytes}`
  }

  /** Tracks a response until it has been written out (or its connection is gone). */
  const track = (incoming: IncomingMessage, outgoing: ServerResponse, startedAt: number): void => {
    inFlight.set(outgoing, { incoming, startedAt })
    const raw = rawOf(incoming.socket)
    if (raw) busy.set(raw, (busy.get(raw) ?? 0) + 1)
    const done = () => {
      if (!inFlight.delete(outgoing)) return
      if (raw) busy.set(raw, busy.get(raw)! - 1)
      if (closing && outgoing.writableFinished && !refusedByClose.has(outgoing)) completed++
    }
    outgoing.once('finish', done)
    outgoing.once('close', done)
  }

  /** Answers 503 now; the response stays tracked so the drain waits until it is written out. */
  const refuse = (incoming: IncomingMessage, outgoing: ServerResponse, startedAt: number): void => {
    refusedByClose.add(outgoing)
    refused++
    if (!inFlight.has(outgoing)) track(incoming, outgoing, startedAt)
    const { status, headers, body } = options.unavailable
    outgoing.writeHead(status, { ...headers, 'content-length': body.byteLength, connection: 'close' })
    outgoing.end(body)
    options.onRefused?.(incoming, startedAt)
  }

  const admit = (incoming: IncomingMessage, outgoing: ServerResponse): boolean => {
    const startedAt = performance.now()
    // Against the clock, not a flag set by a timer: requests queued behind a long synchronous step
    // are dispatched before any timer can run.
    if (Date.now() >= refuseFrom) {
      refuse(incoming, outgoing, startedAt)
      return false
    }
    // During the drain each connection ends after its response instead of waiting for another request.
    if (draining) outgoing.setHeader('connection', 'close')
    track(incoming, outgoing, startedAt)
    return true
  }

  const run = (timeoutMs: number, closeOptions: CloseOptions): Promise<CloseSummary> => new Promise((resolvePromise) => {
    const started = Date.now()
    const deadline = started + timeoutMs
    const refuseAt = deadline - Math.min(REFUSE_MARGIN_MS, timeoutMs / 10)
    draining = true
    refuseFrom = refuseAt
    for (const outgoing of inFlight.keys()) if (!outgoing.headersSent) outgoing.setHeader('connection', 'close')

    let cut = 0
    let closedIdle = 0
    let preempted = false
    let finishing = false
    let lastActivity = activity()
    let lastChangeAt = started

    /** Destroys the connections without a request in progress; only when all is quiet, see `check`. */
    const closeIdle = () => {
      for (const socket of sockets) {
        if (socket.destroyed || busy.get(socket)) continue
        closedIdle++
        socket.destroy()
      }
    }
    const stopListening = () => {
      // Only when nothing has arrived for QUIET_MS (or at the very end): server.close() also
      // destroys every connection without a request in progress, and one whose request still sits
      // unread in the kernel (the event loop was busy) counts as such and would be reset.
      if (server.listening) server.close()
    }
    const preempt = () => {
      preempted = true
      for (const [outgoing, { incoming, startedAt }] of [...inFlight]) {
        if (refusedByClose.has(outgoing)) continue
        if (outgoing.headersSent) {
          inFlight.delete(outgoing)
          cut++
          outgoing.destroy()
        } else if (!claimed.has(outgoing)) {
          refuse(incoming, outgoing, startedAt)
        }
        // Claimed but not written yet: the adapter is about to write it; `finish` cuts it if not.
      }
      try {
        closeOptions.onRefused?.()
      } catch (error) {
        process.stderr.write(`ventureql: close: onRefused failed: ${error instanceof Error ? error.message : String(error)}\n`)
      }
    }
    const finish = () => {
      stopListening()
      for (const [outgoing] of [...inFlight]) {
        if (!refusedByClose.has(outgoing)) cut++
        outgoing.destroy()
      }
      closeIdle()
      // What is left carried a request just cut (its TLS socket is gone, the raw one may linger).
      for (const socket of sockets) socket.destroy()
      const resolveNow = () => resolvePromise(Object.freeze({ completed, refused, cut, closedIdle, ms: Date.now() - started }))
      if (sockets.size === 0) resolveNow()
      else onSocketsGone = resolveNow
    }
    /**
     * Turns of the event loop until one brings nothing new, then `finish`. Node accepts one
     * connection per turn, so after a synchronous step that ran past the deadline the backlog may
     * still hold connections; accepting and reading them here answers them 503 instead of resetting them.
     */
    const sweep = (until: number) => {
      const before = activity()
      setImmediate(() => (activity() !== before && Date.now() < until ? sweep(until) : finish()))
    }
    const check = () => {
      if (finishing) return
      const now = Date.now()
      if (now >= deadline) {
        finishing = true
        if (!preempted) preempt()
        return sweep(now + SWEEP_MAX_MS)
      }
      if (!preempted && now >= refuseAt) preempt()
      const current = activity()
      if (current !== lastActivity) {
        lastActivity = current
        lastChangeAt = now
      }
      const quiet = now - lastChangeAt >= QUIET_MS
      if (quiet) {
        // Nothing in transit: a connection without a request in progress now is idle (keep-alive,
        // or opened and never used), not one whose request is on its way.
        closeIdle()
        stopListening()
      }
      if (quiet && inFlight.size === 0) {
        finishing = true
        return finish()
      }
      schedule(now)
    }
    const schedule = (now: number) => {
      // Wake when the quiet period would be complete, or, once it is (a request still running),
      // every QUIET_MS; and in time for the 503s and the timeout.
      const quietAt = lastChangeAt + QUIET_MS > now ? lastChangeAt + QUIET_MS : now + QUIET_MS
      const next = Math.min(quietAt, preempted ? deadline : refuseAt)
      // The check runs as an immediate after the timer so that the poll phase in between takes in
      // whatever arrived meanwhile (pending accepts, bytes): after a long synchronous step, timers
      // run before I/O, and the check would otherwise see a stale, quiet picture.
      setTimeout(() => setImmediate(check), Math.max(1, next - now))
    }
    schedule(started)
  })

  return {
    admit,
    claim(outgoing) {
      if (refusedByClose.has(outgoing)) return false
      claimed.add(outgoing)
      return true
    },
    close(timeoutMs, closeOptions = {}) {
      if (!Number.isFinite(timeoutMs) || timeoutMs < 0) return Promise.reject(new RangeError(`close: the timeout must be a number of milliseconds >= 0, got ${String(timeoutMs)}`))
      return (closing ??= run(timeoutMs, closeOptions))
    },
  }
}
