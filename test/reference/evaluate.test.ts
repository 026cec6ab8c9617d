/**
 * @module The reference evaluator on tiny hand-made snapshots: every operator, null handling,
 * negation as exact complement, foreign any/none/all and the sort order. The property tests trust
 * this evaluator as the oracle, so its own semantics are pinned here case by case.
 */
import { describe, expect, test } from 'vitest'
import { build, type FilterNode } from '../../src/ast/index.js'
import { datasets } from '../../src/catalog/index.js'
import { compareValues, createSnapshot, distinctValues, evaluate, foldAscii, sortRecords } from '../../src/reference/index.js'

const { companies, investors, fundings } = datasets

const snapshot = createSnapshot({
  companies: [
    { id: 1, name: 'Acme Robotics', employees: 120, svc_score: 80.5, stage: 'a', country: 'USA', last_funding_date: '2023-05-01', has_mobile: 1, industries: ['robotics', 'hardware'] },
    { id: 2, name: 'beta labs', employees: 15, svc_score: null, stage: 'Exited', country: 'GBR', last_funding_date: null, has_mobile: 0, industries: ['software'] },
    { id: 3, name: 'Çelik AŞ', employees: null, svc_score: 12, stage: null, country: null, last_funding_date: '2021-01-15', has_mobile: 0 },
    { id: 4, name: null, employees: 120, svc_score: 80.5, stage: 'b', country: 'USA', last_funding_date: '2024-02-29', has_mobile: 1, industries: ['software', 'hardware'] },
  ],
  investors: [
    { investor_id: 10, name: 'Alpha Ventures', type: 'vc', portfolio_size: 3 },
    { investor_id: 11, name: 'Solo Angel', type: 'angel', portfolio_size: 1 },
    { investor_id: 12, name: 'Idle Capital', type: 'vc', portfolio_size: 0 },
  ],
  fundings: [
    { id: 100, company_id: 1, series: 'a', amount: 5_000_000 },
    { id: 101, company_id: 1, series: 'seed', amount: 500_000 },
    { id: 102, company_id: 4, series: 'b', amount: null },
    { id: 103, company_id: 99, series: 'c', amount: 1 },
  ],
  links: {
    investments: [
      { investor_id: 10, company_id: 1 }, { investor_id: 10, company_id: 2 }, { investor_id: 10, company_id: 4 },
      { investor_id: 11, company_id: 1 },
      { investor_id: 11, company_id: 999 },
    ],
    funding_investors: [{ funding_id: 100, investor_id: 10 }, { funding_id: 101, investor_id: 11 }],
  },
})

const c = <Op extends Parameters<typeof build.condition>[1]>(field: string, op: Op, value: Parameters<typeof build.condition<Op>>[2]) =>
  build.condition(field, op, value, `/filter/${field}`)

function ids(filter: FilterNode, ds = companies): number[] {
  return [...evaluate(filter, ds, snapshot)].sort((a, b) => a - b)
}

describe('conditions on scalar fields', () => {
  test('eq and ne: ne is the exact complement of eq, so it includes NULLs', () => {
    expect(ids(c('country', 'eq', 'USA'))).toEqual([1, 4])
    expect(ids(c('country', 'ne', 'USA'))).toEqual([2, 3])
    expect(ids(c('employees', 'eq', 120))).toEqual([1, 4])
  })

  test('eq on text is exact (case-sensitive); only the literal text operators fold case', () => {
    expect(ids(c('country', 'eq', 'usa'))).toEqual([])
  })

  test('ordered comparisons skip NULLs', () => {
    expect(ids(c('employees', 'gt', 15))).toEqual([1, 4])
    expect(ids(c('employees', 'gte', 15))).toEqual([1, 2, 4])
    expect(ids(c('employees', 'lt', 120))).toEqual([2])
    expect(ids(c('employees', 'lte', 120))).toEqual([1, 2, 4])
    expect(ids(c('svc_score', 'between', [12, 80.5]))).toEqual([1, 3, 4])
  })

  test('dates compare as dates through their ISO text', () => {
    expect(ids(c('last_funding_date', 'between', ['2021-01-15', '2023-12-31']))).toEqual([1, 3])
    expect(ids(c('last_funding_date', 'gt', '2023-05-01'))).toEqual([4])
  })

  test('in and nin: nin includes NULLs', () => {
    expect(ids(c('stage', 'in', ['a', 'Exited']))).toEqual([1, 2])
    expect(ids(c('stage', 'nin', ['a', 'Exited']))).toEqual([3, 4])
  })

  test('is_null true and false partition the records', () => {
    expect(ids(c('name', 'is_null', true))).toEqual([4])
    expect(ids(c('name', 'is_null', false))).toEqual([1, 2, 3])
  })

  test('booleans stored as 0/1 compare as true/false', () => {
    expect(ids(c('has_mobile', 'eq', true))).toEqual([1, 4])
    expect(ids(c('has_mobile', 'ne', true))).toEqual([2, 3])
  })

  test('text operators are literal and fold ASCII letters only', () => {
    expect(ids(c('name', 'contains', 'LAB'))).toEqual([2])
    expect(ids(c('name', 'starts_with', 'acme'))).toEqual([1])
    expect(ids(c('name', 'ends_with', 'TICS'))).toEqual([1])
    expect(ids(c('name', 'contains', '%'))).toEqual([])
    // 'Ç' and 'Ş' are not ASCII: they match only as written.
    expect(ids(c('name', 'starts_with', 'ç'))).toEqual([])
    expect(ids(c('name', 'starts_with', 'Çel'))).toEqual([3])
    expect(ids(c('name', 'ends_with', 'aş'))).toEqual([])
    expect(foldAscii('ÀBc')).toBe('Àbc')
  })
})

