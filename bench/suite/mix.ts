/**
 * @module The fixed request mix of the issue-9 suite: 20 realistic requests, each as the HTTP
 * request a client sends and as the engine call behind it. Listing URLs become engine requests
 * through the same parameter parser the app uses (`parseListParams`), so the HTTP and engine
 * variants run the same query by construction. Data-dependent values (the largest investor, a
 * well-tagged company, 5,000 websites, the deep page) are read from the benchmark database, so
 * the mix is the same for a given size and seed.
 *
 * Every listing is page 1 at 50 per page. The deep page is page 10,000 at 1,000,000 companies
 * (638,009 hits of `country = USA AND employees >= 5`, its nullable default sort `svc_score desc`),
 * scaled with the data: page round(10,000 x size / 1,000,000), i.e. page 1,000 at 100,000
 * companies (63,851 hits: the same 78% depth).
 */
import type { Engine } from '../../src/engine.js'
import { similarCompanies } from '../../src/records/similar.js'
import { QueryParams } from '../../src/http/params.js'
import { listRequest, parseListParams } from '../../src/parse/list-params.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

export const PER_PAGE = 50
/**
 * GET /companies's own page size (the app's `companiesPerPage`): the listing that keeps it
 * (`companies-usa`) is timed at the size clients get: with a literal LIMIT (execute/statements.ts)
 * SQLite's plan depends on the limit's value, so a page of 50 alone would not show the plan at 10.
 */
export const COMPANIES_DEFAULT_PER_PAGE = 10

/** What each variant of a request returns, for the identity checks: record ids in order, the total. */
export interface Out {
  readonly ids: readonly string[]
  readonly total?: number
}

export type Kind = 'listing' | 'page' | 'detail' | 'search' | 'similar'

export interface MixRequest {
  readonly id: string
  readonly title: string
  readonly kind: Kind
  /** The issue-9 table row it stands for. */
  readonly covers: string
  /** The same request through the HTTP handler (none for `similar-live`: the endpoint serves the index). */
  readonly http?: { readonly method: 'GET' | 'POST'; readonly path: string; readonly body?: string }
  /** Listings: the request `engine.list` runs (and first counts count). */
  readonly request?: Readonly<Record<string, unknown>>
  /** The engine end to end (engine API, no HTTP). */
  readonly engine: () => Promise<Out>
}

/** The values the mix depends on, read once from the database. */
export interface MixParams {
  readonly companies: number
  readonly investorSlug: string
  readonly investorId: number
  readonly companyId: number
  readonly websites: readonly string[]
  readonly deepQueryId: string
  readonly deepPage: number
  readonly deepHits: number
  readonly industries: readonly string[]
}

export const DEEP_FILTER = Object.freeze({ country: 'USA', employees: Object.freeze({ gte: 5 }) })
export const SEARCH_TERMS = Object.freeze(['a', 'te', 'tec', 'tech'])

export async function mixParams(engine: Engine<SqliteVentureDb>, companies: number): Promise<MixParams> {
  const db = engine.database.sqlite
  const investor = db.prepare('select id, svc_slug from investors order by portfolio_size desc, id limit 1').get() as { id: number; svc_slug: string }
  // The company with the most industries: the costliest detail and a similarity search with many tags.
  const companyId = db.prepare('select company_id from company_industries group by company_id order by count(*) desc, company_id limit 1').pluck().get() as number
  // 5,000 distinct websites spread over the whole table (every k-th company that has one).
  const withSite = db.prepare('select count(distinct website) from companies where website is not null').pluck().get() as number
  const step = Math.max(1, Math.floor(withSite / 5000))
  const websites = (db.prepare(`select website from (select distinct website from companies where website is not null order by website) limit 5000 offset 0`).pluck().all() as string[])
  const spread = step === 1 ? websites : (db.prepare('select website from (select website, row_number() over (order by website) as n from (select distinct website from companies where website is not null)) where n % ? = 0 limit 5000').pluck().all(step) as string[])
  const stored = await engine.store({ dataset: 'companies', filter: DEEP_FILTER })
  if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
  const deepHits = db.prepare(`select count(*) from companies where country = 'USA' and employees >= 5`).pluck().get() as number
  const deepPage = Math.min(Math.max(2, Math.round((10_000 * companies) / 1_000_000)), Math.floor(deepHits / PER_PAGE))
  return {
    companies,
    investorSlug: investor.svc_slug,
    investorId: investor.id,
    companyId,
    websites: spread.length >= 5000 ? spread : websites,
    deepQueryId: stored.value.query_id,
    deepPage,
    deepHits,
    industries: ['Fintech', 'Software'],
  }
}

