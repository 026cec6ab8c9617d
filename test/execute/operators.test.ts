/**
 * Each operator executed on SQLite against a seeded database, compared with the rows selected by
 * a plain JS predicate written here, independently of the compiler; and each one's null-safe
 * complement: count(P) + count(not P) = count(all).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { and, condition as c, foreign, matchAll, not, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { DatasetName } from '../../src/catalog/index.js'
import { planQuery, sqliteDialect } from '../../src/compile/index.js'
import { countRows, fetchKeys, type ExecContext } from '../../src/execute/index.js'
import { checked } from '../compile/helpers.js'
import { seedDatabase, type Row } from './seed-db.js'

const seed = seedDatabase()
const ctx: ExecContext = { db: seed.vdb.db, dialect: sqliteDialect, dataVersion: 0 }
afterAll(() => seed.vdb.close())

const p = '/filter'
const tagsOf = (table: string, id: number): string[] => seed.tags.get(table)?.get(id) ?? []
const fold = (s: string) => s.replace(/[A-Z]/g, (x) => x.toLowerCase())
const num = (v: unknown) => (v === null ? null : Number(v))
/** Companies related to an investor and the reverse, from the link rows. */
const investmentsOf = (investorId: number) => seed.links.get('investments')!.filter((l) => l.investor_id === investorId).map((l) => Number(l.company_id))
const investorsOf = (companyId: number) => seed.links.get('investments')!.filter((l) => l.company_id === companyId).map((l) => Number(l.investor_id))
const company = (id: number) => seed.rows.companies.find((r) => r.id === id)!

interface Case {
  readonly name: string
  readonly dataset: DatasetName
  readonly filter: FilterNode
  readonly expected: (row: Row) => boolean
}

