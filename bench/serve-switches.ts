/**
 * Thread switches per request of `ventureql serve` under load: what the pool's pipelining saves
 * (src/execute/pool/pool.ts, `PIPELINE_DEPTH`). Starts the server of a checkout on the bench
 * database, drives GET /companies/:id and GET /search (1-4 letters) for BENCH_HTTP_SECONDS (default
 * 5) each on 100 connections after a 2 s warm-up, and reports requests/s, the server's CPU time per
 * request and its context switches per request (voluntary and not, summed over its threads from
 * /proc: each wake-up of a sleeping worker is one). Switches are the steadier figure on a noisy
 * machine; compare checkouts in alternating runs:
 *
 *   git worktree add /tmp/before 3af0a9d && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   BENCH_CHECKOUT=/tmp/before BENCH_COMPANIES=1000000 npx tsx bench/serve-switches.ts
 *   BENCH_COMPANIES=1000000 npx tsx bench/serve-switches.ts
 *
 * BENCH_ONLY=detail or search runs one endpoint.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'
import { loadRequests } from './support/http-requests.js'
import { benchKeyHeader, checkoutUnderTest, processCpuCentiseconds, startServeProcess, threadIds } from './support/serve-process.js'

const companies = benchCompanies()
const file = benchDatabaseFile(companies)
const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 5)
const headers = await benchKeyHeader('bench/serve-switches')

const checkout = checkoutUnderTest()
const server = await startServeProcess({ database: file, ...(checkout.cwd ? { cwd: checkout.cwd } : {}) })
const pid = server.child.pid!
const cpu = () => processCpuCentiseconds(pid)
const switches = () => threadIds(pid).reduce((sum, tid) => {
  try {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8')
    return sum + Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)![1]) + Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)![1])
  } catch {
    return sum // a thread that ended meanwhile
  }
}, 0)
let peak = 0
const sampler = setInterval(() => { const m = server.memory(); if (m && m.anonMb > peak) peak = m.anonMb }, 250)

const load = loadRequests(companies)
const endpoints: [string, autocannon.Request][] = [['detail', load.detail], ['search', load.search]]
try {
  for (const [name, request] of endpoints) {
    if (process.env.BENCH_ONLY && process.env.BENCH_ONLY !== name) continue
    await autocannon({ url: server.url, connections: 100, duration: 2, requests: [request], headers })
    const [cpu0, switches0] = [cpu(), switches()]
    const r = await autocannon({ url: server.url, connections: 100, duration: seconds, requests: [request], headers })
    const [cpuCs, switched] = [cpu() - cpu0, switches() - switches0]
    console.log(`${name}: ${Math.round(r.requests.average)} req/s, server CPU ${((cpuCs * 10_000) / r.requests.total).toFixed(0)} µs and ${(switched / r.requests.total).toFixed(2)} thread switches a request, non-2xx ${r.non2xx}`)
  }
  console.log(`server anonymous RSS peak ${peak.toFixed(0)} MB (${checkout.label})`)
} finally {
  clearInterval(sampler)
  await server.stop()
}
