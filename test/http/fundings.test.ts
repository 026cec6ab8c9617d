/**
 * GET /fundings (spec 4.10) through the fetch handler, on the fixture: every parameter against an
 * expectation from direct SQL (exact id sets over all pages), every field of spec 2.10 for every
 * funding event against a record built independently in JS from the raw tables (investors, slugs,
 * industries, '' and null where values are missing), list forms, paging (default 50), the trial
 * rule, 400s and a hostile-input table over every parameter.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { LIST_PARAMETERS } from '../../src/parse/list-params.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { fundingListSchema } from '../../src/http/schemas/listings.js'
import { createHarness } from './harness.js'

const h = await createHarness()
afterAll(async () => { await h.close() })

const rows = <T = Record<string, unknown>>(query: string, ...args: unknown[]): T[] => h.vdb.sqlite.prepare(query).all(...args) as T[]
const ids = (where: string, ...args: unknown[]): number[] => rows<{ id: number }>(`select id from fundings where ${where} order by id`, ...args).map((r) => r.id)
const TOTAL = ids('1').length

async function listAll(path: string) {
  const sep = path.includes('?') ? '&' : '?'
  const out: ReturnType<typeof fundingListSchema.parse>['fundings'] = []
  let total = -1
  for (let page = 1; ; page++) {
    const body = fundingListSchema.parse(await h.json(`${path}${sep}per_page=50&page=${page}`))
    total = body.meta.total_record_count
    out.push(...body.fundings)
    if (page >= body.meta.total_pages) break
  }
  expect(out).toHaveLength(total)
  return { items: out, ids: out.map((f) => Number(f.id)).sort((a, b) => a - b), total }
}

async function expectSelects(path: string, expected: number[]): Promise<void> {
  const got = await listAll(path)
  expect(got.ids).toEqual(expected)
  expect(got.total).toBe(expected.length)
}

type Case = readonly [label: string, query: string, where: string, args: unknown[]]

const amounts = rows<{ v: number }>('select amount as v from fundings where amount is not null order by amount').map((r) => r.v)
const [q1, median, q3] = [amounts[Math.floor(amounts.length / 4)]!, amounts[Math.floor(amounts.length / 2)]!, amounts[Math.floor((amounts.length * 3) / 4)]!]
const busiest = rows<{ id: number; svc_slug: string }>(
  'select i.id, i.svc_slug from investors i order by (select count(*) from funding_investors f where f.investor_id = i.id) desc, i.id limit 2',
)
const someDay = rows<{ d: string }>('select rounds_funding_date as d from fundings group by 1 order by count(*) desc, 1 limit 1')[0]!.d
const inInvestors = (n: number) => `id in (select funding_id from funding_investors where investor_id in (${Array(n).fill('?').join(', ')}))`

const CASES: readonly Case[] = [
  ['amount from~to', `amount=${q1}~${q3}`, 'amount between ? and ?', [q1, q3]],
  ['amount from~', `amount=${q3}~`, 'amount >= ?', [q3]],
  ['amount ~to', `amount=~${q1}`, 'amount <= ?', [q1]],
  ['amount single', `amount=${median}`, 'amount = ?', [median]],
  ['city', 'city=London|San+Francisco', "city in ('London', 'San Francisco')", []],
  ['city, spaces as %20', 'city=San%20Jose', "city = 'San Jose'", []],
  ['country', 'country=usa|deu', "country in ('USA', 'DEU')", []],
  ['funding_date_range from~to', 'funding_date_range=2020-01-01~2021-06-30', "rounds_funding_date between '2020-01-01' and '2021-06-30'", []],
  ['funding_date_range from~ (YYYYMMDD)', 'funding_date_range=20230101~', "rounds_funding_date >= '2023-01-01'", []],
  ['funding_date_range ~to', 'funding_date_range=~2015-12-31', "rounds_funding_date <= '2015-12-31'", []],
  ['funding_date_range single date: from that day', `funding_date_range=${someDay}`, 'rounds_funding_date >= ?', [someDay]],
  ['investor_ids', `investor_ids=${busiest[0]!.id}`, inInvestors(1), [busiest[0]!.id]],
  ['investor_ids, two', `investor_ids=${busiest[0]!.id}|${busiest[1]!.id}`, inInvestors(2), [busiest[0]!.id, busiest[1]!.id]],
  ['investor_slugs', `investor_slugs=${busiest[0]!.svc_slug}`, inInvestors(1), [busiest[0]!.id]],
  ['investor_slugs, two, repeated', `investor_slugs=${busiest[0]!.svc_slug}&investor_slugs=${busiest[1]!.svc_slug}`, inInvestors(2), [busiest[0]!.id, busiest[1]!.id]],
  ['series', 'series=a|B|seed', "series in ('a', 'b', 'seed')", []],
  ['series, []', 'series[]=angel&series[]=debt_financing&series[]=private_equity&series[]=undisclosed', "series in ('angel', 'debt_financing', 'private_equity', 'undisclosed')", []],
  ['series, letters to i', 'series=c|d|e|f|g|h|i', "series in ('c', 'd', 'e', 'f', 'g', 'h', 'i')", []],
  ['rounds_funding_date', `rounds_funding_date=${someDay}`, 'rounds_funding_date = ?', [someDay]],
  ['rounds_funding_date YYYYMMDD', `rounds_funding_date=${someDay.replace(/-/g, '')}`, 'rounds_funding_date = ?', [someDay]],
]

describe('every parameter of spec 4.10 selects exactly the funding events it should', () => {
  test('the table covers every parameter of the endpoint', () => {
    const covered = new Set(CASES.map(([, query]) => query.split('=')[0]!.replace('[]', '')))
    expect([...covered].sort()).toEqual(LIST_PARAMETERS.fundings.map((d) => d.name).sort())
  })

  test.each(CASES)('%s: ?%s', async (_label, query, where, args) => {
    await expectSelects(`/fundings?${query}`, ids(where, ...args))
  })

  test('the cases are not trivial', () => {
    for (const [label, , where, args] of CASES) {
      const n = ids(where, ...args).length
      expect(n, label).toBeGreaterThan(0)
      expect(n, label).toBeLessThan(TOTAL)
    }
  })

  test('parameters AND together', async () => {
    await expectSelects(
      `/fundings?series=a|b&country=USA&amount=${q1}~&funding_date_range=2018-01-01~`,
      ids("series in ('a', 'b') and country = 'USA' and amount >= ? and rounds_funding_date >= '2018-01-01'", q1),
    )
    await expectSelects(`/fundings?&&investor_slugs=${busiest[0]!.svc_slug}&&series=seed&`, ids(`${inInvestors(1)} and series = 'seed'`, busiest[0]!.id))
  })
})

describe('every field of spec 2.10, for every funding event', () => {
  /** The expected record of each funding event, built in plain JS from the raw tables. */
  function expectedRecords() {
    const investors = new Map(rows<{ id: number; name: string; svc_slug: string }>('select id, name, svc_slug from investors').map((r) => [r.id, r]))
    const links = new Map<number, number[]>()
    for (const l of rows<{ funding_id: number; investor_id: number }>('select funding_id, investor_id from funding_investors')) {
      links.set(l.funding_id, [...(links.get(l.funding_id) ?? []), l.investor_id])
    }
    const industries = new Map<number, string[]>()
    for (const t of rows<{ company_id: number; value: string }>('select company_id, value from company_industries')) {
      industries.set(t.company_id, [...(industries.get(t.company_id) ?? []), t.value])
    }
    const extra = new Map(rows<{ funding_id: number; investor_names: string | null; investor_slugs: string | null }>('select * from fundings_extra').map((r) => [r.funding_id, r]))
    const out = new Map<number, unknown>()
    for (const f of rows<Record<string, any>>('select * from fundings')) {
      const linked = (links.get(f.id) ?? []).sort((a, b) => a - b).map((id) => investors.get(id)!)
      const x = extra.get(f.id)
      out.set(f.id, {
        id: String(f.id),
        funding_id: String(f.id),
        company_id: String(f.company_id),
        company_name: f.company_name ?? '',
        investors: x?.investor_names ?? linked.map((i) => i.name).join(', '),
        investor_slugs: x?.investor_slugs ?? linked.map((i) => i.svc_slug).join(','),
        series: f.series ?? '',
        rounds_funding_date: f.rounds_funding_date,
        amount: f.amount,
        currency: f.currency ?? '',
        news_url: f.news_url ?? '',
        industry: (industries.get(f.company_id) ?? []).sort().join(', '),
        region: f.region,
        city: f.city ?? '',
        state: f.state,
        country: f.country ?? '',
        created_on: f.created_on,
      })
    }
    return out
  }

  test('the whole listing equals the independently built records', async () => {
    const expected = expectedRecords()
    const got = await listAll('/fundings')
    expect(got.total).toBe(TOTAL)
    for (const f of got.items) expect(f, `funding ${f.id}`).toEqual(expected.get(Number(f.id)))
    // The fixture exercises every branch: names kept by the loader and derived ones, no investors,
    // several, missing series, amounts, cities and creation times.
    const items = got.items
    expect(items.some((f) => f.investors.includes(', '))).toBe(true)
    expect(rows('select 1 from fundings_extra where investor_names is not null').length).toBeGreaterThan(0)
    expect(items.some((f) => f.series === '')).toBe(true)
    expect(items.some((f) => f.amount === null)).toBe(true)
    expect(items.some((f) => f.region === null)).toBe(true)
    expect(items.some((f) => f.state === null)).toBe(true)
    expect(items.some((f) => f.industry.includes(', '))).toBe(true)
  })
})

