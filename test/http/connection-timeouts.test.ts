/**
 * The bridge's connection limits over real sockets, plain and TLS: a connection that sends its
 * headers too slowly, or nothing, is answered 408 and closed at the header limit (Node checks it
 * only every `connectionsCheckingInterval`, 30 s by default), a TCP connection that never starts its
 * TLS handshake is closed at the same limit, and an idle keep-alive connection at its limit (plus
 * the second Node adds to the announced `Keep-Alive: timeout`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { connect as netConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startNodeServer, type RunningServer } from '../../src/http/node-server.js'
import { loadOrCreateDevCertificate, type TlsMaterial } from '../../src/http/tls.js'

const HEADERS_MS = 1_500
const KEEP_ALIVE_MS = 500
/** Node's own addition to the keep-alive limit (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER). */
const NODE_KEEP_ALIVE_BUFFER_MS = 1_000
/** Scheduling on a busy machine; far below the 30 s Node's default check would take. */
const MARGIN_MS = 1_500

let dir: string
let tls: TlsMaterial
const servers: RunningServer[] = []
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-timeouts-'))
  tls = await loadOrCreateDevCertificate(dir)
})
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close(0)))
  rmSync(dir, { recursive: true, force: true })
})

async function start(secure: boolean): Promise<RunningServer> {
  const server = await startNodeServer({
    fetch: async () => new Response('ok'),
    port: 0,
    headersTimeoutMs: HEADERS_MS,
    keepAliveTimeoutMs: KEEP_ALIVE_MS,
    ...(secure ? { tls: { cert: tls.cert, key: tls.key } } : {}),
  })
  servers.push(server)
  return server
}

function open(port: number, secure: boolean): Promise<Socket> {
  return new Promise((resolve) => {
    const socket: Socket = secure
      ? tlsConnect({ host: '127.0.0.1', port, ca: tls.cert, servername: 'localhost' }, () => resolve(socket))
      : netConnect({ host: '127.0.0.1', port }, () => resolve(socket))
    socket.on('error', () => {})
  })
}

/** Milliseconds until the server closes `socket`, counted from `from`, and what it sent. */
function closedAfter(socket: Socket, from: () => number): Promise<{ ms: number; reply: string }> {
  let reply = ''
  socket.on('data', (d: Buffer) => { reply += d.toString('latin1') })
  return new Promise((resolve) => socket.on('close', () => resolve({ ms: performance.now() - from(), reply })))
}

describe.each([['HTTP', false], ['HTTPS', true]] as const)('%s', (_name, secure) => {
  it('answers 408 and closes a connection whose headers are incomplete, or that says nothing, at the header limit', async () => {
    const server = await start(secure)
    const started = performance.now()
    const partial = await open(server.port, secure)
    partial.write('GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ')
    const silent = await open(server.port, secure)
    const [a, b] = await Promise.all([closedAfter(partial, () => started), closedAfter(silent, () => started)])
    for (const { ms, reply } of [a, b]) {
      expect(reply).toMatch(/^HTTP\/1\.1 408 /)
      expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 50)
      expect(ms).toBeLessThan(HEADERS_MS + MARGIN_MS)
    }
  }, 30_000)

  it('closes an idle keep-alive connection at its limit', async () => {
    const server = await start(secure)
    const socket = await open(server.port, secure)
    let answeredAt = 0
    socket.once('data', () => { answeredAt = performance.now() })
    const closed = closedAfter(socket, () => answeredAt)
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')
    const { ms, reply } = await closed
    expect(reply).toMatch(/^HTTP\/1\.1 200 /)
    expect(ms).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50)
    expect(ms).toBeLessThan(KEEP_ALIVE_MS + NODE_KEEP_ALIVE_BUFFER_MS + MARGIN_MS)
  }, 30_000)
})

describe('HTTPS', () => {
  it('closes a TCP connection that never starts its TLS handshake at the header limit', async () => {
    const server = await start(true)
    const started = performance.now()
    const raw = netConnect({ host: '127.0.0.1', port: server.port })
    raw.on('error', () => {})
    const { ms } = await closedAfter(raw, () => started)
    expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 50)
    expect(ms).toBeLessThan(HEADERS_MS + MARGIN_MS)
  }, 30_000)
})
