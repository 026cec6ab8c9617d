/**
 * Field selection and export, side by side in one run (`npx tsx bench/fields-export.ts`, at
 * `BENCH_COMPANIES`, default 100,000; `--runs N`, default 5):
 *
 * - a 50-record page of 3 fields against the full page (the same stored query, pages 1-40; odd runs
 *   time the 3-field pass first, so run 1's cold first pages are its own), by wall-clock and CPU time;
 * - export rows/s: `ventureql export`'s writer (`exportTo`, NDJSON, keyset batches of 1,000)
 *   against a hand-written better-sqlite3 iterate-and-write of the same records (the same columns
 *   and tag lists, one sorted statement, `JSON.stringify` per row), both to a sink that drops bytes;
 * - RSS growth while GET /queries/:id/export streams every company through the app (in-process;
 *   `--rss-only` measures it alone in a fresh process, where earlier work cannot hide it), the
 *   anonymous part apart from the pages of the database file SQLite maps (Linux).
 *
 * Each run reports the ratio measured within it; the summary gives the median and the range.
 * `--pages-only` times the page passes alone.
 */
import { readFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { datasets } from '../src/catalog/index.js'
import type { FieldDef } from '../src/catalog/define.js'
import { exportTo } from '../src/cli/export.js'
import { createEngine } from '../src/engine.js'
import { createApp } from '../src/http/app.js'
import { createApiKey } from '../src/store/api-keys.js'
import { openDatabase } from '../src/store/open.js'
import { benchDatabaseFile } from './support/dataset.js'
import { timeRun, type Timing } from './support/measure.js'

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 5)
/** `--pages-only`: the page passes alone, without the exports (minutes per run at 1,000,000 companies). */
const pagesOnly = process.argv.includes('--pages-only')
const file = benchDatabaseFile()
const vdb = openDatabase(file)
const engine = createEngine({ database: vdb, workers: 0, timeoutMs: 0 })
// The engine's start-up reads (cost statistics, facet columns: ~9 s at 1,000,000 companies) run
// between calls until they end; `serve` waits for them before it listens, and so does this bench,
// or the first page passes of run 1 would time them too, whichever pass they overlap.
await engine.ready()

const sink = () => new Writable({ write(_chunk, _enc, done) { done() } })
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6

const stored = await engine.store({ dataset: 'companies', filter: { employees: { gte: 5 } }, sort: [{ employees: 'desc' }] })
if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
const id = stored.value.query_id
const all = await engine.store({ dataset: 'companies' })
if (!all.ok) throw new Error('store')
const allId = all.value.query_id
await engine.page(id, { page: 1 })

/** One page pass: pages 1-40 of 50 records, full or with 3 fields; ms per page, wall-clock and CPU (`timeRun`). */
async function pages(fields?: string): Promise<Timing> {
  const pass = await timeRun(async () => {
    for (let page = 1; page <= 40; page++) {
      const r = await engine.page(id, { page, per_page: 50, ...(fields ? { fields } : {}) })
      if (!r.ok || r.value.results.length !== 50) throw new Error('page')
    }
  })
  return { wall: pass.wall / 40, cpu: pass.cpu / 40 }
}

/** The hand-written baseline: one sorted statement with the same columns and tag lists, each row written as a JSON line. */
function handWritten(out: Writable): number {
  const fields = Object.values(datasets.companies.fields) as FieldDef[]
  const columns = fields.filter((f) => f.column).map((f) => `t0."${f.column}"`)
  const tags = fields.filter((f) => f.tags).map((f) => `(select json_group_array(value) from ${f.tags!.table} tl where tl.${f.tags!.ownerColumn} = t0.id) as "${f.name}"`)
  const statement = vdb.sqlite.prepare(`select ${[...columns, ...tags].join(', ')} from companies t0 order by t0.svc_score is null, t0.svc_score desc, t0.id`)
  let n = 0
  let buffer = ''
  for (const row of statement.iterate() as Iterable<Record<string, unknown>>) {
    buffer += JSON.stringify(row) + '\n'
    if (++n % 1000 === 0) { out.write(buffer); buffer = '' }
  }
  out.write(buffer)
  return n
}

