/**
 * Issue 11, item 12: a structural issue (the parser's) no longer hides the semantic issues (the
 * checker's) of the rest of the request; one answer carries both, structural first. The checker
 * judges only the structurally valid parts (`parseQueryParts`), so it never reports on a malformed
 * node, and what was reported before for either kind alone is reported exactly the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { checkQuery } from '../../src/check/index.js'
import { parseQuery, parseQueryParts } from '../../src/parse/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import type { Issue } from '../../src/errors/issue.js'

let vdb: SqliteVentureDb
let engine: Engine

beforeAll(async () => {
  vdb = await createFixtureDatabase({ companies: 60 })
  engine = createEngine({ database: vdb })
})
afterAll(async () => {
  await engine.close()
  await vdb.close()
})

async function issuesOf(request: unknown): Promise<readonly Issue[]> {
  const result = await engine.query(request)
  if (result.ok) throw new Error('expected the request to be refused')
  return result.issues
}

const brief = (issues: readonly Issue[]) => issues.map((i) => [i.code, i.path])

describe('structural and semantic issues in one answer', () => {
  it('a bad sort direction and an unknown field: both', async () => {
    const issues = await issuesOf({ dataset: 'companies', filter: { contry: 'USA' }, sort: [{ name: 'up' }] })
    expect(brief(issues)).toEqual([['invalid_sort', '/sort/0/name'], ['unknown_field', '/filter/contry']])
    expect(issues[1]!.suggestions?.[0]).toBe('country')
  })

  it('each issue reads exactly as it does when it is the only one', async () => {
    const structural = await issuesOf({ dataset: 'companies', sort: [{ name: 'up' }] })
    const semantic = await issuesOf({ dataset: 'companies', filter: { contry: 'USA' } })
    const both = await issuesOf({ dataset: 'companies', filter: { contry: 'USA' }, sort: [{ name: 'up' }] })
    expect(both).toEqual([...structural, ...semantic])
  })

  it('the semantic issues of the other sort clauses keep their paths', async () => {
    const issues = await issuesOf({ dataset: 'companies', sort: [{ name: 'sideways' }, { industries: 'asc' }, { nmae: 'desc' }] })
    expect(brief(issues)).toEqual([['invalid_sort', '/sort/0/name'], ['not_sortable', '/sort/1/industries'], ['unknown_field', '/sort/2/nmae']])
  })

  it('inside the filter: malformed parts are left out, the rest is checked', async () => {
    const issues = await issuesOf({
      dataset: 'investors',
      filter: {
        and: [
          { portfolio_size: { gte: 'ten', lt: 5 } }, // operand of gte: fine structurally (a string), semantic
          { type: { in: [] } }, // structural: empty list
          { nmae: { starts_with: 'A' } }, // semantic: unknown field
          { number_of_deals: { between: [1] } }, // structural: not a pair
          { foreign: { dataset: 'companies', filter: { stage: 'z', employees: { gtee: 5 } } } }, // unknown operator; stage z semantic
          { or: [{}, { location: { has_any: ['Berlin'] } }] }, // {} structural; has_any on a string field semantic
          { not: { and: [] } }, // structural only: the not is left out whole
        ],
      },
      page: 0, // structural
    })
    expect(brief(issues)).toEqual([
      ['empty_list', '/filter/and/1/type/in'],
      ['invalid_value', '/filter/and/3/number_of_deals/between'],
      ['unknown_operator', '/filter/and/4/foreign/filter/employees/gtee'],
      ['empty_filter', '/filter/and/5/or/0'],
      ['empty_list', '/filter/and/6/not/and'],
      ['invalid_page', '/page'],
      ['invalid_value', '/filter/and/0/portfolio_size/gte'],
      ['unknown_field', '/filter/and/2/nmae'],
      ['unknown_enum_value', '/filter/and/4/foreign/filter/stage'],
      ['operator_not_allowed', '/filter/and/5/or/1/location/has_any'],
    ])
  })

  it('the checker never sees a malformed node: every node it gets is one parseQuery would build', () => {
    const request = {
      dataset: 'companies',
      filter: { and: [{ employees: { gte: 5, between: 'x' } }, { or: [] }, { not: 7 }, { foreign: { dataset: 'fundings', match: 'most', filter: { amount: 1 } } }] },
      sort: [{ employees: 'desc', name: 'asc' }, { name: 'asc' }],
    }
    const parts = parseQueryParts(request)
    expect(parts.issues.length).toBeGreaterThan(0)
    const alone = parseQuery(request)
    expect(!alone.ok && alone.issues).toEqual(parts.issues)
    // What is left is exactly the valid request made of the valid parts.
    const valid = parseQuery({ dataset: 'companies', filter: { and: [{ employees: { gte: 5 } }] }, sort: [{ name: 'asc' }] })
    if (!valid.ok) throw new Error('the valid parts should parse')
    expect(parts.query?.filter).toEqual(valid.value.filter)
    expect(parts.query?.sort).toEqual([{ field: 'name', direction: 'asc', path: '/sort/1' }])
    expect(checkQuery(parts.query!).ok).toBe(true)
  })

  it('nothing to check: a malformed dataset, a non-hash request, the guard refusing the input', async () => {
    expect(brief(await issuesOf({ dataset: 5, filter: { nope: 1 } }))).toEqual([['invalid_type', '/dataset']])
    expect(brief(await issuesOf([1]))).toEqual([['invalid_type', '']])
    const deep: Record<string, unknown> = { name: 'x' }
    let node = deep
    for (let i = 0; i < 20; i++) node = (node.not = { nope: 1 }) as Record<string, unknown>
    const guarded = await issuesOf({ dataset: 'companies', filter: deep, sort: [{ name: 'up' }] })
    expect(guarded.map((i) => i.code)).toEqual(['limit_exceeded'])
  })

  it('an unknown dataset name is the semantic issue; the fields cannot be judged without it', async () => {
    expect(brief(await issuesOf({ dataset: 'companys', filter: { contry: 'USA' }, sort: [{ name: 'up' }] })))
      .toEqual([['invalid_sort', '/sort/0/name'], ['unknown_dataset', '/dataset']])
  })

  it('the two kinds together are capped at maxIssues, with one too_many_issues', async () => {
    const small = createEngine({ database: vdb, limits: { maxIssues: 3 } })
    try {
      const result = await small.query({ dataset: 'companies', filter: { a: 1, b: 2, c: 3 }, sort: [{ name: 'up' }, { id: 'down' }] })
      expect(!result.ok && brief(result.issues)).toEqual([
        ['invalid_sort', '/sort/0/name'], ['invalid_sort', '/sort/1/id'], ['unknown_field', '/filter/a'], ['too_many_issues', ''],
      ])
    } finally {
      await small.close()
    }
  })

  it('every entry point of the engine that takes a request answers both: list, count, store, explain', async () => {
    const request = { dataset: 'companies', filter: { contry: 'USA' }, sort: [{ name: 'up' }] }
    for (const result of [await engine.list(request), await engine.count(request), await engine.store(request), await engine.explain(request)]) {
      expect(!result.ok && result.issues.map((i) => i.code)).toEqual(['invalid_sort', 'unknown_field'])
    }
  })
})
