/**
 * @module The in-memory peer: mingo (the MongoDB query language in JavaScript) over the same
 * records, preloaded as documents the way one would model them for a document store: a company
 * with its tag lists and the series of its rounds embedded, an investor with its portfolio
 * embedded as references to the company documents' industries, a round with its investors'
 * slugs. Loading is not timed. Each listing of the mix becomes a `find` with the same filter,
 * sort (MongoDB sorts NULL lowest, so descending sorts put NULLs last, like the engine) and
 * limit; counts are `find(...).all().length`. Only listings have a peer, except `website in
 * [5,000 values]` (see below).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { find } from 'mingo'
import { COMPANIES_DEFAULT_PER_PAGE, PER_PAGE, type MixParams, type Out } from './mix.js'

type Doc = Record<string, unknown> & { id: number }

export interface PeerData {
  readonly companies: Doc[]
  readonly investors: Doc[]
  readonly fundings: Doc[]
}

export function loadPeerData(db: BetterSqlite3.Database): PeerData {
  const companies = db.prepare('select * from companies').all() as Doc[]
  const byId = new Map<number, Doc>()
  for (const c of companies) {
    c.industries = []
    c.business_models = []
    c.fundings_series = []
    byId.set(c.id, c)
  }
  for (const t of db.prepare('select company_id, value from company_industries').iterate() as Iterable<{ company_id: number; value: string }>) {
    ;(byId.get(t.company_id)?.industries as string[] | undefined)?.push(t.value)
  }
  for (const t of db.prepare('select company_id, value from company_business_models').iterate() as Iterable<{ company_id: number; value: string }>) {
    ;(byId.get(t.company_id)?.business_models as string[] | undefined)?.push(t.value)
  }
  const fundings = db.prepare('select * from fundings').all() as Doc[]
  const fundingById = new Map<number, Doc>()
  for (const f of fundings) {
    f.investor_slugs = []
    fundingById.set(f.id, f)
    if (f.company_id !== null) (byId.get(f.company_id as number)?.fundings_series as unknown[] | undefined)?.push(f.series)
  }
  for (const l of db.prepare('select l.funding_id, i.svc_slug from funding_investors l join investors i on i.id = l.investor_id').iterate() as Iterable<{ funding_id: number; svc_slug: string }>) {
    ;(fundingById.get(l.funding_id)?.investor_slugs as string[] | undefined)?.push(l.svc_slug)
  }
  const investors = db.prepare('select * from investors').all() as Doc[]
  const investorById = new Map<number, Doc>()
  for (const i of investors) {
    i.portfolio = []
    investorById.set(i.id, i)
  }
  for (const l of db.prepare('select investor_id, company_id from investments').iterate() as Iterable<{ investor_id: number; company_id: number }>) {
    const c = byId.get(l.company_id)
    if (c) (investorById.get(l.investor_id)?.portfolio as unknown[] | undefined)?.push({ industries: c.industries })
  }
  return { companies, investors, fundings }
}

export interface PeerQuery {
  readonly page: () => Out
  readonly count: () => number
}

export function peerQueries(data: PeerData, p: MixParams): Record<string, PeerQuery> {
  const q = (collection: Doc[], criteria: Record<string, unknown>, sort: Record<string, 1 | -1>, perPage = PER_PAGE): PeerQuery => ({
    page: () => ({ ids: (find(collection, criteria).sort({ ...sort, id: 1 }).limit(perPage).all() as Doc[]).map((d) => String(d.id)) }),
    count: () => find(collection, criteria).all().length,
  })
  const { companies, investors, fundings } = data
  return {
    'companies-design': q(companies, { country: 'USA', stage: { $in: ['a', 'b'] }, employees: { $gte: 50, $lte: 200 } }, { svc_score: -1 }),
    'companies-usa-lfd': q(companies, { country: 'USA', employees: { $gte: 5 } }, { last_funding_date: -1 }),
    'companies-usa': q(companies, { country: 'USA' }, { svc_score: -1 }, COMPANIES_DEFAULT_PER_PAGE),
    'companies-all': q(companies, {}, { svc_score: -1 }),
    'companies-industries': q(companies, { industries: { $in: [...p.industries] } }, { svc_score: -1 }),
    'investors-foreign': q(investors, { portfolio_size: { $gte: 2 }, type: { $in: ['vc', 'accelerator'] }, 'portfolio.industries': { $in: [...p.industries] } }, { portfolio_size: -1 }),
    'companies-none-seed': q(companies, { fundings_series: { $ne: 'seed' } }, { total_funding: -1 }),
    'companies-not-or': q(companies, { $nor: [{ country: 'USA' }, { employees: { $lt: 10 } }] }, { svc_score: -1 }),
    // No peer for `website in [5,000 values]`: mingo's $in compares every document with every
    // value (deep equality), 150 s per call on 100,000 documents.
    'fundings-investor': q(fundings, { investor_slugs: p.investorSlug }, { rounds_funding_date: -1 }),
    'fundings-dates': q(fundings, { rounds_funding_date: { $gte: '2020-01-01', $lte: '2020-12-31' } }, { rounds_funding_date: -1 }),
  }
}
