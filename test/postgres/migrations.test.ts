/**
 * The migrations on PostgreSQL (through Kysely's Migrator): every table and column the SQLite
 * schema has except the FTS5 search index, applied once (reopening applies nothing), the data
 * version read and bumped through Kysely, and the HTTP app refusing a PostgreSQL engine.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { tablesToCopy } from '../../src/store/copy.js'
import { createMigrator, MIGRATIONS } from '../../src/store/migrations.js'
import { PG_SEARCH_STATE_TABLE, PG_SEARCH_TABLES } from '../../src/store/search-index-postgres.js'
import { bumpDataVersion, dataVersion, openDatabase } from '../../src/store/open.js'
import { openPostgres } from '../../src/store/open-postgres.js'
import { SEARCH_TABLES } from '../../src/store/schema/search-tables.js'
import { postgresSortIndexes, postgresSortIndexStatements } from '../../src/store/schema/postgres-sort-indexes.js'
import { CACHE_ORDER_COLUMN, cacheOrderStatements, VERSIONED_CACHE_TABLES } from '../../src/store/schema/stored-query-tables.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
beforeAll(async () => {
  schema = await testSchema('migrations')
})
afterAll(async () => {
  await schema?.drop()
})

async function columns(db: Awaited<ReturnType<TestSchema['open']>>, table: string): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns where table_schema = ${schema.name} and table_name = ${table} order by ordinal_position`.execute(db.db)
  return rows.map((r) => r.column_name)
}

describe('migrations on PostgreSQL', () => {
  it('create every table of the SQLite schema, with the same columns, except the search index (each backend has its own)', async () => {
    const pgdb = await schema.open()
    const sqlite = openDatabase(':memory:')
    try {
      const sqliteTables = sqlite.sqlite.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and sql not like 'create virtual table%' order by name`).pluck().all() as string[]
      const searchTables = new Set<string>(Object.values(SEARCH_TABLES).flatMap((t) => [t.ranks, t.fts, t.vocab, t.terms]))
      const { rows } = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = ${schema.name} order by table_name`.execute(pgdb.db)
      const pgSearchTables = new Set<string>([PG_SEARCH_STATE_TABLE, ...Object.values(PG_SEARCH_TABLES).flatMap((t) => [t.ranks, t.docs, t.keys, t.terms])])
      const pgTables = rows.map((r) => r.table_name).filter((t) => !pgSearchTables.has(t))
      expect(rows.map((r) => r.table_name)).toEqual(expect.arrayContaining([...pgSearchTables]))
      const expected = sqliteTables.filter((t) => !searchTables.has(t) && !t.startsWith(SEARCH_TABLES.company.fts) && !t.startsWith(SEARCH_TABLES.investor.fts))
      expect(pgTables.sort()).toEqual(expected.sort())
      for (const table of expected) {
        const sqliteColumns = (sqlite.sqlite.prepare('select name from pragma_table_info(?)').pluck().all(table) as string[])
        // PostgreSQL has no rowid: its cache tables get an insertion-order column (migration 008).
        const extra = (VERSIONED_CACHE_TABLES as readonly string[]).includes(table) ? [CACHE_ORDER_COLUMN] : []
        expect(await columns(pgdb, table), table).toEqual([...sqliteColumns, ...extra])
      }
      expect(tablesToCopy().length).toBeGreaterThan(15)
    } finally {
      await sqlite.close()
    }
  })

  it('007: a descending index for every indexed sortable field and composite index, in the order the engine sorts', async () => {
    const pgdb = await schema.open()
    const { rows } = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where schemaname = ${schema.name} and indexname like '%_desc'`.execute(pgdb.db)
    const defs = new Map(rows.map((r) => [r.indexname, r.indexdef]))
    expect(defs.size).toBe(postgresSortIndexes().length)
    expect(defs.get('companies_svc_score_desc')).toMatch(/\(svc_score DESC NULLS LAST, id\)$/)
    expect(defs.get('companies_by_country_stage_employees_svc_score_desc')).toMatch(/\(country, stage, employees, svc_score DESC NULLS LAST, id\)$/)
    // SQLite gets nothing from 007 and 008.
    const cold = pgdb.db
    expect(postgresSortIndexStatements(cold, 'sqlite')).toEqual([])
    expect(cacheOrderStatements(cold, 'sqlite')).toEqual([])
  })

  it('are recorded once: reopening and migrating again apply nothing', async () => {
    const first = await schema.open()
    const { rows } = await sql<{ name: string }>`select name from ${sql.id(schema.name, 'kysely_migration')} order by name`.execute(first.db)
    expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name))
    const again = await createMigrator(first.db, 'postgres', schema.name).migrateToLatest()
    expect(again.error).toBeUndefined()
    expect(again.results).toEqual([])
    const reopened = await schema.open()
    expect(await dataVersion(reopened)).toBe(0)
  })

  it('keep their bookkeeping in the schema, not in another schema that has a kysely_migration table', async () => {
    // A second schema in the same database must get its own tables.
    const other = await testSchema('migrations_other')
    try {
      const db = await other.open()
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${other.name} and table_name = 'companies'`.execute(db.db)
      expect(rows[0]?.n).toBe(1)
    } finally {
      await other.drop()
    }
  })

  it('data version: read and bumped through Kysely, dropping caches of older versions', async () => {
    const pgdb = await schema.open()
    const before = await dataVersion(pgdb)
    await pgdb.db.insertInto('query_totals').values({ query_id: 'q', data_version: before, total: 5 }).execute()
    const [a, b] = await Promise.all([bumpDataVersion(pgdb), bumpDataVersion(pgdb)])
    expect([a, b].sort()).toEqual([before + 1, before + 2])
    expect(await dataVersion(pgdb)).toBe(before + 2)
    const left = await pgdb.db.selectFrom('query_totals').selectAll().execute()
    expect(left).toEqual([])
  })

  it('an engine on PostgreSQL answers, and the HTTP app mounts on it', async () => {
    const pgdb = await schema.open()
    const engine = createEngine({ database: pgdb })
    const count = await engine.count({ dataset: 'companies', filter: {} })
    expect(count).toEqual({ ok: true, value: 0 })
    const res = await createApp(engine).fetch(new Request('https://api.test/companies?key=vql_no-such-key'))
    expect(res.status).toBe(403)
    await engine.close()
  })

  it('an unreachable server is an error that says so', async () => {
    await expect(openPostgres({ connectionString: 'postgresql://postgres@127.0.0.1:1/test' })).rejects.toThrow(/cannot reach PostgreSQL at 127\.0\.0\.1:1\/test.*is the server running/)
  })

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openPostgres({ connectionString: 'postgresql://postgres@127.0.0.1/test', schema: 'a"; drop' })).rejects.toThrow(/not a plain identifier/)
  })
})
