/**
 * The missing-values rule (grammar-docs/guides/serving.md, "Missing values"; src/http/views/missing-values.ts) on every
 * endpoint that shows companies, fundings and investors: plain strings are '' when unknown, numbers,
 * numeric strings and dates null, spec-nullable fields null, arrays [], fields that do not apply to a
 * record kind null, and a company without a stage "Unknown". And the same company shows the same
 * name, domain, stage and total_funding wherever it appears.
 *
 * The fixture already lacks many values (description, scores, total_funding, city, ...); columns it
 * always fills (name, website, stage, added_date, rounds_funding_date, ...) are emptied here with
 * direct SQL on this file's own harness before the first request. Expectations are computed from
 * the tables with the rule written out below, never with the views.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { similarCompanies } from '../../src/records/similar.js'
import { refreshSearchIndex } from '../../src/store/search-index.js'
import { refreshPostgresSearchIndex } from '../../src/store/search-index-postgres.js'
import {
  companyDetailSchema, peopleSchema, similarCompaniesSchema, storiesSchema,
} from '../../src/http/schemas/company.js'
import { investorDetailSchema, portfolioSchema } from '../../src/http/schemas/investor.js'
import { companyListSchema, fundingListSchema } from '../../src/http/schemas/listings.js'
import { queryEnvelopeSchemaFor } from '../../src/http/schemas/queries.js'
import { datasets, type DatasetName } from '../../src/catalog/index.js'
import { searchResponseSchema } from '../../src/http/schemas/search.js'
import { createHarness, type Harness } from './harness.js'

/** The rule, written out independently of src/http/views/missing-values.ts. */
const asText = (v: unknown): string => (v === null || v === undefined ? '' : String(v))
const asNullable = (v: unknown): unknown => (v === undefined ? null : v)
const asNumeric = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))
const asStage = (v: unknown): string => (v === null || v === undefined || v === '' ? 'Unknown' : String(v))

type Row = Record<string, any>
type Detail = z.infer<typeof companyDetailSchema>

let h: Harness
const all = (sql: string, ...params: unknown[]) => h.vdb.sqlite.prepare(sql).all(...params) as Row[]
const one = (sql: string, ...params: unknown[]) => h.vdb.sqlite.prepare(sql).get(...params) as Row | undefined

async function get<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
  const res = await h.get(path)
  const text = await res.text()
  expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200)
  const parsed = schema.safeParse(JSON.parse(text))
  if (!parsed.success) throw new Error(`${path}: does not match its schema: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`)
  return parsed.data
}

/** Companies emptied on purpose, and what they were called before (the search index keeps the old words). */
let nameless: { id: number; oldName: string }
let stageless: { id: number; oldName: string }
let bareFunding: number
let bareInvestor: { id: number; oldName: string }
const details = new Map<number, Detail>()

