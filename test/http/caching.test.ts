/**
 * Compression, conditional GETs and CORS (issue 11, item 5): brotli or gzip by Accept-Encoding;
 * an ETag on GET answers that a client sends back for a 304 until the data version changes;
 * Cache-Control saying which answers may be kept; CORS off unless origins are configured.
 */
import { request as httpRequest } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/app.js'
import { startNodeServer } from '../../src/http/node-server.js'
import { bumpDataVersion } from '../../src/store/open.js'
import { BASE, createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness({ companies: 80 }) })
afterAll(async () => { await h.close() })

const withHeaders = (headers: Record<string, string>) => ({ init: { headers } })
const LIST = '/companies?per_page=50&sort=name'

describe('compression by Accept-Encoding', () => {
  it('brotli, gzip or none, as the client ranks them; the decoded body is the identity body', async () => {
    const plain = await h.get(LIST)
    const identity = Buffer.from(await plain.arrayBuffer())
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(plain.headers.get('vary')).toMatch(/Accept-Encoding/)
    expect(identity.byteLength).toBeGreaterThan(1024)

    const br = await h.get(LIST, withHeaders({ 'accept-encoding': 'gzip, deflate, br' }))
    expect(br.headers.get('content-encoding')).toBe('br')
    const brBody = Buffer.from(await br.arrayBuffer())
    expect(brBody.byteLength).toBeLessThan(identity.byteLength / 3)
    expect(Number(br.headers.get('content-length'))).toBe(brBody.byteLength)
    expect(brotliDecompressSync(brBody).equals(identity)).toBe(true)

    for (const accept of ['gzip', 'br;q=0.5, gzip', 'br;q=0, *']) {
      const gz = await h.get(LIST, withHeaders({ 'accept-encoding': accept }))
      expect(gz.headers.get('content-encoding'), accept).toBe('gzip')
      expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(identity)).toBe(true)
    }
    for (const accept of ['identity', 'br;q=0, gzip;q=0', 'deflate']) {
      const none = await h.get(LIST, withHeaders({ 'accept-encoding': accept }))
      expect(none.headers.get('content-encoding'), accept).toBeNull()
    }
  })

  it('leaves small bodies alone', async () => {
    const res = await h.get('/healthz', withHeaders({ 'accept-encoding': 'br, gzip' }))
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('compresses over the Node server too (a real socket, as clients see it)', async () => {
    const server = await startNodeServer({ port: 0, fetch: h.app.fetch })
    try {
      const { headers, body } = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = httpRequest(`${server.url}${LIST}&key=${h.fullKey}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
        })
        req.on('error', reject)
        req.end()
      })
      expect(headers['content-encoding']).toBe('gzip')
      const decoded = JSON.parse(gunzipSync(body).toString('utf8')) as { companies: unknown[] }
      expect(decoded.companies).toHaveLength(50)
    } finally {
      await server.close()
    }
  })
})

describe('ETag and 304 Not Modified', () => {
  it('answers 304 (no body, quota headers kept) while the data version is unchanged, 200 with a new tag after it changes', async () => {
    const first = await h.get(LIST)
    const tag = first.headers.get('etag')!
    expect(tag).toMatch(/^W\/"v[0-9]+-[A-Za-z0-9_-]+"$/)
    expect(first.headers.get('cache-control')).toBe('private, no-cache')

    const again = await h.get(LIST, withHeaders({ 'if-none-match': tag }))
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('etag')).toBe(tag)
    expect(again.headers.get('x-quota-remaining')).toMatch(/^[0-9]+$/)
    // A list of validators, and a strong form of the same tag, match too (weak comparison).
    expect((await h.get(LIST, withHeaders({ 'if-none-match': `"other", ${tag.slice(2)}` }))).status).toBe(304)
    // Another tag, or none: the full answer.
    expect((await h.get(LIST, withHeaders({ 'if-none-match': 'W/"v0-nothing"' }))).status).toBe(200)

    await bumpDataVersion(h.served)
    const changed = await h.get(LIST, withHeaders({ 'if-none-match': tag }))
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(tag)
    expect(((await changed.json()) as { companies: unknown[] }).companies).toHaveLength(50)
  })

  it('a stored query\'s page is run before its 304 (it may have expired meanwhile): 404 once it is gone', async () => {
    const posted = await h.request('/queries', { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset: 'companies', filter: { employees: { gte: 2 } } }) } })
    const id = (await posted.json() as { query_id: string }).query_id
    const first = await h.get(`/queries/${id}?page=2`)
    expect(first.status).toBe(200)
    const tag = first.headers.get('etag')!
    const again = await h.get(`/queries/${id}?page=2`, withHeaders({ 'if-none-match': tag }))
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('content-length') ?? '0').toBe('0')
    expect(again.headers.get('content-type')).toBeNull()
    await h.mutate('delete from stored_queries where query_id = ?', id)
    const gone = await h.get(`/queries/${id}?page=2`, withHeaders({ 'if-none-match': tag }))
    expect(gone.status).toBe(404)
  })

  it('a tag differs by query string and by key plan, but not by where the key travels', async () => {
    const tagOf = async (path: string, options = {}) => (await h.get(path, options)).headers.get('etag')
    const base = await tagOf(LIST)
    expect(await tagOf('/companies?per_page=49&sort=name')).not.toBe(base)
    expect(await tagOf(LIST, { key: h.trialKey })).not.toBe(base)
    expect(await tagOf(LIST, { bearer: true })).toBe(base)
  })

  it('errors, POST answers and the quota usage are never kept (no-store, no ETag)', async () => {
    const bad = await h.get('/companies?employees=lots')
    expect(bad.status).toBe(400)
    expect(bad.headers.get('etag')).toBeNull()
    expect(bad.headers.get('cache-control')).toBe('no-store')
    const usage = await h.get('/ratelimit/usage')
    expect(usage.status).toBe(200)
    expect(usage.headers.get('etag')).toBeNull()
    expect(usage.headers.get('cache-control')).toBe('no-store')
    const posted = await h.request('/queries', { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset: 'companies', filter: {} }) } })
    expect(posted.status).toBe(200)
    expect(posted.headers.get('etag')).toBeNull()
    expect(posted.headers.get('cache-control')).toBe('no-store')
  })
})

describe('CORS', () => {
  const origin = 'https://app.example.com'
  const preflight = (app: { fetch(r: Request): Promise<Response> }, from: string) => app.fetch(new Request(`${BASE}/companies`, {
    method: 'OPTIONS', headers: { origin: from, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  }))

  it('is off by default: no CORS headers, and a preflight (which carries no key) is the JSON 404 of a method no endpoint answers', async () => {
    const res = await h.get(LIST, withHeaders({ origin }))
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    const pre = await preflight(h.app, origin)
    expect(pre.status).toBe(404)
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    // With a key too.
    const keyed = await h.request('/companies', { init: { method: 'OPTIONS', headers: { origin } } })
    expect(keyed.status).toBe(404)
    expect(keyed.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('with corsOrigins, allows those origins (preflight without a key) and no others', async () => {
    const app = createApp(h.engine, { corsOrigins: [origin] })
    const pre = await preflight(app, origin)
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin)
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization')
    expect(pre.headers.get('access-control-allow-methods')).toContain('GET')

    const get = await app.fetch(new Request(`${BASE}${LIST}`, { headers: { origin, authorization: `Bearer ${h.fullKey}` } }))
    expect(get.status).toBe(200)
    expect(get.headers.get('access-control-allow-origin')).toBe(origin)
    expect(get.headers.get('access-control-expose-headers')).toContain('X-Quota-Remaining')
    expect(get.headers.get('vary')).toMatch(/Origin/)

    const other = await app.fetch(new Request(`${BASE}${LIST}`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${h.fullKey}` } }))
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    expect((await preflight(app, 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull()

    const any = createApp(h.engine, { corsOrigins: ['*'] })
    expect((await preflight(any, 'https://anyone.example')).headers.get('access-control-allow-origin')).toBe('*')
  })
})
