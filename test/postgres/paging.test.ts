/**
 * Paging by stored id on PostgreSQL at a bounded cost (grammar-docs/language.md, "Paging"): the
 * checkpoint pass (`row_number()` over the sort order) and seeks from remembered positions, after
 * nullable first sort keys and across their NULL tail, return exactly the reference slices, as on
 * SQLite (test/properties/paging.test.ts); the engines use a small paging policy so the fixture's
 * few hundred rows need checkpoints.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatasetName, FieldDef } from '../../src/catalog/define.js'
import { datasets } from '../../src/catalog/index.js'
import { checkQuery } from '../../src/check/index.js'
import { resolveLimits } from '../../src/check/limits.js'
import { createEngine } from '../../src/engine.js'
import { parseQuery } from '../../src/parse/index.js'
import { loadSnapshot, referenceRows, type Snapshot } from '../../src/reference/index.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { PostgresVentureDb } from '../../src/store/open.js'
import { filterArbitraries, type FilterArbitraries } from '../../src/testing/arbitraries.js'
import { numRuns } from '../support/num-runs.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let target: PostgresVentureDb
let snapshot: Snapshot
let arbs: FilterArbitraries

beforeAll(async () => {
  schema = await testSchema('paging')
  const source = await createFixtureDatabase()
  try {
    target = await schema.open()
    await copyToPostgres(source, target)
    snapshot = await loadSnapshot(source)
    arbs = filterArbitraries(snapshot)
  } finally {
    await source.close()
  }
})
afterAll(async () => {
  await schema?.drop()
})

const limits = resolveLimits({ maxPerPage: 100_000 })

function referenceIds(request: unknown): number[] {
  const parsed = parseQuery(request, limits)
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
  const checked = checkQuery(parsed.value, limits)
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues))
  return referenceRows(checked.value.filter, checked.value.dataset, checked.value.sort, snapshot)
}

const ids = (r: { ok: boolean; value?: { results: readonly Record<string, unknown>[] }; issues?: unknown }, key: string) => {
  if (!r.ok || !r.value) throw new Error(JSON.stringify(r.issues))
  return r.value.results.map((x) => Number(x[key]))
}

const NULLABLE_SORTS: Record<DatasetName, string[]> = Object.fromEntries((Object.keys(datasets) as DatasetName[]).map((ds) => [
  ds, (Object.values(datasets[ds].fields) as FieldDef[]).filter((f) => f.sortable && f.nullable && !f.tags && f.column).map((f) => f.name),
])) as Record<DatasetName, string[]>

describe('paging by id on PostgreSQL', () => {
  it('a far jump runs the checkpoint pass; every page in any order is the reference slice', async () => {
    await target.db.deleteFrom('query_checkpoints').execute()
    const engine = createEngine({ database: target, paging: { checkpointEvery: 5, maxSkip: 10 } })
    const request = { dataset: 'companies', filter: { employees: { gte: 1 } }, sort: [{ total_funding: 'desc' }] }
    const expected = referenceIds(request)
    expect(expected.length).toBeGreaterThan(150)
    const stored = await engine.store(request)
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const perPage = 4
    const last = Math.ceil(expected.length / perPage)
    const order = [last - 2, 3, last, Math.floor(last / 2), 1, last + 1, 17, last - 1]
    for (const page of order) {
      expect(ids(await engine.page(stored.value.query_id, { page, per_page: perPage }), 'id'), `page ${page}`).toEqual(expected.slice((page - 1) * perPage, page * perPage))
    }
    const positions = (await target.db.selectFrom('query_checkpoints').select('position').where('query_id', '=', stored.value.query_id).execute()).map((r) => Number(r.position))
    const fromPass = positions.filter((n) => n % 5 === 0)
    expect(fromPass.length).toBeGreaterThanOrEqual(Math.floor(expected.length / 5))
    await engine.close()
  })

  it('jumps after a nullable first sort key, at several page sizes, return exactly the reference slices', async () => {
    const arb = fc.constantFrom(...(Object.keys(datasets) as DatasetName[])).chain((ds) => fc.record({
      dataset: fc.constant(ds),
      filter: arbs.filter(ds),
      first: fc.constantFrom(...NULLABLE_SORTS[ds]!),
      direction: fc.constantFrom('asc' as const, 'desc' as const),
      perPages: fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 3 }),
      jumps: fc.array(fc.tuple(fc.nat(), fc.float({ min: 0, max: Math.fround(1.1), noNaN: true })), { minLength: 4, maxLength: 12 }),
      policy: fc.record({ checkpointEvery: fc.integer({ min: 1, max: 10 }), maxCheckpoints: fc.integer({ min: 1, max: 30 }), maxSkip: fc.integer({ min: 0, max: 20 }) }),
    }))
    await fc.assert(
      fc.asyncProperty(arb, async ({ dataset, filter, first, direction, perPages, jumps, policy }) => {
        await target.db.deleteFrom('query_checkpoints').execute()
        const engine = createEngine({ database: target, limits: { maxPerPage: 100_000 }, paging: policy })
        const request = { dataset, filter, sort: [{ [first]: direction }] }
        const expected = referenceIds(request)
        const stored = await engine.store(request)
        if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
        const key = datasets[dataset].primaryKey
        for (const [which, depth] of jumps) {
          const perPage = perPages[which % perPages.length]!
          const page = 1 + Math.floor(depth * Math.ceil(expected.length / perPage))
          expect(ids(await engine.page(stored.value.query_id, { page, per_page: perPage }), key), `page ${page} at ${perPage}`).toEqual(expected.slice((page - 1) * perPage, page * perPage))
        }
        await engine.close()
      }),
      { numRuns: numRuns(10) },
    )
  })
})
