/**
 * The state file (store/state-file.ts): keys, quota counts, stored queries and caches live in
 * `<file>-state`, attached to every connection; a database that still has them in the data file
 * (as every database before the state file did) has them moved, rows and indexes, on first open; a
 * deleted state file comes back empty; a read-only open without one still reads.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { copyFileSync, readdirSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { runCli } from '../support/run-cli.js'
import { createApiKey, findApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase } from '../../src/store/open.js'
import { STATE_TABLES, stateFileOf } from '../../src/store/state-file.js'

const dir = mkdtempSync(join(tmpdir(), 'ventureql-state-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tablesIn = (sqlite: Database.Database, schema: string) =>
  new Set(sqlite.prepare(`select name from ${schema}.sqlite_master where type = 'table'`).pluck().all() as string[])

describe('the state file', () => {
  it('holds the state tables, and the data file none of them', async () => {
    const file = join(dir, 'fresh.db')
    const vdb = await createFixtureDatabase({ file, companies: 20 })
    try {
      expect(existsSync(stateFileOf(file))).toBe(true)
      const main = tablesIn(vdb.sqlite, 'main')
      const state = tablesIn(vdb.sqlite, 'state')
      for (const t of STATE_TABLES) {
        expect(state.has(t)).toBe(true)
        expect(main.has(t)).toBe(false)
      }
      expect(main.has('companies')).toBe(true)
      expect(state.has('companies')).toBe(false)
      // Its indexes came along.
      const indexes = vdb.sqlite.prepare(`select name from state.sqlite_master where type = 'index' and sql is not null`).pluck().all()
      expect(indexes).toEqual(expect.arrayContaining(['stored_queries_by_last_used', 'stored_queries_by_owner_lru']))
    } finally {
      await vdb.close()
    }
  })

  it('moves the tables of a database from before the state file, rows included, once', async () => {
    const file = join(dir, 'old.db')
    const vdb = await createFixtureDatabase({ file, companies: 20 })
    const made = await createApiKey(vdb, { plan: 'full', quota: 10, period: 'day', label: 'moved' })
    if (!made.ok) throw new Error('key')
    await vdb.close()
    // Rebuild the old layout: the state tables back in the data file, no state file.
    const raw = new Database(file)
    raw.prepare('attach database ? as state').run(stateFileOf(file))
    for (const table of STATE_TABLES) {
      const sql = raw.prepare(`select sql from state.sqlite_master where name = ?`).pluck().get(table) as string
      raw.exec(sql)
      raw.exec(`insert into main."${table}" select * from state."${table}"`)
    }
    raw.exec('detach database state')
    raw.close()
    for (const suffix of ['', '-wal', '-shm']) rmSync(stateFileOf(file) + suffix, { force: true })

    const reopened = openDatabase(file)
    try {
      expect(tablesIn(reopened.sqlite, 'main').has('api_keys')).toBe(false)
      expect(tablesIn(reopened.sqlite, 'state').has('api_keys')).toBe(true)
      const found = await findApiKey(reopened, made.value.key)
      expect(found?.label).toBe('moved')
    } finally {
      await reopened.close()
    }
  })

  it('comes back empty when deleted, and a read-only open without one still reads', async () => {
    const file = join(dir, 'lost.db')
    const vdb = await createFixtureDatabase({ file, companies: 20 })
    const made = await createApiKey(vdb, { plan: 'full', quota: 10, period: 'day' })
    if (!made.ok) throw new Error('key')
    await vdb.close()
    for (const suffix of ['', '-wal', '-shm']) rmSync(stateFileOf(file) + suffix, { force: true })

    const readOnly = openDatabase(file, { readonly: true })
    try {
      expect(readOnly.sqlite.prepare('select count(*) from companies').pluck().get()).toBe(20)
      expect(existsSync(stateFileOf(file))).toBe(false)
    } finally {
      await readOnly.close()
    }
    const reopened = openDatabase(file)
    try {
      for (const t of STATE_TABLES) expect(tablesIn(reopened.sqlite, 'state').has(t)).toBe(true)
      expect(await findApiKey(reopened, made.value.key)).toBeUndefined()
      const again = await createApiKey(reopened, { plan: 'trial', quota: 5, period: 'day' })
      expect(again.ok).toBe(true)
    } finally {
      await reopened.close()
    }
  })

  it('drops cached totals and page boundaries when the data file was replaced by another database, keeping keys', async () => {
    const file = join(dir, 'replaced.db')
    const other = join(dir, 'other.db')
    await (await createFixtureDatabase({ file: other, companies: 30, seed: 7 })).close()
    const vdb = await createFixtureDatabase({ file, companies: 60 })
    const made = await createApiKey(vdb, { plan: 'full', quota: 10, period: 'day' })
    if (!made.ok) throw new Error('key')
    const engine = createEngine({ database: vdb })
    const request = { dataset: 'companies', filter: { employees: { gte: 0 } } }
    const first = await engine.count(request)
    await engine.list({ ...request, page: 2, per_page: 5 })
    await engine.close()
    await vdb.close()
    expect(first.ok && first.value).toBeGreaterThan(0)
    // Replace the data file by a copy of another database (same data version), the state file left as it was.
    for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true })
    copyFileSync(other, file)
    const reopened = openDatabase(file)
    try {
      expect(reopened.sqlite.prepare('select count(*) from query_totals').pluck().get()).toBe(0)
      expect(reopened.sqlite.prepare('select count(*) from query_checkpoints').pluck().get()).toBe(0)
      expect((await findApiKey(reopened, made.value.key))?.keyId).toBe(made.value.record.keyId)
      const again = createEngine({ database: reopened })
      const counted = await again.count(request)
      expect(counted.ok && counted.value).toBe(reopened.sqlite.prepare('select count(*) from companies where employees >= 0').pluck().get())
      expect(counted.ok && counted.value).not.toBe(first.ok && first.value)
      await again.close()
    } finally {
      await reopened.close()
    }
  })

  it('generate --out replaces the state file with the database', async () => {
    const file = join(dir, 'generated.db')
    const vdb = await createFixtureDatabase({ file, companies: 20 })
    const made = await createApiKey(vdb, { plan: 'full', quota: 10, period: 'day' })
    if (!made.ok) throw new Error('key')
    await vdb.close()
    const { exitCode } = await runCli(['generate', '--companies', '25', '--out', file])
    expect(exitCode).toBe(0)
    const reopened = openDatabase(file)
    try {
      expect(reopened.sqlite.prepare('select count(*) from companies').pluck().get()).toBe(25)
      expect(await findApiKey(reopened, made.value.key)).toBeUndefined()
    } finally {
      await reopened.close()
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('generated.db')).sort()).toEqual(expect.arrayContaining(['generated.db', 'generated.db-state']))
  })
})
