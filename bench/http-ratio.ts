/**
 * HTTP over sockets against the bare route, for one or two checkouts in alternating rounds: what
 * the request path of `ventureql serve` costs beyond the query. Each round serves the bare route
 * (`suite/bare-server.ts`) for BENCH_HTTP_SECONDS (default 5) on BENCH_HTTP_CONNECTIONS (default
 * 100), then, for each checkout (the order alternates per round), starts its server on a copy of
 * the bench database under /tmp (the key this bench creates is written there, never into the shared
 * file) and drives, after a 2 s warm-up each: company detail, search (1-4 letters), the key check
 * alone (GET /ratelimit/usage) and a listing mix of seven kinds (detail, a companies listing, a
 * funding date range, search, POST /queries, investor detail, company stories). Prints requests/s
 * and the ratio to the bare route of the same round, with the load average, and the CPU time the
 * server spent per request: its main thread (the event loop) and the whole process. CPU per
 * request is the steadier figure on a loaded machine, where the bare route itself varies by 2x.
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   BENCH_CHECKOUTS=/tmp/before,. BENCH_ROUNDS=3 nice npx tsx bench/http-ratio.ts
 *
 * BENCH_SERVE_ARGS adds flags to `serve`, variants `;`-separated (`--workers 1;--workers 2`: each
 * checkout runs each); BENCH_ONLY=detail,search picks loads. The bare route is measured again
 * before each server, so every ratio has a baseline from minutes before it.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import autocannon from 'autocannon'
import { createApiKey } from '../src/store/api-keys.js'
import { openDatabase } from '../src/store/open.js'
import { stateFileOf } from '../src/store/state-file.js'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'
import { loadRequests } from './support/http-requests.js'
import { processCpuCentiseconds, startServeProcess } from './support/serve-process.js'

const companies = benchCompanies()
const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 5)
const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 100)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const checkouts = (process.env.BENCH_CHECKOUTS ?? '.').split(',').map((c) => resolve(c))
/** Server flags per variant, `;`-separated (e.g. `--workers 1;--workers 2`): each checkout runs each. */
const variants = (process.env.BENCH_SERVE_ARGS ?? '').split(';').map((v) => v.split(/\s+/).filter(Boolean))
const only = process.env.BENCH_ONLY?.split(',')

// A private copy: the key (and its quota counts) go into the copy's state file.
const source = benchDatabaseFile(companies)
const dir = '/tmp/vq-http-ratio'
mkdirSync(dir, { recursive: true })
const file = `${dir}/companies-${companies}.db`
if (!existsSync(file)) {
  copyFileSync(source, file)
  copyFileSync(stateFileOf(source), stateFileOf(file))
}
const vdb = openDatabase(file)
const made = await createApiKey(vdb, { plan: 'full', quota: 2_000_000_000, period: 'day', label: 'bench/http-ratio' })
if (!made.ok) throw new Error('bench: could not create a key')
const investorId = vdb.sqlite.prepare('select id from investors order by portfolio_size desc, id limit 1').pluck().get() as number
await vdb.close()
const headers = { authorization: `Bearer ${made.value.key}` }

const load = loadRequests(companies)
const query = JSON.stringify({ dataset: 'investors', filter: { country: 'USA' } })
let s = 0
const stories: autocannon.Request = { method: 'GET', setupRequest: (req: autocannon.Request) => ({ ...req, path: `/companies/${1 + ((s++ * 7919) % companies)}/stories` }) }
const loads: [string, autocannon.Request[]][] = ([
  ['detail', [load.detail]],
  ['search', [load.search]],
  ['key check alone', [{ method: 'GET', path: '/ratelimit/usage' }]],
  ['mix of 7', [
    load.detail, load.listing, { method: 'GET', path: '/fundings?funding_date_range=2020-01-01~2020-03-31' }, load.search,
    load.query(query), { method: 'GET', path: `/investors/${investorId}` }, stories,
  ]],
] as [string, autocannon.Request[]][]).filter(([name]) => !only || only.some((o) => name.startsWith(o)))

async function cannon(url: string, requests: autocannon.Request[], duration: number) {
  const r = await autocannon({ url, connections, duration, requests, headers, timeout: 10 })
  return { rps: r.requests.average, total: r.requests.total, non2xx: r.non2xx, errors: r.errors, p99: r.latency.p99 }
}

/** Centiseconds of CPU (user + system) the main thread of process `pid` has used (/proc). */
function mainThreadCpuCentiseconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12])
}

async function bareRps(): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/suite/bare-server.ts'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => { out += d })
  const exited = new Promise<void>((r) => child.on('exit', () => r()))
  let url: string | undefined
  while (!(url = /^ventureql: serving (http:\/\/\S+)/m.exec(out)?.[1])) await new Promise((r) => setTimeout(r, 50))
  try {
    await cannon(url, [{ method: 'GET', path: '/bare' }], 1)
    return (await cannon(url, [{ method: 'GET', path: '/bare' }], seconds)).rps
  } finally {
    child.kill('SIGTERM')
    await exited
  }
}

const la = () => loadavg().map((x) => x.toFixed(2)).join(' ')
console.log(`http-ratio: ${companies} companies, ${connections} connections, ${seconds} s a load, ${rounds} rounds`)
const runs = checkouts.flatMap((cwd) => variants.map((args) => ({ cwd, args })))
for (let round = 0; round < rounds; round++) {
  console.log(`round ${round + 1}`)
  const order = round % 2 === 0 ? runs : [...runs].reverse()
  for (const { cwd, args } of order) {
    const bare = await bareRps()
    const label = `${cwd}${args.length > 0 ? ` ${args.join(' ')}` : ''}`
    console.log(`  ${label}: bare ${Math.round(bare)} req/s (load average ${la()})`)
    const server = await startServeProcess({ database: file, cwd, args })
    try {
      for (const [name, requests] of loads) {
        await cannon(server.url, requests, 2)
        const pid = server.child.pid!
        const cpu0 = [mainThreadCpuCentiseconds(pid), processCpuCentiseconds(pid)]
        const r = await cannon(server.url, requests, seconds)
        const [main, all] = [mainThreadCpuCentiseconds(pid), processCpuCentiseconds(pid)].map((c, i) => Math.round(((c - cpu0[i]!) * 10_000) / Math.max(1, r.total)))
        console.log(`  ${label}  ${name.padEnd(16)} ${String(Math.round(r.rps)).padStart(6)} req/s  ratio ${(r.rps / bare).toFixed(3)}  p99 ${r.p99} ms  CPU/request: main thread ${main} us, process ${all} us  non-2xx ${r.non2xx}  errors ${r.errors}  (load average ${la()})`)
      }
    } finally {
      await server.stop()
    }
  }
}
