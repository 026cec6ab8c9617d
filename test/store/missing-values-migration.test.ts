/**
 * Migration 012 (src/store/schema/missing-values-migration.ts) brings a database loaded before the
 * one missing-value rule under it: blank texts become NULL, a company without a stage gets
 * 'Unknown', total_funding is 0 for a company that never raised and NULL when no amount is
 * disclosed (it was the other way round), the search index's investor funding follows the same
 * rule with its NOT NULL dropped, and the data version moves on. On SQLite here; on PostgreSQL in
 * test/postgres/missing-values-migration.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyMigrationsSync } from '../../src/store/migrations.js'
import { dataVersion } from '../../src/store/open.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { SEARCH_TABLES } from '../../src/store/schema/search-tables.js'

let vdb: SqliteVentureDb
type Row = Record<string, any>
const all = (sql: string, ...p: unknown[]) => vdb.sqlite.prepare(sql).all(...p) as Row[]
const one = (sql: string, ...p: unknown[]) => vdb.sqlite.prepare(sql).get(...p) as Row

/** The state the new rule produces, read before the database is put back into the old one. */
let expected: { totals: Row[]; funding: Row[] }
let never: number
let undisclosed: number
let blankCompany: number
let version: number

beforeAll(async () => {
  vdb = await createFixtureDatabase({ companies: 120 })
  expected = {
    totals: all('select id, total_funding from companies order by id'),
    funding: all(`select investor_id, funding from "${SEARCH_TABLES.investor.ranks}" order by investor_id`),
  }
  never = one('select min(id) as id from companies c where not exists (select 1 from fundings f where f.company_id = c.id)').id
  undisclosed = one(`select min(id) as id from companies c where exists (select 1 from fundings f where f.company_id = c.id)
    and not exists (select 1 from fundings f where f.company_id = c.id and f.amount is not null)`).id
  expect(one('select total_funding from companies where id = ?', never).total_funding).toBe(0)
  expect(one('select total_funding from companies where id = ?', undisclosed).total_funding).toBeNull()

  // The database as the previous release loaded it.
  const ranks = SEARCH_TABLES.investor
  vdb.sqlite.exec(`
    update companies set total_funding = null where not exists (select 1 from fundings f where f.company_id = companies.id);
    update companies set total_funding = (select coalesce(sum(case when upper(currency) = 'USD' then amount end), 0) from fundings f where f.company_id = companies.id)
      where exists (select 1 from fundings f where f.company_id = companies.id);
    create table old_ranks as select * from "${ranks.ranks}";
    drop table "${ranks.ranks}";
    create table "${ranks.ranks}" (rank integer primary key, "${ranks.idColumn}" integer not null, name_key text, funding integer not null default 0);
    insert into "${ranks.ranks}" select rank, "${ranks.idColumn}", name_key, coalesce(funding, 0) from old_ranks;
    drop table old_ranks;
    create index "${ranks.nameKeyIndex}" on "${ranks.ranks}" (name_key, rank);
    delete from kysely_migration where name = '012-missing-values';
  `)
  blankCompany = one('select max(id) as id from companies').id
  vdb.sqlite.prepare(`update companies set stage = null, city = '', description = '   ' where id = ?`).run(blankCompany)
  vdb.sqlite.prepare(`update investors set website = '' where id = (select min(id) from investors)`).run()
  expect(one('select total_funding from companies where id = ?', never).total_funding).toBeNull()
  expect(one('select total_funding from companies where id = ?', undisclosed).total_funding).toBe(0)
  version = await dataVersion(vdb)

  expect(applyMigrationsSync(vdb.db, vdb.sqlite)).toEqual(['012-missing-values'])
})
afterAll(async () => {
  await vdb?.close()
})

describe('migration 012', () => {
  it('total_funding: 0 without rounds, null when no amount is disclosed, the disclosed U.S.-dollar sum otherwise, as a fresh load computes it', () => {
    expect(all('select id, total_funding from companies order by id')).toEqual(expected.totals)
  })

  it('the search index\'s investor funding by the same rule, its column nullable', () => {
    expect(all(`select investor_id, funding from "${SEARCH_TABLES.investor.ranks}" order by investor_id`)).toEqual(expected.funding)
    expect(one(`select "notnull" from pragma_table_info('${SEARCH_TABLES.investor.ranks}') where name = 'funding'`).notnull).toBe(0)
    expect(all(`select name from pragma_index_list('${SEARCH_TABLES.investor.ranks}')`).map((r) => r.name)).toContain(SEARCH_TABLES.investor.nameKeyIndex)
  })

  it('blank texts are NULL, a company without a stage has the stage Unknown', () => {
    expect(one('select stage, city, description from companies where id = ?', blankCompany)).toEqual({ stage: 'Unknown', city: null, description: null })
    expect(one(`select count(*) as n from investors where website = ''`).n).toBe(0)
  })

  it('the data version moves on (cached totals and ETags of the old data are dropped)', async () => {
    expect(await dataVersion(vdb)).toBe(version + 1)
  })
})
