/**
 * @module Content-addressed query ids (grammar-docs/language.md, "Query ids"): filters that
 * differ only in key order, `and`/`or` order or grouping, list order or repeated elements get the
 * same `query_id`, which is 22 URL-safe characters; the sort is part of the query.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { permuteFilter, prng } from '../../src/testing/arbitraries.js'
import { numRuns, openPropertyContext, type PropertyContext } from '../support/property-context.js'

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

async function idOf(request: object): Promise<string> {
  const result = await ctx.engine.explain(request)
  if (!result.ok) throw new Error(`explain rejected ${JSON.stringify(request)}: ${JSON.stringify(result.issues)}`)
  return result.value.query_id
}

/** Equivalent regroupings at the top: a one-child `and`/`or`, or a double `not`. */
function regroup(filter: unknown, random: () => number): unknown {
  const r = random()
  if (r < 0.15) return { and: [filter] }
  if (r < 0.3) return { or: [filter] }
  if (r < 0.45) return { not: { not: filter } }
  return filter
}

test('permutation-equivalent filters get the same query_id', async () => {
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request(), fc.integer(), async (request, seed) => {
      const random = prng(seed)
      const variant = { ...request, filter: regroup(permuteFilter(request.filter, random), random) }
      const [a, b] = await Promise.all([idOf(request), idOf(variant)])
      expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(b, `${JSON.stringify(request.filter)}\nvs\n${JSON.stringify(variant.filter)}`).toBe(a)
    }),
    { numRuns: numRuns(150) },
  )
})

test('the id a query is stored under is the id explain computes, and storing is idempotent', async () => {
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request(), async (request) => {
      const explained = await idOf(request)
      const first = await ctx.engine.store(request)
      const again = await ctx.engine.store(request)
      if (!first.ok || !again.ok) throw new Error('store rejected a valid request')
      expect(first.value.query_id).toBe(explained)
      expect(again.value).toEqual(first.value)
    }),
    { numRuns: numRuns(40) },
  )
})

test('the sort is part of the query: reversing two clauses changes the id', async () => {
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request().filter((r) => (r.sort?.length ?? 0) >= 2), async (request) => {
      const reversed = { ...request, sort: [...(request.sort ?? [])].reverse() }
      expect(await idOf(reversed)).not.toBe(await idOf(request))
    }),
    { numRuns: numRuns(30) },
  )
})
