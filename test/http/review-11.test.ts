/**
 * Findings of the hostile review of issue 11 (item 14), each pinned by a test that failed before
 * its fix: error bodies never quote a key-shaped run, whole or cut; a value is quoted capped, so a
 * huge invalid request gets a small error; CONNECT is answered with the JSON 404 the serving guide
 * promises; `engine.page(id, null)` returns issues.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startNodeServer } from '../../src/http/node-server.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness({ companies: 50 }) })
afterAll(async () => { await h.close() })

const post = (body: string, key?: string | null) =>
  h.request('/queries', { ...(key !== undefined ? { key } : {}), init: { method: 'POST', body, headers: { 'content-type': 'application/json' } } })

/** Every run of 8+ characters of `key` (after its `vql_` prefix) that occurs in `text`. */
function keyPieces(text: string, key: string): string[] {
  const secret = key.slice(4)
  const found: string[] = []
  for (let start = 0; start + 8 <= secret.length; start++) {
    const piece = secret.slice(start, start + 8)
    if (text.includes(piece)) found.push(piece)
  }
  return found
}

describe('error bodies never quote a key-shaped run, whole or cut', () => {
  // 43 characters of filler put the key across the 80-character cut of value previews.
  const fillers = [0, 1, 20, 43, 44, 45, 50, 60, 70, 76, 78].map((n) => 'a'.repeat(n))

  it('a filter value holding another key, cut or not, in POST /queries', async () => {
    for (const filler of fillers) {
      // employees takes an integer: the value is quoted back in `got` and in the message.
      const res = await post(JSON.stringify({ dataset: 'companies', filter: { employees: filler + h.trialKey } }))
      const text = await res.text()
      expect(res.status, filler.length.toString()).toBe(400)
      expect(keyPieces(text, h.trialKey), `filler ${filler.length}: ${text}`).toEqual([])
      if (filler.length <= 60) expect(text).toContain('[api key]')
    }
  })

  it('a list parameter holding a key in GET /companies', async () => {
    for (const filler of fillers) {
      const res = await h.get(`/companies?country=${filler}${h.trialKey}`)
      const text = await res.text()
      expect(res.status).toBe(400)
      expect(keyPieces(text, h.trialKey), `filler ${filler.length}: ${text}`).toEqual([])
    }
  })

  it('an unknown field or path named after a key', async () => {
    const field = await post(JSON.stringify({ dataset: 'companies', filter: { ['x'.repeat(40) + h.trialKey]: 1 } }))
    expect(keyPieces(await field.text(), h.trialKey)).toEqual([])
    const path = await h.get(`/${'x'.repeat(190)}${h.trialKey}`)
    expect(path.status).toBe(404)
    expect(keyPieces(await path.text(), h.trialKey)).toEqual([])
  })
})

describe('a huge invalid request gets a small error (each value quoted once, capped)', () => {
  const huge = 'y'.repeat(999_000)
  const cases: [string, () => Promise<Response>][] = [
    ['an unknown field name', () => post(JSON.stringify({ dataset: 'companies', filter: { [huge]: 1 } }))],
    ['an unknown operator', () => post(JSON.stringify({ dataset: 'companies', filter: { employees: { [huge]: 1 } } }))],
    ['an unknown dataset', () => post(JSON.stringify({ dataset: huge, filter: {} }))],
    ['an unknown enum value', () => post(JSON.stringify({ dataset: 'companies', filter: { stage: huge } }))],
    ['an unknown sort field', () => post(JSON.stringify({ dataset: 'companies', filter: {}, sort: [{ [huge]: 'asc' }] }))],
    ['an unknown envelope key', () => post(JSON.stringify({ dataset: 'companies', filter: {}, [huge]: 1 }))],
    ['a stored-query id', () => h.get(`/queries/${huge.slice(0, 300_000)}`)],
    ['an unknown path', () => h.get(`/${huge.slice(0, 300_000)}`)],
  ]
  it.each(cases)('%s', async (_name, send) => {
    const res = await send()
    const text = await res.text()
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
    expect(JSON.parse(text).error).toEqual(expect.any(String))
    expect(text.length).toBeLessThan(5_000)
  })
})

describe('CONNECT', () => {
  it('is answered with the JSON 404 every unknown method gets, not a closed connection', async () => {
    const server = await startNodeServer({ port: 0, fetch: async () => new Response('not reached', { status: 200 }) })
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () => socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'))
        let text = ''
        socket.setEncoding('utf8')
        socket.on('data', (d: string) => { text += d })
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      })
      expect(answer).toMatch(/^HTTP\/1\.1 404 /)
      expect(answer.toLowerCase()).toContain('content-type: application/problem+json')
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { status: number; error: string }
      expect(body.status).toBe(404)
      expect(body.error).toMatch(/CONNECT/)
    } finally {
      await server.close()
    }
  })
})

describe('engine.page() with a paging argument of the wrong shape', () => {
  it.each([null, 5, 'page=2', [1, 2]])('returns issues for %j instead of throwing', async (paging) => {
    const r = await h.engine.page('x', paging as never)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.issues.map((i) => i.code)).toContain('invalid_page')
  })
})