describe('paging', () => {
  const byDefaultOrder = () => rows<{ id: number }>('select id from fundings order by rounds_funding_date is null, rounds_funding_date desc, id').map((r) => r.id)

  test('default page size 50, newest first, meta of spec 2.1', async () => {
    const res = await h.get('/fundings')
    expect(res.status).toBe(200)
    const body = fundingListSchema.parse(await res.json())
    expect(body.meta).toEqual({ total_record_count: TOTAL, total_pages: Math.ceil(TOTAL / 50), current_page: 1, per_page: 50 })
    expect(body.fundings.map((f) => Number(f.id))).toEqual(byDefaultOrder().slice(0, 50))
  })

  test('page 2 and a smaller page size; the trailing slash', async () => {
    const body = fundingListSchema.parse(await h.json('/fundings/?page=2&per_page=20'))
    expect(body.fundings.map((f) => Number(f.id))).toEqual(byDefaultOrder().slice(20, 40))
  })

  test('per_page is capped at 50; a trial key gets page 1 only', async () => {
    expect(fundingListSchema.parse(await h.json('/fundings?per_page=1000')).fundings).toHaveLength(50)
    expect(fundingListSchema.parse(await h.json('/fundings', { key: h.trialKey })).fundings).toHaveLength(50)
    const res = await h.get('/fundings?page=2', { key: h.trialKey })
    expect(res.status).toBe(403)
    expect(problemSchema.parse(await res.json()).error).toMatch(/[Tt]rial/)
  })

  test('sort=-amount orders by amount, unknown amounts last', async () => {
    const body = fundingListSchema.parse(await h.json('/fundings?sort=-amount'))
    expect(body.fundings.map((f) => Number(f.id))).toEqual(rows<{ id: number }>('select id from fundings order by amount is null, amount desc, id limit 50').map((r) => r.id))
  })
})

