/**
 * @module Facet properties on SQLite over the seeded fixture: the engine's facets equal the
 * reference evaluator's (src/reference/facets.ts) on generated filters, fields and limits; for a
 * single-valued field the listed counts, `other` and `missing` add up to the total; and every listed
 * value's count is the count of the filter AND that value. The PostgreSQL side is
 * test/postgres/facets.test.ts.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { FieldDef } from '../../src/catalog/define.js'
import { datasets } from '../../src/catalog/index.js'
import { compareWithReference, expectNonTrivial, facetCase, newOutcomes, valueFilter } from '../support/facet-cases.js'
import { numRuns, openPropertyContext, type PropertyContext } from '../support/property-context.js'

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

test('facets equal the reference evaluator\'s, and single-valued facets sum to the total', async () => {
  const outcomes = newOutcomes()
  let singleValued = 0
  await fc.assert(
    fc.asyncProperty(facetCase(ctx.arbs), async (c) => {
      const answer = await compareWithReference(ctx.engine, ctx.snapshot, c, outcomes)
      for (const name of c.fields) {
        const field = datasets[answer.dataset as 'companies'].fields[name as 'stage'] as FieldDef
        if (field.type.kind === 'tags') continue
        singleValued++
        const facet = answer.facets[name]!
        expect(facet.values.reduce((s, v) => s + v.count, 0) + facet.other + facet.missing, name).toBe(answer.total)
      }
    }),
    { numRuns: numRuns(120) },
  )
  expectNonTrivial(outcomes)
  expect(singleValued).toBeGreaterThan(0)
})

test('every listed value\'s count is the count of the filter AND that value', async () => {
  let checkedValues = 0
  await fc.assert(
    fc.asyncProperty(facetCase(ctx.arbs), async (c) => {
      const r = await ctx.engine.facets(c.request, c.fields, { limit: c.limit })
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      const dataset = datasets[r.value.dataset as 'companies']
      for (const name of c.fields) {
        const field = dataset.fields[name as 'stage'] as FieldDef
        // The first three values of each facet: enough to catch a miscount, fast enough to run often.
        for (const { value, count } of r.value.facets[name]!.values.slice(0, 3)) {
          const filter = c.request.filter ? { and: [c.request.filter, valueFilter(field, value)] } : valueFilter(field, value)
          const counted = await ctx.engine.count({ dataset: c.request.dataset, filter })
          if (!counted.ok) throw new Error(JSON.stringify(counted.issues))
          expect(counted.value, `${name} = ${value}`).toBe(count)
          checkedValues++
        }
      }
    }),
    { numRuns: numRuns(60) },
  )
  expect(checkedValues, 'facets must list values to check').toBeGreaterThan(60)
})

test('a facet on an unknown or unfacetable field, or an out-of-range limit, is refused naming it', async () => {
  const r = await ctx.engine.facets({ dataset: 'companies' }, ['stag', 'name', 'stage'], { limit: 101 })
  expect(r.ok).toBe(false)
  if (r.ok) return
  expect(r.issues.map((i) => [i.code, i.path])).toEqual([['unknown_field', '/facets/0'], ['not_facetable', '/facets/1'], ['limit_exceeded', '/facet_limit']])
  expect(r.issues[0]!.suggestions).toEqual(['stage'])
  expect(r.issues[1]!.message).toContain('"name"')
  const notList = await ctx.engine.facets({ dataset: 'companies' }, 'stage')
  expect(notList.ok || notList.issues[0]!.code).toBe('invalid_type')
})
