/**
 * `copyToPostgres` and `ventureql copy`: every copied table has the source's row count and the same
 * contents (an order-independent checksum over every column of every row), the data version comes
 * along, copying again replaces rather than appends, and the CLI reports an unreachable server.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildProgram } from '../../src/cli/program.js'
import { copyToPostgres, tablesToCopy } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { dataVersion, dataVersionSync, type PostgresVentureDb, type SqliteVentureDb } from '../../src/store/open.js'
import { PG_URL, testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let source: SqliteVentureDb
let target: PostgresVentureDb
let dir: string
beforeAll(async () => {
  schema = await testSchema('copy')
  dir = mkdtempSync(join(tmpdir(), 'ventureql-copy-'))
  source = await createFixtureDatabase({ file: join(dir, 'fixture.db') })
  target = await schema.open()
})
afterAll(async () => {
  await source?.close()
  await schema?.drop()
  rmSync(dir, { recursive: true, force: true })
})

/** SHA-256 of the sorted JSON of every row (numbers as numbers, so 5 and 5n and '5' from int8 agree). */
function checksum(rows: readonly unknown[][]): string {
  const lines = rows.map((r) => JSON.stringify(r.map((v) => (typeof v === 'bigint' ? Number(v) : v)))).sort()
  return createHash('sha256').update(lines.join('\n')).digest('hex')
}

async function pgRows(table: string, columns: readonly string[]): Promise<unknown[][]> {
  const { rows } = await sql<Record<string, unknown>>`select ${sql.join(columns.map((c) => sql.ref(c)))} from ${sql.table(table)}`.execute(target.db)
  return rows.map((r) => columns.map((c) => r[c]))
}

function sqliteRows(table: string, columns: readonly string[]): unknown[][] {
  return source.sqlite.prepare(`select ${columns.map((c) => `"${c}"`).join(', ')} from "${table}"`).raw(true).all() as unknown[][]
}

describe('copyToPostgres', () => {
  it('reproduces every table: row count and a checksum of contents', async () => {
    const summary = await copyToPostgres(source, target, { batchRows: 97 })
    const tables = tablesToCopy()
    expect(summary.tables.map((t) => t.table)).toEqual(tables.map((t) => t.table))
    let nonEmpty = 0
    for (const { table, columns } of tables) {
      const expected = sqliteRows(table, columns)
      const copied = await pgRows(table, columns)
      expect(copied.length, table).toBe(expected.length)
      expect(checksum(copied), table).toBe(checksum(expected))
      if (expected.length > 0) nonEmpty++
    }
    // The fixture fills every table; an empty one would make its checksum meaningless.
    expect(nonEmpty).toBe(tables.length)
    expect(summary.dataVersion).toBe(dataVersionSync(source.sqlite))
    expect(summary.dataVersion).toBeGreaterThan(0)
    expect(await dataVersion(target)).toBe(summary.dataVersion)
  })

  it('copies again by replacing, and drops cached totals of the old contents', async () => {
    await target.db.insertInto('query_totals').values({ query_id: 'stale', data_version: await dataVersion(target), total: 1 }).execute()
    await copyToPostgres(source, target)
    const companies = await target.db.selectFrom('companies').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    expect(Number(companies.n)).toBe(source.sqlite.prepare('select count(*) from companies').pluck().get())
    expect(await target.db.selectFrom('query_totals').selectAll().execute()).toEqual([])
  })
})

describe('ventureql copy', () => {
  async function run(args: string[]): Promise<{ stderr: string; error: unknown }> {
    let stderr = ''
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
    let error: unknown
    try {
      await buildProgram().exitOverride().parseAsync(['node', 'ventureql', ...args])
    } catch (e) {
      error = e
    } finally {
      err.mockRestore()
    }
    return { stderr, error }
  }

  it('copies a file into a schema', async () => {
    const other = await testSchema('copy_cli')
    try {
      const { stderr, error } = await run(['copy', '--from', join(dir, 'fixture.db'), '--to', PG_URL, '--schema', other.name])
      expect(error).toBeUndefined()
      expect(stderr).toMatch(/copied \d+ rows in \d+ tables \(data version \d+\)/)
      const db = await other.open()
      const n = await db.db.selectFrom('companies').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
      expect(Number(n.n)).toBe(400)
    } finally {
      await other.drop()
    }
  })

  it('says clearly when the server cannot be reached', async () => {
    const { error } = await run(['copy', '--from', join(dir, 'fixture.db'), '--to', 'postgres://postgres@127.0.0.1:1/test'])
    expect(String(error)).toMatch(/cannot reach PostgreSQL at 127\.0\.0\.1:1\/test: .*ECONNREFUSED.*is the server running/)
  })
})
