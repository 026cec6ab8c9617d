/**
 * GET /queries/:query_id/export: NDJSON and CSV parsed back equal the paged results (in order, with
 * `fields`), content negotiation, the quota reservation (one request per started 1,000 rows, all
 * or none), the trial refusal, and a client that goes away stops the batches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/index.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { BASE, createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
const internalErrors: unknown[] = []
// More than 1,000 companies, so that an export of all of them counts as two requests.
beforeAll(async () => { h = await createHarness({ companies: 1100, app: { onInternalError: (e) => { internalErrors.push(e) } } }) })
afterAll(async () => {
  await h.close()
  expect(internalErrors).toEqual([])
})

const postJson = async (body: unknown): Promise<any> =>
  (await h.request('/queries', { init: { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } })).json()

/** Every result of a stored query, page by page (50 each), as GET /queries/:id shows them. */
async function allPages(queryId: string, fields?: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = []
  for (let page = 1; ; page++) {
    const body = await h.json(`/queries/${queryId}?page=${page}&per_page=50${fields ? `&fields=${fields}` : ''}`)
    out.push(...body.results)
    if (body.results.length < 50) return out
  }
}

/** RFC 4180 records (quoted fields, doubled quotes, CRLF or LF line ends): enough to read the export back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++ } else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') { row.push(cell); cell = '' } else if (ch === '\r') continue
    else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = '' } else cell += ch
  }
  if (cell !== '' || row.length > 0) { row.push(cell); rows.push(row) }
  return rows
}

const csvCell = (v: unknown) => (v === null ? '' : Array.isArray(v) ? v.join('|') : String(v))

describe('export', () => {
  const query = { dataset: 'companies', filter: { employees: { gte: 5 } }, sort: [{ total_funding: 'desc' }] }

  it('NDJSON is every paged result, in order', async () => {
    const { query_id } = await postJson(query)
    const res = await h.get(`/queries/${query_id}/export?format=ndjson`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/x-ndjson')
    const lines = (await res.text()).split('\n')
    expect(lines.pop()).toBe('')
    const paged = await allPages(query_id)
    expect(paged.length).toBeGreaterThan(100)
    expect(lines.map((l) => JSON.parse(l))).toEqual(paged)
    expect(res.headers.get('x-export-rows')).toBe(String(paged.length))
    // Never revalidated into a 304: the quota is reserved before the first byte.
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('etag')).toBeNull()
  })

  it('CSV (Accept: text/csv) has a header row and the same records, tags joined by |', async () => {
    const { query_id } = await postJson(query)
    const res = await h.get(`/queries/${query_id}/export`, { init: { headers: { accept: 'text/csv' } } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    const [header, ...rows] = parseCsv(await res.text())
    const paged = await allPages(query_id)
    expect(header).toEqual(Object.keys(paged[0]!))
    expect(rows).toEqual(paged.map((r) => header!.map((name) => csvCell(r[name]))))
    // Something to quote and something to join was really exported.
    expect(rows.some((r) => r.some((cell) => cell.includes('|')))).toBe(true)
  })

  it('fields apply, in both formats; fundings carry their extras when picked', async () => {
    const { query_id } = await postJson(query)
    const ndjson = (await (await h.get(`/queries/${query_id}/export?fields=name,industries`)).text()).trim().split('\n').map((l) => JSON.parse(l))
    expect(ndjson).toEqual(await allPages(query_id, 'name,industries'))
    const csv = parseCsv(await (await h.get(`/queries/${query_id}/export?format=csv&fields=name,stage`)).text())
    expect(csv[0]).toEqual(['id', 'name', 'stage'])
    const fundings = await postJson({ dataset: 'fundings', sort: [{ amount: 'desc' }] })
    const exported = (await (await h.get(`/queries/${fundings.query_id}/export?fields=investors,series`)).text()).trim().split('\n').map((l) => JSON.parse(l))
    expect(exported).toEqual(await allPages(fundings.query_id, 'investors,series'))
    const bad = await h.get(`/queries/${query_id}/export?fields=nmae`)
    expect(bad.status).toBe(400)
    expect(problemSchema.parse(await bad.json()).issues![0]!.suggestions).toContain('name')
  })

  it('refuses an unknown format, an unknown id and trial keys (403 JSON)', async () => {
    const { query_id } = await postJson(query)
    expect((await h.get(`/queries/${query_id}/export?format=xlsx`)).status).toBe(400)
    expect((await h.get('/queries/nosuchquery/export')).status).toBe(404)
    const trial = await h.get(`/queries/${query_id}/export`, { key: h.trialKey })
    expect(trial.status).toBe(403)
    expect(trial.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(problemSchema.parse(await trial.json()).detail).toMatch(/full key/)
  })

  it('counts one request per started 1,000 rows, reserved up front, all or none', async () => {
    const { query_id } = await postJson({ dataset: 'companies' })
    const rows = Number(h.vdb.sqlite.prepare('select count(*) from companies').pluck().get())
    expect(rows).toBeGreaterThan(1000)
    const cost = Math.ceil(rows / 1000)
    const { key, record } = await h.newKey(10)
    const res = await h.get(`/queries/${query_id}/export`, { key })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-export-requests')).toBe(String(cost))
    expect(res.headers.get('x-quota-remaining')).toBe(String(10 - cost))
    expect(await h.quotaUsed(record.keyId)).toBe(cost)
    await res.body!.cancel()
    // A small export is one request.
    const small = await postJson({ ...query, filter: { employees: { gte: 1000 } } })
    const one = await h.get(`/queries/${small.query_id}/export`, { key })
    expect(one.status).toBe(200)
    expect(await h.quotaUsed(record.keyId)).toBe(cost + 1)
    await one.text()
    // Too few left: 429, and only the request itself was counted.
    const tight = await h.newKey(cost)
    await h.get('/companies', { key: tight.key })
    const refused = await h.get(`/queries/${query_id}/export`, { key: tight.key })
    expect(refused.status).toBe(429)
    expect(problemSchema.parse(await refused.json()).detail).toMatch(new RegExp(`counts as ${cost} requests`))
    expect(await h.quotaUsed(tight.record.keyId)).toBe(2)
  })

  it('a client that goes away stops the batches', async () => {
    const app = createApp(h.engine, { clock: () => HARNESS_NOW, exportBatchRows: 10 })
    const { query_id } = await postJson({ dataset: 'companies' })
    const abort = new AbortController()
    const res = await app.fetch(new Request(`${BASE}/queries/${query_id}/export?key=${h.fullKey}`, { signal: abort.signal }))
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    const first = await reader.read()
    expect(first.done).toBe(false)
    const callsAfterFirst = h.engine.stats().calls
    await reader.cancel()
    abort.abort()
    await new Promise((r) => setTimeout(r, 200))
    // At most the batch being read when it went away; the whole export would have been 100-odd batches.
    expect(h.engine.stats().calls - callsAfterFirst).toBeLessThanOrEqual(1)
    // Reading without cancelling keeps asking for batches only as they are read (pull, not push).
    const again = await app.fetch(new Request(`${BASE}/queries/${query_id}/export?key=${h.fullKey}`))
    const r2 = again.body!.getReader()
    await r2.read()
    const before = h.engine.stats().calls
    await new Promise((r) => setTimeout(r, 200))
    expect(h.engine.stats().calls - before).toBeLessThanOrEqual(1)
    await r2.read()
    expect(h.engine.stats().calls).toBeGreaterThan(before)
    await r2.cancel()
  })
})
