/**
 * @module Fairness across keys (issue 29, item 2): one key keeps 4, then 8, of the most expensive
 * requests `check` accepts in flight, while another key's `GET /companies?stage=a` listing and
 * `/search?term=...` are timed one after the other, 100 ms apart. Reports their p50/p99 under each load as ratios
 * of their idle p50/p99, measured first in the same run. Target: p99 within 3x idle.
 *
 *   npx tsx bench/fairness.ts                  # 200,000 companies (BENCH_COMPANIES), ~2.5 minutes
 *   FAIR_PHASE_MS=20000 npx tsx bench/fairness.ts
 *
 * The server is `serve`'s: the HTTP app's fetch handler in this process, over an engine on the bench
 * file with `serve`'s budget (10 s) and a pool of 2 general workers and 1 light worker (`serve` on 2
 * cores). Engine options from the environment, for rows with other settings: FAIR_CONCURRENCY,
 * FAIR_BACKLOG, FAIR_ALLOWANCE_MS (`EngineOptions.fairness`; ignored by code without it).
 *
 * The attacking key sends POST /queries of two shapes that use a general worker's whole budget at
 * 200,000 companies (each made unique per request, so no cached total or page shortens it): a
 * 5-level `foreign` chain with `match: all`, and an 11-level chain whose innermost condition every
 * investor meets. A probe sends each once first and prints its status and time. Each attacking
 * client sends its next request as soon as its previous one is answered, or 100 ms after a 429/503
 * (a client that retries ten times a second when told to back off).
 *
 * The engine writes caches into the file's state: they are emptied first, so both rows of a
 * before/after comparison start alike.
 */
import { performance } from 'node:perf_hooks'
import { createEngine } from '../src/engine.js'
import { createApp } from '../src/http/app.js'
import { createApiKey } from '../src/store/api-keys.js'
import { openDatabase } from '../src/store/open.js'
import { benchCompanies, benchDatabaseFile, freshCaches } from './support/dataset.js'
import { chainFilter } from './support/foreign-chains.js'
import { loadTerms } from './support/http-requests.js'

const companies = process.env.BENCH_COMPANIES === undefined ? 200_000 : benchCompanies()
const PHASE_MS = Number(process.env.FAIR_PHASE_MS ?? 40_000)
const IDLE_SAMPLES = 50
/** The victim's pause between two requests: an interactive client, not a load generator (whose own allowance would stop it). */
const THINK_MS = 100
const BUDGET_MS = 10_000
const ORIGIN = 'http://bench.local'

const file = benchDatabaseFile(companies)
const admin = openDatabase(file)
freshCaches(admin)
const keyOf = async (label: string) => {
  const made = await createApiKey(admin, { plan: 'full', quota: 2_000_000_000, period: 'day', label })
  if (!made.ok) throw new Error('bench: could not create a key')
  return made.value.key
}
const attackerKey = await keyOf('fairness bench: attacker')
const victimKey = await keyOf('fairness bench: victim')
await admin.close()

const fairness = {
  ...(process.env.FAIR_CONCURRENCY ? { tenantConcurrency: Number(process.env.FAIR_CONCURRENCY) } : {}),
  ...(process.env.FAIR_BACKLOG ? { tenantBacklog: Number(process.env.FAIR_BACKLOG) } : {}),
  ...(process.env.FAIR_ALLOWANCE_MS ? { tenantAllowanceMs: Number(process.env.FAIR_ALLOWANCE_MS) } : {}),
}
const engine = createEngine({ database: file, timeoutMs: BUDGET_MS, workers: 2, fairness })
const app = createApp(engine)

const send = async (key: string, path: string, body?: unknown): Promise<{ status: number; ms: number }> => {
  const started = performance.now()
  const response = await app.fetch(new Request(ORIGIN + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }))
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - started }
}

let unique = 0
/** The attack's two shapes, alternating, each unique: the innermost condition is "name is not <a name nobody has>". */
const attack = (n: number): unknown => {
  const everyone = { name: { ne: `fairness-${process.pid}-${unique++}` } }
  return n % 2 === 0
    ? { dataset: 'companies', filter: chainFilter(5, everyone, 'all') }
    : { dataset: 'companies', filter: chainFilter(11, everyone) }
}

