/**
 * @module The suite's report: issue 9's targets checked as ratios from the same run, printed, and
 * written as `bench/results/latest.json` (or `$BENCH_RESULTS_NAME.json`; everything measured), `latest.md` (the tables and the
 * targets, met or missed) and `latest.svg` (engine / hand-tuned SQL per request, page 1 and first
 * count, drawn by hand: bars on a log scale with the 1.5x and 3x target lines). Returns the
 * number of targets missed.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { KEY_CHECK_ALONE, type HttpLoadResult } from './http-load.js'
import type { Kind } from './mix.js'
import type { PagesResult } from './pages.js'
import type { Timed } from './timing.js'

export interface RequestRow {
  readonly id: string
  readonly title: string
  readonly kind: Kind
  readonly covers: string
  readonly http: string
  readonly identical: boolean | undefined
  readonly mingoAgrees: boolean | undefined
  readonly total: number | undefined
  readonly times: Record<string, Timed>
  readonly handSql?: string
  readonly plainSql?: string
}

export interface CountRow {
  readonly id: string
  readonly title: string
  readonly total: number
  readonly times: Record<string, Timed>
}

export interface SimilarQuality {
  /** Candidates scored in full by the exhaustive search (absent: uncapped; older result files record 50,000). */
  readonly exhaustiveCap?: number
  readonly companies: readonly { readonly id: number; readonly overlap: number; readonly scoreRatio: number; readonly exhaustiveMs: number }[]
}

export interface SuiteResult {
  readonly companies: number
  readonly perPage: number
  readonly seconds: number
  readonly peerLoadMs: number | undefined
  readonly params: Record<string, unknown>
  readonly rows: readonly RequestRow[]
  readonly counts: readonly CountRow[]
  readonly pages: PagesResult | undefined
  readonly similar: SimilarQuality | undefined
  readonly load: HttpLoadResult | undefined
  readonly errors: readonly string[]
  /** Set when the report is written again from a results file (`rerender.ts`). */
  readonly generated?: string
  readonly machine?: { readonly loadavg: readonly number[] }
}

export interface Target {
  readonly name: string
  readonly measured: number
  readonly bound: string
  readonly ok: boolean
  readonly note?: string
}

export const RESULTS_DIR = resolve('bench/results')
/** The files' base name: `latest` unless `BENCH_RESULTS_NAME` says otherwise (e.g. `1m` for a full run kept beside the CI one). */
const name = () => process.env.BENCH_RESULTS_NAME ?? 'latest'

const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const ratio = (t: Record<string, Timed>, a: string, b: string) => (t[a] && t[b] ? t[a]!.median / t[b]!.median : NaN)
/**
 * The reference of the targets: the faster of the two identity-checked SQL forms (hand-tuned and
 * plain), so that where SQLite's own plan for the plain text is already as good, the engine is
 * compared with that: the best SQL one would write.
 */
export function bestSql(t: Record<string, Timed>): number {
  const hand = t.hand?.median ?? NaN
  const plain = t.plain?.median
  return plain === undefined ? hand : Math.min(hand, plain)
}
const toBest = (t: Record<string, Timed>) => (t.engine ? t.engine.median / bestSql(t) : NaN)
const cell = (s: string) => s.replace(/\|/g, '\\|')
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toFixed(3))
const x = (v: number) => (Number.isNaN(v) ? '' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2))

/** Page-1 ratios that count for the mix target: requests whose hand SQL returns the same rows. */
function mixRows(r: SuiteResult): RequestRow[] {
  return r.rows.filter((row) => row.identical !== undefined && row.times.hand)
}

