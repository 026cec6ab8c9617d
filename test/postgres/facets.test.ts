/**
 * @module Facets on PostgreSQL: the fixture copied with copyToPostgres, generated facet requests
 * (test/support/facet-cases.ts), and the engine on PostgreSQL must answer as the reference
 * evaluator does and exactly as the engine on SQLite does (counts, ranking, ties by value, other,
 * missing), with the share of non-trivial cases asserted as on SQLite; the same for the facets
 * counted in memory from the PostgreSQL tables (src/execute/facet-columns.ts).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { loadSnapshot, type Snapshot } from '../../src/reference/index.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { PostgresVentureDb, SqliteVentureDb } from '../../src/store/open.js'
import { filterArbitraries, type FilterArbitraries } from '../../src/testing/arbitraries.js'
import { postgresDialect } from '../../src/compile/index.js'
import { dataVersion } from '../../src/store/open.js'
import { compareInMemory, compareWithReference, expectInMemoryNonTrivial, expectNonTrivial, facetCase, newInMemoryOutcomes, newOutcomes } from '../support/facet-cases.js'
import { numRuns } from '../support/num-runs.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let source: SqliteVentureDb
let target: PostgresVentureDb
let lite: Engine<SqliteVentureDb>
let pgEngine: Engine<PostgresVentureDb>
let snapshot: Snapshot
let arbs: FilterArbitraries

beforeAll(async () => {
  schema = await testSchema('facets')
  source = await createFixtureDatabase()
  target = await schema.open()
  await copyToPostgres(source, target)
  snapshot = await loadSnapshot(source)
  arbs = filterArbitraries(snapshot)
  const limits = { maxCost: Number.MAX_SAFE_INTEGER }
  lite = createEngine({ database: source, limits })
  pgEngine = createEngine({ database: target, limits })
})
afterAll(async () => {
  await pgEngine?.close()
  await lite?.close()
  await source?.close()
  await schema?.drop()
})

it('facets on PostgreSQL equal the reference evaluator\'s and SQLite\'s', async () => {
  const outcomes = newOutcomes()
  await fc.assert(
    fc.asyncProperty(facetCase(arbs), async (c) => {
      const pg = await compareWithReference(pgEngine, snapshot, c, outcomes)
      const sqlite = await lite.facets(c.request, c.fields, { limit: c.limit })
      expect(sqlite.ok && sqlite.value).toEqual(pg)
    }),
    { numRuns: numRuns(80) },
  )
  expectNonTrivial(outcomes)
})

it('facets counted in memory from PostgreSQL equal the reference evaluator\'s whenever they answer', async () => {
  const outcomes = newInMemoryOutcomes()
  const exec = { db: target.db, dialect: postgresDialect, dataVersion: await dataVersion(target) }
  await fc.assert(
    fc.asyncProperty(facetCase(arbs), async (c) => compareInMemory(exec, snapshot, c, outcomes)),
    { numRuns: numRuns(120) },
  )
  expectInMemoryNonTrivial(outcomes)
})

it('a facet request on a stored query answers the same on both backends', async () => {
  const request = { dataset: 'companies', filter: { employees: { gte: 5 } } }
  const [a, b] = await Promise.all([lite.query(request), pgEngine.query(request)])
  if (!a.ok || !b.ok) throw new Error('query failed')
  expect(a.value.query_id).toBe(b.value.query_id)
  const fields = ['stage', 'industries', 'country', 'est_founding_date']
  const [fa, fb] = await Promise.all([lite.storedFacets(a.value.query_id, fields), pgEngine.storedFacets(b.value.query_id, fields)])
  expect(fa.ok && fb.ok).toBe(true)
  expect(fb).toEqual(fa)
  if (fa.ok) expect(fa.value.total).toBe(a.value.meta.total_record_count)
})
