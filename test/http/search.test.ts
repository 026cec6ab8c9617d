/**
 * GET /search (spec 4.9, 2.9) through the fetch handler: every response checked against the zod
 * schema of the route spec, and the records against an independent oracle: plain JS over rows read
 * with direct SQL, matching by word prefixes and ranking by the tiers and importance orders the
 * route documents. The oracle shares no code with records/search.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { problemSchema } from '../../src/http/schemas/common.js'
import { searchResponseSchema } from '../../src/http/schemas/search.js'
import { ingestAll } from '../../src/store/ingest.js'
import { createHarness, TEST_BACKEND, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness() })
afterAll(async () => { await h.close() })

type Wire = ReturnType<typeof searchResponseSchema.parse>

//// the oracle ////

interface OracleRecord {
  readonly type: 'company' | 'investor'
  readonly id: number
  readonly name: string
  readonly nameWords: readonly string[]
  readonly words: readonly string[]
  readonly importance: number
}

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase()
const wordsOf = (text: string | null) => fold(text ?? '').match(/[\p{L}\p{N}]+/gu) ?? []

function loadOracle(): OracleRecord[] {
  const db = h.vdb.sqlite
  const companies = db.prepare('select id, name, website, svc_score, total_funding from companies').all() as
    { id: number; name: string; website: string | null; svc_score: number | null; total_funding: number | null }[]
  const desc = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a)
  companies.sort((a, b) => desc(a.svc_score, b.svc_score) || desc(a.total_funding, b.total_funding) || a.id - b.id)
  const investors = db.prepare('select id, name, svc_slug, portfolio_size, number_of_deals from investors').all() as
    { id: number; name: string; svc_slug: string | null; portfolio_size: number | null; number_of_deals: number | null }[]
  investors.sort((a, b) => desc(a.portfolio_size, b.portfolio_size) || desc(a.number_of_deals, b.number_of_deals) || a.id - b.id)
  return [
    ...companies.map((c, i) => ({
      type: 'company' as const, id: c.id, name: c.name, nameWords: wordsOf(c.name),
      words: [...wordsOf(c.name), ...wordsOf(c.website)], importance: (i + 1) / companies.length,
    })),
    ...investors.map((x, i) => ({
      type: 'investor' as const, id: x.id, name: x.name, nameWords: wordsOf(x.name),
      words: [...wordsOf(x.name), ...wordsOf(x.svc_slug)], importance: (i + 1) / investors.length,
    })),
  ]
}

function tierOf(r: OracleRecord, termWords: readonly string[]): 0 | 1 | 2 {
  if (r.nameWords.join(' ') === termWords.join(' ')) return 0
  const startsWithTerm = termWords.length <= r.nameWords.length && termWords.every((w, i) =>
    i === termWords.length - 1 ? r.nameWords[i]!.startsWith(w) : r.nameWords[i] === w)
  return startsWithTerm ? 1 : 2
}

function expected(term: string, types: readonly string[] = ['company', 'investor'], limit = 10): string[] {
  const termWords = wordsOf(term)
  if (termWords.length === 0) return []
  return loadOracle()
    .filter((r) => types.includes(r.type) && termWords.every((w) => r.words.some((x) => x.startsWith(w))))
    .map((r) => ({ r, tier: tierOf(r, termWords) }))
    .sort((a, b) => a.tier - b.tier || a.r.importance - b.r.importance || (a.r.type < b.r.type ? -1 : a.r.type > b.r.type ? 1 : 0) || a.r.id - b.r.id)
    .slice(0, limit)
    .map(({ r }) => `${r.type}:${r.id}`)
}

//// helpers ////

async function search(query: string): Promise<Wire> {
  const res = await h.get(`/search?${query}`)
  expect(res.status, query).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  return searchResponseSchema.parse(await res.json())
}

async function problem(query: string, status = 400) {
  const res = await h.get(`/search?${query}`)
  expect(res.status, query).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  return problemSchema.parse(await res.json())
}

const keys = (results: Wire) => results.map((r) => `${r.object_type}:${r.object_id}`)

/** A company to search for: one whose name has two words and whose domain label is not a name word. */
function someCompany(where = 'name like \'% %\'') {
  return h.vdb.sqlite.prepare(`select id, name, website, svc_score, total_funding from companies where ${where} order by id limit 1`).get() as
    { id: number; name: string; website: string; svc_score: number; total_funding: number | null }
}

