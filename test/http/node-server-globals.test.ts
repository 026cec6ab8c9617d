/**
 * `startNodeServer({ overrideGlobalObjects })` (http/node-server.ts): with the adapter's lightweight
 * Request and Response in place of the platform's (what `ventureql serve` runs), the server answers
 * byte for byte what it answers without them, over real sockets: JSON, gzip, a POST body, an error.
 * Without the option the process's globals are left alone (an embedding host may rely on them).
 */
import { gunzipSync } from 'node:zlib'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startNodeServer, type RunningServer } from '../../src/http/node-server.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness({ companies: 60 }) })
afterAll(async () => { await h.close() })

interface Raw { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

function send(server: RunningServer, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path, method: init.method ?? 'GET', headers: { authorization: `Bearer ${h.fullKey}`, ...init.headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(init.body)
  })
}

/** What a client sees, without the headers that differ between any two answers. */
async function answers(server: RunningServer): Promise<unknown[]> {
  const id = h.vdb.sqlite.prepare('select min(id) from companies').pluck().get() as number
  const seen: unknown[] = []
  const plain = await send(server, `/companies/${id}`)
  const zipped = await send(server, `/companies/${id}`, { headers: { 'accept-encoding': 'gzip' } })
  const posted = await send(server, '/queries', { method: 'POST', body: JSON.stringify({ dataset: 'companies', filter: { country: 'USA' }, per_page: 3 }), headers: { 'content-type': 'application/json' } })
  const refused = await send(server, '/companies?per_page=abc')
  const missing = await send(server, '/companies/999999999')
  for (const r of [plain, posted, refused, missing]) seen.push([r.status, r.headers['content-type'], r.headers['content-length'], JSON.parse(r.body.toString('utf8'))])
  seen.push([zipped.status, zipped.headers['content-encoding'], JSON.parse(gunzipSync(zipped.body).toString('utf8'))])
  return seen
}

describe('startNodeServer: overrideGlobalObjects', () => {
  it('leaves the globals alone by default, and answers the same with them replaced', async () => {
    const platform = { Request: globalThis.Request, Response: globalThis.Response }
    const plain = await startNodeServer({ port: 0, fetch: h.app.fetch })
    let before: unknown[]
    try {
      before = await answers(plain)
      expect(globalThis.Response).toBe(platform.Response)
      expect(globalThis.Request).toBe(platform.Request)
    } finally {
      await plain.close()
    }
    const fast = await startNodeServer({ port: 0, fetch: h.app.fetch, overrideGlobalObjects: true })
    try {
      expect(globalThis.Response).not.toBe(platform.Response)
      const after = await answers(fast)
      expect(after).toEqual(before)
      // Not vacuous: a record, a stored query's page, a 400 and a 404, and a gzip answer.
      expect(before.map((a) => (a as unknown[])[0])).toEqual([200, 200, 400, 404, 200])
      expect((before[4] as unknown[])[1]).toBe('gzip')
    } finally {
      await fast.close()
      Object.defineProperty(globalThis, 'Request', { value: platform.Request, configurable: true, writable: true })
      Object.defineProperty(globalThis, 'Response', { value: platform.Response, configurable: true, writable: true })
    }
  })
})