const terms = loadTerms()
let nextTerm = 0
const victimPaths = (): string[] => ['/companies?stage=a', `/search?term=${terms[nextTerm++ % terms.length]}`]

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN
}

interface Samples { listing: number[]; search: number[]; statuses: Map<number, number> }
const newSamples = (): Samples => ({ listing: [], search: [], statuses: new Map() })

async function victim(samples: Samples, until: () => boolean): Promise<void> {
  while (!until()) {
    for (const path of victimPaths()) {
      const { status, ms } = await send(victimKey, path)
      samples.statuses.set(status, (samples.statuses.get(status) ?? 0) + 1)
      ;(path.startsWith('/search') ? samples.search : samples.listing).push(ms)
      await new Promise((r) => setTimeout(r, THINK_MS))
    }
  }
}

// Warm-up: the workers' connections and statement caches, and the listing's total.
for (let i = 0; i < 5; i++) for (const path of victimPaths()) await send(victimKey, path)

// Probe: what each attack shape answers alone.
for (let i = 0; i < 2; i++) {
  const { status, ms } = await send(attackerKey, '/queries', attack(i))
  console.log(`probe: ${i % 2 === 0 ? '5-level match:all chain' : '11-level broad chain'}: ${status} in ${Math.round(ms)} ms`)
}

// Warm again: a probe over the budget ends its worker (interrupted JavaScript, or a slow unwind),
// and the idle phase must not measure its replacement's first statements.
for (let i = 0; i < 10; i++) for (const path of victimPaths()) await send(victimKey, path)

const idle = newSamples()
let idleCount = 0
await victim(idle, () => idleCount++ >= IDLE_SAMPLES)

let attacking = true
const attackerStatuses = new Map<number, number>()
const attackers: Promise<void>[] = []
const startAttacker = () => {
  attackers.push((async () => {
    for (let n = attackers.length; attacking; n += 2) {
      const { status } = await send(attackerKey, '/queries', attack(n))
      attackerStatuses.set(status, (attackerStatuses.get(status) ?? 0) + 1)
      if (status === 429 || status === 503) await new Promise((r) => setTimeout(r, 100))
    }
  })())
}

const rows: { label: string; samples: Samples }[] = [{ label: 'idle', samples: idle }]
for (const inFlight of [4, 8]) {
  while (attackers.length < inFlight) startAttacker()
  // Let the attack fill the workers and queues before timing.
  await new Promise((r) => setTimeout(r, 1_000))
  const samples = newSamples()
  const end = performance.now() + PHASE_MS
  await victim(samples, () => performance.now() >= end)
  rows.push({ label: `${inFlight} in flight`, samples })
}
attacking = false
await Promise.all(attackers)

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1))
const statusText = (m: Map<number, number>) => [...m].sort(([a], [b]) => a - b).map(([s, n]) => `${s}x${n}`).join(' ')
console.log(`\nfairness at ${companies} companies; pool ${JSON.stringify(engine.execution)}; fairness ${JSON.stringify(fairness)}; phase ${PHASE_MS} ms`)
console.log('| load | listing p50 | listing p99 | search p50 | search p99 | listing p99 / idle | search p99 / idle | victim answers |')
console.log('|---|---|---|---|---|---|---|---|')
for (const { label, samples } of rows) {
  const lp99 = quantile(samples.listing, 0.99)
  const sp99 = quantile(samples.search, 0.99)
  console.log(`| ${label} | ${fmt(quantile(samples.listing, 0.5))} ms | ${fmt(lp99)} ms | ${fmt(quantile(samples.search, 0.5))} ms | ${fmt(sp99)} ms `
    + `| ${(lp99 / quantile(idle.listing, 0.99)).toFixed(2)}x | ${(sp99 / quantile(idle.search, 0.99)).toFixed(2)}x | ${statusText(samples.statuses)} (n=${samples.listing.length}+${samples.search.length}) |`)
}
console.log(`attacker answers: ${statusText(attackerStatuses)}; engine ${JSON.stringify(engine.stats().pool)}, ${engine.stats().queryTimeouts} calls over budget`)
await engine.close({ graceMs: 0 })
