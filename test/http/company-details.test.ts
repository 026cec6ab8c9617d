/**
 * Company detail endpoints (spec 4.2–4.8) through the fetch handler: status, headers, the zod
 * schema of each response, and the values, compared with direct SQL on the fixture database (never
 * through the record lookups under test). Also the contact lookup's overload answer and a table of
 * hostile path and query values that must never produce a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { descriptionWords } from '../../src/records/similar.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import {
  companyDetailSchema, contactSchema, peopleSchema, similarCompaniesSchema, storiesSchema, techStackSchema,
} from '../../src/http/schemas/company.js'
import { TIME_SERIES_NAMES } from '../../src/store/schema/detail-tables.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness() })
afterAll(async () => { await h.close() })

const all = <T = any>(sql: string, ...params: unknown[]): T[] => h.vdb.sqlite.prepare(sql).all(...params) as T[]
const one = <T = any>(sql: string, ...params: unknown[]): T => h.vdb.sqlite.prepare(sql).get(...params) as T
const pluck = <T = unknown>(sql: string, ...params: unknown[]): T[] => h.vdb.sqlite.prepare(sql).pluck().all(...params) as T[]

async function ok200<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> {
  const res = await h.get(path)
  const text = await res.text()
  expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const parsed = schema.safeParse(JSON.parse(text))
  if (!parsed.success) throw new Error(`${path}: response does not match its schema: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`)
  return parsed.data
}

async function problem(res: Response, status: number) {
  const text = await res.text()
  expect(res.status, text.slice(0, 300)).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return problemSchema.parse(JSON.parse(text))
}

/** Company ids of the fixture that have rows in `table` (to pick companies that exercise a part). */
const idsWith = (table: string, column = 'company_id') => pluck<number>(`select distinct ${column} from ${table} where ${column} is not null order by ${column}`)

