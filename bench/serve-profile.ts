/**
 * Where `ventureql serve`'s CPU goes under load: starts the server with `--cpu-prof`, drives GET
 * /companies/:id (or BENCH_ONLY=search) on 100 connections for 2 s of warm-up and BENCH_HTTP_SECONDS
 * (default 5), stops it, and prints each thread's busy share and its costliest functions by self
 * time (the main thread first, then the workers). Profiling slows the server; read the shares, not
 * the requests/s.
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/serve-profile.ts
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'
import { loadRequests } from './support/http-requests.js'
import { benchKeyHeader, startServeProcess } from './support/serve-process.js'

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]
  samples: number[]
  timeDeltas: number[]
}

const companies = benchCompanies()
const file = benchDatabaseFile(companies)
const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 5)
const top = Number(process.env.BENCH_TOP ?? 12)
const headers = await benchKeyHeader('bench/serve-profile')
const dir = mkdtempSync(join(tmpdir(), 'ventureql-serve-profile-'))
const server = await startServeProcess({ database: file, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] })
const load = loadRequests(companies)
const endpoint = process.env.BENCH_ONLY === 'search' ? 'search' : 'detail'
try {
  await autocannon({ url: server.url, connections: 100, duration: 2, requests: [load[endpoint]], headers })
  const r = await autocannon({ url: server.url, connections: 100, duration: seconds, requests: [load[endpoint]], headers })
  console.log(`${endpoint}: ${Math.round(r.requests.average)} req/s while profiled`)
} finally {
  await server.stop()
}
// Node names each thread's file CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main one.
for (const name of readdirSync(dir).sort()) {
  const profile = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    total += dt
    const frame = byId.get(id)!.callFrame
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber}`
    self.set(key, (self.get(key) ?? 0) + dt)
  })
  const idle = [...self].filter(([key]) => key.startsWith('(idle)')).reduce((sum, [, t]) => sum + t, 0)
  const busy = total - idle
  console.log(`\nthread ${name.split('.')[4]}: busy ${((100 * busy) / total).toFixed(0)}% of ${(total / 1e6).toFixed(1)} s; self time, share of busy:`)
  for (const [key, t] of [...self].filter(([key]) => !key.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((100 * t) / busy).toFixed(1).padStart(5)}%  ${key}`)
  }
}
rmSync(dir, { recursive: true, force: true })