//// tests ////

describe('GET /search: matching and ranking against the oracle', () => {
  const terms = ['a', 'q', 'in', 'to', 'tec', 'tech', 'labs', 'health', 'com', 'io', 'atlas', 'atlas pa', 'capital', 'vent', 'z', '1', 'inc']
  for (const term of terms) {
    it(`term ${JSON.stringify(term)}: the oracle's 10, 50 and per type`, async () => {
      expect(keys(await search(`typo=0&term=${encodeURIComponent(term)}`))).toEqual(expected(term))
      expect(keys(await search(`typo=0&term=${encodeURIComponent(term)}&per_page=50`))).toEqual(expected(term, undefined, 50))
      expect(keys(await search(`typo=0&term=${encodeURIComponent(term)}&object_types=investor&per_page=50`))).toEqual(expected(term, ['investor'], 50))
      expect(keys(await search(`typo=0&term=${encodeURIComponent(term)}&object_types=company&per_page=50`))).toEqual(expected(term, ['company'], 50))
    })
  }

  it('the oracle is not vacuous: short prefixes fill a page, mixed types and several tiers occur', async () => {
    expect(expected('a', undefined, 50)).toHaveLength(50)
    const mixed = await search("typo=0&term=a&per_page=50")
    expect(new Set(mixed.map((r) => r.object_type))).toEqual(new Set(['company', 'investor']))
    const tiers = new Set(loadOracle().filter((r) => r.words.some((w) => w.startsWith('labs'))).map((r) => tierOf(r, ['labs'])))
    expect(tiers.has(2)).toBe(true)
  })

  it('puts the exact name first even for the least important record that has it', async () => {
    const least = h.vdb.sqlite.prepare('select id, name from companies order by svc_score asc nulls first, id desc limit 1').get() as { id: number; name: string }
    const results = await search(`typo=0&term=${encodeURIComponent(least.name)}`)
    expect(results[0]!.object_name.toLowerCase()).toBe(least.name.toLowerCase())
    expect(keys(results)).toContain(`company:${least.id}`)
    expect(keys(results)).toEqual(expected(least.name))
    // Case does not matter for the exact tier.
    expect(keys(await search(`typo=0&term=${encodeURIComponent(least.name.toUpperCase())}`))).toEqual(keys(results))
  })

  it('ranks names that start with the term above names that only contain it, then by importance', async () => {
    const results = await search("typo=0&term=labs&per_page=50")
    const termWords = ['labs']
    const oracle = new Map(loadOracle().map((r) => [`${r.type}:${r.id}`, r]))
    const tiers = results.map((r) => tierOf(oracle.get(`${r.object_type}:${r.object_id}`)!, termWords))
    expect([...tiers].sort()).toEqual(tiers)
    const importance = results.map((r) => oracle.get(`${r.object_type}:${r.object_id}`)!.importance)
    for (let i = 1; i < results.length; i++) if (tiers[i] === tiers[i - 1]) expect(importance[i]).toBeGreaterThanOrEqual(importance[i - 1]!)
  })

  it('matches a prefix of the domain (acm finds acme.com) where no name word starts with it', async () => {
    const c = someCompany("website glob '*[0-9]*.*'")
    const label = c.website.split('.')[0]!
    expect(wordsOf(c.name).some((w) => w.startsWith(label))).toBe(false)
    const results = await search(`typo=0&term=${encodeURIComponent(label)}&object_types=company`)
    expect(keys(results)).toContain(`company:${c.id}`)
    expect(keys(results)).toEqual(expected(label, ['company']))
  })

  it('needs every word to match (AND), in any order and any column', async () => {
    const c = someCompany()
    const [first, second] = wordsOf(c.name)
    const both = await search(`typo=0&term=${encodeURIComponent(`${second} ${first!.slice(0, 3)}`)}&per_page=50`)
    expect(keys(both)).toContain(`company:${c.id}`)
    const oracle = new Map(loadOracle().map((r) => [`${r.type}:${r.id}`, r]))
    for (const r of both) {
      const words = oracle.get(`${r.object_type}:${r.object_id}`)!.words
      expect(words.some((w) => w.startsWith(second!)) && words.some((w) => w.startsWith(first!.slice(0, 3)))).toBe(true)
    }
    expect(await search(`typo=0&term=${encodeURIComponent(`${first} qqqzzzxx`)}`)).toEqual([])
  })

  it('ignores case and accents in the term', async () => {
    const c = someCompany()
    const plain = keys(await search(`typo=0&term=${encodeURIComponent(c.name)}`))
    const accented = c.name.replace(/a/g, 'á').replace(/e/g, 'é').replace(/o/g, 'Ö')
    expect(keys(await search(`typo=0&term=${encodeURIComponent(accented)}`))).toEqual(plain)
    // Decomposed accents (e + U+0301) as some keyboards send them.
    expect(keys(await search(`typo=0&term=${encodeURIComponent(c.name.replace(/e/g, 'e\u0301'))}`))).toEqual(plain)
  })

  it('finds investors by a prefix of their slug', async () => {
    const x = h.vdb.sqlite.prepare('select id, svc_slug from investors order by id limit 1').get() as { id: number; svc_slug: string }
    const results = await search(`typo=0&term=${encodeURIComponent(x.svc_slug)}&object_types=investor`)
    expect(keys(results)).toContain(`investor:${x.id}`)
  })
})