const key = await createApiKey(vdb, { plan: 'full', quota: 1_000_000_000, period: 'day' }, new Date())
if (!key.ok) throw new Error('key')
// Other benches on the shared bench database empty its stored queries (`freshCaches`): a batch
// that finds the export's query gone stores it again (the same id) and is read again.
const app = createApp({
  ...engine,
  async exportBatch(queryId, batch, options) {
    const read = await engine.exportBatch(queryId, batch, options)
    if (read.ok || read.issues[0]?.code !== 'unknown_query' || queryId !== allId) return read
    if (!(await engine.store({ dataset: 'companies' })).ok) throw new Error('store')
    return engine.exportBatch(queryId, batch, options)
  },
})

/** Resident memory of this process by kind (MB), Linux: anonymous (heap, buffers, SQLite's page cache) and file-backed (the mapped database file). */
function residentByKind(): { anon: number; file: number } | undefined {
  try {
    const status = readFileSync('/proc/self/status', 'utf8')
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    return { anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 }
  } catch {
    return undefined
  }
}

interface ExportMemory {
  /** Growth of the peak RSS over the start, MB: anonymous and file-backed together. */
  readonly mb: number
  readonly rowsPerS: number
  /** Heap still in use after a full GC, over the start. */
  readonly retainedMb: number
  /** Growth of the peak RSS over the first half of the rows. */
  readonly firstHalfMb: number
  /** Growth of the peak heap in use. */
  readonly heapPeakMb: number
  /** Growth of the peak anonymous RSS, and of the peak over the first half of the rows (NaN off Linux). */
  readonly anonMb: number
  readonly anonFirstHalfMb: number
  /** Growth of the peak file-backed RSS: pages of the mapped database file, which the kernel may drop. */
  readonly fileMb: number
}

/**
 * RSS growth while the app streams every company as NDJSON, and the rows/s. Whether growth is
 * held memory or not: the anonymous part (heap, buffers, SQLite's page cache) apart from the
 * file-backed part (the database file mapped by SQLite, `mmap_size`, which a full export reads
 * whole), the peak of the first half of the rows against the whole (a leak or a missing
 * backpressure keeps climbing, garbage plateaus), the peak heap in use, and the heap still held
 * after a full GC.
 */
async function exportRss(): Promise<ExportMemory> {
  globalThis.gc?.()
  const start = process.memoryUsage().rss
  const heapAtStart = process.memoryUsage().heapUsed
  const kindsAtStart = residentByKind()
  const expected = await vdb.db.selectFrom('companies').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  const half = Number(expected.n) / 2
  let peak = start
  let firstHalf = start
  let heapPeak = heapAtStart
  let anonPeak = kindsAtStart?.anon ?? NaN
  let anonFirstHalf = anonPeak
  let filePeak = kindsAtStart?.file ?? NaN
  let lines = 0
  // Sampled at every chunk read (one batch of records): the read loop may never yield to timers.
  const sample = () => {
    const m = process.memoryUsage()
    peak = Math.max(peak, m.rss)
    heapPeak = Math.max(heapPeak, m.heapUsed)
    if (lines < half) firstHalf = Math.max(firstHalf, m.rss)
    const kinds = residentByKind()
    if (!kinds) return
    anonPeak = Math.max(anonPeak, kinds.anon)
    filePeak = Math.max(filePeak, kinds.file)
    if (lines < half) anonFirstHalf = Math.max(anonFirstHalf, kinds.anon)
  }
  const timer = setInterval(sample, 20)
  const t0 = process.hrtime.bigint()
  const res = await app.fetch(new Request(`http://bench/queries/${allId}/export?key=${key.ok ? key.value.key : ''}`))
  const reader = res.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    for (const b of value) if (b === 10) lines++
    sample()
  }
  clearInterval(timer)
  // What stays once the garbage is collected: growth of the peak that is only uncollected garbage is not retained.
  globalThis.gc?.()
  return {
    mb: (peak - start) / 1e6, rowsPerS: lines / (ms(t0) / 1000), retainedMb: (process.memoryUsage().heapUsed - heapAtStart) / 1e6,
    firstHalfMb: (firstHalf - start) / 1e6, heapPeakMb: (heapPeak - heapAtStart) / 1e6,
    anonMb: anonPeak - (kindsAtStart?.anon ?? NaN), anonFirstHalfMb: anonFirstHalf - (kindsAtStart?.anon ?? NaN), fileMb: filePeak - (kindsAtStart?.file ?? NaN),
  }
}

