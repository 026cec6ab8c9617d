/**
 * @module Differential, SQLite against PostgreSQL, for the record lookups (issue 8, item 1): the
 * fixture plus records made for the orders and spellings that could differ between the backends,
 * copied with copyToPostgres, and every record operation of the engine called on both for every
 * id: companies (detail, stories, similar, people, tech stack, existence), domains in several
 * spellings, contacts by exact and loose names, investors with their portfolios at several page
 * sizes, the funding extras of every funding event, and ids that exist nowhere. The answers must be
 * deep-equal, and most of them non-empty, so the comparison cannot pass by comparing nothing.
 *
 * The detail tables' text columns have the database's default collation, which is "C" on the test
 * server but a locale on many: the PostgreSQL copy here gets an ICU English collation on every
 * text column a lookup sorts by, so an order that relied on the default collation would show.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { similarCompanies } from '../../src/records/similar.js'
import { buildSimilarIndex } from '../../src/records/similar-index-build.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { ingestAll } from '../../src/store/ingest.js'
import { bumpDataVersion, dataVersion, type PostgresVentureDb, type SqliteVentureDb } from '../../src/store/open.js'
import { testSchema, type TestSchema } from './support.js'

const company = (id: number, record: Record<string, unknown>) => ({ type: 'company', record: { id, name: `Edge ${id}`, ...record } })

/**
 * Records whose answers depend on orders and spellings: mixed-case tech stack titles and contact
 * names (binary order puts `B` before `a`; English puts `a` first), names that normalise alike,
 * stories and acquisitions with equal and missing dates, filings with missing dates, websites in
 * mixed case, with `www.` or a trailing dot, and shared by two companies, and a round that names
 * investors without ids.
 */
const EDGE_RECORDS = [
  company(9001, {
    website: 'MiXeD-Case.Example', industries: ['Fintech', 'Software'], business_models: ['B2B'], keywords: ['payments', 'ledger'],
    description: '<p>Payments <b>ledger</b> for banks</p>', stage: 'exited (acquired)',
    tech_stack: ['alpha', 'Beta', 'Zeta', 'beta', '_x', 'Ärger', 'ab', 'Ab'],
    contacts: [{ name: 'Jamie Smith', email: 'upper@edge.example' }, { name: 'jamie  smith', email: 'lower@edge.example' }, { name: 'Ana Lima', email: null }],
    people: [{ name: 'Zoe', title: 'CEO' }, { name: 'adam', title: null, path: '/people/adam' }],
    stories: [
      { id: 900101, title: 'Undated', url: null },
      { id: 900102, title: 'Same day A', date: '2024-05-01 10:00:00', source: 'Wire' },
      { id: 900103, title: 'Same day B', date: '2024-05-01 10:00:00' },
      { id: 900104, title: 'Later', date: '2024-06-01 09:30:00', url: 'https://news.example/later' },
    ],
    acquired_companies: [
      { event_id: 900201, company_name: 'Undated Target', company_domain: 'undated.example' },
      { event_id: 900202, closed_date: '2023-03-01', company_id: 9002 },
      { event_id: 900203, closed_date: '2023-03-01', company_name: 'Tie Target' },
    ],
    funding: [
      { id: 990001, amount: 2_000_000, currency: 'USD', series: 'seed', funding_date: '2022-01-15', investors: 'Named Only Capital, Another Angel' },
      { id: 990002, amount: null, currency: 'USD', series: null, funding_date: null, investor_ids: [9100] },
    ],
  }),
  company(9002, { website: 'www.prefixed.example', industries: ['Fintech'], keywords: ['payments'] }),
  company(9003, { website: 'shared.example', industries: ['Software'] }),
  company(9004, { website: 'Shared.Example', industries: ['Software'], business_models: ['B2B'] }),
  company(9005, { website: 'Trailing.Example.', keywords: ['ledger'] }),
  {
    type: 'investor', record: {
      investor_id: 9100, name: 'edge capital', svc_slug: 'edge-capital', type: 'vc',
      most_recent_filings: [
        { entity_name: 'Undated fund', total_offering: 1000, total_sold: 10, filing_date: null, form: 'D' },
        { entity_name: 'Fund B', total_offering: 2000, total_sold: 20, filing_date: '2021-06-30', form: 'D' },
        { entity_name: 'Fund A', total_offering: 3000, total_sold: 30, filing_date: '2021-06-30', form: 'D/A' },
      ],
    },
  },
  { type: 'funding', record: { id: 990003, company_id: 9003, rounds_funding_date: '2024-02-10', series: 'a', investor_ids: [9100, 1] } },
  { type: 'funding', record: { id: 990004, company_id: 9004, rounds_funding_date: '2024-02-10', series: 'a', investor_ids: [9100] } },
]