beforeAll(async () => {
  h = await createHarness()
  // Companies in some investor's portfolio that also appear in some company's similar list, so
  // that every endpoint showing companies shows them.
  const inPortfolio = new Set(all('select distinct f.company_id from fundings f join funding_investors l on l.funding_id = f.id').map((r) => r.company_id as number))
  const inSimilar = new Set<number>()
  for (const { id } of all('select id from companies order by id limit 120')) for (const x of await similarCompanies(h.vdb, id)) inSimilar.add(x.id)
  const both = [...inPortfolio].filter((id) => inSimilar.has(id)).sort((a, b) => a - b)
  expect(both.length).toBeGreaterThan(2)
  const name = (id: number) => one('select name from companies where id = ?', id)!.name as string
  nameless = { id: both[0]!, oldName: name(both[0]!) }
  stageless = { id: both[1]!, oldName: name(both[1]!) }

  await h.mutate('update companies set name = null, website = null where id = ?', nameless.id)
  // A company without a stage is stored with the stage "Unknown" (the loader and migration 012 see to it).
  await h.mutate(`update companies set stage = 'Unknown', total_funding = null, last_funding_date = null, last_funding_amount = null, added_date = null,
    country = null, location = null, city = null, svc_score = null, professionalnet_id = null, est_founding_date = null where id = ?`, stageless.id)
  await h.mutate('update companies_extra set stage_raw = null, last_funding_date_raw = null where company_id = ?', stageless.id)
  // A story and a person of the stageless company (or of any company that has one) without their optional parts.
  const story = one('select id, company_id from company_stories order by company_id = ? desc, id limit 1', stageless.id)!
  await h.mutate('update company_stories set url = null, source_title = null, published_at = null where id = ?', story.id)
  const person = one('select company_id, position from company_people order by company_id = ? desc, company_id, position limit 1', stageless.id)!
  await h.mutate('update company_people set title = null, path = null where company_id = ? and position = ?', person.company_id, person.position)

  bareFunding = one('select min(id) as id from fundings where company_id is not null')!.id as number
  await h.mutate(`update fundings set series = null, rounds_funding_date = null, amount = null, currency = null, news_url = null, region = null,
    city = null, state = null, country = null, created_on = null where id = ?`, bareFunding)

  const investor = one('select id, name from investors order by portfolio_size desc, id limit 1 offset 1')!
  bareInvestor = { id: investor.id, oldName: investor.name }
  await h.mutate(`update investors set name = null, website = null, location = null, type = null, three_year_funds_sold = null,
    est_most_recent_fund_date = null where id = ?`, investor.id)

  for (const { id } of all('select id from companies order by id')) details.set(id, await get(`/companies/${id}`, companyDetailSchema))
}, 120_000)

afterAll(async () => {
  await h?.close()
})

describe('GET /companies/:id', () => {
  it('shows every unknown value by the rule, for every fixture company', () => {
    const rows = all('select c.*, x.stage_raw, x.last_funding_date_raw from companies c left join companies_extra x on x.company_id = c.id order by c.id')
    let nulls = 0
    for (const row of rows) {
      const d = details.get(row.id)!
      for (const f of ['name', 'description', 'website', 'location', 'city', 'state', 'zip', 'country', 'microblog_handle', 'socialnet_handle', 'revenue_range'] as const) {
        expect(d[f], `${row.id} ${f}`).toBe(asText(row[f]))
        if (row[f] === null) nulls++
      }
      for (const f of ['svc_score', 'employees', 'employees_month_ago', 'employees_6_months_ago', 'website_uniques', 'mobile_downloads', 'mobile_score'] as const) {
        expect(d[f], `${row.id} ${f}`).toBe(asNumeric(row[f]))
      }
      for (const f of ['total_funding', 'last_funding_amount', 'professionalnet_id', 'added_date', 'est_founding_date'] as const) {
        expect(d[f], `${row.id} ${f}`).toBe(asNullable(row[f]))
      }
      expect(d.last_funding_date).toBe(asNullable(row.last_funding_date_raw ?? row.last_funding_date))
      expect(d.stage).toBe(asStage(row.stage_raw ?? row.stage))
      expect(d.microblog_mentions).toEqual([])
      for (const f of ['ios_store_apps', 'android_store_apps', 'funding', 'acquired_by', 'acquired_companies', 'business_models', 'industries', 'stories'] as const) {
        expect(Array.isArray(d[f]), `${row.id} ${f}`).toBe(true)
      }
      for (const app of d.android_store_apps) expect([app.company_name, app.company_domain]).toEqual([asText(row.name), asText(row.website)])
    }
    // The fixture really exercises the text branch.
    expect(nulls).toBeGreaterThan(100)
  })

  it('the emptied companies: "" for text, null for numbers and dates, "Unknown" for the stage', () => {
    expect(details.get(nameless.id)).toMatchObject({ name: '', website: '' })
    expect(details.get(stageless.id)).toMatchObject({
      stage: 'Unknown', total_funding: null, last_funding_date: null, last_funding_amount: null, added_date: null,
      country: '', location: '', city: '', svc_score: null, professionalnet_id: null, est_founding_date: null,
    })
  })

  it('funding items, acquisitions and stories of the detail follow the rule', () => {
    const bare = one('select company_id from fundings where id = ?', bareFunding)!
    const item = details.get(bare.company_id)!.funding.find((f) => f.funding_date === null)
    expect(item).toMatchObject({ amount: null, currency: '', series: '', funding_date: null, news_url: '' })
    const acquisitions = all('select acquired_id from acquisitions where acquirer_name is null and acquirer_id is null')
    for (const a of acquisitions) {
      for (const x of details.get(a.acquired_id)!.acquired_by) {
        expect(typeof x.company_name).toBe('string')
        expect(typeof x.company_domain).toBe('string')
      }
    }
    const story = one('select company_id, title from company_stories where url is null')!
    expect(details.get(story.company_id)!.stories.find((s) => s.title === story.title)).toEqual({ title: story.title, url: '', date: null, source: '' })
  })
})