describe('GET /companies/:id (spec 4.2, 2.3)', () => {
  it('answers every fixture company with the 2.3 shape and its stored values', async () => {
    const companies = all('select c.*, x.stage_raw, x.last_funding_date_raw from companies c left join companies_extra x on x.company_id = c.id order by c.id')
    expect(companies.length).toBe(400)
    for (const row of companies) {
      const d = await ok200(`/companies/${row.id}`, companyDetailSchema)
      expect(d.id).toBe(String(row.id))
      expect(d.name).toBe(row.name ?? '')
      expect(d.website).toBe(row.website ?? '')
      for (const f of ['svc_score', 'employees', 'employees_month_ago', 'employees_6_months_ago', 'website_uniques', 'mobile_downloads', 'mobile_score'] as const) {
        expect(d[f], f).toBe(row[f] === null ? null : String(row[f]))
      }
      expect(d.total_funding).toBe(row.total_funding)
      expect(d.last_funding_amount).toBe(row.last_funding_amount)
      expect(d.last_funding_date).toBe(row.last_funding_date_raw ?? row.last_funding_date)
      expect(d.stage).toBe(row.stage_raw ?? row.stage ?? 'Unknown')
      expect(d.added_date).toBe(row.added_date)
      expect(d.est_founding_date).toBe(row.est_founding_date)
      expect(d.country).toBe(row.country ?? '')
      expect(d.professionalnet_id).toBe(row.professionalnet_id)
      expect(d.microblog_mentions).toEqual([])
      expect(d.industries).toEqual(pluck('select value from company_industries where company_id = ? order by value', row.id))
      expect(d.business_models).toEqual(pluck('select value from company_business_models where company_id = ? order by value', row.id))
      expect(d.funding).toHaveLength(one<{ n: number }>('select count(*) as n from fundings where company_id = ?', row.id).n)
      expect(d.ios_store_apps).toHaveLength(one<{ n: number }>('select count(*) as n from company_ios_store_apps where company_id = ?', row.id).n)
      expect(d.android_store_apps).toHaveLength(one<{ n: number }>('select count(*) as n from company_android_store_apps where company_id = ?', row.id).n)
      expect(d.stories).toHaveLength(Math.min(50, one<{ n: number }>('select count(*) as n from company_stories where company_id = ?', row.id).n))
    }
  })

  it('keeps both last_funding_date forms (YYYYMMDD where the record said so) and the stage as spelled', async () => {
    const compact = one<{ company_id: number; last_funding_date_raw: string }>("select company_id, last_funding_date_raw from companies_extra where last_funding_date_raw glob '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]' limit 1")
    expect(compact).toBeDefined()
    expect((await ok200(`/companies/${compact.company_id}`, companyDetailSchema)).last_funding_date).toBe(compact.last_funding_date_raw)
    const spelled = one<{ company_id: number; stage_raw: string }>("select company_id, stage_raw from companies_extra where stage_raw is not null and stage_raw <> '' limit 1")
    expect(spelled).toBeDefined()
    expect((await ok200(`/companies/${spelled.company_id}`, companyDetailSchema)).stage).toBe(spelled.stage_raw)
  })

  it('lists funding items with integer investor ids and comma-joined investor names', async () => {
    let checked = 0
    for (const companyId of idsWith('fundings').slice(0, 60)) {
      const d = await ok200(`/companies/${companyId}`, companyDetailSchema)
      const events = all('select id, amount, currency, series, rounds_funding_date from fundings where company_id = ? order by rounds_funding_date, id', companyId)
      expect(d.funding.map((f) => f.funding_date)).toEqual(events.map((e) => e.rounds_funding_date))
      d.funding.forEach((item, i) => {
        const e = events[i]
        expect(item.amount).toBe(e.amount)
        expect(item.currency).toBe(e.currency)
        expect(item.series).toBe(e.series ?? '')
        const investors = all('select l.investor_id, i.name from funding_investors l join investors i on i.id = l.investor_id where l.funding_id = ? order by l.investor_id', e.id)
        expect(item.investor_ids).toEqual(investors.map((x) => x.investor_id))
        expect(item.investor_ids.every((x) => Number.isInteger(x))).toBe(true)
        expect(item.investors).toBe(investors.map((x) => x.name).join(', '))
        if (investors.length > 1) checked++
      })
    }
    expect(checked).toBeGreaterThan(5)
  })

  it('fills acquired_by and acquired_companies from both sides of each event, naming the other party', async () => {
    const events = all('select a.*, b.name as acquirer_row_name, b.website as acquirer_row_website from acquisitions a left join companies b on b.id = a.acquirer_id order by event_id')
    expect(events.length).toBeGreaterThan(0)
    for (const e of events.slice(0, 10)) {
      const acquired = await ok200(`/companies/${e.acquired_id}`, companyDetailSchema)
      expect(acquired.acquired_by).toContainEqual({
        event_id: e.event_id, closed_date: e.closed_date, company_id: e.acquirer_id,
        company_name: e.acquirer_name ?? e.acquirer_row_name, company_domain: e.acquirer_domain ?? e.acquirer_row_website,
      })
      const acquirer = await ok200(`/companies/${e.acquirer_id}`, companyDetailSchema)
      expect(acquirer.acquired_companies.map((a) => a.company_id)).toContain(e.acquired_id)
    }
  })

  it('returns the 13 time series with the stored points; microblog_mentions is always []', async () => {
    const withSeries = idsWith('time_series_points')
    expect(withSeries.length).toBeGreaterThan(5)
    let stringScores = 0
    let numberScores = 0
    for (const companyId of withSeries) {
      const d = await ok200(`/companies/${companyId}`, companyDetailSchema)
      for (const name of TIME_SERIES_NAMES) {
        const points = all('select recorded_at, score, score_is_string from time_series_points where company_id = ? and series = ? order by position', companyId, name)
        const got = d[name]
        if (name === 'microblog_mentions') { expect(got).toEqual([]); continue }
        expect(got.map((p) => p.recorded_at), name).toEqual(points.map((p) => p.recorded_at))
        got.forEach((p, i) => {
          const stored = points[i]
          if (stored.score_is_string) { expect(p.score).toBe(stored.score); stringScores++ } else { expect(p.score).toBe(Number(stored.score)); numberScores++ }
        })
      }
    }
    expect(stringScores).toBeGreaterThan(0)
    expect(numberScores).toBeGreaterThan(0)
  })

  it('repeats the owning company on android store apps (2.3.2)', async () => {
    const companyId = idsWith('company_android_store_apps')[0]!
    const d = await ok200(`/companies/${companyId}`, companyDetailSchema)
    expect(d.android_store_apps.length).toBeGreaterThan(0)
    for (const app of d.android_store_apps) {
      expect(app.company_id).toBe(companyId)
      expect(app.company_name).toBe(d.name)
      expect(app.company_domain).toBe(d.website)
    }
  })

  it('answers 404 for an unknown id and for a malformed one (naming `id`), also with a trailing slash', async () => {
    const max = one<{ m: number }>('select max(id) as m from companies').m
    expect((await problem(await h.get(`/companies/${max + 1}`), 404)).error).toMatch(/No company has the id/)
    const bad = await problem(await h.get('/companies/abc'), 404)
    expect(bad.issues?.[0]).toMatchObject({ path: '/id', expected: 'a positive integer', got: '"abc"' })
    expect((await h.get('/companies/1/')).status).toBe(200)
  })
})