/** Text columns the lookups sort by whose collation is the database's default (not the catalog's "C"). */
const DEFAULT_COLLATION_COLUMNS: readonly (readonly [table: string, column: string])[] = [
  ['company_tech_stack', 'title'], ['company_contacts', 'name'], ['company_stories', 'published_at'],
  ['acquisitions', 'closed_date'], ['investor_filings', 'filing_date'], ['investments', 'first_invested_on'],
]

let schema: TestSchema
let source: SqliteVentureDb
let target: PostgresVentureDb
let lite: Engine<SqliteVentureDb>
let pgEngine: Engine<PostgresVentureDb>
let companyIds: number[]
let investorIds: number[]
let fundingIds: number[]

beforeAll(async () => {
  schema = await testSchema('records')
  source = await createFixtureDatabase()
  const summary = ingestAll(source, EDGE_RECORDS)
  expect(summary.rejected).toEqual([])
  target = await schema.open()
  await copyToPostgres(source, target)
  for (const [table, column] of DEFAULT_COLLATION_COLUMNS) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type text collate "en-US-x-icu"`.execute(target.db)
  }
  lite = createEngine({ database: source })
  pgEngine = createEngine({ database: target })
  const ids = (text: string) => source.sqlite.prepare(text).pluck().all() as number[]
  companyIds = ids('select id from companies order by id')
  investorIds = ids('select id from investors order by id')
  fundingIds = ids('select id from fundings order by id')
}, 120_000)
afterAll(async () => {
  await lite?.close()
  await pgEngine?.close()
  await source?.close()
  await schema?.drop()
})

/** Ids no record has: below and above the real ones, and numbers no id can be. */
const missing = (ids: readonly number[]) => [0, -1, Math.max(...ids) + 1, 2 ** 40, 2 ** 70, 1.5]

/** Calls `lookup` on both engines and requires the same answer; returns it. */
async function same<T>(what: string, lookup: (engine: Engine<SqliteVentureDb> | Engine<PostgresVentureDb>) => Promise<T>): Promise<T> {
  const expected = await lookup(lite)
  expect(await lookup(pgEngine), what).toStrictEqual(expected)
  return expected
}

describe('record lookups on PostgreSQL = on SQLite, over the same copied data', () => {
  it('the data is big enough for the comparison to mean something', () => {
    expect(companyIds.length).toBeGreaterThan(400)
    expect(investorIds.length).toBeGreaterThan(20)
    expect(fundingIds.length).toBeGreaterThan(750)
  })

  it('sorts the edge records by bytes on PostgreSQL too, under an English collation', async () => {
    expect(await pgEngine.records.companyTechStack(9001)).toEqual(['Ab', 'Beta', 'Zeta', '_x', 'ab', 'alpha', 'beta', 'Ärger'])
    expect(await pgEngine.records.contactEmail(9001, 'JAMIE SMITH')).toBe('upper@edge.example')
  })

  it('company detail, stories, people, tech stack and existence of every company, and of missing ids', async () => {
    let withFunding = 0
    let withStories = 0
    for (const id of [...companyIds, ...missing(companyIds)]) {
      const detail = await same(`detail ${id}`, (e) => e.records.companyDetail(id))
      if (detail && detail.funding.length > 0) withFunding++
      const stories = await same(`stories ${id}`, (e) => e.records.companyStories(id))
      if (stories && stories.length > 0) withStories++
      await same(`people ${id}`, (e) => e.records.companyPeople(id))
      await same(`tech stack ${id}`, (e) => e.records.companyTechStack(id))
      await same(`exists ${id}`, (e) => e.records.companyExists(id))
    }
    expect(withFunding).toBeGreaterThan(100)
    expect(withStories).toBeGreaterThan(50)
  })

  it('similar companies of every company, and of missing ids', async () => {
    // Each connection's tag totals built in full first: while a build is under way a call ranks by
    // shared weight, whose tag scores differ from the Jaccard ranking's in the last bits, and how
    // far each backend's build has got depends on timing.
    await similarCompanies(source, companyIds[0]!, { totalsBuildMs: Number.POSITIVE_INFINITY })
    await similarCompanies(target, companyIds[0]!, { totalsBuildMs: Number.POSITIVE_INFINITY })
    let nonEmpty = 0
    for (const id of [...companyIds, ...missing(companyIds)]) {
      const similar = await same(`similar ${id}`, (e) => e.records.similarCompanies(id))
      if (similar && similar.length > 0) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(300)
  })

  it('similar companies ranked by shared weight (where totals cannot be kept) are the same on both', async () => {
    let nonEmpty = 0
    for (const id of companyIds.slice(0, 150)) {
      const expected = await similarCompanies(source, id, { ranking: 'shared' })
      expect(await similarCompanies(target, id, { ranking: 'shared' }), `similar ${id}`).toStrictEqual(expected)
      if (expected.length > 0) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(100)
  })

  it('the similarity index, built on each backend, gives the same answers on both', async () => {
    const built = await Promise.all([buildSimilarIndex(source), buildSimilarIndex(target)])
    for (const summary of built) expect(summary).toMatchObject({ companies: companyIds.length, computed: companyIds.length })
    let nonEmpty = 0
    for (const id of companyIds) {
      const answer = await same(`indexed similar ${id}`, (e) => e.records.similarCompanies(id))
      if (answer && answer.length > 0) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(300)
    // Served from the index on PostgreSQL: a row planted at the current version is the answer.
    const version = await dataVersion(target)
    await sql`update similar_companies set neighbours = ${JSON.stringify([[companyIds[5]!, 0.5]])} where company_id = ${companyIds[0]!} and data_version = ${version}`.execute(target.db)
    expect((await pgEngine.records.similarCompanies(companyIds[0]!))?.map((r) => r.id)).toEqual([companyIds[5]])
    // Not once the data version moves (an int4 column against the version cast to bigint).
    await bumpDataVersion(target)
    const searched = await similarCompanies(target, companyIds[0]!, { index: false, totalsBuildMs: Number.POSITIVE_INFINITY })
    expect(searched.length).toBeGreaterThan(1)
    expect(await pgEngine.records.similarCompanies(companyIds[0]!)).toStrictEqual(searched)
  })

  it('companies by domain, in several spellings of every website, and domains that match nothing', async () => {
    const websites = source.sqlite.prepare('select website from companies where website is not null order by id').pluck().all() as string[]
    let found = 0
    for (const website of websites) {
      const bare = website.replace(/^www\./i, '').replace(/\.$/, '')
      for (const spelling of [website, bare.toUpperCase(), `WWW.${bare.toUpperCase()}.`, ` ${bare} `]) {
        const detail = await same(`domain ${spelling}`, (e) => e.records.companyByDomain(spelling))
        if (detail) found++
      }
    }
    for (const spelling of ['mixed-case.example', 'SHARED.example', 'trailing.example', 'prefixed.example', 'mixed-case.exampl', 'nowhere.example', 'not a domain', '', 'a..b']) {
      await same(`domain ${spelling}`, (e) => e.records.companyByDomain(spelling))
    }
    expect(found).toBeGreaterThan(websites.length * 3)
  })

  it('contacts by their stored names, in other cases and spacings, and names nobody has', async () => {
    const contacts = source.sqlite.prepare('select company_id, name from company_contacts order by company_id, name').all() as { company_id: number; name: string }[]
    let withEmail = 0
    for (const { company_id, name } of contacts) {
      for (const spelling of [name, name.toUpperCase(), `  ${name.toLowerCase().replace(/ /g, '   ')} `]) {
        if ((await same(`contact ${company_id} ${spelling}`, (e) => e.records.contactEmail(company_id, spelling))) !== null) withEmail++
      }
    }
    for (const spelling of ['Nobody Here', '', 'a\u0000b', '\ud800']) await same(`contact 9001 ${spelling}`, (e) => e.records.contactEmail(9001, spelling))
    await same('contact of a missing company', (e) => e.records.contactEmail(Math.max(...companyIds) + 1, 'Jamie Smith'))
    expect(withEmail).toBeGreaterThan(contacts.length)
  })

  it('investor detail and portfolio pages of every investor, and of missing ids', async () => {
    let withDeals = 0
    let pages = 0
    for (const id of [...investorIds, ...missing(investorIds)]) {
      const detail = await same(`investor ${id}`, (e) => e.records.investorDetail(id))
      if (detail?.most_recent_funding) withDeals++
      for (const perPage of [1, 7, 50]) {
        for (let page = 1; page <= 30; page++) {
          const found = await same(`portfolio ${id} page ${page} of ${perPage}`, (e) => e.records.investorPortfolio(id, { page, perPage }))
          if (!found || found.companies.length === 0) break
          pages++
        }
      }
    }
    expect(withDeals).toBeGreaterThan(15)
    expect(pages).toBeGreaterThan(200)
  })

  it('funding extras of every funding event, a page at a time and all at once, with ids that are no event', async () => {
    let named = 0
    for (let i = 0; i < fundingIds.length; i += 50) {
      const extras = await same(`extras from ${fundingIds[i]}`, (e) => e.records.fundingExtras(fundingIds.slice(i, i + 50)))
      for (const x of extras.values()) if (x.investors !== '') named++
    }
    expect(named).toBeGreaterThan(fundingIds.length / 2)
    const all = await same('extras of every event', (e) => e.records.fundingExtras([...fundingIds, ...missing(fundingIds), 1.5]))
    expect(all.size).toBe(fundingIds.length)
    expect(await same('extras of nothing', (e) => e.records.fundingExtras([]))).toStrictEqual(new Map())
  })

  it('search answers alike on both backends (test/postgres/search.test.ts has the rest)', async () => {
    for (const term of ['tec', 'edge capital', 'shared', 'a']) {
      const hits = await same(`search ${term}`, (e) => e.records.search({ term, objectTypes: ['company', 'investor'], limit: 20 }))
      expect(hits?.length, term).toBeGreaterThan(0)
    }
  })
})
