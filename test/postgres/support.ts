/**
 * @module Shared setup of the PostgreSQL tests: the server from `VENTUREQL_PG_URL` (default
 * postgresql://postgres@127.0.0.1:5432/test), and a fresh schema per test file, dropped afterwards,
 * so files run in parallel without seeing each other's tables. An unreachable server FAILS the
 * tests with how to start it: the PostgreSQL backend is never skipped silently.
 */
import pg from 'pg'
import { openPostgres, type OpenPostgresOptions } from '../../src/store/open-postgres.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { PostgresVentureDb, SqliteVentureDb } from '../../src/store/open.js'

export const PG_URL = process.env.VENTUREQL_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'

const HOW_TO_START = 'The PostgreSQL tests need a server at VENTUREQL_PG_URL (default postgresql://postgres@127.0.0.1:5432/test). '
  + 'Start the local one with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` '
  + '(.ci/run does this), or point VENTUREQL_PG_URL at another server.'

export interface TestSchema {
  readonly name: string
  /** Opens (and migrates) the schema; every database opened is closed by `drop()`. */
  open(options?: Omit<OpenPostgresOptions, 'connectionString' | 'schema' | 'pool'>): Promise<PostgresVentureDb>
  /** Closes what `open` opened and drops the schema with everything in it. */
  drop(): Promise<void>
}

/** A new schema named after `label`, unique per process and call. */
export async function testSchema(label: string): Promise<TestSchema> {
  const name = `vq_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: PG_URL })
  try {
    await admin.connect()
  } catch (error) {
    throw new Error(`${HOW_TO_START}\nConnecting failed: ${(error as Error).message}`)
  } finally {
    await admin.end().catch(() => undefined)
  }
  const opened: PostgresVentureDb[] = []
  return {
    name,
    async open(options = {}) {
      const db = await openPostgres({ ...options, connectionString: PG_URL, schema: name })
      opened.push(db)
      return db
    },
    async drop() {
      for (const db of opened.splice(0)) await db.close()
      const client = new pg.Client({ connectionString: PG_URL })
      await client.connect()
      try {
        await client.query(`drop schema if exists "${name}" cascade`)
      } finally {
        await client.end()
      }
    },
  }
}

/** The generated fixture (`companies` companies, SQLite) and its copy in a fresh schema named after `label`. */
export async function copiedFixture(label: string, companies: number): Promise<{ schema: TestSchema; source: SqliteVentureDb; target: PostgresVentureDb }> {
  const schema = await testSchema(label)
  const source = await createFixtureDatabase({ companies })
  const target = await schema.open()
  await copyToPostgres(source, target)
  return { schema, source, target }
}