describe('conditions on tags fields', () => {
  test('has_any, has_all, has_none, is_empty; a company without tags has none of them', () => {
    expect(ids(c('industries', 'has_any', ['hardware', 'nope']))).toEqual([1, 4])
    expect(ids(c('industries', 'has_all', ['hardware', 'software']))).toEqual([4])
    expect(ids(c('industries', 'has_none', ['hardware']))).toEqual([2, 3])
    expect(ids(c('industries', 'is_empty', true))).toEqual([3])
    expect(ids(c('industries', 'is_empty', false))).toEqual([1, 2, 4])
  })

  test('eq and in on tags are the sugar for has_any', () => {
    expect(ids(c('industries', 'eq', 'software'))).toEqual([2, 4])
    expect(ids(c('industries', 'in', ['robotics', 'software']))).toEqual([1, 2, 4])
  })
})

describe('logic', () => {
  const usa = c('country', 'eq', 'USA')
  const big = c('employees', 'gte', 100)

  test('and intersects, or unites, MatchAll is everything', () => {
    expect(ids(build.and([usa, c('stage', 'eq', 'b')], '/filter/and'))).toEqual([4])
    expect(ids(build.or([c('stage', 'eq', 'b'), c('name', 'is_null', false)], '/filter/or'))).toEqual([1, 2, 3, 4])
    expect(ids(build.matchAll())).toEqual([1, 2, 3, 4])
  })

  test('not is the exact complement, NULL fields included', () => {
    for (const p of [usa, big, build.and([usa, big], '/filter/and'), c('industries', 'has_any', ['software'])]) {
      const yes = evaluate(p, companies, snapshot)
      const no = evaluate(build.not(p, '/filter/not'), companies, snapshot)
      expect(yes.size + no.size).toBe(4)
      for (const pk of yes) expect(no.has(pk)).toBe(false)
    }
    expect(ids(build.not(big, '/filter/not'))).toEqual([2, 3])
  })
})

describe('foreign', () => {
  const viaAlpha = (match: 'any' | 'none' | 'all', filter: FilterNode) => build.foreign('investors', filter, match, '/filter/foreign')

  test('any: at least one related record matches (links to missing records are ignored)', () => {
    expect(ids(viaAlpha('any', c('type', 'eq', 'vc')))).toEqual([1, 2, 4])
    expect(ids(viaAlpha('any', c('type', 'eq', 'angel')))).toEqual([1])
  })

  test('none: no related record matches, records without related ones included', () => {
    expect(ids(viaAlpha('none', c('type', 'eq', 'angel')))).toEqual([2, 3, 4])
  })

  test('all: at least one related record, and every related one matches', () => {
    expect(ids(viaAlpha('all', c('type', 'eq', 'vc')))).toEqual([2, 4])
    expect(ids(build.foreign('companies', c('country', 'eq', 'USA'), 'all', '/filter/foreign'), investors)).toEqual([11])
    expect(ids(build.foreign('companies', build.matchAll(), 'all', '/filter/foreign'), investors)).toEqual([10, 11])
  })

  test('direct relations join on column values, in both directions', () => {
    expect(ids(build.foreign('fundings', c('series', 'eq', 'seed'), 'any', '/filter/foreign'))).toEqual([1])
    expect(ids(build.foreign('fundings', c('amount', 'gt', 0), 'all', '/filter/foreign'))).toEqual([1])
    expect(ids(build.foreign('companies', c('country', 'eq', 'USA'), 'any', '/filter/foreign'), fundings)).toEqual([100, 101, 102])
    expect(ids(build.foreign('companies', c('country', 'eq', 'USA'), 'none', '/filter/foreign'), fundings)).toEqual([103])
  })

  test('aliases of the target dataset resolve, and foreign nests', () => {
    const nested = build.foreign('investor', build.foreign('fundings', c('series', 'eq', 'seed'), 'any', '/x'), 'any', '/filter/foreign')
    expect(ids(nested)).toEqual([1])
  })
})

describe('sortRecords', () => {
  test('clauses in order, NULLs last in both directions, primary key breaks ties', () => {
    const all = [4, 3, 2, 1]
    const byScore = (direction: 'asc' | 'desc') => [{ field: companies.fields.svc_score!, direction }]
    expect(sortRecords(all, byScore('desc'), companies, snapshot)).toEqual([1, 4, 3, 2])
    expect(sortRecords(all, byScore('asc'), companies, snapshot)).toEqual([3, 1, 4, 2])
    expect(sortRecords(all, [{ field: companies.fields.name!, direction: 'asc' }], 'companies', snapshot)).toEqual([1, 2, 3, 4])
    expect(sortRecords(all, [{ field: companies.fields.employees!, direction: 'desc' }, { field: companies.fields.stage!, direction: 'desc' }], companies, snapshot)).toEqual([4, 1, 2, 3])
    expect(sortRecords(all, [], companies, snapshot)).toEqual([1, 2, 3, 4])
  })

  test('text sorts by UTF-8 bytes (BINARY collation): uppercase before lowercase, non-ASCII last', () => {
    expect(compareValues('Zed', 'acme')).toBeLessThan(0)
    expect(compareValues('z', 'Ç')).toBeLessThan(0)
    expect(compareValues('\uFFFD', '\u{1F600}')).toBeLessThan(0)
  })
})

test('distinctValues lists stored values, for generators', () => {
  expect(distinctValues(snapshot, 'companies', 'country').sort()).toEqual(['GBR', 'USA'])
  expect(distinctValues(snapshot, 'companies', 'industries').sort()).toEqual(['hardware', 'robotics', 'software'])
})