describe('GET /domains/:domain/companies (spec 4.3)', () => {
  it('finds the company by domain in any case, with www. and a trailing dot', async () => {
    const row = one<{ id: number; website: string }>("select id, website from companies where website is not null and id = (select min(id) from companies c2 where c2.website = companies.website) order by id limit 1 offset 7")
    for (const spelled of [row.website, row.website.toUpperCase(), `www.${row.website}`, `WWW.${row.website}.`, `${row.website}.`]) {
      const d = await ok200(`/domains/${encodeURIComponent(spelled)}/companies`, companyDetailSchema)
      expect(d.id, spelled).toBe(String(row.id))
    }
    const byId = await ok200(`/companies/${row.id}`, companyDetailSchema)
    expect(await ok200(`/domains/${row.website}/companies`, companyDetailSchema)).toEqual(byId)
  })

  it('answers 404 for an unknown or malformed domain', async () => {
    expect((await problem(await h.get('/domains/no-such-company.example/companies'), 404)).error).toMatch(/No company has the domain/)
    await problem(await h.get('/domains/a%20b/companies'), 404)
  })

  it('uses the website index for the lookup (no table scan)', () => {
    const plan = all("explain query plan select id from companies where website in ('a.com', 'www.a.com') order by id limit 1").map((r) => r.detail).join(' | ')
    expect(plan).toMatch(/USING (COVERING )?INDEX companies_website/)
    const range = all("explain query plan select id, website from companies where website between 'A.COM' and 'a.com' order by id").map((r) => r.detail).join(' | ')
    expect(range).toMatch(/USING (COVERING )?INDEX companies_website/)
  })
})

describe('GET /companies/:id/stories (spec 4.4, 2.4)', () => {
  it('returns the stories newest first, as stored, with UTC timestamps', async () => {
    const ids = idsWith('company_stories')
    expect(ids.length).toBeGreaterThan(5)
    for (const companyId of ids) {
      const stories = await ok200(`/companies/${companyId}/stories`, storiesSchema)
      const expected = all('select id, title, url, published_at, source_title from company_stories where company_id = ? order by published_at desc, id desc', companyId)
      expect(stories).toEqual(expected.slice(0, 50).map((s) => ({ ...s, published_at: s.published_at === null ? null : `${s.published_at} UTC` })))
      const detail = await ok200(`/companies/${companyId}`, companyDetailSchema)
      expect(detail.stories.map((s) => s.title)).toEqual(stories.map((s) => s.title))
    }
  })

  it('returns [] for a company without stories and 404 for an unknown one', async () => {
    const without = one<{ id: number }>('select id from companies where id not in (select company_id from company_stories) limit 1').id
    expect(await ok200(`/companies/${without}/stories`, storiesSchema)).toEqual([])
    await problem(await h.get('/companies/987654/stories'), 404)
  })
})

