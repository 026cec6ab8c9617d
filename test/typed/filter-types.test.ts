/**
 * Type tests of the typed API (src/typed/). They are checked by `tsc --noEmit -p .` (the first
 * step of `npm test`; tsconfig.json includes test/): each `@ts-expect-error` fails the build when
 * the line below it compiles, and each `expectTypeOf` assertion fails it when the types differ.
 * The `it` blocks also run under vitest, where they check that the typed values are what the
 * engine accepts (a filter that compiles must also parse and check).
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  checkQuery, parseQuery,
  type CompanyRecord, type DatasetRef, type Engine, type Filter, type FilterValue, type FundingRecord, type InvestorRecord,
  type QueryId, type QueryRequest, type RecordOf, type ResolveDataset, type SortClause, type TypedEngine,
} from '../../src/index.js'

/** A request that compiles must be accepted by the engine's parser and checker too. */
function accepted<R extends DatasetRef>(request: QueryRequest<R>): void {
  const parsed = parseQuery(request)
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
  const checked = checkQuery(parsed.value)
  expect(checked.ok ? [] : checked.issues).toEqual([])
}

describe('valid filters compile and are accepted', () => {
  it('fields, operators, enum values and value types', () => {
    const companies: Filter<'companies'> = {
      stage: { in: ['a', 'b', 'Exited'] },
      employees: { between: [50, '200'] },
      svc_score: { gte: 80 },
      name: { contains: 'ai', starts_with: 'Open' },
      country: 'USA',
      state: null,
      has_mobile: true,
      last_funding_date: { gte: '2023-01-15' },
      added_date: { lt: '2024-01-01 00:00:00' },
      industries: { has_all: ['Fintech', 'Payments'] },
      keywords: { is_empty: false },
      not: { website: { ends_with: '.io' } },
      or: [{ momentum_score: { lt: 0 } }, { total_funding: { is_null: true } }],
    }
    accepted({ dataset: 'companies', filter: companies })

    const investors: Filter<'investor'> = { type: { nin: ['angel'] }, portfolio_size: { gte: 10 }, est_most_recent_fund_date: '20230115' }
    accepted({ dataset: 'investor', filter: investors })
    accepted({ dataset: 'fundings', filter: { series: 'seed', amount: { gt: 1_000_000 }, rounds_funding_date: { between: ['2020-01-01', '2020-12-31'] } } })
  })

  it('enum aliases as the catalog lists them', () => {
    accepted({ dataset: 'companies', filter: { stage: 'exited (acquired)' } })
  })

  it('foreign is typed by the target dataset, nested and with aliases', () => {
    const filter: Filter<'investors'> = {
      and: [
        { portfolio_size: { gte: 2 } },
        { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech'] }, stage: 'b' } } },
        { foreign: { dataset: 'funding', match: 'none', filter: { series: 'seed', foreign: { dataset: 'companies', filter: { country: 'USA' } } } } },
      ],
    }
    accepted({ dataset: 'investors', filter })
  })

  it('sort clauses and the whole request', () => {
    const request: QueryRequest<'companies'> = {
      dataset: 'companies',
      filter: { stage: 'a' },
      sort: [{ employees: 'desc' }, { name: 'asc' }],
      page: 2,
      per_page: 10,
    }
    accepted(request)
  })
})

describe('typos fail to compile', () => {
  it('a dataset', () => {
    // @ts-expect-error 'compnies' is no dataset
    const a: QueryRequest<'compnies'> = { dataset: 'compnies' }
    // @ts-expect-error the request names another dataset than its type
    const b: QueryRequest<'companies'> = { dataset: 'investors' }
    void [a, b]
  })

  it('a field, on the dataset and inside and/or/not', () => {
    // @ts-expect-error 'employes' is not a field of companies
    const a: Filter<'companies'> = { employes: 5 }
    // @ts-expect-error portfolio_size is an investors field, not a companies one
    const b: Filter<'companies'> = { or: [{ portfolio_size: 5 }] }
    // @ts-expect-error 'nme' is not a field
    const c: Filter<'investors'> = { not: { nme: 'x' } }
    void [a, b, c]
  })

  it('an operator, and an operator the field type does not allow', () => {
    // @ts-expect-error 'gtee' is no operator
    const a: Filter<'companies'> = { employees: { gtee: 5 } }
    // @ts-expect-error contains applies to strings only
    const b: Filter<'companies'> = { employees: { contains: '5' } }
    // @ts-expect-error order operators are not defined on enums
    const c: Filter<'companies'> = { stage: { gt: 'a' } }
    // @ts-expect-error has_any applies to tags fields only
    const d: Filter<'companies'> = { country: { has_any: ['USA'] } }
    // @ts-expect-error is_null does not apply to tags fields
    const e: Filter<'companies'> = { industries: { is_null: true } }
    void [a, b, c, d, e]
  })

  it('an enum value', () => {
    // @ts-expect-error 'v c' is not an investor type
    const a: Filter<'investors'> = { type: 'v c' }
    // @ts-expect-error 'Exitted' is not a stage
    const b: Filter<'companies'> = { stage: { in: ['a', 'Exitted'] } }
    // @ts-expect-error 'series a' is not a series
    const c: Filter<'fundings'> = { series: { ne: 'series a' } }
    void [a, b, c]
  })

  it('a value type, per operator', () => {
    // @ts-expect-error employees is a number, not a boolean
    const a: Filter<'companies'> = { employees: true }
    // @ts-expect-error 'fifty' is no numeric string
    const b: Filter<'companies'> = { employees: { gte: 'fifty' } }
    // @ts-expect-error between takes a pair
    const c: Filter<'companies'> = { employees: { between: 5 } }
    // @ts-expect-error in takes a list
    const d: Filter<'companies'> = { employees: { in: 5 } }
    // @ts-expect-error is_null takes a boolean
    const e: Filter<'companies'> = { state: { is_null: 'yes' } }
    // @ts-expect-error a date is YYYY-MM-DD text
    const f: Filter<'companies'> = { last_funding_date: { gte: 'yesterday' } }
    // @ts-expect-error has_mobile is a boolean
    const g: Filter<'companies'> = { has_mobile: 'yes' }
    // @ts-expect-error null is allowed for eq only, not inside a list
    const h: Filter<'companies'> = { employees: { in: [null] } }
    // @ts-expect-error ne takes a value, not null (write is_null: false)
    const i: Filter<'companies'> = { employees: { ne: null } }
    void [a, b, c, d, e, f, g, h, i]
  })

  it('foreign: an unrelated or unknown dataset, a field of the wrong dataset, a match mode', () => {
    // @ts-expect-error the target's filter is over companies: 'portfolio_size' is not a companies field
    const a: Filter<'investors'> = { foreign: { dataset: 'companies', filter: { portfolio_size: 5 } } }
    // @ts-expect-error no relation leads from companies to companies
    const b: Filter<'companies'> = { foreign: { dataset: 'companies', filter: { name: 'x' } } }
    // @ts-expect-error 'startups' is no dataset
    const c: Filter<'investors'> = { foreign: { dataset: 'startups', filter: { name: 'x' } } }
    // @ts-expect-error 'some' is no match mode
    const d: Filter<'investors'> = { foreign: { dataset: 'companies', match: 'some', filter: { name: 'x' } } }
    // @ts-expect-error nested: the fundings filter has no 'stage' (companies have)
    const e: Filter<'investors'> = { foreign: { dataset: 'fundings', filter: { stage: 'a' } } }
    // @ts-expect-error an enum typo inside foreign
    const f: Filter<'fundings'> = { foreign: { dataset: 'companies', filter: { stage: 'Z' } } }
    void [a, b, c, d, e, f]
  })

  it('sort: an unknown field, a tags field, a direction, two fields in one clause', () => {
    // @ts-expect-error 'employes' is no field
    const a: SortClause<'companies'> = { employes: 'asc' }
    // @ts-expect-error tags fields cannot be sorted on
    const b: SortClause<'companies'> = { industries: 'asc' }
    // @ts-expect-error 'up' is no direction
    const c: SortClause<'companies'> = { name: 'up' }
    // @ts-expect-error a clause has exactly one field
    const d: SortClause<'companies'> = { name: 'asc', employees: 'desc' }
    void [a, b, c, d]
  })
})

describe('derived types', () => {
  it('datasets and aliases', () => {
    expectTypeOf<ResolveDataset<'investor'>>().toEqualTypeOf<'investors'>()
    expectTypeOf<ResolveDataset<'companies'>>().toEqualTypeOf<'companies'>()
    expectTypeOf<DatasetRef>().toEqualTypeOf<'companies' | 'company' | 'investors' | 'investor' | 'fundings' | 'funding'>()
  })

  it('enum values as literal unions, value types per field type', () => {
    type Stage = FilterValue<{ readonly kind: 'enum'; readonly values: readonly ('a' | 'b')[]; readonly aliases?: Readonly<Record<'bee', 'b'>> }>
    expectTypeOf<Stage>().toEqualTypeOf<'a' | 'b' | 'bee'>()
    expectTypeOf<FilterValue<{ readonly kind: 'integer' }>>().toEqualTypeOf<number | `${number}`>()
    expectTypeOf<FilterValue<{ readonly kind: 'boolean' }>>().toEqualTypeOf<boolean>()
    expectTypeOf<InvestorRecord['type']>().toEqualTypeOf<'vc' | 'angel' | 'accelerator' | 'corporate' | 'private_equity' | null>()
  })

  it('records per dataset', () => {
    expectTypeOf<CompanyRecord['id']>().toEqualTypeOf<string>()
    expectTypeOf<CompanyRecord['employees']>().toEqualTypeOf<string | null>()
    expectTypeOf<CompanyRecord['momentum_score']>().toEqualTypeOf<number | null>()
    expectTypeOf<CompanyRecord['has_mobile']>().toEqualTypeOf<boolean>()
    expectTypeOf<CompanyRecord['industries']>().toEqualTypeOf<readonly string[]>()
    expectTypeOf<CompanyRecord['last_funding_date']>().toEqualTypeOf<string | null>()
    expectTypeOf<InvestorRecord['investor_id']>().toEqualTypeOf<number>()
    expectTypeOf<InvestorRecord['resource_type']>().toEqualTypeOf<'investor'>()
    expectTypeOf<FundingRecord['series']>().toEqualTypeOf<
      'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'h' | 'i' | 'angel' | 'seed' | 'debt_financing' | 'private_equity' | 'undisclosed' | 'venture' | 'convertible_note' | null
    >()
    expectTypeOf<RecordOf<'investor'>>().toEqualTypeOf<InvestorRecord>()
    expectTypeOf<CompanyRecord>().not.toHaveProperty('portfolio_size')
  })

  it('the typed engine: results typed by the request, page typed by the id', () => {
    type Query = TypedEngine['query']
    expectTypeOf<ReturnType<typeof run>>().resolves.toEqualTypeOf<readonly InvestorRecord[] | undefined>()
    async function run(query: Query) {
      const r = await query({ dataset: 'investor', filter: { type: 'vc' } })
      return r.ok ? r.value.results : undefined
    }
    async function next(db: TypedEngine, id: QueryId<'fundings'>) {
      const r = await db.page(id, { page: 2 })
      if (r.ok) expectTypeOf(r.value.results).toEqualTypeOf<readonly FundingRecord[]>()
      const untyped = await db.page('some id')
      if (untyped.ok) expectTypeOf(untyped.value.results).toEqualTypeOf<readonly CompanyRecord[] | readonly InvestorRecord[] | readonly FundingRecord[]>()
    }
    void [run, next]
  })

  it('the typed engine closes as the engine does', () => {
    expectTypeOf<TypedEngine['close']>().toEqualTypeOf<Engine['close']>()
    expectTypeOf<TypedEngine['close']>().returns.resolves.toBeVoid()
  })
})