describe('bad values are 400s naming the parameter', () => {
  test.each([
    ['amount=lots', '/amount'],
    ['amount=5~1', '/amount'],
    ['funding_date_range=2020-01-01~2019-01-01', '/funding_date_range'],
    ['funding_date_range=last year', '/funding_date_range'],
    ['rounds_funding_date=2020-01-01~', '/rounds_funding_date'],
    ['rounds_funding_date=2021-02-29', '/rounds_funding_date'],
    ['series=series a', '/series'],
    ['series=|', '/series'],
    ['investor_ids=acme', '/investor_ids'],
    ['investor_ids=0', '/investor_ids'],
    ['country=Germany', '/country'],
    ['sort=investors', '/sort'],
  ])('?%s', async (query, path) => {
    const res = await h.get(`/fundings?${query}`)
    expect(res.status).toBe(400)
    const body = problemSchema.parse(await res.json())
    expect(body.issues!.map((i) => i.path)).toEqual([path])
    expect(body.issues![0]!.expected).toBeTruthy()
    expect(body.issues![0]!.got).toBeTruthy()
  })

  test('an unknown series lists the values and suggests the nearest', async () => {
    const body = problemSchema.parse(await (await h.get('/fundings?series=sede')).json())
    expect(body.issues![0]!.suggestions).toContain('seed')
    expect(body.issues![0]!.allowed).toEqual(expect.arrayContaining(['a', 'i', 'angel', 'seed', 'debt_financing', 'private_equity', 'undisclosed']))
  })
})

describe('hostile input in every parameter is a 4xx or a 200, never a 5xx', () => {
  const HOSTILE: readonly string[] = [
    "' OR 1=1 --", '1; DROP TABLE fundings; --', 'x'.repeat(10_000), '%E0%A4%A', '%00', 'a%00b', '-1', '-99999999999999999999',
    '99999999999999999999', '1e309', 'NaN', '~', '1~2~3', '|', '%F0%9F%92%A5', '[]', '%', '2020-00-00', '2020-01-01~zz',
  ]
  const names = [...LIST_PARAMETERS.fundings.map((d) => d.name), 'page', 'per_page', 'sort']

  test('every request answers 200 or 400 with a JSON body', async () => {
    let refused = 0
    for (const name of names) {
      for (const query of [...HOSTILE.map((v) => `${name}=${v}`), `${name}[]=1&${name}[]=2`, `${name}=a&${name}=b`]) {
        const res = await h.get(`/fundings?${query}`)
        expect([200, 400], `${query.slice(0, 80)} → ${res.status}`).toContain(res.status)
        const body = await res.json()
        if (res.status === 200) fundingListSchema.parse(body)
        else refused++
      }
    }
    expect(refused).toBeGreaterThan(100)
    expect(ids('1')).toHaveLength(TOTAL)
  })
})