describe('GET /companies/:id/similar (spec 4.5, 2.5)', () => {
  /** Independent reference: brute force over every company, weights counted in JS from SQL rows. */
  function reference(companyId: number): { id: number; score: number }[] {
    const tagRows = [
      ...all<{ company_id: number; value: string }>('select company_id, value from company_industries').map((r) => ({ ...r, key: `i:${r.value}` })),
      ...all<{ company_id: number; value: string }>('select company_id, value from company_business_models').map((r) => ({ ...r, key: `b:${r.value}` })),
      ...all<{ company_id: number; value: string }>('select company_id, value from company_keywords').map((r) => ({ ...r, key: `k:${r.value}` })),
    ]
    const n = one<{ n: number }>('select count(*) as n from companies').n
    const df = new Map<string, number>()
    const tags = new Map<number, Set<string>>()
    for (const r of tagRows) {
      df.set(r.key, (df.get(r.key) ?? 0) + 1)
      if (!tags.has(r.company_id)) tags.set(r.company_id, new Set())
      tags.get(r.company_id)!.add(r.key)
    }
    const w = (k: string) => Math.log(1 + n / df.get(k)!)
    const descriptions = new Map(all<{ id: number; description: string | null }>('select id, description from companies').map((r) => [r.id, descriptionWords(r.description)]))
    const mine = tags.get(companyId) ?? new Set<string>()
    const myWords = descriptions.get(companyId)!
    const out: { id: number; score: number }[] = []
    for (const [id, theirs] of tags) {
      if (id === companyId) continue
      let inter = 0
      let union = 0
      for (const k of new Set([...mine, ...theirs])) {
        if (mine.has(k) && theirs.has(k)) inter += w(k)
        union += w(k)
      }
      if (inter === 0) continue
      const words = descriptions.get(id)!
      const both = [...myWords].filter((x) => words.has(x)).length
      const wordScore = myWords.size && words.size ? both / (myWords.size + words.size - both) : 0
      const score = myWords.size > 0 ? 0.8 * (inter / union) + 0.2 * wordScore : inter / union
      out.push({ id, score })
    }
    return out.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, 20)
  }

  it('ranks like a brute-force weighted Jaccard over the whole fixture, best first with probability 1', async () => {
    const ids = pluck<number>('select distinct company_id from company_keywords order by company_id limit 25')
    for (const companyId of ids) {
      const similar = await ok200(`/companies/${companyId}/similar`, similarCompaniesSchema)
      const expected = reference(companyId)
      expect(similar.map((s) => s.id), `company ${companyId}`).toEqual(expected.map((e) => e.id))
      expect(similar.length).toBeGreaterThan(0)
      expect(similar[0]!.probability).toBe(1)
      similar.forEach((s, i) => {
        expect(s.id).not.toBe(companyId)
        expect(s.probability).toBeCloseTo(expected[i]!.score / expected[0]!.score, 3)
        if (i > 0) expect(s.probability).toBeLessThanOrEqual(similar[i - 1]!.probability)
      })
    }
  })

  it('serialises 2.5: id integer, stage a string, total_funding integer or null, plain-text description', async () => {
    const companyId = pluck<number>('select company_id from company_industries limit 1')[0]!
    const similar = await ok200(`/companies/${companyId}/similar`, similarCompaniesSchema)
    for (const s of similar) {
      const row = one('select c.name, c.website, c.description, c.total_funding, coalesce(x.stage_raw, c.stage) as stage from companies c left join companies_extra x on x.company_id = c.id where c.id = ?', s.id)
      expect(s.company_name).toBe(row.name)
      expect(s.domain).toBe(row.website ?? '')
      expect(s.description).toBe(row.description ?? '')
      expect(s.description_plain_text).not.toMatch(/[<>*]/)
      expect(s.total_funding).toBe(row.total_funding)
      expect(s.stage).toBe(row.stage ?? 'Unknown')
    }
  })

  it('is [] for a company without tags and 404 for an unknown company', async () => {
    const untagged = one<{ id: number } | undefined>(`select id from companies where id not in (select company_id from company_industries union select company_id from company_business_models union select company_id from company_keywords) limit 1`)
    if (untagged) expect(await ok200(`/companies/${untagged.id}/similar`, similarCompaniesSchema)).toEqual([])
    await problem(await h.get('/companies/987654/similar'), 404)
  })
})

describe('GET /companies/:id/people (spec 4.6, 2.6)', () => {
  it('lists the people in record order', async () => {
    for (const companyId of idsWith('company_people').slice(0, 20)) {
      const people = await ok200(`/companies/${companyId}/people`, peopleSchema)
      expect(people).toEqual(all('select name, title, path from company_people where company_id = ? order by position', companyId))
      expect(people.length).toBeGreaterThan(0)
    }
    await problem(await h.get('/companies/987654/people'), 404)
  })
})

