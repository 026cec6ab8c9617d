/**
 * @module Paging a stored query by id (grammar-docs/language.md, "Paging"): walking every page, in
 * any order of requests, returns every matching row exactly once, in the reference order, with
 * consistent meta; jumping to any page, in any order and with several page sizes sharing what is
 * remembered, returns exactly that slice of the reference order, including after a nullable first
 * sort key, across its NULL tail.
 *
 * Pages requested out of order exercise every way to reach a page: a seek from a remembered page
 * end, a seek from a checkpoint plus a skip (that may run out of the non-NULL rows into the NULL
 * tail), and the checkpoint pass. The fixture has a few hundred rows, so the engines here use a
 * small paging policy drawn per run (a checkpoint every 1-12 rows, skips of 0-30 rows, at most
 * 1-40 checkpoints, so the spacing also grows): with the defaults every page would be a short skip.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { DatasetName, FieldDef } from '../../src/catalog/define.js'
import { datasets } from '../../src/catalog/index.js'
import { createEngine } from '../../src/engine.js'
import { referenceRows } from '../../src/reference/index.js'
import { prng } from '../../src/testing/arbitraries.js'
import { ALL_ROWS, checked, numRuns, openPropertyContext, resultIds, type PropertyContext } from '../support/property-context.js'

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

const policyArb = fc.record({
  checkpointEvery: fc.integer({ min: 1, max: 12 }),
  maxCheckpoints: fc.integer({ min: 1, max: 40 }),
  maxSkip: fc.integer({ min: 0, max: 30 }),
})

function engineWith(policy: { checkpointEvery: number; maxCheckpoints: number; maxSkip: number }) {
  // Each run starts with nothing remembered, so its policy decides how pages are reached.
  ctx.vdb.sqlite.exec('delete from query_checkpoints')
  return createEngine({ database: ctx.vdb, limits: { maxPerPage: ALL_ROWS }, paging: policy })
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = prng(seed)
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

test('all pages of a stored query, fetched in random order at two page sizes at once, are the reference rows exactly once', async () => {
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request(), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 7, max: 50 }), policyArb, fc.integer(), async (request, small, large, policy, seed) => {
      const query = checked(request)
      const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
      const engine = engineWith(policy)
      const stored = await engine.store(request)
      if (!stored.ok) throw new Error(`store rejected a valid request: ${JSON.stringify(stored.issues)}`)
      const requests = [small, large].flatMap((perPage) => Array.from({ length: Math.ceil(expected.length / perPage) + 1 }, (_, i) => ({ perPage, page: i + 1 })))
      const pages = new Map<string, number[]>()
      for (const { perPage, page } of shuffled(requests, seed)) {
        const result = await engine.page(stored.value.query_id, { page, per_page: perPage })
        if (!result.ok) throw new Error(`page ${page} failed: ${JSON.stringify(result.issues)}`)
        const pageCount = Math.ceil(expected.length / perPage)
        expect(result.value.meta).toEqual({ total_record_count: expected.length, total_pages: pageCount, current_page: page, per_page: perPage })
        pages.set(`${perPage}:${page}`, resultIds(result.value.results, query.dataset))
      }
      for (const perPage of [small, large]) {
        const pageCount = Math.ceil(expected.length / perPage)
        expect(pages.get(`${perPage}:${pageCount + 1}`), 'the page after the last is empty').toEqual([])
        const walked = Array.from({ length: pageCount }, (_, i) => pages.get(`${perPage}:${i + 1}`) ?? []).flat()
        expect(walked, `per_page ${perPage}`).toEqual(expected)
      }
    }),
    { numRuns: numRuns(15) },
  )
})

/**
 * Sortable, nullable scalar fields per dataset that hold both NULL and other values in the fixture:
 * first sort keys whose seek has a NULL tail to run into.
 */
function nullableSorts(ds: DatasetName): string[] {
  const rows = [...ctx.snapshot.datasets[ds].rows.values()]
  return (Object.values(datasets[ds].fields) as FieldDef[])
    .filter((f) => f.sortable && f.nullable && !f.tags && f.column)
    .filter((f) => rows.some((r) => r[f.name] === null) && rows.some((r) => r[f.name] !== null))
    .map((f) => f.name)
}

test('jumps to random pages after a nullable first sort key, at several page sizes, return exactly the reference slices', async () => {
  let withBothSides = 0
  let runs = 0
  const arb = fc.constantFrom(...(Object.keys(datasets) as DatasetName[])).chain((ds) => fc.record({
    request: fc.record({
      dataset: fc.constant(ds),
      // Half the runs page through every record, so that most results straddle the NULL tail.
      filter: fc.oneof(fc.constant({}), ctx.arbs.filter(ds)),
      first: fc.constantFrom(...nullableSorts(ds)),
      direction: fc.constantFrom('asc' as const, 'desc' as const),
      more: ctx.arbs.sort(ds),
    }),
    perPages: fc.uniqueArray(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 3 }),
    jumps: fc.array(fc.tuple(fc.nat(), fc.float({ min: 0, max: Math.fround(1.1), noNaN: true })), { minLength: 5, maxLength: 25 }),
    policy: policyArb,
  }))
  await fc.assert(
    fc.asyncProperty(arb, async ({ request: r, perPages, jumps, policy }) => {
      const sort = [{ [r.first]: r.direction }, ...r.more.filter((clause) => !(r.first in clause))]
      const request = { dataset: r.dataset, filter: r.filter, sort }
      const query = checked(request)
      const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
      runs++
      const firstValues = new Set(expected.map((id) => ctx.snapshot.datasets[query.dataset.name].rows.get(id)?.[r.first] === null))
      if (firstValues.size === 2) withBothSides++
      const engine = engineWith(policy)
      const stored = await engine.store(request)
      if (!stored.ok) throw new Error(`store rejected a valid request: ${JSON.stringify(stored.issues)}`)
      for (const [which, depth] of jumps) {
        const perPage = perPages[which % perPages.length]!
        // Anywhere in the result, sometimes just past its end.
        const page = 1 + Math.floor(depth * Math.ceil(expected.length / perPage))
        const result = await engine.page(stored.value.query_id, { page, per_page: perPage })
        if (!result.ok) throw new Error(`page ${page} failed: ${JSON.stringify(result.issues)}`)
        expect(resultIds(result.value.results, query.dataset), `page ${page} at ${perPage} a page`).toEqual(expected.slice((page - 1) * perPage, page * perPage))
      }
    }),
    { numRuns: numRuns(25) },
  )
  // The property is only worth something if hits straddle the NULL tail often enough.
  expect(withBothSides / runs).toBeGreaterThan(0.3)
})