const CASES: Case[] = [
  { name: 'eq string', dataset: 'companies', filter: c('name', 'eq', 'Acme', p), expected: (r) => r.name === 'Acme' },
  { name: 'eq integer', dataset: 'companies', filter: c('employees', 'eq', 50, p), expected: (r) => r.employees === 50 },
  { name: 'eq boolean', dataset: 'companies', filter: c('has_mobile', 'eq', true, p), expected: (r) => r.has_mobile === 1 },
  { name: 'ne includes NULL', dataset: 'companies', filter: c('name', 'ne', 'Acme', p), expected: (r) => r.name !== 'Acme' },
  { name: 'gt', dataset: 'companies', filter: c('employees', 'gt', 10, p), expected: (r) => num(r.employees) !== null && num(r.employees)! > 10 },
  { name: 'gte number', dataset: 'companies', filter: c('svc_score', 'gte', 2.25, p), expected: (r) => r.svc_score !== null && Number(r.svc_score) >= 2.25 },
  { name: 'lt negative', dataset: 'companies', filter: c('momentum_score', 'lt', 0, p), expected: (r) => r.momentum_score !== null && Number(r.momentum_score) < 0 },
  { name: 'lte date', dataset: 'companies', filter: c('last_funding_date', 'lte', '2020-01-31', p), expected: (r) => r.last_funding_date !== null && String(r.last_funding_date) <= '2020-01-31' },
  { name: 'between', dataset: 'companies', filter: c('employees', 'between', [5, 50], p), expected: (r) => r.employees !== null && Number(r.employees) >= 5 && Number(r.employees) <= 50 },
  { name: 'in', dataset: 'companies', filter: c('stage', 'in', ['a', 'Unknown'], p), expected: (r) => r.stage === 'a' || r.stage === 'Unknown' },
  { name: 'in numbers', dataset: 'companies', filter: c('svc_score', 'in', [3.5, 10, -1.5], p), expected: (r) => [3.5, 10, -1.5].includes(r.svc_score as number) },
  { name: 'nin includes NULL', dataset: 'companies', filter: c('stage', 'nin', ['a', 'Unknown'], p), expected: (r) => r.stage !== 'a' && r.stage !== 'Unknown' },
  { name: 'is_null', dataset: 'companies', filter: c('state', 'is_null', true, p), expected: (r) => r.state === null },
  { name: 'is_null false', dataset: 'companies', filter: c('state', 'is_null', false, p), expected: (r) => r.state !== null },
  { name: 'contains, ASCII case folded', dataset: 'companies', filter: c('name', 'contains', 'ACME', p), expected: (r) => r.name !== null && fold(String(r.name)).includes('acme') },
  { name: 'contains a literal %', dataset: 'companies', filter: c('name', 'contains', '0%', p), expected: (r) => r.name !== null && String(r.name).includes('0%') },
  { name: 'contains a literal _', dataset: 'companies', filter: c('name', 'contains', 'a_', p), expected: (r) => r.name !== null && fold(String(r.name)).includes('a_') },
  { name: 'contains a literal backslash', dataset: 'companies', filter: c('name', 'contains', 'k\\s', p), expected: (r) => r.name !== null && fold(String(r.name)).includes('k\\s') },
  { name: 'starts_with', dataset: 'companies', filter: c('name', 'starts_with', 'ze', p), expected: (r) => r.name !== null && fold(String(r.name)).startsWith('ze') },
  { name: 'ends_with with a quote', dataset: 'companies', filter: c('name', 'ends_with', "'brien", p), expected: (r) => r.name !== null && fold(String(r.name)).endsWith("'brien") },
  { name: 'non-ASCII compares exactly', dataset: 'companies', filter: c('name', 'starts_with', 'éc', p), expected: () => false },
  { name: 'has_any', dataset: 'companies', filter: c('industries', 'has_any', ['AI', 'Energy'], p), expected: (r) => tagsOf('company_industries', Number(r.id)).some((t) => t === 'AI' || t === 'Energy') },
  { name: 'has_all', dataset: 'companies', filter: c('keywords', 'has_all', ['AI', 'SaaS'], p), expected: (r) => ['AI', 'SaaS'].every((t) => tagsOf('company_keywords', Number(r.id)).includes(t)) },
  { name: 'has_none', dataset: 'companies', filter: c('industries', 'has_none', ['AI'], p), expected: (r) => !tagsOf('company_industries', Number(r.id)).includes('AI') },
  { name: 'is_empty', dataset: 'companies', filter: c('business_models', 'is_empty', true, p), expected: (r) => tagsOf('company_business_models', Number(r.id)).length === 0 },
  { name: 'and/or', dataset: 'companies', filter: and([c('employees', 'gte', 10, p), or([c('stage', 'eq', 'a', p), c('has_ios_store', 'eq', true, p)], p)], p), expected: (r) => r.employees !== null && Number(r.employees) >= 10 && (r.stage === 'a' || r.has_ios_store === 1) },
  {
    name: 'foreign any (investors with a company in an industry)',
    dataset: 'investors',
    filter: foreign('companies', c('industries', 'has_any', ['Fintech'], p), 'any', p),
    expected: (r) => investmentsOf(Number(r.id)).some((cid) => tagsOf('company_industries', cid).includes('Fintech')),
  },
  {
    name: 'foreign none',
    dataset: 'investors',
    filter: foreign('companies', c('stage', 'eq', 'a', p), 'none', p),
    expected: (r) => !investmentsOf(Number(r.id)).some((cid) => company(cid).stage === 'a'),
  },
  {
    name: 'foreign all (at least one related, NULL counts as not matching)',
    dataset: 'investors',
    filter: foreign('companies', c('employees', 'gte', 5, p), 'all', p),
    expected: (r) => {
      const related = investmentsOf(Number(r.id))
      return related.length > 0 && related.every((cid) => company(cid).employees !== null && Number(company(cid).employees) >= 5)
    },
  },
  {
    name: 'foreign direct (companies with a funding of amount >= 50)',
    dataset: 'companies',
    filter: foreign('fundings', c('amount', 'gte', 50, p), 'any', p),
    expected: (r) => seed.rows.fundings.some((f) => f.company_id === r.id && f.amount !== null && Number(f.amount) >= 50),
  },
  {
    name: 'nested foreign back to the same dataset',
    dataset: 'companies',
    filter: foreign('investors', foreign('companies', c('stage', 'eq', 'a', p), 'any', p), 'any', p),
    expected: (r) => investorsOf(Number(r.id)).some((iid) => investmentsOf(iid).some((cid) => company(cid).stage === 'a')),
  },
]

async function ids(dataset: DatasetName, filter: FilterNode): Promise<number[]> {
  const plan = planQuery(checked(dataset, filter), sqliteDialect)
  return (await fetchKeys(ctx, plan, { limit: 100_000 })).map((k) => k.id)
}

async function count(dataset: DatasetName, filter: FilterNode): Promise<number> {
  return countRows(ctx, planQuery(checked(dataset, filter), sqliteDialect))
}

describe('operators on SQLite', () => {
  for (const k of CASES) {
    it(k.name, async () => {
      const expected = seed.rows[k.dataset].filter(k.expected).map((r) => Number(r.id))
      const got = await ids(k.dataset, k.filter)
      expect(got).toEqual(expected)
      expect(await count(k.dataset, k.filter)).toBe(expected.length)
    })
  }

  it('the cases are not trivial: each selects some rows and leaves some out', async () => {
    for (const k of CASES) {
      const n = seed.rows[k.dataset].filter(k.expected).length
      if (k.name.startsWith('non-ASCII')) continue
      expect(n, k.name).toBeGreaterThan(0)
      expect(n, k.name).toBeLessThan(seed.rows[k.dataset].length)
    }
  })

  it('not P is the exact complement of P, NULLs included', async () => {
    for (const k of CASES) {
      const all = await count(k.dataset, matchAll())
      const yes = await count(k.dataset, k.filter)
      const no = await count(k.dataset, not(k.filter, p))
      expect(yes + no, k.name).toBe(all)
      const inter = await count(k.dataset, and([k.filter, not(k.filter, p)], p))
      expect(inter, k.name).toBe(0)
    }
  })
})
