/**
 * @module The conformance harness of ventureql/testing against the engine on PostgreSQL, over a
 * copy of the fixture; the snapshot it compares with is read from the PostgreSQL copy by its URL
 * and schema (`loadSnapshot(url, {schema})`), and must equal the one read from the SQLite original.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { copyToPostgres, createEngine, type Engine, type PostgresVentureDb, type SqliteVentureDb } from '../../src/index.js'
import { checkConformance, createFixtureDatabase, loadSnapshot, type Snapshot } from '../../src/testing/index.js'
import { numRuns } from '../support/num-runs.js'
import { engineTarget } from '../testing/targets.js'
import { PG_URL, testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let source: SqliteVentureDb
let target: PostgresVentureDb
let engine: Engine
let snapshot: Snapshot

beforeAll(async () => {
  schema = await testSchema('conformance')
  source = await createFixtureDatabase()
  target = await schema.open()
  await copyToPostgres(source, target)
  snapshot = await loadSnapshot(PG_URL, { schema: schema.name })
  engine = createEngine({ database: target, limits: { maxPerPage: 100_000, maxCost: Number.MAX_SAFE_INTEGER } })
})
afterAll(async () => {
  await engine?.close()
  await source?.close()
  await schema?.drop()
})

test('the snapshot read from PostgreSQL by URL equals the one read from the SQLite original', async () => {
  const original = await loadSnapshot(source)
  for (const name of ['companies', 'investors', 'fundings'] as const) {
    expect(snapshot.datasets[name].ids, name).toEqual(original.datasets[name].ids)
    expect([...snapshot.datasets[name].rows], name).toEqual([...original.datasets[name].rows])
    expect([...snapshot.datasets[name].tags].map(([f, m]) => [f, [...m].map(([k, v]) => [k, [...v].sort()])]), name)
      .toEqual([...original.datasets[name].tags].map(([f, m]) => [f, [...m].map(([k, v]) => [k, [...v].sort()])]))
  }
  expect(new Set([...snapshot.links.entries()].map(([t, rows]) => `${t}:${rows.length}`))).toEqual(new Set([...original.links.entries()].map(([t, rows]) => `${t}:${rows.length}`)))
})

test('the engine on PostgreSQL obeys every law, on generated filters a clear share of which select some but not all records', async () => {
  const report = await checkConformance(engineTarget(engine), { snapshot, numRuns: numRuns(8) })
  console.info(`conformance on PostgreSQL: ${(report.partialShare * 100).toFixed(0)}% of generated filters selected some but not all records`)
  expect(report.partialShare).toBeGreaterThanOrEqual(0.4)
})
