/**
 * Graceful shutdown over real sockets: `ventureql serve` as a child process sent SIGTERM while
 * requests are in flight, and `RunningServer.close()` of the library with handlers that are slow
 * in the ways a real one can be (awaiting, blocking the event loop, streaming).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { connect as netConnect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServe, stopReserveMs } from '../../src/cli/serve.js'
import { startNodeServer, type AccessEntry, type RunningServer } from '../../src/http/node-server.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { loadOrCreateDevCertificate, type TlsMaterial } from '../../src/http/tls.js'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { createWorkerPool } from '../../src/execute/pool/pool.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { TestOperations } from '../support/test-operations.js'
import { fresh, startServeChild, tally, volleyWithSignal, type Outcome, type ServeChild } from './support/serve-child.js'

const dirs: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vql-shutdown-'))
  dirs.push(dir)
  return dir
}
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }) })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The exit of a server that should stop on its own; a hung one is killed so that the test fails rather than hangs. */
async function exitWithin(server: ServeChild, ms: number): Promise<{ code: number | null; at: number }> {
  const timer = setTimeout(() => server.child.kill('SIGKILL'), ms)
  try {
    return await server.exited
  } finally {
    clearTimeout(timer)
  }
}

/** The summary line `ventureql serve` prints on its way out. */
function stoppedLine(server: ServeChild): { answered: number; refused: number; cut: number; idle: number } | undefined {
  const m = /stopped after \d+ ms: (\d+) requests answered, (\d+) answered 503, (\d+) responses cut off, (\d+) idle connections closed/.exec(server.stderr())
  return m ? { answered: Number(m[1]), refused: Number(m[2]), cut: Number(m[3]), idle: Number(m[4]) } : undefined
}

