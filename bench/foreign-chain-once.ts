/**
 * @module One issue-7 request, once, against a given database file, timed: for figures whose
 * "before" runs for minutes, so each can run in its own process under `timeout`:
 *
 *   timeout 120 npx tsx bench/foreign-chain-once.ts /tmp/cost/demo-5000.db chain 5
 *   timeout 120 npx tsx bench/foreign-chain-once.ts /tmp/cost/demo-5000.db or 249
 *
 * Prints `<case> <ms> ms total=<n>` (the time of `engine.query`: check, total, page 1), or the
 * issues when the request is refused. The engine writes its caches into the file: run on a copy.
 * The caches are emptied first, so every run computes the total afresh.
 */
import { performance } from 'node:perf_hooks'
import { createEngine } from '../src/engine.js'
import { openDatabase } from '../src/store/open.js'
import { freshCaches } from './support/dataset.js'
import { chainRequest, orOfForeignRequest } from './support/foreign-chains.js'

const [file, kind, size] = process.argv.slice(2)
const n = Number(size)
if (!file || (kind !== 'chain' && kind !== 'or') || !Number.isSafeInteger(n) || n < 1) {
  console.error('usage: tsx bench/foreign-chain-once.ts <database file> chain|or <levels|width>')
  process.exit(2)
}
const vdb = openDatabase(file)
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const request = kind === 'chain' ? chainRequest(n) : orOfForeignRequest(n)
const started = performance.now()
const r = await engine.query(request)
const ms = performance.now() - started
const label = `${kind} ${n}`
if (r.ok) console.log(`${label}: ${ms.toFixed(1)} ms total=${r.value.meta.total_record_count} (${JSON.stringify(request).length} bytes)`)
else console.log(`${label}: refused in ${ms.toFixed(1)} ms: ${r.issues.map((i) => `${i.code} at ${i.path}: ${i.message}`).join(' | ')}`)
await engine.close()
await vdb.close()