describe('GET /search: result fields (spec 2.9)', () => {
  it('a company result carries its domain, funding, keywords, rounded score and object_id', async () => {
    const withKeywords = h.vdb.sqlite.prepare(`select c.id, c.name, c.website, c.svc_score, c.total_funding from companies c
      where exists (select 1 from company_keywords k where k.company_id = c.id) and c.total_funding > 0 order by c.id limit 1`).get() as
      { id: number; name: string; website: string; svc_score: number; total_funding: number }
    const results = await search(`term=${encodeURIComponent(withKeywords.name)}&object_types=company&per_page=50`)
    const hit = results.find((r) => r.object_id === withKeywords.id)!
    const keywords = h.vdb.sqlite.prepare('select value from company_keywords where company_id = ? order by value').pluck().all(withKeywords.id)
    expect(hit).toEqual({
      object_type: 'company',
      object_name: withKeywords.name,
      object_slug: withKeywords.website,
      company_domain: withKeywords.website,
      company_funding: withKeywords.total_funding,
      company_keywords: keywords,
      company_mattermark_score: Math.round(withKeywords.svc_score),
      investor_funding: 0,
      object_id: withKeywords.id,
    })
  })

  it('a company without keywords has company_keywords []; company_funding is 0 when it never raised, null when its amounts are undisclosed (grammar-docs/guides/serving.md, "Missing values")', async () => {
    const find = async (id: number, name: string) =>
      (await search(`term=${encodeURIComponent(name)}&object_types=company&per_page=50`)).find((r) => r.object_id === id)!
    const bare = h.vdb.sqlite.prepare(`select id, name from companies c where not exists (select 1 from company_keywords k where k.company_id = c.id)
      order by id limit 1`).get() as { id: number; name: string } | undefined
    if (!bare) throw new Error('fixture has no company without keywords; pick another case')
    expect((await find(bare.id, bare.name)).company_keywords).toEqual([])
    const never = h.vdb.sqlite.prepare('select id, name from companies c where not exists (select 1 from fundings f where f.company_id = c.id) order by id limit 1').get() as { id: number; name: string }
    expect((await find(never.id, never.name)).company_funding).toBe(0)
    const undisclosed = h.vdb.sqlite.prepare(`select id, name from companies c where exists (select 1 from fundings f where f.company_id = c.id)
      and not exists (select 1 from fundings f where f.company_id = c.id and f.amount is not null) order by id limit 1`).get() as { id: number; name: string }
    expect((await find(undisclosed.id, undisclosed.name)).company_funding).toBeNull()
  })

  it('an investor result carries its slug and the U.S.-dollar total of its rounds; company fields by their types: domain \'\', numbers and keywords null', async () => {
    const x = h.vdb.sqlite.prepare('select id, name, svc_slug from investors where portfolio_size > 1 order by id limit 1').get() as { id: number; name: string; svc_slug: string }
    const usd = Number(h.vdb.sqlite.prepare(`select coalesce(sum(e.amount), 0) from fundings e
      where e.currency in ('USD', 'usd') and e.id in (select funding_id from funding_investors where investor_id = ?)`).pluck().get(x.id))
    expect(usd).toBeGreaterThan(0)
    const hit = (await search(`term=${encodeURIComponent(x.name)}&object_types=investor`)).find((r) => r.object_id === x.id)!
    expect(hit).toEqual({
      object_type: 'investor', object_name: x.name, object_slug: x.svc_slug,
      company_domain: '', company_funding: null, company_keywords: null, company_mattermark_score: null,
      investor_funding: usd, object_id: x.id,
    })
  })
})