describe('the sub-resources of a company', () => {
  it('GET /companies/:id/stories and /people: "" for missing text, null for a missing date', async () => {
    const story = one('select id, company_id, title from company_stories where url is null')!
    const stories = await get(`/companies/${story.company_id}/stories`, storiesSchema)
    expect(stories.find((s) => s.id === story.id)).toEqual({ id: story.id, title: story.title, url: '', published_at: null, source_title: '' })
    const person = one('select company_id, name from company_people where title is null and path is null')!
    const people = await get(`/companies/${person.company_id}/people`, peopleSchema)
    expect(people).toContainEqual({ name: person.name, title: '', path: '' })
  })
})

describe('the same company shows the same values everywhere', () => {
  it('GET /companies (list): company_name and domain as the detail shows name and website', async () => {
    const seen = new Set<number>()
    for (let page = 1; ; page++) {
      const body = await get(`/companies?per_page=50&page=${page}`, companyListSchema)
      for (const item of body.companies) {
        const d = details.get(Number(item.id))!
        expect([item.company_name, item.domain], item.id).toEqual([d.name, d.website])
        seen.add(Number(item.id))
      }
      if (page >= body.meta.total_pages) break
    }
    expect(seen.size).toBe(400)
    expect(seen.has(nameless.id)).toBe(true)
  })

  it('GET /companies/:id/similar entries: name, domain, description, stage and total_funding as the detail shows them', async () => {
    const found = new Set<number>()
    let unknownFunding = 0
    for (const id of [...details.keys()].slice(0, 120)) {
      for (const s of await get(`/companies/${id}/similar`, similarCompaniesSchema)) {
        const d = details.get(s.id)!
        expect({ company_name: s.company_name, domain: s.domain, description: s.description, stage: s.stage, total_funding: s.total_funding }, `${id} -> ${s.id}`)
          .toEqual({ company_name: d.name, domain: d.website, description: d.description, stage: d.stage, total_funding: d.total_funding })
        if (s.total_funding === null) unknownFunding++
        found.add(s.id)
      }
    }
    expect(found.has(nameless.id) && found.has(stageless.id)).toBe(true)
    expect(unknownFunding).toBeGreaterThan(0)
  })

  it('GET /search company results: name, domain, funding and score as the detail shows them; [] keywords; investor_funding 0', async () => {
    const withoutKeywords = one(`select id, name from companies c where name is not null and total_funding is null
      and not exists (select 1 from company_keywords k where k.company_id = c.id) order by id limit 1`)!
    // A company without a name that keeps its domain (found by the domain); the last one, as the
    // other tests pick theirs from the first ids.
    const domainOnly = one('select id, website from companies where name is not null and website is not null and id not in (?, ?) order by id desc limit 1', nameless.id, stageless.id)!
    await h.mutate('update companies set name = null where id = ?', domainOnly.id)
    details.set(domainOnly.id, await get(`/companies/${domainOnly.id}`, companyDetailSchema))
    // The search index holds copies of what a hit shows (migration 013) and every load rebuilds it;
    // these changes were made behind the loader's back, so the index is rebuilt as a load would.
    refreshSearchIndex(h.vdb.sqlite)
    if (h.served.dialect === 'postgres') await refreshPostgresSearchIndex(h.served.db)
    const cases = [
      { id: stageless.id, term: stageless.oldName },
      { id: withoutKeywords.id as number, term: withoutKeywords.name as string },
      { id: domainOnly.id as number, term: domainOnly.website as string },
    ]
    for (const c of cases) {
      const hits = await get(`/search?term=${encodeURIComponent(c.term)}&object_types=company&per_page=50`, searchResponseSchema)
      const hit = hits.find((x) => x.object_id === c.id)
      expect(hit, `search ${c.term}`).toBeDefined()
      const d = details.get(c.id)!
      const keywords = all('select value from company_keywords where company_id = ? order by value', c.id).map((r) => r.value)
      expect(hit).toEqual({
        object_type: 'company', object_name: d.name, object_slug: d.website, company_domain: d.website,
        company_funding: d.total_funding, company_keywords: keywords,
        company_mattermark_score: d.svc_score === null ? null : Math.round(Number(d.svc_score)),
        investor_funding: 0, object_id: c.id,
      })
    }
    expect(details.get(withoutKeywords.id)!.total_funding).toBeNull()
    expect(details.get(domainOnly.id)!.name).toBe('')
    // Without a name or a domain a company has nothing left to be found by.
    const byOldName = await get(`/search?term=${encodeURIComponent(nameless.oldName)}&object_types=company&per_page=50`, searchResponseSchema)
    expect(byOldName.map((x) => x.object_id)).not.toContain(nameless.id)
  })

  it('GET /investors/:id/portfolio: name, domain, stage, location and total_funding as the detail shows them', async () => {
    const found = new Set<number>()
    for (const { id } of all('select id from investors order by id')) {
      for (let page = 1; ; page++) {
        const body = await get(`/investors/${id}/portfolio?per_page=50&page=${page}`, portfolioSchema)
        for (const c of body.companies) {
          const d = details.get(c.id)!
          const row = one('select last_funding_date from companies where id = ?', c.id)!
          expect({ company_name: c.company_name, domain: c.domain, stage: c.stage, location: c.location, total_funding: c.total_funding, last_funding_date: c.last_funding_date }, `${id}: ${c.id}`)
            .toEqual({ company_name: d.name, domain: d.website, stage: d.stage, location: d.location, total_funding: d.total_funding, last_funding_date: asNullable(row.last_funding_date) })
          found.add(c.id)
        }
        if (page >= body.meta.total_pages) break
      }
    }
    expect(found.has(nameless.id) && found.has(stageless.id)).toBe(true)
  })
})