export function targets(r: SuiteResult): Target[] {
  const out: Target[] = []
  const mix = mixRows(r)
  const page1 = mix.map((row) => toBest(row.times))
  out.push({ name: 'page 1: median over the mix of engine / best SQL', measured: med(page1), bound: '<= 1.5', ok: med(page1) <= 1.5 })
  for (const row of mix) {
    const v = toBest(row.times)
    out.push({ name: `page 1: ${row.id}, engine / best SQL`, measured: v, bound: '<= 3', ok: v <= 3 })
  }
  for (const c of r.counts) {
    const v = toBest(c.times)
    out.push({ name: `first count: ${c.id}, engine / best SQL`, measured: v, bound: '<= 2', ok: v <= 2 })
  }
  if (r.pages) {
    // Runs written before engine.pageWithoutTotal existed compared with the hand seek only.
    const noCount = r.pages.repeated['no count (engine)'] ? 'no count (engine)' : 'no count (hand seek)'
    const rep = ratio(r.pages.repeated, 'repeated (total cached)', noCount)
    out.push({ name: 'repeated page, total cached / the page without counting', measured: rep, bound: '<= 1.1', ok: rep <= 1.1, note: `no-count page = ${noCount === 'no count (engine)' ? 'engine.pageWithoutTotal' : 'the hand keyset seek (no count-free call then)'}` })
    for (const k of ['walked', 'cold']) {
      const v = ratio(r.pages.deep, k, 'page1')
      out.push({ name: `page ${r.pages.page.toLocaleString('en-US')}, ${k} / page 1`, measured: v, bound: '<= 1.5', ok: v <= 1.5 })
    }
    for (const [sort, t] of Object.entries(r.pages.sorted ?? {})) {
      for (const k of ['walked', 'cold']) {
        const v = ratio(t, k, 'page1')
        out.push({ name: `page ${r.pages.page.toLocaleString('en-US')} by ${sort}, ${k} / page 1`, measured: v, bound: '<= 1.5', ok: v <= 1.5 })
      }
    }
  }
  const detail = r.rows.find((row) => row.id === 'company-detail')
  if (detail) {
    for (const row of r.rows.filter((x) => x.kind === 'search')) {
      const v = row.times.engine!.median / detail.times.engine!.median
      out.push({ name: `${row.id}: engine / company detail by primary key (engine)`, measured: v, bound: '<= 2', ok: v <= 2 })
    }
    const sim = r.rows.find((row) => row.id === 'similar')
    if (sim) {
      const v = sim.times.engine!.median / detail.times.engine!.median
      const overlap = r.similar ? med(r.similar.companies.map((c) => c.overlap)) : NaN
      out.push({ name: 'similar companies: engine / company detail (engine)', measured: v, bound: '<= 10', ok: v <= 10, note: Number.isNaN(overlap) ? undefined : `median overlap with the exhaustive search ${(overlap * 100).toFixed(0)}%` })
    }
  }
  if (r.load) {
    const bare = r.load.bare.rps
    // Reported beside the targets, not one: no route behind the built-in keys can pass the key check's own rate.
    const alone = r.load.endpoints.find((e) => e.name === KEY_CHECK_ALONE)
    const ceiling = alone ? `the key check alone (GET /ratelimit/usage): ${(alone.rps / bare).toFixed(2)} of the bare route` : undefined
    for (const e of r.load.endpoints.filter((e) => e.name.startsWith('GET /companies/:id') || e.name.startsWith('GET /search'))) {
      out.push({ name: `HTTP ${e.name}: req/s / bare route`, measured: e.rps / bare, bound: '>= 0.6', ok: e.rps / bare >= 0.6, ...(ceiling ? { note: ceiling } : {}) })
    }
    const anon = Math.max(...r.load.memory.map((m) => m.anonMb))
    out.push({ name: 'server anonymous RSS, peak MB (map apart)', measured: anon, bound: '< 400', ok: anon < 400 })
    // Flat: over the mixed run after its first quarter (warm-up), the last sample against the first.
    const mixed = r.load.memory.filter((m) => m.phase === 'mix')
    const tail = mixed.slice(Math.floor(mixed.length / 4))
    const growth = tail.length > 1 ? (tail.at(-1)!.anonMb - tail[0]!.anonMb) / tail[0]!.anonMb : NaN
    out.push({ name: `server anonymous RSS growth over the mixed run (${r.load.mixSeconds} s, first quarter left out)`, measured: growth, bound: '<= 10% (flat)', ok: growth <= 0.1 })
  }
  const listings = r.rows.filter((row) => row.times.mingo)
  if (listings.length > 0) {
    const v = med(listings.map((row) => ratio(row.times, 'mingo', 'engine')))
    out.push({ name: 'in-memory peer (mingo) / engine, median over listings', measured: v, bound: '>= 100', ok: v >= 100 })
  }
  return out
}