describe('GET /search: object_types in every form', () => {
  const only = (types: Wire) => [...new Set(types.map((r) => r.object_type))].sort()
  const cases: [string, string[]][] = [
    ['object_types=company', ['company']],
    ['object_types[]=company', ['company']],
    ['object_types%5B%5D=investor', ['investor']],
    ['object_types=investor', ['investor']],
    ['object_types=companies', ['company']],
    ['object_types=Investors', ['investor']],
    ['object_types=company&object_types=investor', ['company', 'investor']],
    ['object_types[]=company&object_types[]=investor', ['company', 'investor']],
    ['object_types=company|investor', ['company', 'investor']],
    ['object_types=company%7Cinvestor', ['company', 'investor']],
    ['object_types=investor&object_types=investor', ['investor']],
    ['', ['company', 'investor']],
  ]
  for (const [query, types] of cases) {
    it(`${query || '(absent)'} searches ${types.join(' and ')}`, async () => {
      const results = await search(`term=a&per_page=50&${query}`)
      expect(only(results)).toEqual(types)
      expect(keys(results)).toEqual(expected('a', types, 50))
    })
  }

  it('refuses an unknown type with 400 naming the parameter and the allowed values', async () => {
    const body = await problem('term=a&object_types=person')
    expect(body.issues?.[0]).toMatchObject({ code: 'unknown_enum_value', path: '/object_types', got: '"person"' })
    expect(body.issues?.[0]?.allowed).toEqual(expect.arrayContaining(['company', 'investor']))
    const mixed = await problem('term=a&object_types=company|people')
    expect(mixed.issues?.[0]?.got).toBe('"people"')
  })

  it('refuses an empty object_types with 400', async () => {
    expect((await problem('term=a&object_types=')).issues?.[0]).toMatchObject({ code: 'empty_list', path: '/object_types' })
    expect((await problem('term=a&object_types=|')).issues?.[0]).toMatchObject({ code: 'empty_list', path: '/object_types' })
  })
})