describe('GET /companies/:company_id/tech_stack (spec 4.8, 2.8)', () => {
  it('lists the technologies with the integer company id', async () => {
    for (const companyId of idsWith('company_tech_stack').slice(0, 20)) {
      const stack = await ok200(`/companies/${companyId}/tech_stack`, techStackSchema)
      expect(stack).toEqual(pluck<string>('select title from company_tech_stack where company_id = ? order by title', companyId).map((title) => ({ company_id: companyId, title })))
    }
    const without = one<{ id: number }>('select id from companies where id not in (select company_id from company_tech_stack) limit 1').id
    expect(await ok200(`/companies/${without}/tech_stack`, techStackSchema)).toEqual([])
    await problem(await h.get('/companies/987654/tech_stack'), 404)
  })
})

describe('GET /companies/:company_id/contact (spec 4.7, 2.7)', () => {
  it('returns the stored e-mail, matching the name in any case and spacing', async () => {
    const c = one<{ company_id: number; name: string; email: string }>('select company_id, name, email from company_contacts where email is not null limit 1')
    const exact = await ok200(`/companies/${c.company_id}/contact?full_name=${encodeURIComponent(c.name)}`, contactSchema)
    expect(exact).toEqual({ company_id: c.company_id, name: c.name, email: c.email })
    const sloppy = await ok200(`/companies/${c.company_id}/contact?full_name=${encodeURIComponent(`  ${c.name.toUpperCase().replace(' ', '   ')} `)}`, contactSchema)
    expect(sloppy.email).toBe(c.email)
  })

  it('answers 200 with email null for a contact without address and for an unknown person', async () => {
    const c = one<{ company_id: number; name: string }>('select company_id, name from company_contacts where email is null limit 1')
    expect(c).toBeDefined()
    expect((await ok200(`/companies/${c.company_id}/contact?full_name=${encodeURIComponent(c.name)}`, contactSchema)).email).toBeNull()
    expect(await ok200(`/companies/${c.company_id}/contact?full_name=Nobody+Known`, contactSchema)).toEqual({ company_id: c.company_id, name: 'Nobody Known', email: null })
  })

  it('answers 400 naming full_name when it is missing, blank, too long or sent twice differently', async () => {
    for (const query of ['', '?full_name=', '?full_name=%20%20', `?full_name=${'x'.repeat(201)}`, '?full_name=a&full_name=b']) {
      const body = await problem(await h.get(`/companies/1/contact${query}`), 400)
      expect(body.issues?.[0]?.path, query).toBe('/full_name')
    }
    await problem(await h.get('/companies/987654/contact?full_name=A+B'), 404)
    expect((await problem(await h.get('/companies/x1/contact?full_name=A+B'), 404)).issues?.[0]?.path).toBe('/company_id')
  })

  it('answers 400 with a retry hint when more lookups run at once than allowed, and recovers', async () => {
    const gates: (() => void)[] = []
    const slow = await createHarness({
      companies: 20,
      app: {
        contactConcurrency: 1,
        contactResolver: (companyId, fullName) => new Promise((resolve) => { gates.push(() => resolve(`${fullName.replace(/ /g, '.').toLowerCase()}@${companyId}.example`)) }),
      },
    })
    try {
      const first = slow.get('/companies/3/contact?full_name=Ada+Lovelace')
      // Let the first request reach the resolver before the second arrives.
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1))
      const second = await slow.get('/companies/3/contact?full_name=Alan+Turing')
      const body = await problem(second, 400)
      expect(second.headers.get('retry-after')).toBe('1')
      expect((body as any).retry_after).toBe(1)
      expect(body.error).toMatch(/retry/i)
      gates.shift()!()
      const done = await first
      expect(done.status).toBe(200)
      expect(contactSchema.parse(await done.json())).toEqual({ company_id: 3, name: 'Ada Lovelace', email: 'ada.lovelace@3.example' })
      const again = slow.get('/companies/3/contact?full_name=Alan+Turing')
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1))
      gates.shift()!()
      const third = await again
      expect(third.status).toBe(200)
      expect(contactSchema.parse(await third.json()).email).toBe('alan.turing@3.example')
    } finally {
      await slow.close()
    }
  })
})

