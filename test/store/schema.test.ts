import { afterEach, describe, expect, test } from 'vitest'
import { Kysely, SqliteDialect } from 'kysely'
import Database from 'better-sqlite3'
import { datasets, DATASET_NAMES, relations, type FieldDef } from '../../src/catalog/index.js'
import { openDatabase, dataVersion, bumpDataVersion, type SqliteVentureDb } from '../../src/store/open.js'
import { createMigrator, MIGRATIONS } from '../../src/store/migrations.js'
import { DETAIL_TABLES } from '../../src/store/schema/detail-tables.js'
import { createEngine } from '../../src/engine.js'
import { generateInto } from '../../src/store/generate/build.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })

function columnsOf(vdb: SqliteVentureDb, table: string): string[] {
  return vdb.sqlite.prepare('select name from pragma_table_info(?)').pluck().all(table) as string[]
}

function schemaSql(sqlite: Database.Database): string[] {
  return (sqlite.prepare("select type || ' ' || name || ': ' || coalesce(sql, '') from sqlite_master where name not like 'kysely_%' and name not like 'sqlite_autoindex_kysely%' order by 1").pluck().all() as string[])
}

describe('migrations', () => {
  test('every catalog field has its column and every tags field its table', () => {
    const vdb = openDatabase(':memory:')
    open.push(vdb)
    for (const name of DATASET_NAMES) {
      const ds = datasets[name]
      const cols = columnsOf(vdb, ds.table)
      for (const f of Object.values(ds.fields) as FieldDef[]) {
        if (f.tags) {
          expect(columnsOf(vdb, f.tags.table), `${name}.${f.name}`).toEqual(expect.arrayContaining([f.tags.ownerColumn, f.tags.valueColumn]))
        } else {
          expect(cols, `${name}.${f.name}`).toContain(f.column)
        }
      }
    }
    for (const r of relations) {
      if (r.kind === 'link') expect(columnsOf(vdb, r.table)).toEqual(expect.arrayContaining([r.fromKey, r.toKey]))
    }
    expect(columnsOf(vdb, 'investments')).toContain('first_invested_on')
  })

  test('detail, stored-query and meta tables exist with the contract columns', () => {
    const vdb = openDatabase(':memory:')
    open.push(vdb)
    for (const table of Object.values(DETAIL_TABLES)) expect(columnsOf(vdb, table).length, table).toBeGreaterThan(1)
    expect(columnsOf(vdb, 'stored_queries')).toEqual(['query_id', 'query_version', 'dataset', 'canonical', 'created_at', 'owner', 'bytes', 'last_used_at'])
    expect(columnsOf(vdb, 'query_totals')).toEqual(['query_id', 'data_version', 'total'])
    expect(columnsOf(vdb, 'query_checkpoints')).toEqual(['query_id', 'data_version', 'position', 'after_key'])
    // Replaced by query_checkpoints (migration 009).
    expect(columnsOf(vdb, 'query_page_boundaries')).toEqual([])
    expect(columnsOf(vdb, 'meta')).toEqual(['key', 'value'])
    expect(columnsOf(vdb, DETAIL_TABLES.contacts)).toContain('email')
    const email = vdb.sqlite.prepare('select "notnull" from pragma_table_info(?) where name = ?').pluck().get(DETAIL_TABLES.contacts, 'email')
    expect(email).toBe(0)
  })

  test('the synchronous path and Kysely\'s Migrator build the same schema and share bookkeeping', async () => {
    const viaOpen = openDatabase(':memory:')
    open.push(viaOpen)
    // Kysely's Migrator sees everything as applied already.
    const again = await createMigrator(viaOpen.db, 'sqlite').migrateToLatest()
    expect(again.error).toBeUndefined()
    expect(again.results).toEqual([])

    const sqlite = new Database(':memory:')
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) })
    const fresh = await createMigrator(db, 'sqlite').migrateToLatest()
    expect(fresh.error).toBeUndefined()
    expect(fresh.results?.map((r) => r.migrationName)).toEqual(MIGRATIONS.map((m) => m.name))
    expect(schemaSql(sqlite)).toEqual(schemaSql(viaOpen.sqlite))
    await db.destroy()
  })

  test('reopening a file applies nothing twice; data_version persists and bumps', async () => {
    const { mkdtempSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const file = join(mkdtempSync(join(tmpdir(), 'vql-')), 'x.db')
    const a = openDatabase(file)
    expect(await dataVersion(a)).toBe(0)
    expect(await bumpDataVersion(a)).toBe(1)
    await a.close()
    const b = openDatabase(file)
    open.push(b)
    expect(await dataVersion(b)).toBe(1)
    expect(b.sqlite.pragma('journal_mode', { simple: true })).toBe('wal')
    const ro = openDatabase(file, { readonly: true })
    open.push(ro)
    expect(await dataVersion(ro)).toBe(1)
    expect(() => ro.sqlite.exec("insert into meta (key, value) values ('x', 'y')")).toThrow(/readonly/)
  })
})

describe('versioned caches', () => {
  test('moving the data version drops totals and checkpoints of older versions', async () => {
    const vdb = openDatabase(':memory:')
    open.push(vdb)
    // Every total written (the default keeps totals counted in under 1 ms in memory).
    const engine = createEngine({ database: vdb, paging: { persistTotalsFromMs: 0 } })
    generateInto(vdb, { companies: 40, seed: 3 })
    const stored = await engine.store({ dataset: 'companies', filter: { employees: { gte: 0 } } })
    if (!stored.ok) throw new Error('store failed')
    expect((await engine.page(stored.value.query_id, { page: 3, per_page: 2 })).ok).toBe(true)
    const rows = (table: string) => vdb.sqlite.prepare(`select distinct data_version from ${table}`).pluck().all()
    const version = await dataVersion(vdb)
    expect(rows('query_totals')).toEqual([version])
    expect(rows('query_checkpoints')).toEqual([version])
    await bumpDataVersion(vdb)
    expect(rows('query_totals')).toEqual([])
    expect(rows('query_checkpoints')).toEqual([])
    expect((await engine.page(stored.value.query_id, { page: 3, per_page: 2 })).ok).toBe(true)
    expect(rows('query_totals')).toEqual([version + 1])
  })
})
