/**
 * Why keys, quotas, stored queries and caches live in a file of their own (store/state-file.ts),
 * measured on the benchmark database (`BENCH_COMPANIES`):
 *
 * 1. One connection reads (a search prefix match and a company by id) while a second connection
 *    commits one small write before each read: to a table in the data file, or to one in the
 *    attached state file, or not at all. SQLite empties a connection's page cache of a file when
 *    another has committed to that file, so the first makes every read start cold.
 * 2. The engine on a worker pool, 50 callers at once, 1,000 requests: search or company detail,
 *    each after a counted key check (`access.authorize`, the quota write every HTTP request makes),
 *    against the same without the check; CPU milliseconds per request (the process's, workers
 *    included), which is what bounds a server's requests per second.
 *
 * Targets: a read after a write to the state file at most 2x a read with no writes (reported:
 * after a write to the data file); a search with a counted key at most 3x one without.
 * `npx tsx bench/state-file.bench.ts` (BENCH_COMPANIES, default 100000).
 */
import Database from 'better-sqlite3'
import { createEngine } from '../src/engine.js'
import { createApiKey } from '../src/store/api-keys.js'
import { STATE_SCHEMA } from '../src/store/state-file.js'
import { benchDatabaseFile, openBenchDatabase } from './support/dataset.js'

const file = benchDatabaseFile()
// Opening through the store attaches the state file (and moves the tables into it on first open).
const vdb = openBenchDatabase()
const made = await createApiKey(vdb, { plan: 'full', quota: 2_000_000_000, period: 'day', label: 'bench/state-file' })
if (!made.ok) throw new Error('bench: could not create a key')
await vdb.close()

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const failures: string[] = []
const row = (cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`)

// 1. Reads after another connection's commit.
const reader = new Database(file, { readonly: true })
reader.pragma('mmap_size = 1073741824')
reader.prepare(`attach database ? as ${STATE_SCHEMA}`).run(`${file}-state`)
const writer = new Database(file)
writer.pragma('busy_timeout = 5000')
writer.prepare(`attach database ? as ${STATE_SCHEMA}`).run(`${file}-state`)
writer.exec(`create table if not exists main.bench_write_probe (k integer primary key, n integer)`)
writer.exec(`create table if not exists ${STATE_SCHEMA}.bench_write_probe (k integer primary key, n integer)`)
const search = reader.prepare(`select rowid from search_companies_fts where search_companies_fts match ? order by rowid limit 10`).pluck()
const detail = reader.prepare(`select * from companies where id = ?`)
const companies = reader.prepare('select max(id) from companies').pluck().get() as number
const writes: Record<string, (() => void) | undefined> = {
  'no writes': undefined,
  'a write to the data file first': () => writer.prepare(`insert into main.bench_write_probe values (1, 1) on conflict (k) do update set n = n + 1`).run(),
  'a write to the state file first': () => writer.prepare(`insert into ${STATE_SCHEMA}.bench_write_probe values (1, 1) on conflict (k) do update set n = n + 1`).run(),
}
const reads: Record<string, number[]> = Object.fromEntries(Object.keys(writes).map((k) => [k, []]))
const entries = Object.entries(writes)
for (let i = 0; i < 3000; i++) {
  // Rotated, so that no case is always the first to read the iteration's company.
  for (const [name, write] of [...entries.slice(i % entries.length), ...entries.slice(0, i % entries.length)]) {
    write?.()
    const t = performance.now()
    search.all('te*')
    detail.get(1 + ((i * 7919) % companies))
    if (i >= 200) reads[name]!.push(performance.now() - t)
  }
}
writer.exec(`drop table main.bench_write_probe`)
writer.exec(`drop table ${STATE_SCHEMA}.bench_write_probe`)
writer.close()
reader.close()
const base = median(reads['no writes']!)
console.log(`\n## A read (search prefix + company by id) on ${companies.toLocaleString('en-US')} companies, interleaved, 2,800 runs each\n`)
row(['case', 'median ms', '/ no writes'])
row(['---', '---', '---'])
for (const [name, xs] of Object.entries(reads)) row([name, median(xs).toFixed(3), (median(xs) / base).toFixed(2)])
const stateRatio = median(reads['a write to the state file first']!) / base
if (stateRatio > 2) failures.push(`read after a state-file write ${stateRatio.toFixed(2)}x (target <= 2)`)

// 2. The engine on a worker pool under 50 concurrent callers.
const engine = createEngine({ database: file, workers: 2 })
const key = made.value.key
const cases: Record<string, () => Promise<unknown>> = {
  'search': () => engine.records.search({ term: 'te', objectTypes: ['company', 'investor'], limit: 10 }),
  'search after a counted key check': async () => { await engine.access.authorize(key, new Date(), true); return engine.records.search({ term: 'te', objectTypes: ['company', 'investor'], limit: 10 }) },
  'company detail': () => engine.records.companyDetail(5000),
  'company detail after a counted key check': async () => { await engine.access.authorize(key, new Date(), true); return engine.records.companyDetail(5000) },
}
const cpu: Record<string, number> = {}
for (let round = 0; round < 3; round++) {
  for (const [name, call] of Object.entries(cases)) {
    const before = process.cpuUsage()
    await Promise.all(Array.from({ length: 50 }, async () => { for (let i = 0; i < 20; i++) await call() }))
    const used = process.cpuUsage(before)
    const ms = (used.user + used.system) / 1000 / 1000
    if (round > 0) cpu[name] = Math.min(cpu[name] ?? Infinity, ms)
  }
}
await engine.close()
console.log(`\n## CPU ms per request, worker pool (2 workers + 1 reserved), 50 callers, 1,000 requests (best of 2 rounds)\n`)
row(['request', 'CPU ms', '/ without the key check'])
row(['---', '---', '---'])
for (const [name, ms] of Object.entries(cpu)) {
  const plain = cpu[name.replace(' after a counted key check', '')]!
  row([name, ms.toFixed(3), (ms / plain).toFixed(2)])
}
const searchRatio = cpu['search after a counted key check']! / cpu['search']!
if (searchRatio > 3) failures.push(`search after a counted key check ${searchRatio.toFixed(2)}x CPU (target <= 3)`)
if (failures.length > 0) {
  console.log(`\nMISSED: ${failures.join('; ')}`)
  process.exitCode = 1
}
