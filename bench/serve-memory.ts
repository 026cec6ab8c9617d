/**
 * `ventureql serve`'s memory under a mixed load. Each run starts a fresh server, drives detail,
 * listing, search and POST /queries mixed on 100 connections (autocannon, loopback) for
 * BENCH_HTTP_SECONDS (default 15), and samples the server's resident memory every 250 ms:
 * anonymous (heaps, buffers) and file-backed (the data file's mappings), peak and at the end.
 * Two comparisons, in alternating runs on the same database:
 * - `BENCH_MEMORY_COMPARE=budget` (default): `--memory-budget` at its default against
 *   BENCH_LARGE_BUDGET_MB (default 8192: 1 GiB or more mapped per connection);
 * - `BENCH_MEMORY_COMPARE=heap`: the heap setting (src/cli/heap.ts) against V8's default in its place
 *   (`node --heap-growing-percent=0 bin/ventureql.mjs serve`: the operator's value wins).
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/serve-memory.ts        (BENCH_ROUNDS, default 2)
 */
import autocannon from 'autocannon'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'
import { loadRequests } from './support/http-requests.js'
import { benchKeyHeader, startServeProcess } from './support/serve-process.js'

const companies = benchCompanies()
const file = benchDatabaseFile(companies)
const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 15)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const headers = await benchKeyHeader('bench/serve-memory')

const query = JSON.stringify({ dataset: 'investors', filter: { and: [{ portfolio_size: { gte: 2 } }, { type: { in: ['vc', 'accelerator'] } }, { foreign: { dataset: 'companies', filter: { industries: { in: ['fintech', 'saas'] } } } }] } })
const load = loadRequests(companies)
const requests: autocannon.Request[] = [load.detail, load.listing, load.search, load.query(query)]

interface Variant { readonly label: string; readonly nodeArgs?: readonly string[]; readonly args?: readonly string[] }

async function run(variant: Variant): Promise<string> {
  const server = await startServeProcess({ database: file, nodeArgs: variant.nodeArgs ?? [], args: variant.args ?? [] })
  let peakAnon = 0
  let peakTotal = 0
  const totals: number[] = []
  const sampler = setInterval(() => {
    const m = server.memory()
    if (!m) return
    peakAnon = Math.max(peakAnon, m.anonMb)
    peakTotal = Math.max(peakTotal, m.anonMb + m.fileMb)
    totals.push(m.anonMb + m.fileMb)
  }, 250)
  try {
    const r = await autocannon({ url: server.url, connections: 100, duration: seconds, requests, headers })
    // Still rising at the end: the last quarter's mean against the third quarter's.
    const q = Math.floor(totals.length / 4)
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
    const rise = q > 0 ? mean(totals.slice(3 * q)) / mean(totals.slice(2 * q, 3 * q)) : NaN
    return `${variant.label}: ${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}, peak RSS ${peakTotal.toFixed(0)} MB `
      + `(anonymous ${peakAnon.toFixed(0)} MB), last quarter / third quarter ${rise.toFixed(3)}`
  } finally {
    clearInterval(sampler)
    await server.stop()
  }
}

const compare = process.env.BENCH_MEMORY_COMPARE ?? 'budget'
const largeBudget = process.env.BENCH_LARGE_BUDGET_MB ?? '8192'
const variants: Variant[] = compare === 'heap'
  ? [{ label: 'serve (heap growing factor 2)' }, { label: 'serve, V8 default (node --heap-growing-percent=0)', nodeArgs: ['--heap-growing-percent=0'] }]
  : [{ label: 'serve, default --memory-budget' }, { label: `serve --memory-budget ${largeBudget}`, args: ['--memory-budget', largeBudget] }]

for (let round = 1; round <= rounds; round++) {
  console.log(`round ${round} (${companies} companies, ${seconds} s each)`)
  for (const variant of round % 2 === 1 ? variants : [...variants].reverse()) console.log('  ' + await run(variant))
}
