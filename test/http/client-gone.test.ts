/**
 * A request whose client goes away before its answer is logged and counted with status 499
 * (nginx's "client closed request"), not as the 503 its abandoned engine call answers: nobody
 * receives that answer, and a 5xx would page someone. Over a real socket, so that the server
 * bridge aborts the request's signal as it does in production.
 */
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/app.js'
import { createMetrics, type HttpMetrics } from '../../src/http/metrics.js'
import { startNodeServer, type AccessEntry, type RunningServer } from '../../src/http/node-server.js'
import type { RequestEntry } from '../../src/http/observe.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
let server: RunningServer
let metrics: HttpMetrics
const logged: RequestEntry[] = []
const accessed: AccessEntry[] = []
/** Resolves when the app holds a request (in its auth hook, until the client is gone). */
let held: () => void = () => {}

beforeAll(async () => {
  h = await createHarness({ companies: 60 })
  metrics = createMetrics(h.engine, { processMetrics: false })
  const app = createApp(h.engine, {
    // Holds the request until its client has gone; the route's engine call then starts with an
    // aborted signal and answers 503 (query_cancelled), as a call abandoned in the queue does.
    auth: async (request) => {
      held()
      if (!request.signal.aborted) await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }))
      return { ok: true, identity: { owner: 'client-gone' } }
    },
    onRequest: (entry) => logged.push(entry),
    metrics,
  })
  server = await startNodeServer({ fetch: app.fetch, port: 0, tls: undefined, onAccess: (entry) => accessed.push(entry) })
})
afterAll(async () => {
  await server?.close(1_000)
  await h?.close()
})

async function until<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = read()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('timed out waiting')
}

describe('a request its client abandons', () => {
  it('is logged and counted as 499, not 503', async () => {
    const entered = new Promise<void>((resolve) => { held = resolve })
    const req = httpRequest(`${server.url}/companies?stage=a`, { agent: false })
    req.on('error', () => {})
    req.end()
    await entered
    req.destroy()

    const entry = await until(() => logged.find((e) => e.route === '/companies'))
    expect(entry.status).toBe(499)
    const access = await until(() => accessed.find((e) => e.source === 'app' && e.path === '/companies'))
    expect(access.status).toBe(499)
    const text = (await metrics.render()).text
    expect(text).toMatch(/ventureql_http_requests_total\{method="GET",route="\/companies",status="499"\} 1/)
    expect(text).not.toMatch(/ventureql_http_requests_total\{[^}]*status="5\d\d"\}/)
  })

  it('is logged 499 when it cuts its body off (the route reads the body, under its limit)', async () => {
    const req = httpRequest(`${server.url}/queries`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } })
    req.on('error', () => {})
    req.write('{"dataset":')
    await new Promise((resolve) => setTimeout(resolve, 100))
    req.destroy()
    const access = await until(() => accessed.find((e) => e.path === '/queries'))
    expect(access.status).toBe(499)
    expect(logged.find((e) => e.route === '/queries')?.status).toBe(499)
  })
})
