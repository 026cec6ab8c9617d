/**
 * @module Deep pages of a stored query through `engine.page(id, {page: N})` against the raw
 * `LIMIT/OFFSET` statement a naive API would run at the same depth (design section 8: OFFSET
 * 200,000 took 660 ms, the keyset seek 0.16 ms). Two ways to reach page N:
 * - a client walking the pages: page N-1's boundary is remembered, so page N is a keyset seek;
 *   target: far faster than OFFSET, and flat in N;
 * - a cold jump to page N (no boundary remembered): the engine walks forward reading sort keys
 *   only, remembering every boundary on the way; target: no slower than OFFSET reading rows.
 */
import { createEngine } from '../src/engine.js'
import { benchCompanies, freshCaches, openBenchDatabase } from './support/dataset.js'
import { runBench, type Case } from './support/measure.js'

const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const PER_PAGE = 50
const request = { dataset: 'companies', filter: { country: 'USA' }, sort: [{ svc_score: 'desc' }] }
const stored = await engine.store(request)
if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
const id = stored.value.query_id

const total = vdb.sqlite.prepare(`select count(*) from companies where country = 'USA'`).pluck().get() as number
const lastPage = Math.floor(total / PER_PAGE)
// The raw statement a naive API runs: the same rows, in the same order, at the same depth.
const offsetPage = vdb.sqlite.prepare(`select * from companies where country = ? order by svc_score desc, id asc limit ? offset ?`)
const forgetBoundaries = () => vdb.sqlite.exec('delete from query_page_boundaries')

async function pageIds(page: number): Promise<number[]> {
  const r = await engine.page(id, { page, per_page: PER_PAGE })
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value.results.map((x) => Number(x.id))
}

const cases: Case[] = []
for (const page of [10, Math.floor(lastPage / 4), Math.floor(lastPage * 0.9)]) {
  const offset = (page - 1) * PER_PAGE
  const raw = () => offsetPage.all('USA', PER_PAGE, offset)
  const rawIds = (raw() as { id: number }[]).map((r) => r.id)
  forgetBoundaries()
  if (JSON.stringify(await pageIds(page)) !== JSON.stringify(rawIds)) throw new Error(`page ${page}: engine and OFFSET disagree`)
  cases.push({
    name: `page ${page} (offset ${offset}), walking client`,
    subject: () => pageIds(page),
    baseline: raw,
    baselineName: 'LIMIT/OFFSET',
    maxRatio: page <= 10 ? 1 : 0.25,
  })
  cases.push({
    name: `page ${page} (offset ${offset}), cold jump`,
    setup: forgetBoundaries,
    subject: () => pageIds(page),
    baseline: raw,
    baselineName: 'LIMIT/OFFSET',
    maxRatio: 1.5,
  })
}

await runBench(`deep paging, ${total.toLocaleString('en-US')} hits of ${benchCompanies().toLocaleString('en-US')} companies, ${PER_PAGE} per page`, cases)
await engine.close()
await vdb.close()
