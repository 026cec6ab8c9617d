/**
 * The embedding guide's recipes (grammar-docs/guides/embedding.md), each on a real server listening on 127.0.0.1 (port 0) and
 * called over the socket: node:http, Express (alone, after `express.json()`, and after
 * `express.urlencoded()` with a form-encoded POST /queries), and Fastify (its own parsers
 * replaced in the mounted scope, and with its default JSON parser). Every recipe answers the same
 * three requests: a listing, POST /queries with a JSON body, and page 2 of the stored query.
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyParserErrorHandler, createApp, toNodeHandler, type VentureApp } from '../../src/http/index.js'
import { createHarness, HARNESS_NOW, type Harness } from '../http/harness.js'

let h: Harness
let app: VentureApp

beforeAll(async () => {
  h = await createHarness({ companies: 120 })
  app = createApp(h.engine, { clock: () => HARNESS_NOW })
})

afterAll(async () => {
  await h?.close()
})

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/** The three requests every recipe answers; `prefix` is where ventureql is mounted. */
async function exercise(base: string, prefix = ''): Promise<void> {
  const key = `key=${encodeURIComponent(h.fullKey)}`
  const listing = await fetch(`${base}${prefix}/companies?per_page=2&${key}`)
  expect(listing.status).toBe(200)
  expect(listing.headers.get('x-quota-limit')).not.toBeNull()
  expect((await listing.json() as { companies: unknown[] }).companies).toHaveLength(2)

  const filter = { and: [{ employees: { gte: 1 } }, { foreign: { dataset: 'investors', filter: { portfolio_size: { gte: 1 } } } }] }
  const posted = await fetch(`${base}${prefix}/queries?${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ dataset: 'companies', filter, sort: [{ name: 'asc' }], per_page: 3 }),
  })
  const text = await posted.text()
  expect(posted.status, text).toBe(200)
  const envelope = JSON.parse(text) as { query_id: string; results: { id: string }[]; meta: { total_record_count: number } }
  expect(envelope.results).toHaveLength(3)
  expect(envelope.meta.total_record_count).toBeGreaterThan(6)

  const page2 = await fetch(`${base}${prefix}/queries/${envelope.query_id}?page=2&per_page=3&${key}`)
  expect(page2.status).toBe(200)
  const second = await page2.json() as { results: { id: string }[]; meta: { current_page: number } }
  expect(second.meta.current_page).toBe(2)
  expect(second.results).toHaveLength(3)
  expect(second.results.map((r) => r.id)).not.toContain(envelope.results[0]!.id)

  // An invalid filter is still the app's 400 with its issues: the body reached the app intact.
  const invalid = await fetch(`${base}${prefix}/queries?${key}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset: 'companies', filter: { employes: 5 } }),
  })
  expect(invalid.status).toBe(400)
  expect(JSON.stringify(await invalid.json())).toContain('employes')
}

describe('node:http', () => {
  it('createServer(toNodeHandler(app))', async () => {
    const server = createServer(toNodeHandler(app))
    const base = await listen(server)
    try {
      await exercise(base)
    } finally {
      await close(server)
    }
  })
})

