/**
 * @module Negation is an exact complement (grammar-docs/language.md, "Negation"): for every
 * generated P, count(P) + count({not: P}) = count(all), and the two row sets are disjoint. SQL's
 * three-valued logic breaks this whenever P touches a NULL field, so this is where a missing
 * null guard shows up.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { datasets, resolveDataset } from '../../src/catalog/index.js'
import { ALL_ROWS, numRuns, openPropertyContext, resultIds, type PropertyContext } from '../support/property-context.js'

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

async function total(request: object): Promise<number> {
  const result = await ctx.engine.count(request)
  if (!result.ok) throw new Error(`count rejected a valid request: ${JSON.stringify(result.issues)}`)
  return result.value
}

test('count(P) + count(not P) = count(all)', async () => {
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request(), async ({ dataset, filter }) => {
      const all = await total({ dataset })
      const yes = await total({ dataset, filter })
      const no = await total({ dataset, filter: { not: filter } })
      expect(yes + no).toBe(all)
    }),
    { numRuns: numRuns(120) },
  )
})

test('P and not P select disjoint rows whose union is every row', async () => {
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request(), async ({ dataset, filter }) => {
      const def = resolveDataset(dataset) ?? datasets.companies
      const rows = async (f: object): Promise<number[]> => {
        const result = await ctx.engine.query({ dataset, filter: f, per_page: ALL_ROWS })
        if (!result.ok) throw new Error(`engine rejected a valid request: ${JSON.stringify(result.issues)}`)
        return resultIds(result.value.results, def)
      }
      const yes = await rows(filter)
      const no = await rows({ not: filter })
      const union = [...yes, ...no].sort((a, b) => a - b)
      expect(union).toEqual([...ctx.snapshot.datasets[def.name].ids])
    }),
    { numRuns: numRuns(30) },
  )
})