describe('GET /fundings', () => {
  it('every funding event: "" for plain strings, null for region/state, amount and the dates', async () => {
    const rows = new Map(all('select * from fundings').map((r) => [r.id as number, r]))
    let seen = 0
    for (let page = 1; ; page++) {
      const body = await get(`/fundings?per_page=50&page=${page}`, fundingListSchema)
      for (const f of body.fundings) {
        const r = rows.get(Number(f.id))!
        expect({
          company_id: f.company_id, company_name: f.company_name, series: f.series, rounds_funding_date: f.rounds_funding_date,
          amount: f.amount, currency: f.currency, news_url: f.news_url, region: f.region, city: f.city, state: f.state,
          country: f.country, created_on: f.created_on,
        }, f.id).toEqual({
          company_id: asText(r.company_id), company_name: asText(r.company_name), series: asText(r.series),
          rounds_funding_date: asNullable(r.rounds_funding_date), amount: asNullable(r.amount), currency: asText(r.currency),
          news_url: asText(r.news_url), region: asNullable(r.region), city: asText(r.city), state: asNullable(r.state),
          country: asText(r.country), created_on: asNullable(r.created_on),
        })
        if (Number(f.id) === bareFunding) {
          expect(f).toMatchObject({ series: '', rounds_funding_date: null, amount: null, currency: '', news_url: '', region: null, city: '', state: null, country: '', created_on: null })
        }
        seen++
      }
      if (page >= body.meta.total_pages) break
    }
    expect(seen).toBe(rows.size)
  })
})