describe('Express', () => {
  it('mounted under a path, with no body parser of its own', async () => {
    const handler = toNodeHandler(app)
    const server = express()
    server.use('/data', (req, res) => handler(req, res))
    const http = createServer(server)
    const base = await listen(http)
    try {
      await exercise(base, '/data')
    } finally {
      await close(http)
    }
  })

  it('after express.json() and express.urlencoded(): the body is rebuilt from req.body', async () => {
    const handler = toNodeHandler(app)
    const server = express()
    server.use(express.json())
    server.use(express.urlencoded({ extended: false }))
    let parsedByExpress = 0
    server.use((req, _res, next) => {
      if (req.body !== undefined) parsedByExpress++
      next()
    })
    server.use((req, res) => handler(req, res))
    const http = createServer(server)
    const base = await listen(http)
    try {
      await exercise(base)
      // The form-encoded POST of spec 4.14: one key per parameter, filter and sort as JSON text.
      const form = new URLSearchParams({ dataset: 'investors', filter: JSON.stringify({ type: 'vc' }), per_page: '2' })
      const posted = await fetch(`${base}/queries?key=${h.fullKey}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form })
      expect(posted.status).toBe(200)
      const envelope = await posted.json() as { results: { type: string }[]; meta: { per_page: number; total_record_count: number } }
      expect(envelope.meta.per_page).toBe(2)
      const vc = await h.engine.count({ dataset: 'investors', filter: { type: 'vc' } })
      expect(vc.ok && vc.value).toBe(envelope.meta.total_record_count)
      expect(envelope.results.length).toBeGreaterThan(0)
      expect(envelope.results.every((r) => r.type === 'vc')).toBe(true)
      // express.json() did read the bodies (2 JSON posts and the form), so the rebuild was needed.
      expect(parsedByExpress).toBe(3)
    } finally {
      await close(http)
    }
  })
})

describe('Express: a body its parser refused', () => {
  it('is the API\'s problem+json with bodyParserErrorHandler() (malformed JSON 400, over the limit 413), and Express\'s own page without it', async () => {
    const handler = toNodeHandler(app)
    const server = express()
    server.use(express.json())
    server.use('/data', (req, res) => handler(req, res))
    server.use('/data', bodyParserErrorHandler())
    // The host's other routes keep Express's own error handling.
    server.post('/elsewhere', (_req, res) => { res.send('ok') })
    const http = createServer(server)
    const base = await listen(http)
    const post = (path: string, body: string) => fetch(`${base}${path}?key=${h.fullKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    try {
      const malformed = await post('/data/queries', '{"dataset": "companies",')
      expect(malformed.status).toBe(400)
      expect(malformed.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      const bad = await malformed.json() as { error: string; issues: { code: string }[] }
      expect(bad.issues[0]!.code).toBe('invalid_json')
      expect(bad.error).toMatch(/not valid JSON/)
      expect(JSON.stringify(bad)).not.toMatch(/at .*node_modules|<html|<pre/i)

      const big = await post('/data/queries', JSON.stringify({ dataset: 'companies', filter: { name: 'x'.repeat(150_000) } }))
      expect(big.status).toBe(413)
      expect(big.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      const tooLarge = await big.json() as { error: string; issues: { code: string }[] }
      expect(tooLarge.issues[0]!.code).toBe('limit_exceeded')
      expect(tooLarge.error).toMatch(/larger than the server's body parser accepts \(102400 bytes\)/)

      // Outside the mount, Express answers as it always does: the handler is scoped to the API.
      const elsewhere = await post('/elsewhere', '{"a":')
      expect(elsewhere.status).toBe(400)
      expect(elsewhere.headers.get('content-type')).toMatch(/^text\/html/)
      // And the API still answers a good body.
      expect((await post('/data/queries', JSON.stringify({ dataset: 'investors', per_page: 1 }))).status).toBe(200)
    } finally {
      await close(http)
    }
  })
})

describe('a deep body an earlier parser read', () => {
  it('is the app\'s 400 limit_exceeded, not a RangeError from serialising it again; the server keeps serving', async () => {
    const handler = toNodeHandler(app)
    const server = express()
    server.use(express.json({ limit: '1mb' }))
    server.use((req, res) => handler(req, res))
    const http = createServer(server)
    const base = await listen(http)
    try {
      const body = `{"dataset":"companies","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${base}/queries?key=${h.fullKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        expect(res.status).toBe(400)
        expect((await res.json() as { issues: { code: string; path: string }[] }).issues[0]).toMatchObject({ code: 'limit_exceeded', path: `/x${'/0'.repeat(63)}` })
      }
      expect((await fetch(`${base}/companies?per_page=1&key=${h.fullKey}`)).status).toBe(200)
    } finally {
      await close(http)
    }
  })
})

describe('a body that cannot be rebuilt', () => {
  it('is 415 with what to change, not a silently empty body', async () => {
    const handler = toNodeHandler(app)
    const server = express()
    server.use(express.urlencoded({ extended: true }))   // parses `a[b]=c` into nested objects
    server.use(express.text({ type: 'text/csv' }))        // a string: passed on as it is
    server.use(express.raw({ type: 'application/x-thing' }))
    server.use((req, res) => handler(req, res))
    const http = createServer(server)
    const base = await listen(http)
    try {
      const nested = await fetch(`${base}/queries?key=${h.fullKey}`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'dataset=companies&filter[stage]=a',
      })
      expect(nested.status).toBe(415)
      expect((await nested.json() as { detail: string }).detail).toContain('`filter`')
      // A string or a Buffer goes on byte for byte: here the app answers for the content itself.
      const csv = await fetch(`${base}/queries?key=${h.fullKey}`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'a,b' })
      expect(csv.status).toBe(400)
      const raw = await fetch(`${base}/queries?key=${h.fullKey}`, {
        method: 'POST', headers: { 'content-type': 'application/x-thing' }, body: JSON.stringify({ dataset: 'fundings', per_page: 1 }),
      })
      expect(raw.status).toBe(200)
    } finally {
      await close(http)
    }
  })
})

describe('Fastify', () => {
  it('in a scope whose parsers hand the body over as bytes', async () => {
    const handler = toNodeHandler(app)
    const fastify = Fastify()
    await fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
      scope.all('/*', (request, reply) => {
        reply.hijack()
        return handler(request.raw, reply.raw, request.body)
      })
    })
    const base = await fastify.listen({ port: 0, host: '127.0.0.1' })
    try {
      await exercise(base)
      // No content type at all (read as JSON when it parses, spec 4.14) passes through too.
      const bare = await fetch(`${base}/queries?key=${h.fullKey}`, { method: 'POST', body: JSON.stringify({ dataset: 'fundings', per_page: 1 }) })
      expect(bare.status).toBe(200)
    } finally {
      await fastify.close()
    }
  })

  it('with Fastify\'s default JSON parser', async () => {
    const handler = toNodeHandler(app)
    const fastify = Fastify()
    fastify.all('/*', (request, reply) => {
      reply.hijack()
      return handler(request.raw, reply.raw, request.body)
    })
    const base = await fastify.listen({ port: 0, host: '127.0.0.1' })
    try {
      await exercise(base)
    } finally {
      await fastify.close()
    }
  })
})

describe('the embedding guide shows each recipe', () => {
  it('node:http, Express, Fastify and the hooks', () => {
    const guide = readFileSync(new URL('../../grammar-docs/guides/embedding.md', import.meta.url), 'utf8')
    const section = guide.slice(guide.indexOf('## The HTTP API in your own server'))
    for (const line of [
      'createServer(toNodeHandler(app))',
      'server.use(express.json())',
      "server.use('/data', (req, res) => handler(req, res))",
      "server.use('/data', bodyParserErrorHandler())",
      "scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))",
      'return handler(request.raw, reply.raw, request.body)',
      'auth:', 'quota:',
    ]) expect(section, line).toContain(line)
  })
})
