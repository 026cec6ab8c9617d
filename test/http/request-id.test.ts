/**
 * Request ids and per-request entries (issue 11, item 3, in the app): an incoming X-Request-Id is
 * kept when it is a sane token, else a fresh one is made; either way it is returned. Each answered
 * request yields one entry with the route pattern and the path, never the query string or a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, type VentureApp } from '../../src/http/app.js'
import type { RequestEntry } from '../../src/http/observe.js'
import { BASE, createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
let app: VentureApp
const entries: RequestEntry[] = []
beforeAll(async () => {
  h = await createHarness({ companies: 50 })
  app = createApp(h.engine, { clock: () => HARNESS_NOW, onRequest: (e) => entries.push(e) })
})
afterAll(async () => { await h.close() })

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function send(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; entry: RequestEntry }> {
  entries.length = 0
  const res = await app.fetch(new Request(`${BASE}${path}`, { headers }))
  await res.arrayBuffer()
  expect(entries).toHaveLength(1)
  return { res, entry: entries[0]! }
}

describe('X-Request-Id', () => {
  it('keeps a sane incoming id and returns it', async () => {
    const { res, entry } = await send(`/companies?stage=a&key=${h.fullKey}`, { 'x-request-id': 'edge-7f3a.42' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe('edge-7f3a.42')
    expect(entry.requestId).toBe('edge-7f3a.42')
  })

  it('makes a fresh id when none, or no sane one, is sent; a key-shaped one is never echoed', async () => {
    for (const sent of [undefined, '', 'x'.repeat(200), 'has space', 'new\u00e9', `trace-${h.trialKey}`]) {
      const { res, entry } = await send(`/companies?key=${h.fullKey}`, sent === undefined ? {} : { 'x-request-id': sent })
      expect(res.headers.get('x-request-id'), String(sent)).toMatch(UUID)
      expect(entry.requestId).toBe(res.headers.get('x-request-id'))
    }
  })

  it('is on every answer, errors and keyless ones included, and differs between requests', async () => {
    const a = await send('/companies')
    const b = await send('/no/such/path')
    expect(a.res.status).toBe(403)
    expect(b.res.status).toBe(404)
    expect(a.res.headers.get('x-request-id')).toMatch(UUID)
    expect(b.res.headers.get('x-request-id')).toMatch(UUID)
    expect(a.res.headers.get('x-request-id')).not.toBe(b.res.headers.get('x-request-id'))
  })
})

describe('request entries', () => {
  it('carry the route pattern, the path without the query string, the status and a duration', async () => {
    const id = (await h.json<{ companies: { id: number }[] }>('/companies?per_page=1')).companies[0]!.id
    const { entry } = await send(`/companies/${id}?key=${h.fullKey}`)
    expect(entry).toMatchObject({ method: 'GET', route: '/companies/:id', path: `/companies/${id}`, status: 200 })
    expect(entry.ms).toBeGreaterThan(0)
    const missing = await send(`/nowhere?key=${h.fullKey}`)
    expect(missing.entry).toMatchObject({ route: '(none)', path: '/nowhere', status: 404 })
  })

  it('never hold a key, not even one put in the path', async () => {
    const { entry } = await send(`/companies/${h.trialKey}/stories?key=${h.fullKey}`)
    const text = JSON.stringify(entry)
    expect(text).not.toContain(h.trialKey.slice(4, 14))
    expect(text).not.toContain(h.fullKey.slice(4, 14))
    expect(entry.path).toBe('/companies/[api key]/stories')
    expect(entry.route).toBe('/companies/:id/stories')
  })
})