describe('investors', () => {
  it('GET /investors/:id: "" for unknown text, null for unknown numbers and dates, for every investor', async () => {
    for (const r of all('select * from investors order by id')) {
      const d = await get(`/investors/${r.id}`, investorDetailSchema)
      expect({ name: d.name, website: d.website, type: d.type, location: d.location, three_year_funds_sold: d.three_year_funds_sold, est_most_recent_fund_date: d.est_most_recent_fund_date }, String(r.id))
        .toEqual({ name: asText(r.name), website: asText(r.website), type: asText(r.type), location: asText(r.location), three_year_funds_sold: asNullable(r.three_year_funds_sold), est_most_recent_fund_date: asNullable(r.est_most_recent_fund_date) })
    }
    const bare = await get(`/investors/${bareInvestor.id}`, investorDetailSchema)
    expect(bare).toMatchObject({ name: '', website: '', type: '', location: '', three_year_funds_sold: null, est_most_recent_fund_date: null })
  })

  it('GET /search investor results: company_* fields null (they do not apply), investor_funding a number', async () => {
    const hits = await get(`/search?term=${encodeURIComponent(bareInvestor.oldName)}&object_types=investor&per_page=50`, searchResponseSchema)
    const hit = hits.find((x) => x.object_id === bareInvestor.id)
    expect(hit).toMatchObject({ object_type: 'investor', object_name: '', company_domain: '', company_funding: null, company_keywords: null, company_mattermark_score: null })
    expect(Number.isInteger(hit!.investor_funding)).toBe(true)
  })
})

//// Issue 11, item 9: one missing-value rule on every output path ////

/** POST /queries, expecting 200 and an envelope of `dataset`. */
async function query(dataset: DatasetName, request: Record<string, unknown>): Promise<{ results: Row[]; meta: { total_pages: number; total_record_count: number } }> {
  const res = await h.request('/queries', { init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset, ...request }) } })
  const text = await res.text()
  expect(res.status, `${JSON.stringify(request)}: ${text.slice(0, 300)}`).toBe(200)
  return queryEnvelopeSchemaFor(dataset).parse(JSON.parse(text)) as never
}

/** Every record of a dataset as POST /queries shows it, walking the pages. */
async function everyResult(dataset: DatasetName): Promise<Row[]> {
  const out: Row[] = []
  for (let page = 1; ; page++) {
    const body = await query(dataset, { per_page: 50, page })
    out.push(...body.results)
    if (page >= body.meta.total_pages) break
  }
  return out
}

/** The ids of the records a filter selects through POST /queries (every page). */
async function selected(dataset: DatasetName, filter: Record<string, unknown>): Promise<Set<string>> {
  const key = datasets[dataset].primaryKey
  const out = new Set<string>()
  for (let page = 1; ; page++) {
    const body = await query(dataset, { filter, per_page: 50, page })
    for (const r of body.results) out.add(String(r[key]))
    if (page >= body.meta.total_pages || body.results.length === 0) break
  }
  return out
}

