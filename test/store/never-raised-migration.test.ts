/**
 * A load writes last_funding_amount 0 for a company without funding rounds (materialise.ts), and
 * migration 015 (src/store/schema/never-raised-migration.ts) brings a database loaded before that
 * under the same rule, moving the data version on; a company whose last round is undisclosed keeps
 * NULL. On SQLite; the PostgreSQL migration run is test/postgres/missing-values-migration.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { applyMigrationsSync } from '../../src/store/migrations.js'
import { dataVersion, type SqliteVentureDb } from '../../src/store/open.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

let vdb: SqliteVentureDb
type Row = Record<string, any>
const all = (sql: string, ...p: unknown[]) => vdb.sqlite.prepare(sql).all(...p) as Row[]
const NEVER = 'not exists (select 1 from fundings f where f.company_id = companies.id)'

beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 120 }) })
afterAll(async () => { await vdb?.close() })

it('a load stores 0 for companies without rounds, and NULL only for undisclosed last rounds', () => {
  const never = all(`select last_funding_amount as a from companies where ${NEVER}`)
  expect(never.length).toBeGreaterThan(5)
  expect(never.every((r) => r.a === 0)).toBe(true)
  const lastAmounts = all(`select c.last_funding_amount as a, (select f.amount from fundings f where f.company_id = c.id
    order by f.rounds_funding_date desc nulls last, f.id desc limit 1) as last from companies c where not ${NEVER.replace(/companies\.id/g, 'c.id')}`)
  expect(lastAmounts.length).toBeGreaterThan(5)
  for (const r of lastAmounts) expect(r.a).toBe(r.last)
})

it('migration 015 sets them on a database loaded before, and moves the data version on', async () => {
  const before = all(`select id from companies where ${NEVER} order by id`)
  vdb.sqlite.exec(`update companies set last_funding_amount = null where ${NEVER}; delete from kysely_migration where name = '015-never-raised-amounts'`)
  const undisclosed = all('select id from companies where last_funding_amount is null and not ' + NEVER).map((r) => r.id)
  const version = await dataVersion(vdb)
  expect(applyMigrationsSync(vdb.db, vdb.sqlite)).toEqual(['015-never-raised-amounts'])
  expect(all(`select id from companies where ${NEVER} and last_funding_amount = 0 order by id`)).toEqual(before)
  expect(all('select id from companies where last_funding_amount is null and not ' + NEVER).map((r) => r.id)).toEqual(undisclosed)
  expect(await dataVersion(vdb)).toBe(version + 1)
  // Run again on a database already under the rule: nothing changes, the version stays.
  vdb.sqlite.exec("delete from kysely_migration where name = '015-never-raised-amounts'")
  applyMigrationsSync(vdb.db, vdb.sqlite)
  expect(await dataVersion(vdb)).toBe(version + 1)
})
