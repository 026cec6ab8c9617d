/**
 * Migration 012 on PostgreSQL (the SQLite side: test/store/missing-values-migration.test.ts): a
 * database loaded by the previous release, with total_funding NULL and 0 the other way round, a
 * NOT NULL investor funding in the search index, blank texts and a company without a stage, comes
 * out as a fresh load of this release would have it, with its data version moved on.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyToPostgres } from '../../src/store/copy.js'
import { createMigrator } from '../../src/store/migrations.js'
import { dataVersion, type PostgresVentureDb } from '../../src/store/open.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { SEARCH_TABLES } from '../../src/store/schema/search-tables.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let pgdb: PostgresVentureDb
type Row = Record<string, any>
const rows = async (text: string) => (await sql.raw<Row>(text).execute(pgdb.db)).rows
const ranks = SEARCH_TABLES.investor

let expected: { totals: Row[]; funding: Row[] }
let blankCompany: number
let version: number

beforeAll(async () => {
  schema = await testSchema('missing_values')
  pgdb = await schema.open()
  const fixture = await createFixtureDatabase({ companies: 120 })
  try {
    await copyToPostgres(fixture, pgdb)
  } finally {
    await fixture.close()
  }
  expected = {
    totals: await rows('select id, total_funding from companies order by id'),
    funding: await rows(`select investor_id, funding from "${ranks.ranks}" order by investor_id`),
  }
  expect(expected.totals.some((r) => r.total_funding === null)).toBe(true)
  expect(expected.totals.some((r) => Number(r.total_funding) === 0)).toBe(true)
  expect(expected.funding.length).toBeGreaterThan(0)

  blankCompany = Number((await rows('select max(id) as id from companies'))[0]!.id)
  for (const statement of [
    'update companies set total_funding = null where not exists (select 1 from fundings f where f.company_id = companies.id)',
    `update companies set total_funding = (select coalesce(sum(case when upper(currency) = 'USD' then amount end), 0) from fundings f where f.company_id = companies.id)
      where exists (select 1 from fundings f where f.company_id = companies.id)`,
    `update "${ranks.ranks}" set funding = coalesce(funding, 0)`,
    `alter table "${ranks.ranks}" alter column funding set not null`,
    `alter table "${ranks.ranks}" alter column funding set default 0`,
    `update companies set stage = null, city = '', description = '   ' where id = ${blankCompany}`,
    `update investors set website = '' where id = (select min(id) from investors)`,
    // And every later one (they would be out of order otherwise; 013 does nothing on PostgreSQL).
    `delete from kysely_migration where name >= '012-missing-values'`,
  ]) await sql.raw(statement).execute(pgdb.db)
  version = await dataVersion(pgdb)

  const migrated = await createMigrator(pgdb.db, 'postgres', schema.name).migrateToLatest()
  expect(migrated.error).toBeUndefined()
  expect(migrated.results?.map((r) => r.migrationName)).toEqual(['012-missing-values', '013-search-hit-fields', '014-similar-companies', '015-never-raised-amounts', '016-tag-fold-indexes', '017-search-typo-dictionary', '018-search-typo-names', '019-similar-index-update'])
}, 120_000)
afterAll(async () => {
  await schema?.drop()
})

describe('migration 012 on PostgreSQL', () => {
  it('total_funding and the search index\'s investor funding as a fresh load computes them; the column nullable', async () => {
    expect(await rows('select id, total_funding from companies order by id')).toEqual(expected.totals)
    expect(await rows(`select investor_id, funding from "${ranks.ranks}" order by investor_id`)).toEqual(expected.funding)
    const [column] = await rows(`select is_nullable from information_schema.columns where table_schema = '${schema.name}' and table_name = '${ranks.ranks}' and column_name = 'funding'`)
    expect(column).toEqual({ is_nullable: 'YES' })
  })

  it('blank texts are NULL, a company without a stage has the stage Unknown, the data version moved on', async () => {
    expect(await rows(`select stage, city, description from companies where id = ${blankCompany}`)).toEqual([{ stage: 'Unknown', city: null, description: null }])
    expect(await rows(`select id from investors where website = ''`)).toEqual([])
    expect(await dataVersion(pgdb)).toBe(version + 1)
  })
})