describe('ventureql serve on SIGTERM', () => {
  let template: string
  beforeAll(() => {
    template = join(tempDir(), 'template.db')
    execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'generate', '--companies', '2000', '--out', template], { cwd: process.cwd(), stdio: 'ignore' })
  }, 60_000)

  /** A server on a copy of the template without keys, so it prints a new full key. */
  async function serve(args: { http?: boolean; flags?: string[] } = {}): Promise<ServeChild> {
    const dir = tempDir()
    const database = join(dir, 'ventureql.db')
    copyFileSync(template, database)
    // Its state file goes along (the template's has no keys): without it the copy is refused.
    copyFileSync(`${template}-state`, `${database}-state`)
    return startServeChild({ cwd: process.cwd(), database, dataDir: dir, ...(args.http ? { http: true } : {}), ...(args.flags ? { args: args.flags } : {}) })
  }

  it.each([['HTTPS', false], ['HTTP', true]] as const)('%s: answers all of 50 requests on fresh connections when the signal lands mid-flight, then exits 0', async (_name, http) => {
    const server = await serve({ http })
    try {
      const volley = await volleyWithSignal(server, { count: 50, path: '/companies?stage=a|b', signalAfterConnected: 10 })
      const exit = await exitWithin(server, 30_000)
      // Closing the listening socket at once resets connections still in the accept backlog
      // (grammar-docs/guides/serving.md, "Stopping the server"): none may be.
      expect(volley.outcomes.every((o) => o.status === 200), tally(volley.outcomes)).toBe(true)
      expect(exit.code, server.stderr()).toBe(0)
      // The signal really came mid-flight: the server answered requests after it.
      expect(volley.atSignal.answered).toBeLessThan(50)
      const stopped = stoppedLine(server)
      expect(stopped, server.stderr()).toBeDefined()
      expect(stopped!.answered).toBeGreaterThan(0)
      expect(stopped!.refused).toBe(0)
      // And those answers ended their connection instead of keeping it alive.
      expect(volley.outcomes.filter((o) => o.headers.connection === 'close').length).toBeGreaterThanOrEqual(stopped!.answered)
      expect(exit.at - volley.signalledAt).toBeLessThan(8_000)
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  }, 90_000)

  it('answers a request still running at --shutdown-timeout 503 with Retry-After and exits 0 within the timeout', async () => {
    const timeout = 1_500
    const server = await serve({ http: true, flags: ['--shutdown-timeout', String(timeout)] })
    try {
      const { port } = new URL(server.url)
      // A slow upload: the request is received (headers and part of the body) and the application
      // is waiting for the rest, which comes a byte at a time.
      const body = JSON.stringify({ dataset: 'companies', filter: {} })
      const slow = netConnect({ host: '127.0.0.1', port: Number(port) })
      let reply = ''
      slow.on('data', (d) => { reply += d.toString('latin1') })
      const slowClosed = new Promise<void>((resolve) => { slow.on('close', () => resolve()); slow.on('error', () => resolve()) })
      await new Promise<void>((resolve) => slow.once('connect', () => resolve()))
      slow.write(`POST /queries HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 5)}`)
      let sent = 5
      const trickle = setInterval(() => {
        if (reply === '' && sent < body.length - 1 && !slow.destroyed) slow.write(body[sent++]!)
      }, 100)
      await sleep(200)

      const signalledAt = Date.now()
      server.child.kill('SIGTERM')
      // The listener still takes connections during the drain: a request sent right after the
      // signal is answered normally, and told the connection closes.
      const during = await fresh(server, `${server.url}/companies`, { authorization: `Bearer ${server.key}` })
      const exit = await exitWithin(server, 30_000)
      clearInterval(trickle)
      await slowClosed

      expect(during.status).toBe(200)
      expect(during.headers.connection).toBe('close')
      expect(exit.code, server.stderr()).toBe(0)
      const took = exit.at - signalledAt
      // Held by the slow request until the server's part of the timeout ends (the rest is kept for
      // stopping statements and ending the workers), and not much longer than the timeout
      // (signal delivery, closing the database, process exit).
      expect(took).toBeGreaterThan((timeout - stopReserveMs(timeout)) * 0.8)
      expect(took).toBeLessThan(timeout + 700)
      expect(reply).toMatch(/^HTTP\/1\.1 503 /)
      expect(reply).toMatch(/\r\nretry-after: 5\r\n/i)
      expect(reply).toMatch(/\r\ncontent-type: application\/problem\+json/i)
      expect(reply).toMatch(/\r\nconnection: close\r\n/i)
      const problem = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))
      expect(problemSchema.safeParse(problem).success).toBe(true)
      expect(problem.retry_after).toBe(5)
      expect(stoppedLine(server)).toMatchObject({ refused: 1, cut: 0 })
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  }, 90_000)

  it('exits at once with code 1 on a second signal, without waiting for the request in flight', async () => {
    const server = await serve({ http: true })
    try {
      const { port } = new URL(server.url)
      const slow = netConnect({ host: '127.0.0.1', port: Number(port) })
      slow.on('error', () => {})
      await new Promise<void>((resolve) => slow.once('connect', () => resolve()))
      // Headers and half a body: in flight until the default shutdown timeout (10 s).
      slow.write(`POST /queries HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.key}\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"data`)
      await sleep(200)
      server.child.kill('SIGTERM')
      await sleep(300)
      const again = Date.now()
      server.child.kill('SIGINT')
      const exit = await exitWithin(server, 10_000)
      slow.destroy()
      expect(exit.code).toBe(1)
      expect(exit.at - again).toBeLessThan(2_000)
      expect(server.stderr()).toMatch(/SIGINT again, exiting without waiting/)
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  }, 90_000)

  it('refuses a malformed --shutdown-timeout', async () => {
    await expect(startServe({ dataDir: tempDir(), port: 0, shutdownTimeoutMs: -1, out: () => {}, err: () => {} })).rejects.toThrow(/--shutdown-timeout must be a whole number of milliseconds/)
    const dir = tempDir()
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--data-dir', dir, '--port', '0', '--shutdown-timeout', '2s'], { cwd: process.cwd(), encoding: 'utf8' })
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/--shutdown-timeout must be a whole number of milliseconds, got "2s"/)
  }, 60_000)

  it('is not held by idle keep-alive connections, a connection that never sent a request, or a stalled TLS handshake', async () => {
    // A long timeout: only closing those connections lets the server exit quickly.
    const server = await serve({ flags: ['--shutdown-timeout', '30000'] })
    const agent = new HttpsAgent({ keepAlive: true, ca: server.ca! })
    const { port } = new URL(server.url)
    const sockets: Socket[] = []
    try {
      // Three keep-alive connections, each idle after a response.
      const replies = await Promise.all(Array.from({ length: 3 }, () => new Promise<number>((resolve, reject) => {
        const req = httpsRequest(`${server.url}/openapi.json`, { agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)) })
        req.on('error', reject)
        req.end()
      })))
      expect(replies).toEqual([200, 200, 200])
      // A TLS connection that never sends a request (a browser's preconnect) ...
      const preconnect = tlsConnect({ host: '127.0.0.1', port: Number(port), ca: server.ca!, servername: 'localhost' })
      await new Promise<void>((resolve) => preconnect.once('secureConnect', () => resolve()))
      sockets.push(preconnect)
      // ... and a TCP connection that never starts its TLS handshake.
      const silent = netConnect({ host: '127.0.0.1', port: Number(port) })
      await new Promise<void>((resolve) => silent.once('connect', () => resolve()))
      sockets.push(silent)
      for (const s of sockets) s.on('error', () => {})
      await sleep(100)

      const signalledAt = Date.now()
      server.child.kill('SIGTERM')
      const exit = await exitWithin(server, 10_000)
      expect(exit.code, server.stderr()).toBe(0)
      // Well under the keep-alive timeout (5 s) and the shutdown timeout.
      expect(exit.at - signalledAt).toBeLessThan(3_000)
      expect(stoppedLine(server)).toMatchObject({ answered: 0, idle: 5 })
    } finally {
      agent.destroy()
      for (const s of sockets) s.destroy()
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  }, 90_000)
})

