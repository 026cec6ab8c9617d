/**
 * @module HTTP over real sockets: `ventureql serve` (its defaults, the bench database) and a bare
 * Hono route on the same node server adapter (`bare-server.ts`), each in its own process, driven
 * by autocannon on 127.0.0.1 with `BENCH_HTTP_CONNECTIONS` (default 100) connections for
 * `BENCH_HTTP_SECONDS` (default 5) per endpoint after a warm-up (1 s for the bare route, 2 s per endpoint). Endpoints: company detail
 * (ids spread over the table), a listing (`/companies?stage=a|b&country=USA`), search (1-4 letter
 * prefixes) and POST /queries (the spec 4.14 investors query), and GET /ratelimit/usage: the key
 * check alone (one worker call that reads the key and its quota, nothing else), the ceiling of any
 * route behind the built-in keys (`KEY_CHECK_ALONE`); then the four (not the usage) mixed for
 * `BENCH_HTTP_MIX_SECONDS` (default twice `BENCH_HTTP_SECONDS`; 60 for the memory run). The
 * server's memory is sampled every 500 ms from /proc over all its runs: anonymous RSS (heap,
 * buffers) apart from file-backed RSS (the database's memory map).
 */
import { spawn } from 'node:child_process'
import autocannon from 'autocannon'
import { loadRequests } from '../support/http-requests.js'
import { startServeProcess } from '../support/serve-process.js'

export interface EndpointLoad {
  readonly name: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
}

export interface HttpLoadResult {
  readonly seconds: number
  readonly connections: number
  readonly bare: EndpointLoad
  readonly endpoints: readonly EndpointLoad[]
  /** Memory samples of the ventureql server, MB, in time order. */
  readonly memory: readonly { readonly t: number; readonly phase: string; readonly anonMb: number; readonly fileMb: number }[]
  /** Seconds of the closing run of the four endpoints mixed, over which flatness is judged. */
  readonly mixSeconds: number
}

type Req = autocannon.Request

/**
 * The name of the load that runs nothing but the key check. Every route behind the built-in keys
 * makes at least this worker call, so its requests/s bound what any of them can reach.
 */
export const KEY_CHECK_ALONE = 'GET /ratelimit/usage (the key check alone)'

async function startBare(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/suite/bare-server.ts'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => { out += d })
  child.stderr!.on('data', (d) => { out += d })
  const exited = new Promise<void>((r) => child.on('exit', () => r()))
  const deadline = Date.now() + 60_000
  let url: string | undefined
  while (!(url = /^ventureql: serving (http:\/\/\S+)/m.exec(out)?.[1])) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`bare server did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { url, stop: async () => { child.kill('SIGTERM'); await exited } }
}

export async function httpLoad(options: { database: string; key: string; companies: number; queryBody: string }): Promise<HttpLoadResult> {
  const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 5)
  const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 100)
  const headers = { authorization: `Bearer ${options.key}` }
  const run = async (url: string, name: string, requests: Req[], duration: number): Promise<EndpointLoad> => {
    const r = await autocannon({ url, connections, duration, requests, headers, timeout: 10 })
    return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors }
  }
  const requests = loadRequests(options.companies)
  const endpoints: [string, Req[]][] = [
    ['GET /companies/:id', [requests.detail]],
    ['GET /companies?stage=a|b&country=USA', [requests.listing]],
    ['GET /search?term=<1-4 letters>', [requests.search]],
    ['POST /queries (spec 4.14 investors)', [requests.query(options.queryBody)]],
  ]
  const alone: [string, Req[]][] = [[KEY_CHECK_ALONE, [{ method: 'GET', path: '/ratelimit/usage' }]]]

  const bare = await startBare()
  let bareLoad: EndpointLoad
  try {
    process.stderr.write(`  suite: HTTP bare route, ${seconds} s ...\n`)
    await run(bare.url, 'bare', [{ method: 'GET', path: '/bare' }], 1)
    bareLoad = await run(bare.url, 'GET /bare (constant JSON)', [{ method: 'GET', path: '/bare' }], seconds)
  } finally {
    await bare.stop()
  }

  const server = await startServeProcess({ database: options.database })
  const memory: { t: number; phase: string; anonMb: number; fileMb: number }[] = []
  const started = Date.now()
  let phase = ''
  const sampler = setInterval(() => {
    const m = server.memory()
    if (m) memory.push({ t: (Date.now() - started) / 1000, phase, ...m })
  }, 500)
  const loads: EndpointLoad[] = []
  const mixSeconds = Number(process.env.BENCH_HTTP_MIX_SECONDS ?? 2 * seconds)
  try {
    for (const [name, requests] of [...endpoints, ...alone]) {
      process.stderr.write(`  suite: HTTP ${name}, ${seconds} s ...\n`)
      phase = name
      await run(server.url, name, requests, 2)
      loads.push(await run(server.url, name, requests, seconds))
    }
    // The memory run: the four endpoints mixed, one after the other on each connection.
    process.stderr.write(`  suite: HTTP the four mixed (memory), ${mixSeconds} s ...\n`)
    phase = 'mix'
    loads.push(await run(server.url, 'the four mixed', endpoints.flatMap(([, r]) => r), mixSeconds))
  } finally {
    clearInterval(sampler)
    await server.stop()
  }
  return { seconds, connections, bare: bareLoad, endpoints: loads, memory, mixSeconds }
}
