/**
 * `serve --access-log`, `--log-format` and `--metrics` over a real socket (issue 11, items 2 and
 * 3): one JSON line per request with the request id (the client's X-Request-Id, returned), route,
 * path, status and duration, never the key or the query string; a human-readable line in the
 * pretty form; GET /metrics without a key when --metrics is given, a 404 without it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe, type ServeHandle } from '../../src/cli/serve.js'
import { createRequestLog, resolveLogFormat } from '../../src/http/request-log.js'

const dirs: string[] = []
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }) })
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vql-serve-ops-'))
  dirs.push(dir)
  return dir
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('serve --access-log --log-format json --metrics', () => {
  let handle: ServeHandle
  const lines: string[] = []
  const out: string[] = []
  beforeAll(async () => {
    handle = await startServe({
      dataDir: tempDir(), port: 0, companies: 50, http: true, metrics: true, accessLog: true, logFormat: 'json',
      logDestination: { write: (line: string) => { lines.push(line) } }, out: (l) => out.push(l), err: () => {},
    })
  })
  afterAll(async () => { await handle?.close() })

  it('says where the operations endpoints are', () => {
    expect(out.join('\n')).toMatch(/operations: http:\/\/127\.0\.0\.1:\d+\/healthz, .*\/readyz, .*\/metrics \(Prometheus, no key\)/)
  })

  it('logs one JSON line per request with the request id it returns, never the key or the query string', async () => {
    const key = handle.createdKeys!.full
    lines.length = 0
    const res = await get(`${handle.url}/companies?stage=a|b&key=${key}`, { 'x-request-id': 'lb-0001' })
    expect(res.status).toBe(200)
    expect(res.headers['x-request-id']).toBe('lb-0001')
    const bad = await get(`${handle.url}/companies?employees=lots&key=${key}`)
    expect(bad.status).toBe(400)
    await new Promise((r) => setTimeout(r, 20))
    expect(lines).toHaveLength(2)
    const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(first).toMatchObject({ level: 30, msg: 'request', request_id: 'lb-0001', method: 'GET', route: '/companies', path: '/companies', status: 200 })
    expect(first!.duration_ms).toEqual(expect.any(Number))
    expect(Date.parse(String(first!.time))).not.toBeNaN()
    expect(second).toMatchObject({ request_id: bad.headers['x-request-id'], status: 400 })
    const all = lines.join('')
    expect(all).not.toContain(key.slice(4, 14))
    expect(all).not.toContain('stage=')
    expect(all).not.toContain('?')
  })

  it('serves /metrics without a key, counting what it answered', async () => {
    const res = await get(`${handle.url}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(res.body).toMatch(/^ventureql_http_requests_total\{method="GET",route="\/companies",status="200"\} [1-9]\d*$/m)
    expect(res.body).toMatch(/^process_cpu_user_seconds_total /m)
    expect(res.body).toMatch(/^ventureql_pool_workers\{state="idle"\} \d+$/m)
  })
})

describe('serve without --metrics', () => {
  it('has no /metrics, and healthz/readyz still answer without a key', async () => {
    const handle = await startServe({ dataDir: tempDir(), port: 0, companies: 50, http: true, out: () => {}, err: () => {} })
    try {
      const key = handle.createdKeys!.full
      expect((await get(`${handle.url}/metrics?key=${key}`)).status).toBe(404)
      expect((await get(`${handle.url}/healthz`)).status).toBe(200)
      expect((await get(`${handle.url}/readyz`)).status).toBe(200)
    } finally {
      await handle.close()
    }
  })
})

describe('the pretty request log', () => {
  it('is one human-readable line: time, level, method, path, status, duration, route and request id', () => {
    const lines: string[] = []
    const destination = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done() } })
    const log = createRequestLog({ format: 'pretty', colorize: false, destination })
    log.log({ requestId: 'abc-1', method: 'GET', route: '/companies/:id', path: '/companies/42', status: 200, ms: 1.84 })
    log.log({ requestId: 'abc-2', method: 'POST', route: '/queries', path: '/queries', status: 503, ms: 10_000 })
    const text = lines.join('')
    expect(text).toMatch(/^\[?\d\d:\d\d:\d\d\.\d{3}\]? INFO: GET \/companies\/42 200 1\.8 ms \(route \/companies\/:id, request abc-1\)$/m)
    expect(text).toMatch(/ERROR: POST \/queries 503 10000 ms \(route \/queries, request abc-2\)$/m)
    expect(text).not.toContain('{')
  })

  it('is chosen by --log-format auto on a terminal; JSON goes to files and pipes', () => {
    expect(resolveLogFormat('auto', { isTTY: true })).toBe('pretty')
    expect(resolveLogFormat('auto', { isTTY: false })).toBe('json')
    expect(resolveLogFormat('auto', {})).toBe('json')
    expect(resolveLogFormat('json', { isTTY: true })).toBe('json')
  })
})