describe('RunningServer.close() of the library', () => {
  let tls: TlsMaterial
  beforeAll(async () => { tls = await loadOrCreateDevCertificate(tempDir()) })

  /** A GET on a fresh connection, or on `agent`'s; resolves with the outcome and the socket used. HTTPS trusts the test certificate. */
  function get(url: string, agent?: Agent): Promise<Outcome & { socket: Socket | undefined }> {
    return new Promise((resolve) => {
      let socket: Socket | undefined
      const send = url.startsWith('https:') ? httpsRequest : httpRequest
      const req = send(url, { agent: agent ?? false, ...(url.startsWith('https:') && !agent ? { ca: tls.cert } : {}) }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode, error: undefined, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), finishedAt: Date.now(), socket }))
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ status: undefined, error: e.code ?? e.message, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), finishedAt: Date.now(), socket }))
      })
      req.on('socket', (s) => { socket = s as Socket })
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: undefined, error: e.code ?? e.message, headers: {}, body: '', finishedAt: Date.now(), socket }))
      req.end()
    })
  }
  /** Resolves when `fetch` has been entered `n` times. */
  function entered(n: number): { hit(): void; reached: Promise<void> } {
    let count = 0
    let done!: () => void
    const reached = new Promise<void>((resolve) => { done = resolve })
    return { hit: () => { if (++count === n) done() }, reached }
  }

  let server: RunningServer | undefined
  afterEach(async () => { await server?.close(0); server = undefined })

  it('answers a request still awaiting its handler 503 at the timeout, logs it, and drops the late answer quietly', async () => {
    const inSlow = entered(1)
    let lateAnswerGiven!: () => void
    const lateAnswer = new Promise<void>((resolve) => { lateAnswerGiven = resolve })
    const access: AccessEntry[] = []
    server = await startNodeServer({
      port: 0,
      onAccess: (e) => access.push(e),
      fetch: async () => {
        inSlow.hit()
        await sleep(1_500)
        setImmediate(lateAnswerGiven)
        return new Response('too late')
      },
    })
    const stderr = vi.spyOn(process.stderr, 'write')
    try {
      const pending = get(`${server.url}/slow?key=secret`)
      await inSlow.reached
      const started = Date.now()
      const summary = await server.close(600)
      const took = Date.now() - started
      const reply = await pending
      expect(reply.status).toBe(503)
      expect(reply.headers['retry-after']).toBe('5')
      expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(reply.headers.connection).toBe('close')
      expect(JSON.parse(reply.body)).toMatchObject({ status: 503, retry_after: 5 })
      expect(summary).toMatchObject({ completed: 0, refused: 1, cut: 0 })
      // The 503 goes out a tenth of the timeout early; the close ends at the timeout.
      expect(took).toBeGreaterThanOrEqual(540)
      expect(took).toBeLessThan(900)
      expect(access).toEqual([{ source: 'server', method: 'GET', path: '/slow', status: 503, ms: expect.any(Number) }])
      await lateAnswer
      await sleep(50)
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).not.toMatch(/bridge fault|response failed|ERR_/)
      expect(access).toHaveLength(1)
    } finally {
      stderr.mockRestore()
    }
  })

  it('calls onRefused once the requests still running are answered 503, where the work behind them is stopped, before the close ends', async () => {
    const dir = tempDir()
    const file = join(dir, 'fixture.db')
    await (await createFixtureDatabase({ file, companies: 20 })).close()
    // Statements that only an interrupt ends, in worker threads, as `serve`'s requests run them.
    const pool = createWorkerPool<TestOperations>({ file, limits: DEFAULT_LIMITS, operationsModule: new URL('../support/test-operations.ts', import.meta.url).href, size: 2, reserve: 0 })
    const events: string[] = []
    const access: AccessEntry[] = []
    const inSlow = entered(2)
    const calls: Promise<unknown>[] = []
    try {
      await pool.whenReady()
      server = await startNodeServer({
        port: 0,
        onAccess: (e) => access.push(e),
        fetch: async (request) => {
          const call = pool.call('countTo', [1e13], { timeoutMs: 0, light: false, signal: request.signal })
          calls.push(call.then(() => events.push('statement finished'), (e: unknown) => events.push(`statement stopped: ${(e as Error).name}`)))
          inSlow.hit()
          return new Response(String(await call))
        },
      })
      const replies = [get(`${server.url}/a`), get(`${server.url}/b`)]
      await inSlow.reached
      const closed = server.close(1_000, {
        onRefused: () => {
          events.push(`onRefused after ${access.filter((e) => e.status === 503).length} answered 503`)
          void pool.close(0).then(() => events.push('pool closed'))
        },
      }).then(() => events.push('server closed'))
      expect((await Promise.all(replies)).map((r) => r.status)).toEqual([503, 503])
      await closed
      await Promise.all(calls)
      expect(events[0]).toBe('onRefused after 2 answered 503')
      // The statements are interrupted at that point, not left to run past the close.
      expect(events.slice(1, 3)).toEqual(['statement stopped: EngineClosedError', 'statement stopped: EngineClosedError'])
      expect(events.filter((e) => e.startsWith('onRefused'))).toHaveLength(1)
      expect(events.indexOf('server closed')).toBeGreaterThan(2)
    } finally {
      await pool.close(0)
    }
  }, 60_000)

  it('answers 503 without running them the requests dispatched after the 503 point behind handlers that block the event loop', async () => {
    // Like better-sqlite3: each handler holds the event loop for its whole run, so no timer fires
    // between queued requests; only the clock check at dispatch can stop them.
    const first = entered(1)
    let ran = 0
    server = await startNodeServer({
      port: 0,
      fetch: async () => {
        ran++
        first.hit()
        const end = Date.now() + 150
        while (Date.now() < end) { /* a synchronous query */ }
        return new Response('done')
      },
    })
    const replies = Promise.all(Array.from({ length: 12 }, () => get(`${server!.url}/block`)))
    await first.reached
    const started = Date.now()
    const summary = await server.close(500)
    const took = Date.now() - started
    const outcomes = await replies
    expect(outcomes.every((o) => o.status === 200 || o.status === 503), tally(outcomes)).toBe(true)
    const served = outcomes.filter((o) => o.status === 200).length
    const refused = outcomes.filter((o) => o.status === 503).length
    expect(refused).toBeGreaterThan(0)
    expect(ran).toBe(served)
    expect(summary.refused).toBe(refused)
    // At most one synchronous step (150 ms) and the final sweep past the timeout, not 12 × 150 ms.
    expect(took).toBeLessThan(500 + 150 + 200)
  })

  it.each(['http', 'https'] as const)('%s: cuts a response still streaming at the timeout', async (protocol) => {
    const streaming = entered(1)
    server = await startNodeServer({
      port: 0,
      ...(protocol === 'https' ? { tls: { cert: tls.cert, key: tls.key } } : {}),
      fetch: async () => {
        streaming.hit()
        // A first chunk, then nothing: the headers are out, the body never ends.
        return new Response(new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode('[1,')) } }), { headers: { 'content-type': 'application/json' } })
      },
    })
    const pending = get(`${server.url}/stream`)
    await streaming.reached
    await sleep(50)
    const started = Date.now()
    const summary = await server.close(400)
    const took = Date.now() - started
    const reply = await pending
    expect(reply.status).toBeUndefined()
    expect(reply.error).toBeDefined()
    expect(summary).toMatchObject({ completed: 0, refused: 0, cut: 1 })
    expect(took).toBeLessThan(400 + 200)
  })

  it.each(['http', 'https'] as const)('%s: keeps accepting during the drain, ends each connection after its response, closes idle keep-alive connections, then refuses connections', async (protocol) => {
    const inSlow = entered(1)
    server = await startNodeServer({
      port: 0,
      ...(protocol === 'https' ? { tls: { cert: tls.cert, key: tls.key } } : {}),
      fetch: async (request) => {
        if (new URL(request.url).pathname === '/slow') {
          inSlow.hit()
          await sleep(700)
        }
        return new Response('ok')
      },
    })
    const agent = protocol === 'https' ? new HttpsAgent({ keepAlive: true, ca: tls.cert }) : new Agent({ keepAlive: true })
    try {
      const warm = await get(`${server.url}/ok`, agent)
      expect(warm.status).toBe(200)
      expect(warm.headers.connection).toBe('keep-alive')
      let idleClosedAt = 0
      warm.socket!.once('close', () => { idleClosedAt = Date.now() })

      const slow = get(`${server.url}/slow`)
      await inSlow.reached
      const started = Date.now()
      const closing = server.close(5_000)
      const during = await get(`${server.url}/ok`)
      const summary = await closing
      const resolvedAt = Date.now()

      expect(during.status).toBe(200)
      expect(during.headers.connection).toBe('close')
      const slowReply = await slow
      expect(slowReply.status).toBe(200)
      expect(slowReply.headers.connection).toBe('close')
      // Closed by the server while the slow request still ran (on a connection of its own, which a
      // mix-up of connections would have cut), well before the keep-alive timeout (5 s).
      expect(idleClosedAt).toBeGreaterThan(0)
      expect(idleClosedAt).toBeLessThan(slowReply.finishedAt)
      expect(summary).toMatchObject({ completed: 2, refused: 0, cut: 0, closedIdle: 1 })
      // The slow request, then at most a quiet period or two.
      expect(resolvedAt - started).toBeLessThan(700 + 600)
      expect((await get(`${server.url}/ok`)).error).toBe('ECONNREFUSED')
    } finally {
      agent.destroy()
    }
  })

  it('returns the same promise to every call, resolves at once when idle within a quiet period, and refuses a negative timeout', async () => {
    server = await startNodeServer({ port: 0, fetch: async () => new Response('ok') })
    await expect(server.close(-1)).rejects.toThrow(RangeError)
    const started = Date.now()
    const a = server.close(1_000)
    expect(server.close(50)).toBe(a)
    expect(await a).toMatchObject({ completed: 0, refused: 0, cut: 0, closedIdle: 0 })
    expect(Date.now() - started).toBeLessThan(600)
    expect(server.server.listening).toBe(false)
  })
})
