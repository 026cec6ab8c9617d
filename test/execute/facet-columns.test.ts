/**
 * Facets counted in memory (src/execute/facet-columns.ts) against the reference evaluator on the
 * seeded fixture: for generated filters and fields, whenever the in-memory path answers, its total
 * and every group equal the reference's; the share it answers (and of tags conditions, NOT, years)
 * is asserted so the comparison is not vacuous. A filter through `foreign` selects its records
 * in SQL and is counted the same; columns read at one data version are never used at another. The PostgreSQL side is in
 * test/postgres/facets.test.ts.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { FieldDef } from '../../src/catalog/define.js'
import { sqliteDialect } from '../../src/compile/index.js'
import type { ExecContext } from '../../src/execute/context.js'
import { facetsInMemory, forgetFacetColumns } from '../../src/execute/facet-columns.js'
import { referenceFacets } from '../../src/reference/index.js'
import { bumpDataVersion, dataVersionSync } from '../../src/store/open.js'
import { compareInMemory, expectInMemoryNonTrivial, facetCase, newInMemoryOutcomes } from '../support/facet-cases.js'
import { checked, numRuns, openPropertyContext, type PropertyContext } from '../support/property-context.js'

let ctx: PropertyContext
const exec = (): ExecContext => ({ db: ctx.vdb.db, dialect: sqliteDialect, dataVersion: dataVersionSync(ctx.vdb.sqlite), sqlite: ctx.vdb.sqlite })
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

it('answers as the reference evaluator does whenever it answers', async () => {
  const outcomes = newInMemoryOutcomes()
  await fc.assert(
    fc.asyncProperty(facetCase(ctx.arbs), async (c) => compareInMemory(exec(), ctx.snapshot, c, outcomes)),
    { numRuns: numRuns(200) },
  )
  expectInMemoryNonTrivial(outcomes)
})

it('selects the records of a filter through foreign in SQL, and counts them as the reference does', async () => {
  const query = checked({ dataset: 'companies', filter: { country: 'USA', foreign: { dataset: 'fundings', filter: { series: 'seed' } } } })
  const fields = ['stage', 'industries', 'last_funding_date'].map((f) => query.dataset.fields[f] as FieldDef)
  const got = await facetsInMemory(exec(), query.dataset, query.filter, fields)
  const expected = referenceFacets(query.filter, query.dataset, fields, Number.MAX_SAFE_INTEGER, ctx.snapshot)
  expect(expected.total).toBeGreaterThan(0)
  expect(got!.total).toBe(expected.total)
  for (const f of fields) {
    expect(Object.fromEntries(got!.groups.get(f.name)!.counts)).toEqual(Object.fromEntries(expected.facets[f.name]!.values.map((v) => [v.value, v.count])))
    expect(got!.groups.get(f.name)!.missing).toBe(expected.facets[f.name]!.missing)
  }
})

it('leaves a facet on a field it does not hold to SQL', async () => {
  const query = checked({ dataset: 'companies', filter: { country: 'USA' } })
  // A number field has no facet kind of its own: the in-memory path counts text, enum, date and tags facets only.
  expect(await facetsInMemory(exec(), query.dataset, query.filter, [query.dataset.fields.employees as FieldDef])).toBeUndefined()
})

it('never answers from columns read at another data version', async () => {
  const query = checked({ dataset: 'companies', filter: { country: 'USA' } })
  const stage = query.dataset.fields.stage as FieldDef
  const count = (filter: FilterNode) => facetsInMemory(exec(), query.dataset, filter, [stage])
  forgetFacetColumns(ctx.vdb.db)
  const before = await count(query.filter)
  expect(before).toBeDefined()
  // A context whose version is not the database's: what it would read is not kept.
  const stale = await facetsInMemory({ ...exec(), dataVersion: exec().dataVersion + 100 }, query.dataset, query.filter, [stage])
  expect(stale).toBeUndefined()
  // A new row at a new version is counted.
  ctx.vdb.sqlite.prepare(`insert into companies (id, name, country, stage) values (999999, 'Late Co', 'USA', 'seed')`).run()
  try {
    await bumpDataVersion(ctx.vdb)
    const after = await count(query.filter)
    expect(after!.total).toBe(before!.total + 1)
    expect(after!.groups.get('stage')!.counts.get('seed')).toBe((before!.groups.get('stage')!.counts.get('seed') ?? 0) + 1)
  } finally {
    ctx.vdb.sqlite.prepare('delete from companies where id = 999999').run()
    await bumpDataVersion(ctx.vdb)
  }
})
