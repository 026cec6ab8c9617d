/**
 * Faults of the PostgreSQL server under `serve` (issue 8, item 5), on a throw-away cluster this file
 * creates, stops and restarts (test/support/throwaway-cluster.ts): unreachable at start is one line
 * and exit code 1; a server lost while serving answers 503 problem+json with Retry-After and breaks
 * nothing else; when the server returns, requests succeed again without a restart of `serve`.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ServeError, startServe, type ServeHandle } from '../../src/cli/serve.js'
import { createThrowawayCluster, freePort, type ThrowawayCluster } from '../support/throwaway-cluster.js'

let cluster: ThrowawayCluster
let dataDir: string

beforeAll(async () => {
  cluster = await createThrowawayCluster()
  dataDir = mkdtempSync(join(tmpdir(), 'vql-faults-'))
})
afterAll(() => {
  cluster?.destroy()
  rmSync(dataDir, { recursive: true, force: true })
})

const quiet = { out: () => {}, err: () => {} }

describe('PostgreSQL unreachable at start', () => {
  it('startServe fails with one line naming the server', async () => {
    const error = await startServe({ dataDir, port: 0, http: true, database: cluster.url, ...quiet }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServeError)
    expect((error as Error).message).toMatch(new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${cluster.port}/postgres: .*ECONNREFUSED`))
    expect((error as Error).message).not.toContain('\n')
  })

  it('the CLI prints that line on stderr and exits 1', async () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--http', '--port', String(await freePort()), '--database', cluster.url], { encoding: 'utf8', timeout: 60_000 })
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^ventureql serve: cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/postgres: /)])
  })
})

describe('PostgreSQL lost while serving', () => {
  let handle: ServeHandle
  let key: string
  const get = async (path: string) => fetch(`${handle.url}${path}${path.includes('?') ? '&' : '?'}key=${key}`)

  beforeAll(async () => {
    cluster.start()
    handle = await startServe({ dataDir, port: 0, http: true, database: cluster.url, ...quiet })
    key = handle.createdKeys!.full
  })
  afterAll(async () => handle?.close())

  it('answers 503 with Retry-After while the server is down, and recovers by itself when it returns', async () => {
    expect((await get('/companies?per_page=1')).status).toBe(200)
    cluster.stop('immediate')
    for (const path of ['/companies?per_page=1', '/ratelimit/usage', '/companies/1']) {
      const res = await get(path)
      expect(res.status, path).toBe(503)
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      const body = await res.json() as { error: string }
      expect(body.error).toMatch(/busy or unavailable/)
    }
    // Public paths need no database and keep working.
    expect((await fetch(`${handle.url}/openapi.json`)).status).toBe(200)

    cluster.start()
    let status = 0
    const until = Date.now() + 15_000
    while (status !== 200 && Date.now() < until) {
      status = (await get('/companies?per_page=1')).status
      if (status !== 200) await new Promise((r) => setTimeout(r, 200))
    }
    expect(status).toBe(200)
    expect((await get('/ratelimit/usage')).status).toBe(200)
  })
})
