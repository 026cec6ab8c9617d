/**
 * @module The typical filters the benchmarks run, each as an engine request and as the equivalent
 * hand-written JS predicate and comparator over preloaded rows (the baseline). Chosen to cover the
 * plan shapes of design section 8: a multi-field filter sorted on another column, a tags filter
 * with the default sort, the spec's investors-through-companies example, a broad filter matching
 * most rows, and a very selective one.
 */
import { byColumn, type CompanyRow, type Preloaded, type Row } from './baseline.js'

export interface BenchFilter {
  readonly name: string
  readonly request: { readonly dataset: string; readonly filter: unknown; readonly sort?: unknown; readonly per_page?: number }
  /** The same query over preloaded rows: `rows`, predicate and order. */
  readonly naive: (data: Preloaded) => { rows: readonly Row[]; where: (r: Row) => boolean; order: (a: Row, b: Row) => number }
}

const PER_PAGE = 10
const inSet = (values: readonly string[]) => {
  const set = new Set(values)
  return (v: unknown) => typeof v === 'string' && set.has(v)
}

export const BENCH_FILTERS: readonly BenchFilter[] = Object.freeze([
  {
    name: 'multi-field, sorted (design 8)',
    request: {
      dataset: 'companies',
      filter: { country: 'USA', stage: { in: ['a', 'b'] }, employees: { between: [50, 200] } },
      sort: [{ svc_score: 'desc' }],
      per_page: PER_PAGE,
    },
    naive: (d) => {
      const stage = inSet(['a', 'b'])
      return {
        rows: d.companies,
        where: (r) => r.country === 'USA' && stage(r.stage) && r.employees !== null && (r.employees as number) >= 50 && (r.employees as number) <= 200,
        order: byColumn('svc_score', 'desc'),
      }
    },
  },
  {
    name: 'tags, default sort',
    request: { dataset: 'companies', filter: { industries: { has_any: ['Fintech'] } }, per_page: PER_PAGE },
    naive: (d) => ({ rows: d.companies, where: (r) => (r as CompanyRow).industries.has('Fintech'), order: byColumn('svc_score', 'desc') }),
  },
  {
    name: 'investors via foreign (spec 4.14)',
    request: {
      dataset: 'investor',
      filter: {
        and: [
          { portfolio_size: { gte: 2 } },
          { type: { in: ['vc', 'accelerator'] } },
          { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech', 'Software'] } } } },
        ],
      },
      sort: [{ portfolio_size: 'desc' }],
      per_page: PER_PAGE,
    },
    naive: (d) => {
      const type = inSet(['vc', 'accelerator'])
      return {
        rows: d.investors,
        where: (r) =>
          r.portfolio_size !== null && (r.portfolio_size as number) >= 2 && type(r.type) &&
          (d.portfolio.get(r.id) ?? []).some((c) => {
            const industries = d.companyById.get(c)?.industries
            return !!industries && (industries.has('Fintech') || industries.has('Software'))
          }),
        order: byColumn('portfolio_size', 'desc'),
      }
    },
  },
  {
    name: 'broad (most rows), sorted',
    request: { dataset: 'companies', filter: { country: 'USA', employees: { gte: 2 } }, sort: [{ total_funding: 'desc' }], per_page: PER_PAGE },
    naive: (d) => ({
      rows: d.companies,
      where: (r) => r.country === 'USA' && r.employees !== null && (r.employees as number) >= 2,
      order: byColumn('total_funding', 'desc'),
    }),
  },
  {
    name: 'very selective',
    request: { dataset: 'companies', filter: { stage: 'i', country: 'GBR' }, sort: [{ employees: 'desc' }], per_page: PER_PAGE },
    naive: (d) => ({ rows: d.companies, where: (r) => r.stage === 'i' && r.country === 'GBR', order: byColumn('employees', 'desc') }),
  },
])