function svg(r: SuiteResult): string {
  const rows = mixRows(r)
  const countBy = new Map(r.counts.map((c) => [c.id, toBest(c.times)]))
  const W = 900, rowH = 26, left = 250, top = 50, plotW = W - left - 30
  const H = top + rows.length * rowH + 50
  const lo = Math.log10(0.5), hi = Math.log10(Math.max(10, ...rows.map((row) => toBest(row.times)), ...[...countBy.values()].filter((v) => !Number.isNaN(v))) * 1.1)
  const X = (v: number) => left + ((Math.log10(Math.max(v, 0.5)) - lo) / (hi - lo)) * plotW
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">engine / best SQL (hand-tuned or plain, same rows), ${r.companies.toLocaleString('en-US')} companies (log scale; lower is better)</text>`,
    `<rect x="${left}" y="30" width="12" height="10" fill="#4477aa"/><text x="${left + 16}" y="39">page 1 (median)</text>`,
    `<rect x="${left + 130}" y="30" width="12" height="10" fill="#ee7733"/><text x="${left + 146}" y="39">first count (median)</text>`,
  ]
  for (const t of [0.5, 1, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000].filter((t) => Math.log10(t) <= hi)) {
    const xx = X(t)
    const target = t === 1.5 || t === 3 || t === 2
    parts.push(`<line x1="${xx}" y1="${top - 4}" x2="${xx}" y2="${top + rows.length * rowH}" stroke="${target ? '#cc3311' : '#ddd'}" stroke-dasharray="${target ? '4,3' : ''}"/>`)
    parts.push(`<text x="${xx}" y="${top + rows.length * rowH + 16}" text-anchor="middle" fill="${target ? '#cc3311' : '#555'}">${t}x</text>`)
  }
  rows.forEach((row, i) => {
    const y = top + i * rowH
    parts.push(`<text x="${left - 6}" y="${y + 15}" text-anchor="end">${esc(row.id)}</text>`)
    const p = toBest(row.times)
    parts.push(`<rect x="${X(0.5)}" y="${y + 3}" width="${Math.max(1, X(p) - X(0.5))}" height="9" fill="#4477aa"/><text x="${X(p) + 4}" y="${y + 12}" font-size="10">${x(p)}</text>`)
    const c = countBy.get(row.id)
    if (c !== undefined && !Number.isNaN(c)) parts.push(`<rect x="${X(0.5)}" y="${y + 13}" width="${Math.max(1, X(c) - X(0.5))}" height="9" fill="#ee7733"/><text x="${X(c) + 4}" y="${y + 22}" font-size="10">${x(c)}</text>`)
  })
  parts.push(`<text x="${left}" y="${H - 12}" fill="#555">dashed: the issue's bounds (page 1 every request 3x, mix median 1.5x; first counts 2x)</text>`, '</svg>')
  return parts.join('\n')
}