// `--rss-only`: only the HTTP export, in a process that did nothing else first, so that its growth is not hidden by earlier work.
if (process.argv.includes('--rss-only')) {
  const streamed = await exportRss()
  console.log(`HTTP export of every company: ${streamed.rowsPerS.toFixed(0)} rows/s, RSS growth ${streamed.mb.toFixed(1)} MB `
    + `(first half of the rows ${streamed.firstHalfMb.toFixed(1)} MB); anonymous ${streamed.anonMb.toFixed(1)} MB (first half ${streamed.anonFirstHalfMb.toFixed(1)} MB), `
    + `file-backed ${streamed.fileMb.toFixed(1)} MB; heap in use at most ${streamed.heapPeakMb.toFixed(1)} MB over the start, retained after GC ${streamed.retainedMb.toFixed(1)} MB`)
  await engine.close()
  vdb.sqlite.close()
  process.exit(0)
}

const pageRatios: number[] = []
const pageCpuRatios: number[] = []
const exportRatios: number[] = []
const rss: number[] = []
const anon: number[] = []
for (let run = 1; run <= runs; run++) {
  // Odd runs time the 3-field pass first: run 1's first pages (positions not yet remembered,
  // statements and code not yet compiled) are then the 3-field page's, the case the target bounds.
  const threeFirst = run % 2 === 1
  const first = await (threeFirst ? pages('name,website,stage') : pages())
  const second = await (threeFirst ? pages() : pages('name,website,stage'))
  const full = threeFirst ? second : first
  const three = threeFirst ? first : second
  if (pagesOnly) {
    pageRatios.push(three.wall / full.wall)
    pageCpuRatios.push(three.cpu / full.cpu)
    console.log(`run ${run}${threeFirst ? ' (3-field pass first)' : ''}: page full ${full.wall.toFixed(2)} ms (cpu ${full.cpu.toFixed(2)} ms), `
      + `3 fields ${three.wall.toFixed(2)} ms (cpu ${three.cpu.toFixed(2)} ms) (x${(three.wall / full.wall).toFixed(2)}, cpu x${(three.cpu / full.cpu).toFixed(2)})`)
    continue
  }
  let t0 = process.hrtime.bigint()
  const exported = await exportTo(engine, allId, sink(), { format: 'ndjson' })
  const oursMs = ms(t0)
  t0 = process.hrtime.bigint()
  const rows = handWritten(sink())
  const theirsMs = ms(t0)
  if (!exported.ok || exported.value !== rows) throw new Error(`export wrote ${exported.ok ? exported.value : 'an error'}, the baseline ${rows}`)
  const streamed = await exportRss()
  pageRatios.push(three.wall / full.wall)
  pageCpuRatios.push(three.cpu / full.cpu)
  exportRatios.push((rows / oursMs) / (rows / theirsMs))
  rss.push(streamed.mb)
  anon.push(streamed.anonMb)
  console.log(`run ${run}${threeFirst ? ' (3-field pass first)' : ''}: page full ${full.wall.toFixed(2)} ms (cpu ${full.cpu.toFixed(2)} ms), 3 fields ${three.wall.toFixed(2)} ms (cpu ${three.cpu.toFixed(2)} ms) `
    + `(x${(three.wall / full.wall).toFixed(2)}, cpu x${(three.cpu / full.cpu).toFixed(2)}); `
    + `export ${(rows / oursMs * 1000).toFixed(0)} rows/s vs hand-written ${(rows / theirsMs * 1000).toFixed(0)} rows/s (x${((rows / oursMs) / (rows / theirsMs)).toFixed(2)}); `
    + `HTTP export ${streamed.rowsPerS.toFixed(0)} rows/s, RSS growth ${streamed.mb.toFixed(1)} MB (anonymous ${streamed.anonMb.toFixed(1)} MB, file-backed ${streamed.fileMb.toFixed(1)} MB, heap peak +${streamed.heapPeakMb.toFixed(1)} MB, retained ${streamed.retainedMb.toFixed(1)} MB)`)
}
const range = (xs: number[], d = 2) => `median ${median(xs).toFixed(d)}, range ${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)}`
console.log(`\n${runs} runs at ${file}:`)
console.log(`3-field page / full page: ${range(pageRatios)}; by CPU time: ${range(pageCpuRatios)}`)
if (pagesOnly) {
  await engine.close()
  vdb.sqlite.close()
  process.exit(0)
}
console.log(`export rows/s / hand-written rows/s: ${range(exportRatios)}`)
console.log(`RSS growth during a full HTTP export (MB): ${range(rss, 1)}; anonymous RSS growth: ${range(anon, 1)}`)
await engine.close()
vdb.sqlite.close()