describe('GET /search: term and per_page', () => {
  it('answers with and without a trailing slash', async () => {
    expect(keys(searchResponseSchema.parse(await (await h.get('/search/?term=in')).json()))).toEqual(expected('in'))
  })

  it('returns 10 results by default, per_page fewer, and lowers per_page above 50 to 50', async () => {
    expect(await search('term=a')).toHaveLength(10)
    expect(keys(await search('term=a&per_page=3'))).toEqual(expected('a', undefined, 3))
    expect(await search('term=a&per_page=500')).toHaveLength(50)
  })

  it('gives a trial key at most its result cap', async () => {
    const capped = await createHarness({ companies: 60, app: { trialMaxResults: 4 } })
    try {
      const trial = await capped.get('/search?term=a&per_page=50', { key: capped.trialKey })
      expect(trial.status).toBe(200)
      expect(searchResponseSchema.parse(await trial.json())).toHaveLength(4)
      const full = searchResponseSchema.parse(await (await capped.get('/search?term=a&per_page=50')).json())
      expect(full.length).toBeGreaterThan(4)
      expect(searchResponseSchema.parse(await (await capped.get('/search?term=a', { key: capped.trialKey })).json())).toHaveLength(4)
    } finally {
      await capped.close()
    }
  })

  it.each([['0'], ['-1'], ['abc'], ['1.5'], ['99999999999999999999']])('refuses per_page=%s with 400', async (value) => {
    expect((await problem(`term=a&per_page=${encodeURIComponent(value)}`)).issues?.[0]).toMatchObject({ code: 'invalid_page', path: '/per_page' })
  })

  it('refuses a missing, blank or whitespace term with 400 naming term', async () => {
    expect((await problem('per_page=5')).issues?.[0]).toMatchObject({ code: 'missing_key', path: '/term' })
    expect((await problem('object_types=company')).issues?.[0]).toMatchObject({ code: 'missing_key', path: '/term' })
    expect((await problem('term=')).issues?.[0]).toMatchObject({ code: 'invalid_value', path: '/term' })
    expect((await problem('term=%20%20+%09')).issues?.[0]).toMatchObject({ code: 'invalid_value', path: '/term' })
  })

  it('refuses a term over 200 characters or with more than 12 words, and two different terms', async () => {
    expect(await search(`term=${'a'.repeat(200)}`)).toEqual([])
    expect((await problem(`term=${'a'.repeat(201)}`)).issues?.[0]).toMatchObject({ code: 'limit_exceeded', path: '/term' })
    const thirteen = Array.from({ length: 13 }, (_, i) => `w${i}`).join('+')
    expect((await problem(`term=${thirteen}`)).issues?.[0]).toMatchObject({ code: 'limit_exceeded', path: '/term' })
    // Repeated words count once.
    expect(await search(`term=${Array(20).fill('a').join('+')}`)).toHaveLength(10)
    expect((await problem('term=a&term=b')).issues?.[0]).toMatchObject({ path: '/term' })
  })

  it('reports every bad parameter at once', async () => {
    const body = await problem('term=&object_types=nope&per_page=x')
    expect(body.issues?.map((i) => i.path).sort()).toEqual(['/object_types', '/per_page', '/term'])
  })

  it('answers a term without letters or digits with an empty array', async () => {
    expect(await search('term=*')).toEqual([])
    expect(await search('term=%22%22')).toEqual([])
  })
})

describe('GET /search: hostile input never reaches FTS5 as syntax', () => {
  const hostile = [
    '"', '""', '"a', 'a"', '*', 'a*', '**a', 'NEAR(a b)', 'NEAR(', 'a OR b', 'OR', 'AND', 'NOT', 'a NOT b', '-a', 'a -b',
    'name:a', 'domain : a', '{name}: a', '^a', 'a + b', '(a', 'a)', ')', "'; drop table companies; --", "' or 1=1 --",
    '1; select * from api_keys', '%', '_', '\\', 'a\u0000b', '\u0000', '\uE000a', '\uE000', 'a\uE000b', '%E0%A4%A', '%FF%FE',
    '%', '%%', '%00', 'x'.repeat(10_000), 'a '.repeat(5000), '🦄', 'ß', 'İstanbul', 'ﬁ', '\u202Eabc', 'a\tb\nc',
  ]
  for (const term of hostile) {
    it(`term ${JSON.stringify(term.length > 30 ? `${term.slice(0, 30)}… (${term.length})` : term)} is 200 or 400`, async () => {
      // Sent both percent-encoded and raw (the raw form exercises bad escapes such as %E0%A4%A).
      for (const query of [`term=${encodeURIComponent(term)}`, `term=${term.replace(/[#&\s]/g, encodeURIComponent)}`]) {
        const res = await h.get(`/search?${query}`)
        expect([200, 400], `${query.slice(0, 60)}: ${res.status}`).toContain(res.status)
        const body = await res.json()
        if (res.status === 200) searchResponseSchema.parse(body)
        else problemSchema.parse(body)
      }
    })
  }

  it('the FTS5 operator words are searched as words', async () => {
    expect(keys(await search('typo=0&term=a+OR+zzzzqqq'))).toEqual([])
    expect(keys(await search('typo=0&term=a+AND+b'))).toEqual(expected('a and b'))
  })

  it('hostile object_types and per_page are 400', async () => {
    for (const q of ['object_types=%22)%20OR%201=1', `object_types=${'x'.repeat(10_000)}`,
      'per_page=1e3', 'per_page=%00', 'per_page=50;drop', 'per_page[]=5&per_page[]=6']) {
      const res = await h.get(`/search?term=a&${q}`)
      expect(res.status, q).toBe(400)
      problemSchema.parse(await res.json())
    }
  })
})

