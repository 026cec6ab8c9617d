/**
 * Mistakes a client makes on the wire, answered with a problem+json that says what to send instead
 * of an empty reply or a bare 400: plain HTTP on the HTTPS port, raw UTF-8 in the URL, JSON posted
 * under a form's Content-Type. And a body over the server's limit, refused before it is read, still
 * carries the quota headers of an authenticated request. Real sockets for what the Node bridge answers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { connect as netConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startNodeServer, type RunningServer } from '../../src/http/node-server.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { loadOrCreateDevCertificate } from '../../src/http/tls.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
let dir: string
let ca: string
let server: RunningServer
beforeAll(async () => {
  h = await createHarness({ companies: 60 })
  dir = mkdtempSync(join(tmpdir(), 'ventureql-wire-hints-'))
  const tls = await loadOrCreateDevCertificate(dir)
  ca = tls.cert
  server = await startNodeServer({ port: 0, fetch: h.app.fetch, tls, maxBodyBytes: 1000 })
})
afterAll(async () => {
  await server.close()
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

interface Answer { status: number; headers: Map<string, string>; body: any }

/** One request as raw bytes, over TLS or plain TCP; the answer parsed by hand (status, headers, JSON body). */
function raw(bytes: Buffer, plain = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = plain
      ? netConnect(server.port, '127.0.0.1', () => socket.write(bytes))
      : tlsConnect({ host: '127.0.0.1', port: server.port, ca, servername: 'localhost' }, () => socket.write(bytes))
    socket.on('data', (d: Buffer) => chunks.push(d))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const [head, ...rest] = text.split('\r\n\r\n')
      const [statusLine, ...lines] = head!.split('\r\n')
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      if (statusLine === undefined || statusLine === '') return reject(new Error('empty reply'))
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n')) })
    })
  })
}

const requestLine = (target: Buffer | string, extra = '') => Buffer.concat([
  Buffer.from('GET '), Buffer.isBuffer(target) ? target : Buffer.from(target, 'utf8'),
  Buffer.from(` HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${h.fullKey}\r\nConnection: close\r\n${extra}\r\n`),
])

function expectProblem(answer: Answer, status: number): any {
  expect(answer.status).toBe(status)
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return problemSchema.parse(answer.body)
}

describe('plain HTTP on the HTTPS port', () => {
  it('gets a 400 saying to use https://, not an empty reply', async () => {
    const body = expectProblem(await raw(requestLine('/companies'), true), 400)
    expect(body.error).toMatch(/speaks HTTPS only.*https:\/\//)
  })

  it('leaves HTTPS as it was on the same port', async () => {
    expect((await raw(requestLine('/ratelimit/usage'))).status).toBe(200)
  })
})

describe('raw (unencoded) UTF-8 in the URL', () => {
  it('names the parameter, shows what was sent and how to encode it', async () => {
    const body = expectProblem(await raw(requestLine('/search?object_types=company&term=café')), 400)
    expect(body.issues).toHaveLength(1)
    expect(body.issues[0]).toMatchObject({ code: 'invalid_value', path: '/term', got: 'café' })
    expect(body.error).toContain('term=caf%C3%A9')
  })

  it('names the path when the bytes are there, and says when they are not UTF-8 at all', async () => {
    const inPath = expectProblem(await raw(requestLine('/companies/café')), 400)
    expect(inPath.issues[0]).toMatchObject({ path: '', got: '/companies/café' })
    const latin1 = expectProblem(await raw(requestLine(Buffer.from('/companies?company_name=caf\xe9', 'latin1'))), 400)
    expect(latin1.issues[0]).toMatchObject({ path: '/company_name', got: 'raw bytes that are not UTF-8' })
  })

  it('is the same request as the percent-encoded one once encoded', async () => {
    const encoded = await raw(requestLine('/search?object_types=company&term=caf%C3%A9'))
    expect(encoded.status).toBe(200)
  })
})

describe('a body over the server limit, refused before it is read', () => {
  it('is a 413 with the quota headers, counted like every other answer of a keyed request', async () => {
    const { key, record } = await h.newKey(10)
    const body = JSON.stringify({ dataset: 'companies', filter: { name: 'x'.repeat(2000) } })
    const answer = await raw(Buffer.from(`POST /queries HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`))
    const problem = expectProblem(answer, 413)
    expect(problem.error).toMatch(/larger than the limit of 1000 bytes/)
    expect(answer.headers.get('x-quota-limit')).toBe('10')
    expect(answer.headers.get('x-quota-remaining')).toBe('9')
    expect(answer.headers.get('connection')).toBe('close')
    expect(await h.quotaUsed(record.keyId)).toBe(1)
  })

  it('without a key is the bridge\'s own 413, with no quota headers (no key, no quota)', async () => {
    const answer = await raw(Buffer.from('POST /queries HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5000\r\n\r\n'))
    expect(expectProblem(answer, 413).error).toMatch(/5000 bytes\) is larger than the limit of 1000 bytes/)
    expect(answer.headers.get('x-quota-limit')).toBeUndefined()
  })
})

describe('JSON sent under a form Content-Type (curl -d)', () => {
  it('is a 400 naming the Content-Type header to send', async () => {
    const res = await h.request('/queries', { init: { method: 'POST', body: '{"dataset":"companies","per_page":2}', headers: { 'content-type': 'application/x-www-form-urlencoded' } } })
    expect(res.status).toBe(400)
    const body = problemSchema.parse(await res.json()) as any
    expect(body.error).toMatch(/Content-Type: application\/json/)
    expect(body.issues[0]).toMatchObject({ code: 'invalid_type', expected: 'Content-Type: application/json', got: 'Content-Type: application/x-www-form-urlencoded' })
  })

  it('is read as JSON with the right header or none, and a real form still works', async () => {
    const json = '{"dataset":"companies","per_page":2}'
    for (const headers of [{ 'content-type': 'application/json' }, {}] as Record<string, string>[]) {
      expect((await h.request('/queries', { init: { method: 'POST', body: json, headers } })).status).toBe(200)
    }
    const form = await h.request('/queries', { init: { method: 'POST', body: 'dataset=companies&per_page=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } } })
    expect(form.status).toBe(200)
  })
})
