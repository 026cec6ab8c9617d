/**
 * How long connections that are slow or idle stay open on the Node bridge with its default
 * timeouts (headers 10 s, keep-alive 5 s), over plain HTTP and HTTPS, all at once:
 *
 *   npx tsx scripts/connection-timeouts.ts
 *
 * Prints, for each case, the seconds from connecting (or from the response, for keep-alive) until
 * the server closed the connection, and what it sent first.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { connect as netConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { startNodeServer } from '../src/http/node-server.js'
import { loadOrCreateDevCertificate } from '../src/http/tls.js'

const dir = mkdtempSync(join(tmpdir(), 'vql-timeouts-'))
const tls = await loadOrCreateDevCertificate(dir)
const fetch = async () => new Response('ok')
const plain = await startNodeServer({ fetch, port: 0 })
const secure = await startNodeServer({ fetch, port: 0, tls: { cert: tls.cert, key: tls.key } })

/** Seconds from `from()` until the server closes the socket, and the first line it sent after `from`. */
function watch(socket: Socket, from: () => number): Promise<string> {
  let first = ''
  socket.on('data', (d: Buffer) => { if (first === '') first = d.toString('latin1').split('\r\n')[0]! })
  socket.on('error', () => {})
  return new Promise((resolve) => socket.on('close', () => resolve(`${((performance.now() - from()) / 1000).toFixed(1)} s${first ? ` (${first})` : ''}`)))
}

async function cases(name: string, port: number, secureSocket: boolean) {
  const open = (): Promise<Socket> => new Promise((resolve) => {
    const s: Socket = secureSocket
      ? tlsConnect({ host: '127.0.0.1', port, ca: tls.cert, servername: 'localhost' }, () => resolve(s))
      : netConnect({ host: '127.0.0.1', port }, () => resolve(s))
  })
  const t0 = performance.now()
  const partial = await open()
  partial.write('GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ')
  const silent = await open()
  const keepAlive = await open()
  let answeredAt = 0
  keepAlive.once('data', () => { answeredAt = performance.now() })
  keepAlive.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')
  const results = await Promise.all([watch(partial, () => t0), watch(silent, () => t0), watch(keepAlive, () => answeredAt)])
  console.log(`${name}: partial headers closed after ${results[0]}; silent connection ${results[1]}; idle keep-alive after its response ${results[2]}`)
}

const rawTls = netConnect({ host: '127.0.0.1', port: secure.port })
const rawStart = performance.now()
await Promise.all([
  cases('HTTP', plain.port, false),
  cases('HTTPS', secure.port, true),
  watch(rawTls, () => rawStart).then((r) => console.log(`HTTPS: TCP connection that never starts its TLS handshake closed after ${r}`)),
])
await Promise.all([plain.close(0), secure.close(0)])
rmSync(dir, { recursive: true, force: true })
