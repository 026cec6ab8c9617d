/**
 * @module Paging a stored query by id (grammar-docs/language.md, "Paging"): walking every page, in
 * any order of requests, returns every matching row exactly once, in the reference order, with
 * consistent meta. Pages requested out of order exercise the keyset seek from the nearest known
 * page boundary.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { referenceRows } from '../../src/reference/index.js'
import { prng } from '../support/arbitraries.js'
import { checked, numRuns, openPropertyContext, resultIds, type PropertyContext } from '../support/property-context.js'

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

test('all pages of a stored query, fetched in random order, are the reference rows exactly once', async () => {
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request(), fc.integer({ min: 7, max: 50 }), fc.integer(), async (request, perPage, seed) => {
      const query = checked(request)
      const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
      const stored = await ctx.engine.store(request)
      if (!stored.ok) throw new Error(`store rejected a valid request: ${JSON.stringify(stored.issues)}`)
      const pageCount = Math.ceil(expected.length / perPage)
      const order = Array.from({ length: pageCount + 1 }, (_, i) => i + 1)
      const random = prng(seed)
      order.sort(() => random() - 0.5)
      const pages = new Map<number, number[]>()
      for (const page of order) {
        const result = await ctx.engine.page(stored.value.query_id, { page, per_page: perPage })
        if (!result.ok) throw new Error(`page ${page} failed: ${JSON.stringify(result.issues)}`)
        expect(result.value.meta).toEqual({ total_record_count: expected.length, total_pages: pageCount, current_page: page, per_page: perPage })
        pages.set(page, resultIds(result.value.results, query.dataset))
      }
      expect(pages.get(pageCount + 1), 'the page after the last is empty').toEqual([])
      const walked = Array.from({ length: pageCount }, (_, i) => pages.get(i + 1) ?? []).flat()
      expect(walked).toEqual(expected)
    }),
    { numRuns: numRuns(15) },
  )
})