// Drops and rebuilds SQLite's FTS5 tables: SQLite only (test/postgres covers PostgreSQL's index).
describe.runIf(TEST_BACKEND === 'sqlite')('GET /search: a database without the index', () => {
  it('answers 503 saying why, not 500', async () => {
    const bare = await createHarness({ companies: 20 })
    try {
      bare.vdb.sqlite.exec('drop table search_companies_terms')
      const res = await bare.get('/search?term=a')
      expect(res.status).toBe(503)
      expect(problemSchema.parse(await res.json()).error).toMatch(/no search index/)
      // Bad parameters are still the client's 400 first.
      expect((await bare.get('/search?term=')).status).toBe(400)
    } finally {
      await bare.close()
    }
  })
})

describe.runIf(TEST_BACKEND === 'sqlite')('GET /search: the index follows the data', () => {
  it('finds records added by a later import, with their derived figures', async () => {
    const own = await createHarness({ companies: 40 })
    try {
      const before = await own.get('/search?term=zyxquartz')
      expect(searchResponseSchema.parse(await before.json())).toEqual([])
      ingestAll(own.vdb, [
        { type: 'investor', record: { investor_id: 900001, name: 'Ölberg Kapital', type: 'vc', svc_slug: 'olberg-kap-zyx' } },
        { type: 'company', record: { id: 900002, name: 'Zyxquartz Café', website: 'zyxquartz-cafe.example', svc_score: '12.6', keywords: ['quartz'],
          funding: [{ id: 900003, amount: 5000, currency: 'USD', series: 'a', funding_date: '2024-01-01', investor_ids: [900001] }] } },
      ])
      const results = searchResponseSchema.parse(await (await own.get('/search?term=zyxquartz+cafe')).json())
      expect(results).toEqual([{
        object_type: 'company', object_name: 'Zyxquartz Café', object_slug: 'zyxquartz-cafe.example', company_domain: 'zyxquartz-cafe.example',
        company_funding: 5000, company_keywords: ['quartz'], company_mattermark_score: 13, investor_funding: 0, object_id: 900002,
      }])
      const investors = searchResponseSchema.parse(await (await own.get('/search?term=OLBERG&object_types=investor')).json())
      expect(investors).toEqual([{
        object_type: 'investor', object_name: 'Ölberg Kapital', object_slug: 'olberg-kap-zyx', company_domain: '', company_funding: null,
        company_keywords: null, company_mattermark_score: null, investor_funding: 5000, object_id: 900001,
      }])
      // By slug word alone.
      expect(keys(searchResponseSchema.parse(await (await own.get('/search?term=zyx&object_types=investor')).json()))).toEqual(['investor:900001'])
    } finally {
      await own.close()
    }
  })

  it('finds the exact name beyond the first page of names that start with it (tier 0 is read apart from tier 1)', async () => {
    const own = await createHarness({ companies: 40 })
    try {
      // One unimportant "Quorvex" and twelve more important names that start with it: the name-start
      // tier's best `per_page` are all "Quorvex Labs ...", so only the exact-name read finds it.
      ingestAll(own.vdb, [
        { type: 'company', record: { id: 910000, name: 'Quorvex', website: 'quorvex.example', svc_score: '1' } },
        ...Array.from({ length: 12 }, (_, i) => ({ type: 'company' as const, record: { id: 910001 + i, name: `Quorvex Labs ${i}`, website: `quorvex-labs-${i}.example`, svc_score: String(90 + i) } })),
      ])
      const search = async (query: string) => keys(searchResponseSchema.parse(await (await own.get(`/search?${query}`)).json()))
      expect(await search('term=quorvex&per_page=1')).toEqual(['company:910000'])
      // Then the name-start tier by importance (svc_score, highest first).
      expect(await search('term=QUORVEX&per_page=4')).toEqual(['company:910000', 'company:910012', 'company:910011', 'company:910010'])
      // A term that only starts names has no exact tier: the most important first.
      expect(await search('term=quorv&per_page=2')).toEqual(['company:910012', 'company:910011'])
    } finally {
      await own.close()
    }
  })
})