const idOf = (r: Record<string, unknown>) => String(r.id ?? r.investor_id)

function unwrap<T>(r: { ok: true; value: T } | { ok: false; issues: unknown }): T {
  if (!r.ok) throw new Error(`engine: ${JSON.stringify(r.issues).slice(0, 500)}`)
  return r.value
}

/** A listing endpoint's URL as the engine request the app builds from it (page 1, 50 per page). */
export function listingRequest(path: string, perPage = PER_PAGE): Record<string, unknown> {
  const url = new URL(`http://bench.test${path}`)
  const endpoint = url.pathname.slice(1) as 'companies' | 'fundings'
  const parsed = parseListParams(endpoint, QueryParams.of(new Request(url)), { now: new Date() })
  if (!parsed.ok) throw new Error(`${path}: ${JSON.stringify(parsed.issues)}`)
  return { ...listRequest(parsed.value, 1, perPage) }
}

export function buildMix(engine: Engine<SqliteVentureDb>, p: MixParams): MixRequest[] {
  const list = (request: Record<string, unknown>) => async (): Promise<Out> => {
    const v = unwrap(await engine.list(request))
    return { ids: v.results.map((r) => idOf(r as Record<string, unknown>)), total: v.meta.total_record_count }
  }
  const get = (id: string, title: string, covers: string, path: string, perPage = PER_PAGE): MixRequest => {
    const request = listingRequest(path, perPage)
    return { id, title, kind: 'listing', covers, http: { method: 'GET', path }, request, engine: list(request) }
  }
  const post = (id: string, title: string, covers: string, request: Record<string, unknown>): MixRequest => ({
    id, title, kind: 'listing', covers, request: { ...request, per_page: PER_PAGE },
    http: { method: 'POST', path: '/queries', body: JSON.stringify({ ...request, per_page: PER_PAGE }) },
    engine: list({ ...request, per_page: PER_PAGE }),
  })
  const page = (n: number) => async (): Promise<Out> => {
    const v = unwrap(await engine.page(p.deepQueryId, { page: n, per_page: PER_PAGE }))
    return { ids: v.results.map((r) => idOf(r as Record<string, unknown>)), total: v.meta.total_record_count }
  }
  const search = (term: string): MixRequest => ({
    id: `search-${term}`, title: `search "${term}" (${term.length} letter${term.length > 1 ? 's' : ''})`, kind: 'search', covers: 'search, 1 to 4 letters',
    http: { method: 'GET', path: `/search?term=${term}` },
    engine: async () => {
      const hits = await engine.records.search({ term, objectTypes: ['company', 'investor'], limit: 10 })
      return { ids: (hits ?? []).map((h) => `${h.objectType}:${h.id}`) }
    },
  })
  return [
    get('companies-design', '/companies stage a|b, USA, employees 50-200, by svc_score', '/companies stage+country+employees, sorted by svc_score',
      '/companies?stage=a|b&country=USA&employees=50~200&sort=-svc_score'),
    get('companies-usa-lfd', '/companies USA, employees 5~, by last_funding_date', '/companies country=USA&employees=5~, sorted by last_funding_date',
      '/companies?country=USA&employees=5~&sort=-last_funding_date'),
    // Broad (74% of the rows at 1M) on a field the composite index also holds, at the endpoint's own
    // page size: the walk of svc_score must stay a walk (compile/plan.ts, `walkFrom`); with the LIMIT
    // written as 10 and the index not named, SQLite scanned the composite index and sorted, 79-87 ms.
    get('companies-usa', '/companies USA, default sort, 10 per page', '/companies country=USA, default sort, the default page size',
      '/companies?country=USA', COMPANIES_DEFAULT_PER_PAGE),
    get('companies-all', '/companies, no filter, default sort', '/companies no filter, default sort', '/companies'),
    get('companies-industries', `/companies industries ${p.industries.join('|')}`, '/companies?industries=A|B',
      `/companies?industries=${encodeURIComponent(p.industries.join('|'))}`),
    post('investors-foreign', 'spec 4.14: investors (vc|accelerator, portfolio >= 2) with foreign companies in Fintech|Software', 'spec 4.14 investors with foreign companies', {
      dataset: 'investors',
      filter: { and: [{ portfolio_size: { gte: 2 } }, { type: { in: ['vc', 'accelerator'] } }, { foreign: { dataset: 'companies', filter: { industries: { in: [...p.industries] } } } }] },
      sort: [{ portfolio_size: 'desc' }],
    }),
    post('companies-none-seed', 'companies with no seed round (foreign fundings match none), by total_funding', 'companies foreign fundings match: none', {
      dataset: 'companies', filter: { foreign: { dataset: 'fundings', filter: { series: 'seed' }, match: 'none' } }, sort: [{ total_funding: 'desc' }],
    }),
    post('companies-not-or', 'companies not(or(country USA, employees < 10)), default sort', 'companies not(or(...))', {
      dataset: 'companies', filter: { not: { or: [{ country: 'USA' }, { employees: { lt: 10 } }] } },
    }),
    post('companies-website-in', 'companies website in [5,000 values], default sort', 'website in [5,000 values]', {
      dataset: 'companies', filter: { website: { in: [...p.websites] } },
    }),
    get('fundings-investor', '/fundings investor_slugs=<largest portfolio>', '/fundings?investor_slugs=', `/fundings?investor_slugs=${p.investorSlug}`),
    get('fundings-dates', '/fundings funding_date_range 2020', '/fundings?funding_date_range=', '/fundings?funding_date_range=2020-01-01~2020-12-31'),
    {
      id: 'company-detail', title: 'company detail (most industries)', kind: 'detail', covers: 'company detail by id',
      http: { method: 'GET', path: `/companies/${p.companyId}` },
      engine: async () => {
        const d = await engine.records.companyDetail(p.companyId)
        return { ids: d ? [String(d.company.id)] : [] }
      },
    },
    {
      id: 'investor-detail', title: 'investor detail (largest portfolio)', kind: 'detail', covers: 'investor detail',
      http: { method: 'GET', path: `/investors/${p.investorId}` },
      engine: async () => {
        const d = await engine.records.investorDetail(p.investorId)
        return { ids: d ? [String(d.id)] : [] }
      },
    },
    {
      id: 'similar', title: 'similar companies (most industries)', kind: 'similar', covers: 'similar companies',
      http: { method: 'GET', path: `/companies/${p.companyId}/similar` },
      engine: async () => ({ ids: ((await engine.records.similarCompanies(p.companyId)) ?? []).map((r) => String(r.id)) }),
    },
    {
      // What the index replaces: the search itself, at the defaults (records API on the same connection).
      id: 'similar-live', title: 'similar companies (most industries), searched, not from the index', kind: 'similar', covers: 'similar companies',
      engine: async () => ({ ids: (await similarCompanies(engine.database, p.companyId, { index: false })).map((r) => String(r.id)) }),
    },
    ...SEARCH_TERMS.map(search),
    {
      id: 'deep-page', title: `page ${p.deepPage.toLocaleString('en-US')} of a stored query (${p.deepHits.toLocaleString('en-US')} hits), walked`, kind: 'page', covers: 'a deep page',
      http: { method: 'GET', path: `/queries/${p.deepQueryId}?page=${p.deepPage}&per_page=${PER_PAGE}` },
      engine: page(p.deepPage),
    },
    {
      id: 'repeated-page', title: 'page 2 of the same stored query, repeated (total cached)', kind: 'page', covers: 'a repeated page',
      http: { method: 'GET', path: `/queries/${p.deepQueryId}?page=2&per_page=${PER_PAGE}` },
      engine: page(2),
    },
  ]
}
