/**
 * The suite's HTTP targets (bench/suite/report.ts): detail and search against the bare route, with
 * the key check alone (GET /ratelimit/usage) reported beside them as their ceiling, never as a
 * target of its own.
 */
import { describe, expect, it } from 'vitest'
import { KEY_CHECK_ALONE, type EndpointLoad, type HttpLoadResult } from '../../bench/suite/http-load.js'
import { targets, type SuiteResult } from '../../bench/suite/report.js'

const load = (name: string, rps: number): EndpointLoad => ({ name, rps, p50: 1, p99: 2, non2xx: 0, errors: 0 })

function suite(endpoints: EndpointLoad[]): SuiteResult {
  const http: HttpLoadResult = {
    seconds: 5, connections: 100, bare: load('GET /bare (constant JSON)', 20_000), endpoints, mixSeconds: 10,
    memory: [{ t: 0, phase: 'mix', anonMb: 300, fileMb: 900 }, { t: 1, phase: 'mix', anonMb: 300, fileMb: 900 }],
  }
  return { companies: 1000, perPage: 50, seconds: 1, peerLoadMs: undefined, params: {}, rows: [], counts: [], pages: undefined, similar: undefined, load: http, errors: [] }
}

const httpTargets = (r: SuiteResult) => targets(r).filter((t) => t.name.startsWith('HTTP '))

describe('HTTP targets', () => {
  it('rates detail and search against the bare route, and names the key check alone as their ceiling', () => {
    const ts = httpTargets(suite([load('GET /companies/:id', 2_000), load('GET /search?term=<1-4 letters>', 13_000), load(KEY_CHECK_ALONE, 5_000)]))
    expect(ts.map((t) => [t.name, t.measured, t.ok])).toEqual([
      ['HTTP GET /companies/:id: req/s / bare route', 0.1, false],
      ['HTTP GET /search?term=<1-4 letters>: req/s / bare route', 0.65, true],
    ])
    for (const t of ts) expect(t.note).toBe('the key check alone (GET /ratelimit/usage): 0.25 of the bare route')
  })

  it('is not a target itself, and without its load (older results files) nothing is noted', () => {
    const ts = httpTargets(suite([load('GET /companies/:id', 2_000)]))
    expect(ts).toHaveLength(1)
    expect(ts[0]!.note).toBeUndefined()
    expect(targets(suite([load(KEY_CHECK_ALONE, 5_000)])).some((t) => t.name.includes('ratelimit'))).toBe(false)
  })
})
