/**
 * The time limit of the first calls on a fresh engine over a file: a slow query (a 5-level
 * `foreign` chain ending in a condition every investor meets) with a 150 ms limit, three times on
 * a fresh engine, then once more on another fresh engine after `await engine.ready()`:
 *
 *   npx tsx scripts/first-call.ts .ventureql/bench/companies-100000.db
 *
 * Each line is the time to the answer and the answer (query_timeout is the expected one).
 */
import { performance } from 'node:perf_hooks'
import { createEngine } from '../src/engine.js'
import { broadChainRequest } from '../bench/support/foreign-chains.js'

const file = process.argv[2]
if (!file) {
  console.error('usage: tsx scripts/first-call.ts <database file>')
  process.exit(2)
}
const request = broadChainRequest(5)
const timed = async (engine: ReturnType<typeof createEngine>, label: string) => {
  const started = performance.now()
  const r = await engine.query(request, { timeoutMs: 150 })
  console.log(`${label}: ${(performance.now() - started).toFixed(0)} ms ${r.ok ? 'ok' : r.issues.map((i) => `${i.code}: ${i.message.slice(0, 90)}`).join(' | ')}`)
}
const fresh = createEngine({ database: file })
for (const label of ['first call', 'second call', 'third call']) await timed(fresh, label)
await fresh.close()
const readied = createEngine({ database: file })
const started = performance.now()
if ('ready' in readied) await (readied as { ready(): Promise<void> }).ready()
console.log(`ready after ${(performance.now() - started).toFixed(0)} ms`)
await timed(readied, 'first call after ready()')
await timed(readied, 'second call after ready()')
await readied.close()
