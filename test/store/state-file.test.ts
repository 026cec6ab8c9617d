/**
 * The state file (store/state-file.ts): keys, quota counts, stored queries and caches live in
 * `<file>-state`, attached to every connection; a database that still has them in the data file
 * (as every database before the state file did) has them moved, rows and indexes, on first open;
 * once a data file has had one, a missing, empty, foreign or corrupt state file is refused, naming
 * the file, unless `newState` starts afresh on purpose; a read-only open without one still reads.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { runCli } from '../support/run-cli.js'
import { createApiKey, findApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase } from '../../src/store/open.js'
import { STATE_TABLES, StateFileError, stateFileOf } from '../../src/store/state-file.js'

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
    // A database from before the state file has no id either (it is written when a state file is first settled).
    raw.prepare("delete from meta where key = 'database_id'").run()
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

  it('is refused when deleted, comes back empty with newState, and a read-only open without one still reads', async () => {
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
    expect(() => openDatabase(file)).toThrow(StateFileError)
    expect(existsSync(stateFileOf(file))).toBe(false)
    const reopened = openDatabase(file, { newState: true })
    try {
      expect(reopened.stateFile?.recovered).toContain('does not exist')
      for (const t of STATE_TABLES) expect(tablesIn(reopened.sqlite, 'state').has(t)).toBe(true)
      expect(await findApiKey(reopened, made.value.key)).toBeUndefined()
      const again = await createApiKey(reopened, { plan: 'trial', quota: 5, period: 'day' })
      expect(again.ok).toBe(true)
    } finally {
      await reopened.close()
    }
  })

  it('refuses the state file when the data file was replaced by another database; newState sets it aside, with its cached totals', async () => {
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
    expect(() => openDatabase(file)).toThrow(/belongs to another data file/)
    const reopened = openDatabase(file, { newState: true })
    try {
      const aside = /set aside as (\S+),/.exec(reopened.stateFile?.recovered ?? '')?.[1]
      expect(aside && existsSync(aside)).toBe(true)
      expect(reopened.sqlite.prepare('select count(*) from query_totals').pluck().get()).toBe(0)
      expect(reopened.sqlite.prepare('select count(*) from query_checkpoints').pluck().get()).toBe(0)
      expect(await findApiKey(reopened, made.value.key)).toBeUndefined()
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

describe('a state file that is lost, emptied, foreign or corrupt', () => {
  /** A database with a key, closed: the data file has had its state file. */
  async function databaseWithKey(name: string): Promise<{ file: string; key: string }> {
    const file = join(dir, name)
    const vdb = await createFixtureDatabase({ file, companies: 20 })
    const made = await createApiKey(vdb, { plan: 'full', quota: 10, period: 'day' })
    if (!made.ok) throw new Error('key')
    await vdb.close()
    return { file, key: made.value.key }
  }
  const removeState = (file: string) => { for (const suffix of ['', '-wal', '-shm']) rmSync(stateFileOf(file) + suffix, { force: true }) }
  const refusal = (open: () => unknown): StateFileError => {
    try {
      open()
    } catch (error) {
      if (error instanceof StateFileError) return error
      throw error
    }
    throw new Error('opened')
  }

  it('a brand-new database creates its state file, and an in-memory one has none', async () => {
    const file = join(dir, 'brand-new.db')
    const vdb = openDatabase(file)
    try {
      expect(vdb.stateFile?.path).toBe(stateFileOf(file))
      expect(vdb.stateFile?.recovered).toBeUndefined()
      expect(vdb.stateFile?.problem()).toBeUndefined()
    } finally {
      await vdb.close()
    }
    const again = openDatabase(file)
    await again.close()
    const memory = openDatabase(':memory:')
    expect(memory.stateFile).toBeUndefined()
    await memory.close()
  })

  it('missing: refused by openDatabase and createEngine, naming the file and --new-state; newState starts afresh', async () => {
    const { file, key } = await databaseWithKey('missing.db')
    removeState(file)
    for (const open of [() => openDatabase(file), () => createEngine({ database: file, workers: 0 })]) {
      const error = refusal(open)
      expect(error.problem).toBe('missing')
      expect(error.message).toContain(`the state file ${stateFileOf(file)} does not exist`)
      expect(error.message).toContain('--new-state')
      expect(error.message).toContain('backup')
    }
    expect(existsSync(stateFileOf(file))).toBe(false)
    const engine = createEngine({ database: file, workers: 0, newState: true })
    try {
      expect(await findApiKey(engine.database, key)).toBeUndefined()
      expect((await createApiKey(engine.database, { plan: 'trial', quota: 5, period: 'day' })).ok).toBe(true)
    } finally {
      await engine.close()
    }
    // The new file is this data file's now.
    await openDatabase(file).close()
  })

  it('empty (truncated to 0 bytes): refused; newState starts afresh', async () => {
    const { file } = await databaseWithKey('empty.db')
    writeFileSync(stateFileOf(file), '')
    const error = refusal(() => openDatabase(file))
    expect(error.problem).toBe('empty')
    expect(error.message).toContain(`the state file ${stateFileOf(file)} is empty`)
    const vdb = openDatabase(file, { newState: true })
    try {
      expect(vdb.stateFile?.recovered).toContain('was empty')
      for (const t of STATE_TABLES) expect(tablesIn(vdb.sqlite, 'state').has(t)).toBe(true)
    } finally {
      await vdb.close()
    }
    await openDatabase(file).close()
  })

  it('foreign (another database\'s): refused; newState sets it aside and starts afresh', async () => {
    const { file, key } = await databaseWithKey('mine.db')
    const other = await databaseWithKey('theirs.db')
    removeState(file)
    copyFileSync(stateFileOf(other.file), stateFileOf(file))
    const error = refusal(() => openDatabase(file))
    expect(error.problem).toBe('foreign')
    expect(error.message).toContain(`the state file ${stateFileOf(file)} belongs to another data file`)
    expect(error.message).toContain('set aside')
    const vdb = openDatabase(file, { newState: true })
    try {
      const aside = /set aside as (\S+),/.exec(vdb.stateFile?.recovered ?? '')?.[1]
      expect(aside).toMatch(/mine\.db-state\.foreign-\d{8}T\d{6}Z$/)
      expect(existsSync(aside!)).toBe(true)
      // Neither database's keys: the other one's are not taken over.
      expect(await findApiKey(vdb, other.key)).toBeUndefined()
      expect(await findApiKey(vdb, key)).toBeUndefined()
    } finally {
      await vdb.close()
    }
  })

  it('corrupt (not a database, or a damaged one behind a valid header): refused; newState sets it aside', async () => {
    const { file } = await databaseWithKey('corrupt.db')
    removeState(file)
    writeFileSync(stateFileOf(file), Buffer.alloc(8192, 0x5a))
    let error = refusal(() => openDatabase(file))
    expect(error.problem).toBe('corrupt')
    expect(error.message).toContain(`the state file ${stateFileOf(file)} is not a SQLite database`)
    // A SQLite header followed by garbage: found when its schema is read.
    const header = Buffer.alloc(4096, 0x5a)
    Buffer.from('SQLite format 3\0', 'latin1').copy(header, 0)
    header.writeUInt16BE(4096, 16)
    writeFileSync(stateFileOf(file), header)
    error = refusal(() => openDatabase(file))
    expect(error.problem).toBe('corrupt')
    expect(error.message).toContain(`the state file ${stateFileOf(file)} is`)
    const vdb = openDatabase(file, { newState: true })
    try {
      expect(vdb.stateFile?.recovered).toMatch(/set aside as \S+corrupt\.db-state\.corrupt-/)
      for (const t of STATE_TABLES) expect(tablesIn(vdb.sqlite, 'state').has(t)).toBe(true)
    } finally {
      await vdb.close()
    }
  })

  it('says when the state file is deleted or replaced while the database is open', async () => {
    const { file } = await databaseWithKey('watched.db')
    const vdb = openDatabase(file)
    try {
      expect(vdb.stateFile?.problem()).toBeUndefined()
      rmSync(stateFileOf(file))
      expect(vdb.stateFile?.problem()).toMatch(/^the state file \S+watched\.db-state was deleted while the database is open/)
      writeFileSync(stateFileOf(file), '')
      expect(vdb.stateFile?.problem()).toMatch(/was replaced by another file/)
    } finally {
      await vdb.close()
    }
  })
})
