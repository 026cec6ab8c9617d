/**
 * @module One issue-7 request, once, against a given database file, timed: for figures whose
 * "before" runs for minutes, so each can run in its own process under `timeout`:
 *
 *   timeout 120 npx tsx bench/foreign-chain-once.ts /tmp/cost/demo-5000.db chain 5
 *   timeout 120 npx tsx bench/foreign-chain-once.ts /tmp/cost/demo-5000.db or 249
 *   MAX_COST=1e9 timeout 120 npx tsx bench/foreign-chain-once.ts /tmp/cost/demo-5000.db  or-all 249
 *
 * Prints `<case> <ms> ms total=<n>` (the time of `engine.query`: parse, check, store, total, page
 * 1, after one warm-up query on something else), or the
 * issues when the request is refused. The engine writes its caches into the file: run on a copy.
 * The caches are emptied first, so every run computes the total afresh.
 */
import { performance } from 'node:perf_hooks'
import { createEngine } from '../src/engine.js'
import { openDatabase } from '../src/store/open.js'
import { freshCaches } from './support/dataset.js'
import { broadChainRequest, chainRequest, orOfForeignRequest } from './support/foreign-chains.js'

const [file, kind, size] = process.argv.slice(2)
const n = Number(size)
const KINDS = ['chain', 'broad-chain', 'or', 'or-none', 'or-all']
if (!file || !KINDS.includes(kind ?? '') || !Number.isSafeInteger(n) || n < 1) {
  console.error(`usage: [MAX_COST=n] tsx bench/foreign-chain-once.ts <database file> ${KINDS.join('|')} <levels|width>`)
  process.exit(2)
}
const vdb = openDatabase(file)
freshCaches(vdb)
// MAX_COST raises the cost limit, to time what it refuses.
const engine = createEngine({ database: vdb, ...(process.env.MAX_COST ? { limits: { maxCost: Number(process.env.MAX_COST) } } : {}) })
const request = kind === 'chain' ? chainRequest(n) : kind === 'broad-chain' ? broadChainRequest(n) : orOfForeignRequest(n, kind === 'or' ? 'any' : kind === 'or-none' ? 'none' : 'all')
// A first query pays for loading modules and preparing the store's statements: not this request's.
await engine.query({ dataset: 'companies', filter: { name: 'warm-up' } })
const started = performance.now()
const r = await engine.query(request)
const ms = performance.now() - started
const label = `${kind} ${n}`
if (r.ok) console.log(`${label}: ${ms.toFixed(1)} ms total=${r.value.meta.total_record_count} (${JSON.stringify(request).length} bytes)`)
else console.log(`${label}: refused in ${ms.toFixed(1)} ms: ${r.issues.map((i) => `${i.code} at ${i.path}: ${i.message}`).join(' | ')}`)
await engine.close()
await vdb.close()
