/**
 * Review findings on the PostgreSQL backend, each a regression test:
 * - a copy that replaces the rows without changing the data version left another handle (another
 *   process, in production) answering the match-all total of the old rows from its remembered row count;
 * - a schema name with capital letters was created quoted but put on `search_path` unquoted
 *   (folded to lower case), so the tables went elsewhere or the open failed;
 * - a failed open ended the pool the caller gave, which is the caller's to end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { dataVersionSync, type SqliteVentureDb } from '../../src/store/open.js'
import { openPostgres } from '../../src/store/open-postgres.js'
import { PG_URL, testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let dir: string
let big: SqliteVentureDb
let small: SqliteVentureDb
beforeAll(async () => {
  schema = await testSchema('review')
  dir = mkdtempSync(join(tmpdir(), 'ventureql-review-'))
  big = await createFixtureDatabase({ file: join(dir, 'big.db'), companies: 120 })
  small = await createFixtureDatabase({ file: join(dir, 'small.db'), companies: 30, seed: 2 })
})
afterAll(async () => {
  await big?.close()
  await small?.close()
  await schema?.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('PostgreSQL review findings', () => {
  it('a match-all total follows a copy made through another handle (another process)', async () => {
    // The premise: both sources are at the same data version, so only the rows differ.
    expect(dataVersionSync(small.sqlite)).toBe(dataVersionSync(big.sqlite))
    const writer = await schema.open()
    const served = await schema.open()
    await copyToPostgres(big, writer)
    const engine = createEngine({ database: served })
    const all = { dataset: 'companies', filter: {} }
    expect(await engine.count(all)).toEqual({ ok: true, value: 120 })
    await copyToPostgres(small, writer)
    const actual = Number((await served.db.selectFrom('companies').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    expect(actual).toBe(30)
    expect(await engine.count(all)).toEqual({ ok: true, value: actual })
    // A different request (another query id, so no cached total) must not see the old count either.
    expect(await engine.count({ dataset: 'companies', filter: {}, sort: [{ name: 'asc' }] })).toEqual({ ok: true, value: actual })
    await engine.close()
  })

  it('a schema name with capital letters is the schema the tables go into', async () => {
    const name = `VqUpper_${process.pid}`
    const admin = new pg.Client({ connectionString: PG_URL })
    await admin.connect()
    try {
      const db = await openPostgres({ connectionString: PG_URL, schema: name })
      try {
        const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.db)
        expect(rows[0]?.schema).toBe(name)
        const tables = await admin.query('select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = $2', [name, 'companies'])
        expect(tables.rows[0].n).toBe(1)
      } finally {
        await db.close()
      }
    } finally {
      await admin.query(`drop schema if exists "${name}" cascade`)
      await admin.query(`drop schema if exists "${name.toLowerCase()}" cascade`)
      await admin.end()
    }
  })

  it('a failed open leaves the pool the caller gave open', async () => {
    const pool = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/test' })
    pool.on('error', () => undefined)
    await expect(openPostgres({ pool })).rejects.toThrow(/cannot reach PostgreSQL at the given pool/)
    expect(pool.ended).toBe(false)
    await pool.end()
  })
})
