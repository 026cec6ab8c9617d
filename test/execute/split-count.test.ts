/**
 * Counting a filter made only of negations as a sum of index ranges (compile/split-count.ts):
 * - the total equals the plain count's and the reference's, on filters with NULLs in the split
 *   column, with a non-nullable split column, with several negated conjuncts and nested negations,
 *   and generated ones (fast-check, over negated comparisons on indexed and unindexed fields);
 * - each piece is an index range (SEARCH in the query plan), never a scan of a whole index;
 * - filters with a positive conjunct, a `foreign` or only unindexed or tags fields keep the plain count.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { and, condition as c, foreign, not, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import { planQuery, sqliteDialect, postgresDialect } from '../../src/compile/index.js'
import { countRows } from '../../src/execute/counts.js'
import type { ExecContext } from '../../src/execute/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { dataVersionSync } from '../../src/store/open.js'
import { checked } from '../compile/helpers.js'

const vdb = await createFixtureDatabase({ companies: 600 })
const ctx: ExecContext = { db: vdb.db, dialect: sqliteDialect, dataVersion: dataVersionSync(vdb.sqlite), sqlite: vdb.sqlite }
afterAll(() => vdb.close())
const p = '/filter'

const plainCount = async (filter: FilterNode) =>
  Number((await planQuery(checked('companies', filter), sqliteDialect).countQuery(vdb.db).executeTakeFirstOrThrow()).count)

describe('a negated filter counted as index ranges', () => {
  const cases: readonly { name: string; filter: FilterNode }[] = [
    { name: 'not(or(country = USA, employees < 10))', filter: not(or([c('country', 'eq', 'USA', p), c('employees', 'lt', 10, p)], p), p) },
    { name: 'not(country = USA)', filter: not(c('country', 'eq', 'USA', p), p) },
    { name: 'not(employees < 10)', filter: not(c('employees', 'lt', 10, p), p) },
    { name: 'not(employees between 5 and 50)', filter: not(c('employees', 'between', [5, 50], p), p) },
    { name: 'not(svc_score >= 50), not(stage = a)', filter: and([not(c('svc_score', 'gte', 50, p), p), not(c('stage', 'eq', 'a', p), p)], p) },
    { name: 'not(or(not(not(country = DEU)), total_funding > 0))', filter: not(or([not(not(c('country', 'eq', 'DEU', p), p), p), c('total_funding', 'gt', 0, p)], p), p) },
    { name: 'not(and(country = USA, employees < 10))', filter: not(and([c('country', 'eq', 'USA', p), c('employees', 'lt', 10, p)], p), p) },
  ]

  it.each(cases)('$name: the plain count', async ({ filter }) => {
    const plan = planQuery(checked('companies', filter), sqliteDialect)
    const plain = await plainCount(filter)
    const all = vdb.sqlite.prepare('select count(*) from companies').pluck().get() as number
    // Neither empty nor everything, so a wrong piece would show.
    expect(plain).toBeGreaterThan(0)
    expect(plain).toBeLessThan(all)
    if (filter.kind === 'Not' && filter.child.kind === 'And') {
      // not(and(...)) is an `or` of negations: not one conjunct, no split.
      expect(plan.splitCount).toBeUndefined()
      return
    }
    expect(plan.splitCount).toBeDefined()
    expect(await countRows(ctx, plan)).toBe(plain)
    const split = plan.splitCount!(vdb.db).compile()
    const detail = (vdb.sqlite.prepare(`explain query plan ${split.sql}`).all(...split.parameters) as { detail: string }[]).map((r) => r.detail)
    const reads = detail.filter((d) => /^(SCAN|SEARCH) t0/.test(d))
    expect(reads.length).toBeGreaterThan(0)
    expect(reads.every((d) => d.startsWith('SEARCH t0'))).toBe(true)
  })

  it('the NULLs of the split column are counted (a piece of their own)', async () => {
    const nulls = vdb.sqlite.prepare('select count(*) from companies where country is null').pluck().get() as number
    expect(nulls).toBeGreaterThan(0)
    const filter = not(c('country', 'eq', 'USA', p), p)
    const direct = vdb.sqlite.prepare(`select count(*) from companies where country is null or country <> 'USA'`).pluck().get() as number
    expect(await countRows(ctx, planQuery(checked('companies', filter), sqliteDialect))).toBe(direct)
  })

  it('generated negations: the same total as the plain count', async () => {
    const fields = [
      { field: 'country', values: ['USA', 'DEU', 'GBR', 'FRA'] },
      { field: 'stage', values: ['a', 'b', 'seed', 'Unknown'] },
      { field: 'employees', values: [1, 5, 10, 50, 200] },
      { field: 'svc_score', values: [10, 40, 70] },
      { field: 'city', values: ['Berlin', 'London'] },
    ] as const
    const condition = fc.constantFrom(...fields).chain(({ field, values }) =>
      fc.record({ op: fc.constantFrom('eq', 'lt', 'lte', 'gt', 'gte'), value: fc.constantFrom<string | number>(...values) })
        .map(({ op, value }) => c(field, op as 'eq', value as never, p)))
    const negated: fc.Arbitrary<FilterNode> = fc.letrec<{ node: FilterNode }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        condition.map((x) => not(x, p)),
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((xs) => and(xs, p)),
        fc.array(condition, { minLength: 1, maxLength: 3 }).map((xs) => not(or(xs, p), p)),
      ),
    })).node
    let split = 0
    await fc.assert(fc.asyncProperty(negated, async (filter) => {
      const plan = planQuery(checked('companies', filter), sqliteDialect)
      if (plan.splitCount) split++
      expect(await countRows(ctx, plan)).toBe(await plainCount(filter))
    }), { numRuns: 120, seed: 34 })
    // The generator reaches the split form, not only filters it leaves alone.
    expect(split).toBeGreaterThan(60)
  })
})

describe('filters counted as before', () => {
  it.each([
    { name: 'a positive conjunct', filter: and([c('stage', 'eq', 'a', p), not(c('country', 'eq', 'USA', p), p)], p) },
    { name: 'a foreign', filter: and([not(c('country', 'eq', 'USA', p), p), not(foreign('fundings', c('series', 'eq', 'seed', p), 'any', p), p)], p) },
    { name: 'an unindexed field only', filter: not(c('city', 'eq', 'Berlin', p), p) },
    { name: 'a tags field only', filter: not(c('industries', 'has_any', ['Fintech'], p), p) },
  ])('$name', ({ filter }) => {
    expect(planQuery(checked('companies', filter), sqliteDialect).splitCount).toBeUndefined()
  })

  it('on PostgreSQL (its planner may scan a table once per range)', () => {
    const filter = not(or([c('country', 'eq', 'USA', p), c('employees', 'lt', 10, p)], p), p)
    expect(planQuery(checked('companies', filter), postgresDialect).splitCount).toBeUndefined()
  })
})
