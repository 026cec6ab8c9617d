/**
 * The statements a page compiles once and reuses (test/execute/compiled-once.test.ts), on
 * PostgreSQL: the first-page keys statement with its limit changed is the statement compiled
 * afresh and reads the same keys as the SQLite copy, and the cached-total lookup answers the query
 * id and data version asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { and, condition as c, foreign, not, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { DatasetName } from '../../src/catalog/index.js'
import { planQuery, postgresDialect, sqliteDialect } from '../../src/compile/index.js'
import { knownTotal, versionAndKnownTotal } from '../../src/execute/counts.js'
import { fetchKeys, type ExecContext } from '../../src/execute/index.js'
import { keysFromStart } from '../../src/execute/run.js'
import { dataVersion, type PostgresVentureDb, type SqliteVentureDb } from '../../src/store/open.js'
import { checked } from '../compile/helpers.js'
import { copiedFixture, type TestSchema } from './support.js'

let schema: TestSchema
let target: PostgresVentureDb
let source: SqliteVentureDb
let pgCtx: ExecContext
let sqliteCtx: ExecContext
beforeAll(async () => {
  ;({ schema, source, target } = await copiedFixture('compiled_once', 300))
  pgCtx = { db: target.db, dialect: postgresDialect, dataVersion: await dataVersion(target) }
  sqliteCtx = { db: source.db, dialect: sqliteDialect, dataVersion: await dataVersion(source), sqlite: source.sqlite }
})
afterAll(async () => {
  await source?.close()
  await schema?.drop()
})
const p = '/filter'

const shapes: readonly { name: string; dataset: DatasetName; filter?: FilterNode; sort?: [string, 'asc' | 'desc'][] }[] = [
  { name: 'companies, match-all, by svc_score', dataset: 'companies', sort: [['svc_score', 'desc']] },
  { name: 'companies, country and employees', dataset: 'companies', filter: and([c('country', 'eq', 'USA', p), c('employees', 'gte', 5, p)], p) },
  { name: 'companies, not or', dataset: 'companies', filter: not(or([c('country', 'eq', 'USA', p), c('employees', 'lt', 10, p)], p), p) },
  { name: 'investors with Fintech companies', dataset: 'investors', filter: foreign('companies', c('industries', 'has_any', ['Fintech'], p), 'any', p) },
  { name: 'fundings in 2020, by date', dataset: 'fundings', filter: c('rounds_funding_date', 'between', ['2020-01-01', '2020-12-31'], p), sort: [['rounds_funding_date', 'desc']] },
]

describe('the keys statement of a read from the start, on PostgreSQL', () => {
  it.each(shapes)('$name: the statement compiled afresh, and the keys of the SQLite copy', async ({ dataset, filter, sort }) => {
    const query = checked(dataset, filter, sort)
    const plan = planQuery(query, postgresDialect)
    for (const limit of [1, 7, 50]) {
      const fresh = plan.keysQuery(target.db, { limit }).compile()
      const reused = keysFromStart(target.db, plan, false, limit)
      expect(reused.sql).toBe(fresh.sql)
      expect(reused.parameters).toEqual(fresh.parameters)
      const onPostgres = await fetchKeys(pgCtx, plan, { limit })
      const onSqlite = await fetchKeys(sqliteCtx, planQuery(query, sqliteDialect), { limit })
      expect(onSqlite.length).toBeGreaterThan(Math.min(limit, 10) - 1)
      expect(onPostgres.map((k) => k.id)).toEqual(onSqlite.map((k) => k.id))
    }
  })
})

describe('the cached-total lookup, on PostgreSQL', () => {
  it('answers the total of the query id and data version asked for, never another', async () => {
    await target.db.insertInto('query_totals').values([
      { query_id: 'query-a', data_version: 41, total: 5 },
      { query_id: 'query-a', data_version: 42, total: 9 },
      { query_id: 'query-b', data_version: 42, total: 13 },
    ]).execute()
    const at = (version: number) => ({ ...pgCtx, dataVersion: version })
    expect(await knownTotal(at(41), 'query-a')).toBe(5)
    expect(await knownTotal(at(42), 'query-a')).toBe(9)
    expect(await knownTotal(at(42), 'query-b')).toBe(13)
    expect(await knownTotal(at(43), 'query-a')).toBeUndefined()
    expect(await knownTotal(at(41), 'query-b')).toBeUndefined()
  })

  it('reads the data version with it in one statement, as dataVersion and knownTotal do', async () => {
    const version = await dataVersion(target)
    await target.db.insertInto('query_totals').values({ query_id: 'query-c', data_version: version, total: 21 }).execute()
    expect(await versionAndKnownTotal(pgCtx, 'query-c')).toEqual({ dataVersion: version, total: 21 })
    expect(await versionAndKnownTotal(pgCtx, 'query-d')).toEqual({ dataVersion: version, total: undefined })
    await target.db.updateTable('meta').set({ value: String(version + 1) }).where('key', '=', 'data_version').execute()
    expect(await versionAndKnownTotal(pgCtx, 'query-c')).toEqual({ dataVersion: version + 1, total: undefined })
    await target.db.updateTable('meta').set({ value: String(version) }).where('key', '=', 'data_version').execute()
  })
})
