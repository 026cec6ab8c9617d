/**
 * `serve` never holds up a request with its own startup work. On SQLite, the similarity-index check
 * that `serve` reports at startup runs on the main thread's connection and, for a complete index,
 * reads every company's row: 0.5-1.6 s at 1,000,000 companies. Run after the server listened, it
 * froze the first requests for that long. Here the check is made to hold its thread for 1.5 s (what
 * a big file's check does, on a fixture small enough for a test), and a request sent the moment
 * `serve` says it is serving must be answered well before that.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { ServeHandle } from '../../src/cli/serve.js'

const HOLD_MS = 1500

vi.mock('../../src/records/similar-index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/records/similar-index.js')>()
  return {
    ...real,
    similarIndexCoverage: async (...args: Parameters<typeof real.similarIndexCoverage>) => {
      const coverage = await real.similarIndexCoverage(...args)
      // Synchronous, like better-sqlite3 reading a million rows: nothing else runs on this thread meanwhile.
      const until = Date.now() + HOLD_MS
      while (Date.now() < until) { /* holding the thread */ }
      checks++
      return coverage
    },
  }
})
let checks = 0

const { startServe } = await import('../../src/cli/serve.js')

const dir = mkdtempSync(join(tmpdir(), 'vql-serve-startup-'))
let handle: ServeHandle | undefined
afterAll(async () => {
  await handle?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Milliseconds until `url` answers (any status), measured from the call. */
function answeredIn(url: string): Promise<{ ms: number; status: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume()
      res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0 }))
    }).on('error', reject).end()
  })
}

describe('serve startup', () => {
  it('answers a request sent as soon as it says it is serving, without waiting for its startup checks', async () => {
    let firstAnswer: Promise<{ ms: number; status: number }> | undefined
    handle = await startServe({
      dataDir: dir, port: 0, http: true, companies: 40, workers: 1, err: () => {},
      out: (line) => {
        const url = /^ventureql: serving (\S+)/.exec(line)?.[1]
        if (url) firstAnswer = answeredIn(`${url}/openapi.json`)
      },
    })
    expect(checks).toBe(1)
    expect(firstAnswer).toBeDefined()
    const { ms, status } = await firstAnswer!
    expect(status).toBe(200)
    // Run after listening, the check held this request for HOLD_MS.
    expect(ms).toBeLessThan(HOLD_MS * 0.66)
  })
})
