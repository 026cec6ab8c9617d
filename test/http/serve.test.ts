/**
 * `ventureql serve` for real: HTTPS on a free port, a temporary data directory, a small demo
 * database, called over TLS trusting only the generated certificate. Started in-process through
 * `startServe` (what the CLI calls) and once as the CLI itself in a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { connect as tlsConnect } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ServeError, startServe, type ServeHandle } from '../../src/cli/serve.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { ROUTE_MODULES } from '../../src/http/routes/index.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { loadOrCreateDevCertificate } from '../../src/http/tls.js'
import { createApiKey } from '../../src/store/api-keys.js'

const COMPANIES = 300
const dirs: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vql-serve-'))
  dirs.push(dir)
  return dir
}
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }) })

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: string; peerCertificate?: Buffer }

/** A GET (or other method) over HTTPS trusting only `ca`, or over plain HTTP when `ca` is undefined. */
function call(url: string, options: { ca?: string; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(target, { method: options.method ?? 'GET', headers: options.headers, ...(options.ca ? { ca: options.ca, agent: false } : {}) }, (res) => {
      const chunks: Buffer[] = []
      const socket = res.socket as import('node:tls').TLSSocket
      const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate().raw : undefined
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ...(peer ? { peerCertificate: peer } : {}) }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

const companyListSchema = ROUTE_MODULES.flatMap((m) => m.specs).find((s) => s.method === 'get' && s.path === '/companies')?.response
const usageSchema = ROUTE_MODULES.flatMap((m) => m.specs).find((s) => s.method === 'get' && s.path === '/ratelimit/usage')?.response

describe('ventureql serve, in-process (HTTPS with a development certificate)', () => {
  let dataDir: string
  let first: ServeHandle
  let lines: string[]
  let ca: string

  beforeAll(async () => {
    dataDir = tempDir()
    lines = []
    first = await startServe({ dataDir, port: 0, companies: COMPANIES, out: (l) => lines.push(l), err: () => {} })
    ca = readFileSync(join(dataDir, 'cert.pem'), 'utf8')
  }, 60_000)
  afterAll(async () => { await first?.close() })

  it('prints the https URL, both new keys on their own lines and how to trust the certificate', () => {
    expect(first.url).toMatch(/^https:\/\/127\.0\.0\.1:[0-9]+$/)
    expect(lines.some((l) => l.includes(first.url))).toBe(true)
    const full = lines.find((l) => l.startsWith('full key: '))?.slice('full key: '.length)
    const trial = lines.find((l) => l.startsWith('trial key: '))?.slice('trial key: '.length)
    expect(full).toBe(first.createdKeys?.full)
    expect(trial).toBe(first.createdKeys?.trial)
    expect(full).toMatch(/^vql_\S+$/)
    expect(lines.join('\n')).toContain(`curl --cacert ${join(dataDir, 'cert.pem')}`)
    expect(lines.join('\n')).toContain('NODE_EXTRA_CA_CERTS=')
    expect(lines.join('\n')).toContain(`${COMPANIES} companies`)
  })

  it('creates a certificate for localhost, 127.0.0.1 and ::1 with a private key only its owner reads', () => {
    const cert = new X509Certificate(ca)
    expect(cert.subject).toContain('CN=localhost')
    expect(cert.subjectAltName).toContain('DNS:localhost')
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1')
    expect(cert.subjectAltName).toMatch(/IP Address:(::1|0:0:0:0:0:0:0:1)/)
    expect(statSync(join(dataDir, 'key.pem')).mode & 0o077).toBe(0)
  })

  it('answers a request with the full key: 200, the spec shape, quota headers, fetchable absolute urls', async () => {
    const key = first.createdKeys!.full
    const res = await call(`${first.url}/companies?stage=a|b|c&key=${key}`, { ca })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(Number(res.headers['x-quota-limit'])).toBe(100_000)
    const body = JSON.parse(res.body)
    expect(companyListSchema!.safeParse(body).success).toBe(true)
    expect(body.companies.length).toBeGreaterThan(0)
    const item = body.companies[0]
    expect(item.url).toBe(`${first.url}/companies/${item.id}`)
    const detail = await call(item.url, { ca, headers: { authorization: `Bearer ${key}` } })
    expect(detail.status).toBe(200)
    expect(JSON.parse(detail.body).name).toBe(item.company_name)
  })

  it('answers the usage endpoint through localhost too (the certificate names it)', async () => {
    const port = new URL(first.url).port
    const res = await call(`https://localhost:${port}/ratelimit/usage`, { ca, headers: { authorization: `Bearer ${first.createdKeys!.full}` } })
    expect(res.status).toBe(200)
    expect(usageSchema!.safeParse(JSON.parse(res.body)).success).toBe(true)
  })

  it('refuses a request without a key with 403 problem+json, and a trial key asking for page 2', async () => {
    const none = await call(`${first.url}/companies`, { ca })
    expect(none.status).toBe(403)
    expect(none.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(problemSchema.safeParse(JSON.parse(none.body)).success).toBe(true)
    const trial = await call(`${first.url}/companies?page=2&key=${first.createdKeys!.trial}`, { ca })
    expect(trial.status).toBe(403)
    expect(JSON.parse(trial.body).error).toMatch(/trial/i)
  })

  it('is not trusted by a client that does not trust the development certificate', async () => {
    await expect(call(`${first.url}/openapi.json`, {})).rejects.toThrow(/self[- ]signed|certificate/i)
  })

  it('survives malformed requests: bad request line, bad Host, oversized body, aborted client', async () => {
    const { port } = new URL(first.url)
    const raw = (text: string) => new Promise<string>((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' }, () => socket.end(text))
      let got = ''
      socket.on('data', (d) => { got += d.toString('latin1') })
      socket.on('close', () => resolve(got))
      socket.on('error', () => resolve(got))
    })
    expect(await raw('NONSENSE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/)
    expect(await raw('GET /companies HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/)
    expect(await raw(`GET /${'a'.repeat(40_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/)
    const big = await call(`${first.url}/queries`, {
      ca, method: 'POST', headers: { authorization: `Bearer ${first.createdKeys!.full}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dataset: 'investors', filter: { name: 'x'.repeat(2_000_000) } }),
    })
    expect(big.status).toBe(413)
    expect(JSON.parse(big.body).error).toMatch(/larger than the limit/)
    // A client that sends half a request and goes away.
    await new Promise<void>((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' }, () => {
        socket.write('POST /queries HTTP/1.1\r\nHost: localhost\r\nContent-Length: 500\r\ncontent-type: application/json\r\n\r\n{"data')
        setTimeout(() => { socket.destroy(); resolve() }, 50)
      })
    })
    const after = await call(`${first.url}/ratelimit/usage?key=${first.createdKeys!.full}`, { ca })
    expect(after.status).toBe(200)
  })

  it('grants exactly R of N concurrent requests over the network to a key with R remaining', async () => {
    const made = await createApiKey(first.engine.database, { plan: 'full', quota: 7, period: 'day' })
    if (!made.ok) throw new Error('key')
    const replies = await Promise.all(Array.from({ length: 25 }, () => call(`${first.url}/companies?key=${made.value.key}`, { ca })))
    const statuses = replies.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(7)
    expect(statuses.filter((s) => s === 429)).toHaveLength(18)
    const remaining = replies.filter((r) => r.status === 200).map((r) => Number(r.headers['x-quota-remaining'])).sort((a, b) => a - b)
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6])
  })

  it('refuses a second server on the same port with a clear error', async () => {
    const port = Number(new URL(first.url).port)
    await expect(startServe({ dataDir, port, out: () => {}, err: () => {} })).rejects.toThrow(new RegExp(`port ${port} on 127.0.0.1 is already in use`))
  })

  it('reuses the certificate, the database and the keys on the next start and prints no key', async () => {
    const fullKey = first.createdKeys!.full
    await first.close()
    expect((first.engine.database as SqliteVentureDb).sqlite.open).toBe(false)
    const again: string[] = []
    const second = await startServe({ dataDir, port: 0, out: (l) => again.push(l), err: () => {} })
    try {
      expect(second.tls?.created).toBe(false)
      expect(second.tls?.cert).toBe(ca)
      expect(second.createdKeys).toBeUndefined()
      expect(again.some((l) => /^(full|trial) key:/.test(l))).toBe(false)
      expect(again.join('\n')).toMatch(/api keys: 3 active/)   // the two first-run keys and the quota test's
      expect(again.join('\n')).toContain('ventureql keys create')
      const res = await call(`${second.url}/ratelimit/usage?key=${fullKey}`, { ca })
      expect(res.status).toBe(200)
      expect(res.peerCertificate?.equals(new X509Certificate(ca).raw)).toBe(true)
    } finally {
      await second.close()
    }
  })
})

describe('ventureql serve options', () => {
  it('serves the certificate given with --tls-cert/--tls-key', async () => {
    const given = await loadOrCreateDevCertificate(tempDir())
    const dataDir = tempDir()
    const handle = await startServe({ dataDir, port: 0, companies: 50, tlsCert: given.certPath, tlsKey: given.keyPath, out: () => {}, err: () => {} })
    try {
      expect(handle.tls?.selfSigned).toBe(false)
      const res = await call(`${handle.url}/openapi.json`, { ca: given.cert })
      expect(res.status).toBe(200)
      expect(res.peerCertificate?.equals(new X509Certificate(given.cert).raw)).toBe(true)
      // No development certificate was made next to the database.
      expect(() => readFileSync(join(dataDir, 'cert.pem'))).toThrow()
    } finally {
      await handle.close()
    }
  })

  it('serves plain HTTP with --http and says it belongs behind a TLS proxy', async () => {
    const lines: string[] = []
    const handle = await startServe({ dataDir: tempDir(), port: 0, companies: 50, http: true, out: (l) => lines.push(l), err: () => {} })
    try {
      expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/)
      expect(lines.join('\n')).toMatch(/proxy that terminates TLS/)
      const res = await call(`${handle.url}/ratelimit/usage?key=${handle.createdKeys!.full}`)
      expect(res.status).toBe(200)
      const item = JSON.parse((await call(`${handle.url}/companies?key=${handle.createdKeys!.full}`)).body).companies[0]
      expect(item.url.startsWith(`${handle.url}/companies/`)).toBe(true)
    } finally {
      await handle.close()
    }
  })

  it('uses --base-url for item URLs and the OpenAPI servers entry (a proxy in front)', async () => {
    const handle = await startServe({ dataDir: tempDir(), port: 0, companies: 50, http: true, baseUrl: 'https://api.example.com/v1', out: () => {}, err: () => {} })
    try {
      const item = JSON.parse((await call(`${handle.url}/companies?key=${handle.createdKeys!.full}`)).body).companies[0]
      expect(item.url).toBe(`https://api.example.com/v1/companies/${item.id}`)
      expect(JSON.parse((await call(`${handle.url}/openapi.json`)).body).servers).toEqual([{ url: 'https://api.example.com/v1' }])
    } finally {
      await handle.close()
    }
    await expect(startServe({ dataDir: tempDir(), port: 0, baseUrl: 'ftp://x', out: () => {}, err: () => {} })).rejects.toThrow(/--base-url/)
  })

  it('rejects bad option combinations and unusable certificates with one clear message each', async () => {
    const dir = tempDir()
    const quiet = { out: () => {}, err: () => {}, port: 0, dataDir: dir }
    await expect(startServe({ ...quiet, tlsCert: 'x.pem' })).rejects.toThrow(ServeError)
    await expect(startServe({ ...quiet, tlsCert: 'x.pem' })).rejects.toThrow(/--tls-cert and --tls-key go together/)
    await expect(startServe({ ...quiet, connections: 4 })).rejects.toThrow(/--connections applies to a PostgreSQL database/)
    await expect(startServe({ ...quiet, database: 'postgres://postgres@127.0.0.1:1/x', connections: 0 })).rejects.toThrow(/--connections must be a whole number/)
    await expect(startServe({ ...quiet, http: true, tlsCert: 'a', tlsKey: 'b' })).rejects.toThrow(/cannot be combined/)
    await expect(startServe({ ...quiet, tlsCert: join(dir, 'missing.pem'), tlsKey: join(dir, 'missing.key') })).rejects.toThrow(/cannot read the certificate \(--tls-cert\) .*missing\.pem/)
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate')
    await expect(startServe({ ...quiet, tlsCert: join(dir, 'junk.pem'), tlsKey: join(dir, 'junk.pem') })).rejects.toThrow(/is not a PEM certificate/)
    const a = await loadOrCreateDevCertificate(tempDir())
    const b = await loadOrCreateDevCertificate(tempDir())
    await expect(startServe({ ...quiet, tlsCert: a.certPath, tlsKey: b.keyPath })).rejects.toThrow(/does not belong to the certificate/)
    await expect(startServe({ ...quiet, database: join(dir, 'nope.db') })).rejects.toThrow(/does not exist/)
    await expect(startServe({ ...quiet, port: 70000 })).rejects.toThrow(/--port/)
    const broken = tempDir()
    writeFileSync(join(broken, 'cert.pem'), 'garbage')
    writeFileSync(join(broken, 'key.pem'), 'garbage')
    await expect(startServe({ ...quiet, dataDir: broken })).rejects.toThrow(/delete .*cert\.pem and .*key\.pem to have a new development certificate made/)
    // None of these left a database or keys behind.
    expect(() => readFileSync(join(dir, 'ventureql.db'))).toThrow()
  })
})

describe('ventureql serve, the command line', () => {
  function start(args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout!.on('data', (d) => { out += d })
    child.stderr!.on('data', (d) => { err += d })
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    return { child, stdout: () => out, stderr: () => err, exited }
  }
  async function until(predicate: () => boolean, ms: number): Promise<void> {
    const end = Date.now() + ms
    while (!predicate()) {
      if (Date.now() > end) throw new Error('timed out')
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  it('prints the URL and keys for scripts, serves them, refuses a busy port with exit 1, and stops on SIGTERM', async () => {
    const dataDir = tempDir()
    const server = start(['--data-dir', dataDir, '--port', '0', '--companies', String(COMPANIES)])
    try {
      await until(() => /^trial key: /m.test(server.stdout()) || server.child.exitCode !== null, 60_000)
      const out = server.stdout()
      const url = /(https:\/\/127\.0\.0\.1:[0-9]+)/.exec(out)?.[1]
      const full = /^full key: (\S+)$/m.exec(out)?.[1]
      const trial = /^trial key: (\S+)$/m.exec(out)?.[1]
      expect(url, server.stderr()).toBeDefined()
      expect(full).toMatch(/^vql_/)
      expect(trial).toMatch(/^vql_/)
      const ca = readFileSync(join(dataDir, 'cert.pem'), 'utf8')
      expect((await call(`${url}/companies?key=${full}`, { ca })).status).toBe(200)
      expect((await call(`${url}/companies`, { ca, headers: { authorization: `Bearer ${trial}` } })).status).toBe(200)
      // The demo data is dated from the day it was generated (issue 11, item 8): it says so, and the
      // recent date phrases match some of it, as they would live data.
      expect(out).toMatch(/^data: generated, dated as of \d{4}-\d{2}-\d{2}(?: \(today\))?$/m)
      for (const phrase of ['last_funding_date=raised+in+past+3+months', 'est_founding_date=within+1+year']) {
        const listed = await call(`${url}/companies?${phrase}&key=${full}`, { ca })
        expect(listed.status).toBe(200)
        expect(JSON.parse(listed.body).meta.total_record_count, phrase).toBeGreaterThan(0)
      }
      // Keys never reach the logs, also not from a query string.
      expect(server.stderr()).not.toContain(full!)

      const busy = start(['--data-dir', dataDir, '--port', new URL(url!).port])
      expect(await busy.exited).toBe(1)
      expect(busy.stderr()).toMatch(/already in use/)

      server.child.kill('SIGTERM')
      expect(await server.exited).toBe(0)
      expect(server.stderr()).toMatch(/stopped/)
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  }, 120_000)
})