function markdown(r: SuiteResult, ts: readonly Target[]): string {
  const L: string[] = []
  L.push(`# Benchmark suite (issue 9): ${r.companies.toLocaleString('en-US')} companies`, '')
  L.push(`Generated by \`npm run bench -- --size ${r.companies}\` (bench/suite.bench.ts) in ${r.seconds.toFixed(0)} s on ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), load average ${(r.machine?.loadavg ?? loadavg())[0]!.toFixed(1)} at the end; ${(r.generated ?? new Date().toISOString()).slice(0, 10)}. Times in ms (median, p99 over the runs of each variant, interleaved; with 31 runs the p99 is the slowest run); ratios are medians divided, from the same run. \"Best SQL\" is the faster of the hand-tuned and the plain form, both checked to return the engine's rows and total.`, '')
  L.push(`![engine / best SQL](${name()}.svg)`, '')
  L.push('## Targets', '', '| target | measured | bound | |', '|---|---|---|---|')
  for (const t of ts) L.push(`| ${cell(t.name)}${t.note ? ` (${cell(t.note)})` : ''} | ${t.name.includes('growth') ? `${(t.measured * 100).toFixed(1)}%` : x(t.measured)} | ${t.bound} | ${t.ok ? 'met' : '**missed**'} |`)
  L.push('', `${ts.filter((t) => t.ok).length} of ${ts.length} met.`, '')
  if (r.errors.length > 0) L.push('## Errors (identity checks and others)', '', ...r.errors.map((e) => `- ${e}`), '')
  L.push('## Page 1 (50 per page; totals cached)', '', '| request | total | engine | engine p99 | HTTP handler | hand-tuned | hand p99 | plain SQLite | mingo | engine / hand | engine / best SQL | HTTP / engine | plain / engine | mingo / engine | same rows |', '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const row of r.rows) {
    const t = row.times
    L.push(`| ${cell(row.title)} | ${row.total ?? ''} | ${ms(t.engine?.median)} | ${ms(t.engine?.p99)} | ${ms(t.http?.median)} | ${ms(t.hand?.median)} | ${ms(t.hand?.p99)} | ${ms(t.plain?.median)} | ${ms(t.mingo?.median)} | ${x(ratio(t, 'engine', 'hand'))} | ${row.identical ? x(toBest(t)) : ''} | ${x(ratio(t, 'http', 'engine'))} | ${x(ratio(t, 'plain', 'engine'))} | ${x(ratio(t, 'mingo', 'engine'))} | ${row.identical === undefined ? 'not checked' : row.identical ? 'yes' : '**no**'}${row.mingoAgrees === false ? ' (mingo differs)' : ''} |`)
  }
  L.push('', '## First counts (totals cache emptied before every engine run)', '', '| request | total | engine | engine p99 | hand-tuned | plain SQLite | mingo | engine / hand | engine / best SQL | plain / engine | mingo / engine |', '|---|---|---|---|---|---|---|---|---|---|---|')
  for (const c of r.counts) {
    const t = c.times
    L.push(`| ${cell(c.title)} | ${c.total} | ${ms(t.engine?.median)} | ${ms(t.engine?.p99)} | ${ms(t.hand?.median)} | ${ms(t.plain?.median)} | ${ms(t.mingo?.median)} | ${x(ratio(t, 'engine', 'hand'))} | ${x(toBest(t))} | ${x(ratio(t, 'plain', 'engine'))} | ${x(ratio(t, 'mingo', 'engine'))} |`)
  }
  if (r.pages) {
    const p = r.pages
    L.push('', `## Deep and repeated pages (page ${p.page.toLocaleString('en-US')} of ${p.hits.toLocaleString('en-US')} hits, 50 per page)`, '', '| case | median | p99 | / page 1 |', '|---|---|---|---|')
    for (const [name, t] of [...Object.entries(p.deep), ...Object.entries(p.firstJump).filter(([n]) => n === 'first jump')]) L.push(`| ${name} | ${ms(t.median)} | ${ms(t.p99)} | ${x(t.median / p.deep.page1!.median)} |`)
    for (const [sort, t] of Object.entries(p.sorted ?? {})) {
      for (const [name, v] of Object.entries(t)) L.push(`| ${name}, by ${sort} | ${ms(v.median)} | ${ms(v.p99)} | ${x(v.median / t.page1!.median)} |`)
    }
    L.push('', '| repeated page 2 | median | p99 | / hand seek (no count) |', '|---|---|---|---|')
    for (const [name, t] of Object.entries(p.repeated)) L.push(`| ${name} | ${ms(t.median)} | ${ms(t.p99)} | ${x(t.median / p.repeated['no count (hand seek)']!.median)} |`)
  }
  if (r.similar) {
    L.push('', `## Similar companies against an exhaustive search (every posting read and probed; ${r.similar.exhaustiveCap === undefined ? 'no candidate cap: each ranked by its exact tag Jaccard, every one that could reach the 20 scored in full' : `the best ${r.similar.exhaustiveCap.toLocaleString('en-US')} candidates by shared tag weight scored`})`, '', '| company | overlap of the 20 | mean score / exhaustive | exhaustive ms |', '|---|---|---|---|')
    for (const c of r.similar.companies) L.push(`| ${c.id} | ${(c.overlap * 100).toFixed(0)}% | ${c.scoreRatio.toFixed(3)} | ${c.exhaustiveMs.toFixed(0)} |`)
  }
  if (r.load) {
    const l = r.load
    L.push('', `## HTTP over sockets (autocannon, 127.0.0.1, ${l.connections} connections, ${l.seconds} s per endpoint)`, '', '| endpoint | req/s | / bare | p50 ms | p99 ms | non-2xx | errors |', '|---|---|---|---|---|---|---|')
    for (const e of [l.bare, ...l.endpoints]) L.push(`| ${cell(e.name)} | ${e.rps.toFixed(0)} | ${(e.rps / l.bare.rps).toFixed(2)} | ${e.p50} | ${e.p99} | ${e.non2xx} | ${e.errors} |`)
    const peak = (k: 'anonMb' | 'fileMb') => Math.max(...l.memory.map((m) => m[k]))
    L.push('', `Server RSS over ${l.memory.at(-1)?.t.toFixed(0) ?? 0} s (${l.memory.length} samples): anonymous peak ${peak('anonMb').toFixed(0)} MB (first ${l.memory[0]?.anonMb.toFixed(0)}, last ${l.memory.at(-1)?.anonMb.toFixed(0)}), file-backed (the database map) peak ${peak('fileMb').toFixed(0)} MB.`)
  }
  if (r.peerLoadMs !== undefined) L.push('', `mingo's documents were loaded in ${(r.peerLoadMs / 1000).toFixed(1)} s (not timed).`)
  L.push('', `What each variant is: bench/README.md, "The issue-9 suite". The SQL of each hand-tuned and plain form is in ${name()}.json (\`rows[].handSql\`, \`plainSql\`).`, '')
  return L.join('\n')
}

export function writeReport(r: SuiteResult): number {
  const ts = targets(r)
  mkdirSync(RESULTS_DIR, { recursive: true })
  const json = { generated: new Date().toISOString(), machine: { cores: availableParallelism(), cpu: cpus()[0]?.model, loadavg: loadavg() }, ...r, targets: ts }
  writeFileSync(join(RESULTS_DIR, `${name()}.json`), `${JSON.stringify(json, null, 1)}\n`)
  const md = markdown(r, ts)
  writeFileSync(join(RESULTS_DIR, `${name()}.md`), md)
  writeFileSync(join(RESULTS_DIR, `${name()}.svg`), svg(r))
  console.log(md)
  const missed = ts.filter((t) => !t.ok).length
  console.log(`\nsuite: ${ts.length - missed} of ${ts.length} targets met; written bench/results/${name()}.{json,md,svg}`)
  return missed
}