describe('data the generator does not produce', () => {
  it('finds a website stored in mixed case, caps stories at the 50 latest, strips markup for similar', async () => {
    const m = await createHarness({ companies: 30 })
    try {
      const db = m.vdb.sqlite
      await m.mutate("insert into companies (id, name, website, description) values (5001, 'Mixed Case Co', 'WWW.MixedCase.Example', '<p>**Bold** [robots](https://x.example) for <b>farming</b> &amp; more</p>')")
      await m.mutate("insert into companies (id, name, website, description) values (5002, 'Twin', 'twin.example', 'robots for farming')")
      await m.mutate("insert into company_industries (company_id, value) values (5001, 'Agritech-only-here'), (5002, 'Agritech-only-here')")
      for (const d of ['mixedcase.example', 'MIXEDCASE.EXAMPLE', 'www.mixedcase.example.']) {
        const res = await m.get(`/domains/${d}/companies`)
        expect(res.status, d).toBe(200)
        expect(companyDetailSchema.parse(await res.json()).id).toBe('5001')
      }
      for (let i = 0; i < 60; i++) {
        await m.mutate('insert into company_stories (id, company_id, title, url, published_at, source_title) values (?, 5001, ?, ?, ?, ?)',
          90_000 + i, `Story ${i}`, `https://s.example/${i}`, `2025-01-${String((i % 28) + 1).padStart(2, '0')} 10:00:${String(i).padStart(2, '0')}`, 'Wire')
      }
      const stories = storiesSchema.parse(await (await m.get('/companies/5001/stories')).json())
      expect(stories).toHaveLength(50)
      const expected = db.prepare('select id from company_stories where company_id = 5001 order by published_at desc, id desc limit 50').pluck().all()
      expect(stories.map((s) => s.id)).toEqual(expected)
      const similar = similarCompaniesSchema.parse(await (await m.get('/companies/5002/similar')).json())
      expect(similar[0]).toMatchObject({ id: 5001, probability: 1, stage: 'Unknown', total_funding: null })
      expect(similar[0]!.description_plain_text).toBe('Bold robots for farming & more')
    } finally {
      await m.close()
    }
  })
})

describe('hostile input never produces a 5xx', () => {
  const long = '9'.repeat(10_000)
  const ids = ["1' OR '1'='1", '1;drop table companies', '-1', '0', '1e3', '1.5', '0x10', '99999999999999999999', '%00', '1%00', '%E0%A4%A', '%27', long, 'x'.repeat(10_000), '%20%31']
    // ('..' is left out: URL parsing resolves /domains/../companies to /companies before any router sees it.)
  const domains = ["' OR '1'='1", 'a.com%00', '%E0%A4%A', 'a..b', '.', 'www.', '%2F%2F', 'x'.repeat(10_000), '%27%3B--', 'ÄÖÜ.example']
  const names = ["' OR 1=1 --", 'a%00b', '%E0%A4%A', 'x'.repeat(10_000), '%0A%0D', 'Robert%27);DROP TABLE company_contacts;--']

  it.each(ids)('company id %#', async (id) => {
    for (const suffix of ['', '/stories', '/similar', '/people', '/tech_stack', '/contact?full_name=A+B']) {
      const res = await h.get(`/companies/${id}${suffix}`)
      expect(res.status, `${id.slice(0, 40)}${suffix}`).toBeGreaterThanOrEqual(400)
      expect(res.status).toBeLessThan(500)
      problemSchema.parse(await res.json())
    }
  })

  it.each(domains)('domain %#', async (domain) => {
    const res = await h.get(`/domains/${domain}/companies`)
    expect(res.status).toBeLessThan(500)
    if (res.status === 200) companyDetailSchema.parse(await res.json())
    else problemSchema.parse(await res.json())
  })

  it.each(names)('full_name %#', async (name) => {
    const res = await h.get(`/companies/1/contact?full_name=${name}`)
    expect(res.status).toBeLessThan(500)
    if (res.status === 200) contactSchema.parse(await res.json())
    else expect((await problem(res, res.status)).issues?.[0]?.path).toBe('/full_name')
  })

  it('a full_name array and the table still intact', async () => {
    const res = await h.get('/companies/1/contact?full_name[]=a&full_name[]=b')
    expect(res.status).toBe(400)
    expect(one<{ n: number }>('select count(*) as n from company_contacts').n).toBeGreaterThan(0)
    expect(one<{ n: number }>('select count(*) as n from companies').n).toBe(400)
  })
})
