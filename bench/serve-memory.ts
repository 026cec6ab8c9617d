/**
 * `ventureql serve`'s memory under a mixed load, with its heap setting (src/cli/heap.ts) and with V8's
 * default in its place (`node --heap-growing-percent=0 bin/ventureql.mjs serve`: the operator's value wins), in
 * alternating runs on the same database. Each run starts a fresh server, drives detail, listing,
 * search and POST /queries mixed on 100 connections (autocannon, loopback) for BENCH_HTTP_SECONDS
 * (default 15), and samples the server's anonymous RSS every 250 ms.
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

async function run(label: string, nodeArgs: readonly string[]): Promise<string> {
  const server = await startServeProcess({ database: file, nodeArgs })
  let peak = 0
  const sampler = setInterval(() => { const m = server.memory(); if (m && m.anonMb > peak) peak = m.anonMb }, 250)
  try {
    const r = await autocannon({ url: server.url, connections: 100, duration: seconds, requests, headers })
    return `${label}: ${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}, peak anonymous RSS ${peak.toFixed(0)} MB`
  } finally {
    clearInterval(sampler)
    await server.stop()
  }
}

for (let round = 1; round <= rounds; round++) {
  console.log(`round ${round}`)
  console.log('  ' + await run('serve (heap growing factor 2)', []))
  console.log('  ' + await run('serve, V8 default (node --heap-growing-percent=0)', ['--heap-growing-percent=0']))
}
