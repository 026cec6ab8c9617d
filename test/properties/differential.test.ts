/**
 * @module Differential: on generated filters and sorts, the rows the engine returns (ids, in
 * order) equal the reference evaluator's (src/reference/), which implements the language in plain
 * JS without SQL. The run also measures how many generated filters select some but not all rows:
 * a generator whose filters match nothing (or everything) would make this test pass vacuously, so
 * that share is asserted.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { DATASET_NAMES, type DatasetName } from '../../src/catalog/index.js'
import { referenceRows } from '../../src/reference/index.js'
import { ALL_ROWS, checked, numRuns, openPropertyContext, resultIds, type PropertyContext } from '../support/property-context.js'
import { forEveryFieldOperator } from '../../src/testing/arbitraries.js'

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

test('the fixture is big enough for the comparison to mean something', () => {
  for (const name of DATASET_NAMES) expect(ctx.snapshot.datasets[name].ids.length, name).toBeGreaterThanOrEqual(10)
})

test('engine rows equal the reference evaluator\'s rows, in order', async () => {
  const outcomes: Array<{ dataset: DatasetName; matched: number; total: number }> = []
  await fc.assert(
    fc.asyncProperty(ctx.arbs.request(), async (request) => {
      const query = checked(request)
      const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
      const result = await ctx.engine.query({ ...request, per_page: ALL_ROWS })
      if (!result.ok) throw new Error(`engine rejected a valid request: ${JSON.stringify(result.issues)}`)
      const total = ctx.snapshot.datasets[query.dataset.name].ids.length
      outcomes.push({ dataset: query.dataset.name, matched: expected.length, total })
      expect(resultIds(result.value.results, query.dataset)).toEqual(expected)
      expect(result.value.meta.total_record_count).toBe(expected.length)
    }),
    { numRuns: numRuns(150) },
  )
  const partial = outcomes.filter((o) => o.matched > 0 && o.matched < o.total).length
  const none = outcomes.filter((o) => o.matched === 0).length
  const share = partial / outcomes.length
  console.info(`differential: ${outcomes.length} filters; ${partial} matched some but not all rows (${(share * 100).toFixed(0)}%), ${none} matched none`)
  expect(share, 'generated filters must mostly select some but not all rows').toBeGreaterThanOrEqual(0.25)
  for (const name of DATASET_NAMES) expect(outcomes.some((o) => o.dataset === name), `no filter over ${name} was generated`).toBe(true)
})

test('nested foreign chains (depth 2-4, any/none/all) and merged siblings: engine rows equal the reference rows', async () => {
  // The general generator above nests foreign only by chance; these are the shapes the compiler
  // plans as sets (a foreign inside a foreign) and merges (siblings on one dataset), in every
  // mode, on every dataset, and their complement, which must hold exactly as well.
  const outcomes: Array<{ kind: string; matched: number; total: number }> = []
  const depths = new Set<number>()
  const request = fc.oneof(
    fc.constantFrom(...DATASET_NAMES).chain((ds) => fc.integer({ min: 2, max: 4 }).chain((depth) =>
      ctx.arbs.foreignChain(ds, depth).map((filter) => ({ kind: `chain ${depth}`, depth, request: { dataset: ds, filter } })))),
    fc.constantFrom(...DATASET_NAMES).chain((ds) => ctx.arbs.foreignSiblings(ds).map((filter) => ({ kind: 'siblings', depth: 0, request: { dataset: ds, filter } }))),
  )
  await fc.assert(
    fc.asyncProperty(request, async ({ kind, depth, request }) => {
      const total = ctx.snapshot.datasets[request.dataset].ids.length
      for (const filter of [request.filter, { not: request.filter }]) {
        const query = checked({ ...request, filter })
        const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
        const result = await ctx.engine.query({ ...request, filter, per_page: ALL_ROWS })
        if (!result.ok) throw new Error(`engine rejected a valid request: ${JSON.stringify(result.issues)}`)
        expect(resultIds(result.value.results, query.dataset)).toEqual(expected)
        if (filter === request.filter) {
          outcomes.push({ kind, matched: expected.length, total })
          if (depth > 0) depths.add(depth)
        }
      }
    }),
    { numRuns: numRuns(120) },
  )
  const partial = (of: typeof outcomes) => of.filter((o) => o.matched > 0 && o.matched < o.total).length
  const chains = outcomes.filter((o) => o.kind.startsWith('chain'))
  const siblings = outcomes.filter((o) => o.kind === 'siblings')
  console.info(`foreign shapes: ${chains.length} chains (${partial(chains)} partial), ${siblings.length} sibling groups (${partial(siblings)} partial)`)
  expect([...depths].sort()).toEqual([2, 3, 4])
  expect(partial(chains) / chains.length, 'chains must mostly select some but not all rows').toBeGreaterThanOrEqual(0.25)
  expect(partial(siblings) / siblings.length, 'sibling groups must mostly select some but not all rows').toBeGreaterThanOrEqual(0.25)
})

test('every operator on every field, alone: the compiled SQL selects the reference rows', async () => {
  // The nested generator reaches a given (field, operator) pair only by chance; this walks all of
  // them. It runs the SQL that explain shows (the first page's keys query, whose last column is the
  // primary key) and the count query, so the walk stays fast; the property above covers the
  // engine's own paging and record mapping.
  const pairs = await forEveryFieldOperator(ctx.arbs, numRuns(1, 'FC_PAIR_RUNS'), async (dataset, filter) => {
    const request = { dataset, filter, per_page: ALL_ROWS }
    const query = checked(request)
    const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
    const explained = await ctx.engine.explain(request)
    if (!explained.ok) throw new Error(`explain rejected a valid request: ${JSON.stringify(explained.issues)}`)
    const { sql, parameters, count_sql, count_parameters } = explained.value
    const keys = ctx.vdb.sqlite.prepare(sql).raw().all(...(parameters as unknown[])) as unknown[][]
    expect(keys.map((row) => Number(row[row.length - 1])), `${sql}\n${JSON.stringify(parameters)}`).toEqual(expected)
    const count = ctx.vdb.sqlite.prepare(count_sql).raw().get(...(count_parameters as unknown[])) as unknown[]
    expect(Number(count[0])).toBe(expected.length)
  })
  expect(pairs).toBeGreaterThan(300)
})

test('tag values in any case: engine rows equal the reference rows, and the recased values select what their stored spelling does', async () => {
  const { datasets, operatorsFor } = await import('../../src/catalog/index.js')
  const { distinctValues } = await import('../../src/reference/index.js')
  const tagFields = DATASET_NAMES.flatMap((ds) => Object.values(datasets[ds].fields)
    .filter((f) => f.type.kind === 'tags').map((f) => ({ ds, field: f.name, stored: new Set(distinctValues(ctx.snapshot, ds, f.name).map(String)) })))
  expect(tagFields.length).toBeGreaterThan(3)
  let recased = 0
  let recasedMatching = 0
  let conditions = 0
  const condition = fc.constantFrom(...tagFields).chain((t) =>
    fc.constantFrom(...operatorsFor('tags').filter((op) => op !== 'is_empty')).chain((op) => ctx.arbs.condition(t.ds, t.field, op).map((filter) => ({ t, filter }))))
  await fc.assert(
    fc.asyncProperty(condition, async ({ t, filter }) => {
      const query = checked({ dataset: t.ds, filter })
      const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
      const result = await ctx.engine.query({ dataset: t.ds, filter, per_page: ALL_ROWS })
      if (!result.ok) throw new Error(`engine rejected a valid request: ${JSON.stringify(result.issues)}`)
      expect(resultIds(result.value.results, query.dataset)).toEqual(expected)
      conditions++
      const sent = JSON.stringify(filter).match(/"[^"]*"/g)!.map((s) => JSON.parse(s) as string)
      const values = sent.filter((v) => v !== t.field && !operatorsFor('tags').includes(v as never))
      if (values.some((v) => !t.stored.has(v) && [...t.stored].some((s) => s.toLowerCase() === v.toLowerCase()))) {
        recased++
        if (expected.length > 0) recasedMatching++
      }
    }),
    { numRuns: numRuns(150) },
  )
  console.info(`tag case: ${conditions} conditions, ${recased} with a value spelt in another case than stored, ${recasedMatching} of them matching rows`)
  expect(recased / conditions, 'the generator must send tag values in other cases than stored').toBeGreaterThan(0.3)
  expect(recasedMatching / recased, 'and those must mostly match rows').toBeGreaterThan(0.5)
})
