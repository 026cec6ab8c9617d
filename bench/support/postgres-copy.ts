/**
 * @module The PostgreSQL copy of the benchmark database, for the benches that compare the backends
 * on the same data: schema `vq_bench_<companies>` (or `BENCH_PG_SCHEMA`) of `VENTUREQL_PG_URL` (default
 * postgresql://postgres@127.0.0.1:5432/test), copied once and reused while its companies and data
 * version match the SQLite file. An unreachable server ends the run with one line.
 */
import { sql } from 'kysely'
import pg from 'pg'
import { copyToPostgres } from '../../src/store/copy.js'
import { dataVersion, dataVersionSync, type PostgresVentureDb, type SqliteVentureDb } from '../../src/store/open.js'
import { openPostgres, PostgresConnectionError } from '../../src/store/open-postgres.js'

export const BENCH_PG_URL = process.env.VENTUREQL_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'

/** The schema of the copy: `BENCH_PG_SCHEMA` when set (a run of its own beside others), else `vq_bench_<companies>`. */
export function benchSchema(companies: number): string {
  return process.env.BENCH_PG_SCHEMA || `vq_bench_${companies}`
}

/** Opens (and on first use fills) the PostgreSQL copy of `source`; `label` names the bench in messages. */
export async function openBenchPostgres(source: SqliteVentureDb, companies: number, label: string): Promise<PostgresVentureDb> {
  const schema = benchSchema(companies)
  let pgdb: PostgresVentureDb
  try {
    pgdb = await openPostgres({ connectionString: BENCH_PG_URL, schema })
  } catch (error) {
    if (error instanceof PostgresConnectionError) {
      console.error(`bench ${label}: FAILED, ${error.message} (set VENTUREQL_PG_URL to another server)`)
      process.exit(1)
    }
    throw error
  }
  const sourceRows = source.sqlite.prepare('select count(*) from companies').pluck().get() as number
  const pgRows = Number((await sql<{ n: string }>`select count(*) as n from companies`.execute(pgdb.db)).rows[0]?.n ?? 0)
  if (pgRows !== sourceRows || (await dataVersion(pgdb)) !== dataVersionSync(source.sqlite)) {
    process.stderr.write(`bench ${label}: copying the benchmark database into schema ${schema} (once) ...\n`)
    const summary = await copyToPostgres(source, pgdb)
    process.stderr.write(`bench ${label}: copied ${summary.rows} rows in ${(summary.ms / 1000).toFixed(1)} s\n`)
  }
  return pgdb
}

/** Forgets the PostgreSQL copy's cached totals, checkpoints and stored queries (as `freshCaches` does for SQLite). */
export async function freshPostgresCaches(companies: number): Promise<void> {
  const admin = new pg.Pool({ connectionString: BENCH_PG_URL, options: `-c search_path=${benchSchema(companies)}`, max: 1 })
  try {
    await admin.query('delete from query_totals; delete from query_checkpoints; delete from stored_queries')
  } finally {
    await admin.end()
  }
}