describe('total_funding: 0 for a company that never raised, null when its rounds\' amounts are undisclosed', () => {
  it('every endpoint that shows it agrees, and filtering on the value shown finds the company', async () => {
    const never = one('select id, name from companies c where not exists (select 1 from fundings f where f.company_id = c.id) order by id limit 1')!
    const undisclosed = one(`select id, name from companies c where exists (select 1 from fundings f where f.company_id = c.id)
      and not exists (select 1 from fundings f where f.company_id = c.id and f.amount is not null)
      and c.id not in (?, ?) order by id limit 1`, stageless.id, one('select company_id from fundings where id = ?', bareFunding)!.company_id)!
    const cases = [[never, 0], [undisclosed, null]] as const
    for (const [c, total] of cases) {
      expect(details.get(c.id)!.total_funding, `detail of ${c.id}`).toBe(total)
      const hits = await get(`/search?term=${encodeURIComponent(c.name)}&object_types=company&per_page=50`, searchResponseSchema)
      expect(hits.find((x) => x.object_id === c.id)?.company_funding, `search ${c.name}`).toBe(total)
      const [record] = (await query('companies', { filter: { id: c.id } })).results
      expect(record!.total_funding, `POST /queries ${c.id}`).toBe(total)
      // The value shown, as a filter, finds the company (the list parameter too, for 0).
      expect(await selected('companies', { id: c.id, total_funding: total })).toEqual(new Set([String(c.id)]))
    }
    const zero = await get('/companies?total_funding=0&per_page=50', companyListSchema)
    expect(zero.meta.total_record_count).toBe(all('select id from companies where total_funding = 0').length)
    expect(all('select id from companies c where not exists (select 1 from fundings f where f.company_id = c.id) and total_funding is not 0')).toEqual([])
  })
})

describe('POST /queries investor records read exactly as GET /investors/:id', () => {
  it('every field the two shapes share, for every investor (the emptied one too)', async () => {
    const records = await everyResult('investors')
    expect(records.map((r) => r.investor_id).sort()).toEqual(all('select id from investors').map((r) => r.id).sort())
    let compared = 0
    for (const r of records) {
      const d = await get(`/investors/${r.investor_id}`, investorDetailSchema) as Row
      expect(d.id).toBe(r.investor_id)
      const shared = Object.keys(d).filter((k) => k in r)
      expect(shared).toEqual(expect.arrayContaining(['name', 'svc_slug', 'website', 'type', 'location', 'portfolio_size', 'number_of_deals', 'three_year_funds_sold', 'est_most_recent_fund_date']))
      for (const k of shared) expect(r[k], `investor ${r.investor_id} ${k}`).toEqual(d[k])
      compared += shared.length
    }
    expect(compared).toBeGreaterThan(150)
    expect(records.find((r) => r.investor_id === bareInvestor.id)).toMatchObject({ name: '', website: '', type: '', location: '', three_year_funds_sold: null })
  })
})

describe('filtering on a value shown finds the record', () => {
  /**
   * For every dataset and every catalog field a POST /queries result shows: the records showing a
   * missing value ('' or null, [] for tags) and a few others, each group selected again by a filter
   * on exactly the value shown.
   */
  it.each(['investors', 'companies', 'fundings'] as const)('%s: every field, every missing value', async (dataset) => {
    const def = datasets[dataset]
    const key = def.primaryKey
    const records = await everyResult(dataset)
    let missing = 0
    for (const field of Object.values(def.fields)) {
      if (field.name === key) continue
      const groups = new Map<string, { value: unknown; ids: string[] }>()
      let others = 0
      for (const r of records) {
        const value = r[field.name]
        const isMissing = value === '' || value === null || (Array.isArray(value) && value.length === 0)
        if (!isMissing && others++ >= 3) continue
        const g = JSON.stringify(value)
        if (!groups.has(g)) groups.set(g, { value, ids: [] })
        groups.get(g)!.ids.push(String(r[key]))
        if (isMissing) missing++
      }
      for (const { value, ids } of groups.values()) {
        const condition = Array.isArray(value) ? (value.length === 0 ? null : { has_all: value }) : value
        const found = await selected(dataset, { [key]: { in: ids.map(Number) }, [field.name]: condition })
        expect([...found].sort(), `${dataset}.${field.name} = ${JSON.stringify(value)}`).toEqual([...ids].sort())
      }
    }
    expect(missing).toBeGreaterThan(20)
  }, 120_000)

  it('the emptied records by their empty texts: the nameless company, the bare investor, the bare funding', async () => {
    expect(await selected('companies', { name: '', website: '' })).toContain(String(nameless.id))
    expect(await selected('investors', { name: '', type: '', website: { in: [''] } })).toEqual(new Set([String(bareInvestor.id)]))
    expect(await selected('fundings', { id: bareFunding, series: '', city: '', currency: { nin: ['USD', 'EUR'] }, news_url: { ne: 'x' } })).toEqual(new Set([String(bareFunding)]))
    expect(await selected('investors', { investor_id: bareInvestor.id, name: { ne: '' } })).toEqual(new Set())
  })
})

