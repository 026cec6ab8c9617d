/**
 * @module Copying a SQLite database into PostgreSQL (`ventureql copy`): the way data gets to the
 * PostgreSQL backend, since ingest writes through the SQLite handle.
 *
 * What is copied: every table the dataset and detail migrations create (datasets, tag tables, link
 * tables, detail tables), and the data version (the source's, or the target's plus one when that
 * is not newer: new rows always get a new version, which is what every cache in every process that
 * uses the target is keyed by). The table and column lists are read from those
 * migrations' own DDL builders, so a column added to the catalog or a detail table is copied
 * without touching this file. Not copied: stored queries and their caches, API keys and quota
 * usage (they belong to the database they were made in), and the FTS5 search index: PostgreSQL's
 * own search index is built from the copied rows at the end (`refreshPostgresSearchIndex`, full).
 *
 * How: one transaction on the target that first empties the copied tables and the caches (the
 * target then equals the source, and no cached total of other data survives under the copied data
 * version), then multi-row INSERTs of as many rows as fit PostgreSQL's 65,535 bind parameters
 * (capped at `batchRows`), then commit, then VACUUM (ANALYZE) of the copied tables so the planner
 * has statistics from the start and index-only scans need not visit the heap, then the search
 * index (its own transaction: a failure there leaves the copied data, and a rerun of the refresh).
 */
import type { CreateTableNode, Kysely } from 'kysely'
import { sql } from 'kysely'
import { postgresDialect } from '../compile/dialects/postgres.js'
import { forgetRowCounts } from './row-counts.js'
import { refreshPostgresSearchIndex } from './search-index-postgres.js'
import { dataVersionSync, setDataVersion, type PostgresVentureDb, type SqliteVentureDb } from './open.js'
import { datasetTableStatements } from './schema/dataset-tables.js'
import { detailTableStatements } from './schema/detail-tables.js'
import { DATA_VERSION_KEY, META_TABLE, VERSIONED_CACHE_TABLES } from './schema/stored-query-tables.js'

/** PostgreSQL's ceiling on bind parameters per statement (a 16-bit count in the protocol). */
export const PG_MAX_PARAMETERS = 65_535

export interface CopyOptions {
  /** Most rows per INSERT (default 2000; fewer when the table is wide, to stay under 65,535 parameters). */
  readonly batchRows?: number
  /** Called after every batch. */
  readonly onProgress?: (progress: { table: string; rows: number; tableRows: number }) => void
}

export interface CopiedTable {
  readonly table: string
  readonly columns: readonly string[]
  readonly rows: number
}

export interface CopySummary {
  readonly tables: readonly CopiedTable[]
  readonly rows: number
  readonly dataVersion: number
  readonly ms: number
}

export interface TableToCopy {
  readonly table: string
  readonly columns: readonly string[]
}

/**
 * The tables `copyToPostgres` copies, with their columns, in creation order: read from the create
 * table statements of the dataset-tables and detail-tables migrations.
 */
export function tablesToCopy(): TableToCopy[] {
  const db = postgresDialect.coldKysely()
  const out: TableToCopy[] = []
  for (const statement of [...datasetTableStatements(db, 'postgres'), ...detailTableStatements(db, 'postgres')]) {
    const node = (statement as { toOperationNode?: () => { kind: string } }).toOperationNode?.()
    if (node?.kind !== 'CreateTableNode') continue
    const create = node as CreateTableNode
    out.push(Object.freeze({
      table: create.table.table.identifier.name,
      columns: Object.freeze(create.columns.map((c) => c.column.column.name)),
    }))
  }
  return out
}

/** SQLite integers read as BigInt (exact): a number when safe, else its digits (PostgreSQL parses them as bigint). */
function toPg(value: unknown): unknown {
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString()
  return value
}

/**
 * Copies `source` (SQLite) into `target` (PostgreSQL, migrated), replacing what the target's copied
 * tables held. Returns what was copied.
 *
 * @example
 * const source = openDatabase('ventureql.db', { readonly: true })
 * const target = await openPostgres({ connectionString: 'postgres://postgres@127.0.0.1/test', schema: 'vq' })
 * const summary = await copyToPostgres(source, target)
 */
export async function copyToPostgres(source: SqliteVentureDb, target: PostgresVentureDb, options: CopyOptions = {}): Promise<CopySummary> {
  const started = performance.now()
  const tables = tablesToCopy()
  const maxRows = Math.max(1, Math.floor(options.batchRows ?? 2000))
  const sourceVersion = dataVersionSync(source.sqlite)
  const copied: CopiedTable[] = []
  let version = sourceVersion

  await target.db.transaction().execute(async (trx) => {
    // Another process serving the target keeps row counts (the match-all total) per data version:
    // replacing the rows under the version it knows would leave it answering the old counts.
    // The row lock orders this against a concurrent bump or copy.
    const previous = await trx.selectFrom(META_TABLE).select('value').where('key', '=', DATA_VERSION_KEY).forUpdate().executeTakeFirst()
    version = Math.max(sourceVersion, (previous === undefined ? 0 : Number(previous.value)) + 1)
    // One statement: TRUNCATE of several tables is atomic and transactional in PostgreSQL.
    await sql`truncate table ${sql.join([...tables.map((t) => sql.table(t.table)), ...VERSIONED_CACHE_TABLES.map((t) => sql.table(t))])}`.execute(trx)
    for (const { table, columns } of tables) {
      copied.push(await copyTable(source, trx, table, columns, maxRows, options.onProgress))
    }
    await setDataVersion(trx, version)
  })
  // Not needed for correctness any more (the version is new); frees the counts of the old rows.
  forgetRowCounts(target.db)
  // VACUUM sets the visibility map, without which every index-only scan (counts, sort-index walks)
  // reads the heap too: 100k companies, `{}` count 10.7 -> 7.9 ms, the design filter's 7.9 -> 5.8 ms.
  // Outside the transaction: VACUUM cannot run in one.
  for (const { table } of copied) await sql`vacuum (analyze) ${sql.table(table)}`.execute(target.db)
  await refreshPostgresSearchIndex(target.db)

  return Object.freeze({
    tables: Object.freeze(copied),
    rows: copied.reduce((n, t) => n + t.rows, 0),
    dataVersion: version,
    ms: performance.now() - started,
  })
}

async function copyTable(
  source: SqliteVentureDb, trx: Kysely<any>, table: string, columns: readonly string[], maxRows: number,
  onProgress: CopyOptions['onProgress'],
): Promise<CopiedTable> {
  const perBatch = Math.max(1, Math.min(maxRows, Math.floor(PG_MAX_PARAMETERS / columns.length)))
  const select = source.sqlite
    .prepare(`select ${columns.map((c) => `"${c}"`).join(', ')} from "${table}"`)
    .raw(true)
    .safeIntegers(true)
  const total = Number(source.sqlite.prepare(`select count(*) from "${table}"`).pluck().get())
  let rows = 0
  let batch: Record<string, unknown>[] = []
  const flush = async () => {
    if (batch.length === 0) return
    await trx.insertInto(table).values(batch).execute()
    rows += batch.length
    batch = []
    onProgress?.({ table, rows, tableRows: total })
  }
  // One pass of one iterator (a LIMIT/OFFSET window per batch would rescan the table). The source
  // handle is busy until it ends, so nothing else may use it during the copy.
  for (const raw of select.iterate() as IterableIterator<unknown[]>) {
    const row: Record<string, unknown> = {}
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = toPg(raw[i])
    batch.push(row)
    if (batch.length === perBatch) await flush()
  }
  await flush()
  return Object.freeze({ table, columns, rows })
}