describe('numbers that are never null (NUMBERS_WHEN_UNKNOWN), on every endpoint that shows them', () => {
  it('the guide\'s table is the code\'s table', async () => {
    const { readFileSync } = await import('node:fs')
    const { NUMBERS_WHEN_UNKNOWN } = await import('../../src/http/views/missing-values.js')
    const guide = readFileSync(new URL('../../grammar-docs/guides/serving.md', import.meta.url), 'utf8')
    for (const x of NUMBERS_WHEN_UNKNOWN) expect(guide).toContain(`| ${x.field} | ${x.shownIn} | ${x.value} | ${x.reason} |`)
  })

  it('last_funding_amount: 0 for a company without rounds, null when its last round is undisclosed, in the detail, query results and filters', async () => {
    const never = all(`select id, website from companies c where not exists (select 1 from fundings f where f.company_id = c.id) and id <> ? order by id limit 3`, stageless.id)
    expect(never.length).toBeGreaterThan(0)
    const lastUndisclosed = one(`select id from companies c where last_funding_amount is null and exists (select 1 from fundings f where f.company_id = c.id) and id <> ? order by id limit 1`, stageless.id)
    for (const c of never) {
      expect(details.get(c.id)!.last_funding_amount, `detail ${c.id}`).toBe(0)
      expect(details.get(c.id)!.total_funding, `detail ${c.id}`).toBe(0)
      const [record] = (await query('companies', { filter: { id: c.id } })).results
      expect(record!.last_funding_amount, `POST /queries ${c.id}`).toBe(0)
      expect(record!.total_funding).toBe(0)
      if (c.website) expect((await get(`/domains/${c.website}/companies`, companyDetailSchema)).last_funding_amount).toBe(0)
    }
    if (lastUndisclosed) expect(details.get(lastUndisclosed.id)!.last_funding_amount).toBeNull()
    // The value shown, as a filter, finds them: the list parameter and the filter language.
    const zero = new Set<string>()
    for (let page = 1; ; page++) {
      const body = await get(`/companies?last_funding_amount=0&per_page=50&page=${page}`, companyListSchema)
      for (const c of body.companies) zero.add(c.id)
      if (page >= body.meta.total_pages) break
    }
    for (const c of never) expect(zero.has(String(c.id))).toBe(true)
    expect(zero).toEqual(await selected('companies', { last_funding_amount: 0 }))
    // No company with a value shown as a number is stored as null, and the reverse.
    expect(all('select id from companies c where last_funding_amount is null and not exists (select 1 from fundings f where f.company_id = c.id) and total_funding = 0')).toEqual([])
  })

  it('investor_funding of every company hit of GET /search is 0', async () => {
    const terms = all('select name from companies where name is not null order by id limit 6').map((r) => String(r.name).split(' ')[0]!)
    let hits = 0
    for (const term of terms) {
      for (const hit of await get(`/search?term=${encodeURIComponent(term)}&object_types=company`, searchResponseSchema)) {
        expect(hit.investor_funding, `${term}: ${hit.object_name}`).toBe(0)
        hits++
      }
    }
    expect(hits).toBeGreaterThan(3)
  })
})
