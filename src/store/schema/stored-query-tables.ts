/**
 * @module Tables of stored queries (design section 4) and the `meta` key/value table that holds
 * `data_version`, the counter every ingest bumps so cached totals and page boundaries of an older
 * data version are never reused.
 */
import { sql, type Compilable, type Kysely } from 'kysely'
import type { DialectName } from './column-types.js'

export const META_TABLE = 'meta'
export const DATA_VERSION_KEY = 'data_version'

/**
 * The current data version as a scalar subquery, for statements that must read a row of that
 * version in one round trip. meta holds text; the cast is to the integer type of the version
 * columns on both dialects.
 */
export function currentDataVersion(db: Kysely<any>) {
  return db.selectFrom(META_TABLE).select(sql<number>`cast(${sql.ref('value')} as bigint)`.as('v')).where('key', '=', DATA_VERSION_KEY)
}
/** Caches keyed by data version; rows of an older version are dead once it moves. */
export const VERSIONED_CACHE_TABLES = Object.freeze(['query_totals', 'query_checkpoints'] as const)

/**
 * The cache tables as migrations 003 and 008 created them. A released migration must build the same
 * statements forever, so they name their tables here rather than through VERSIONED_CACHE_TABLES,
 * which follows the current schema (009 replaced the page boundaries with checkpoints).
 */
const CACHE_TABLES_003 = Object.freeze(['query_totals', 'query_page_boundaries'] as const)

export function storedQueryStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  const bigint = sql.raw(dialect === 'sqlite' ? 'integer' : 'bigint')
  return [
    db.schema.createTable(META_TABLE).ifNotExists()
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text'),
    db.insertInto(META_TABLE).values({ key: DATA_VERSION_KEY, value: '0' }).onConflict((oc) => oc.column('key').doNothing()),
    db.schema.createTable('stored_queries').ifNotExists()
      .addColumn('query_id', 'text', (c) => c.primaryKey())
      .addColumn('query_version', 'integer', (c) => c.notNull())
      .addColumn('dataset', 'text', (c) => c.notNull())
      .addColumn('canonical', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull()),
    db.schema.createTable(CACHE_TABLES_003[0]).ifNotExists()
      .addColumn('query_id', 'text', (c) => c.notNull())
      .addColumn('data_version', 'integer', (c) => c.notNull())
      .addColumn('total', bigint, (c) => c.notNull())
      .addPrimaryKeyConstraint('query_totals_pk', ['query_id', 'data_version'] as never),
    db.schema.createTable(CACHE_TABLES_003[1]).ifNotExists()
      .addColumn('query_id', 'text', (c) => c.notNull())
      .addColumn('per_page', 'integer', (c) => c.notNull())
      .addColumn('data_version', 'integer', (c) => c.notNull())
      .addColumn('page', 'integer', (c) => c.notNull())
      .addColumn('after_key', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('query_page_boundaries_pk', ['query_id', 'per_page', 'data_version', 'page'] as never),
  ]
}

/**
 * The insertion-order column of the cache tables on PostgreSQL, which has no rowid: the oldest rows
 * are trimmed by it (execute/cache-trim.ts). SQLite trims by rowid and gets no column.
 */
export const CACHE_ORDER_COLUMN = 'insert_seq'

/**
 * Migration 008 (PostgreSQL only): `insert_seq bigint generated always as identity` on each cache
 * table, filled for rows already there, with an index so a trim is a range delete.
 */
export function cacheOrderStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'postgres') return []
  return CACHE_TABLES_003.flatMap((table) => cacheOrderColumn(db, table))
}

function cacheOrderColumn(db: Kysely<any>, table: string): Compilable[] {
  const add = sql`alter table ${sql.table(table)} add column if not exists ${sql.id(CACHE_ORDER_COLUMN)} bigint generated always as identity`
  const index = sql`create index if not exists ${sql.id(`${table}_by_${CACHE_ORDER_COLUMN}`)} on ${sql.table(table)} (${sql.id(CACHE_ORDER_COLUMN)})`
  return [add, index].map((s) => ({ compile: () => s.compile(db) }))
}

/**
 * Migration 009: remembered sort keys by position in the result, independent of `per_page`
 * (execute/cursor.ts). `position` N holds the sort key (sort values, then the primary key, as JSON)
 * of the result's N-th row, so the rows after it start at row N + 1: a page boundary at 50 a page
 * (position 50 * page) serves every other page size too, and the checkpoints one pass writes every
 * few hundred rows make any page a seek plus a bounded skip. It replaces
 * `query_page_boundaries`, whose (per_page, page) key it generalises; that table is dropped (a
 * cache: nothing is lost but work). On PostgreSQL the table gets its insertion-order column at
 * once (see 008).
 */
export function checkpointTableStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  const bigint = sql.raw(dialect === 'sqlite' ? 'integer' : 'bigint')
  return [
    db.schema.createTable(VERSIONED_CACHE_TABLES[1]).ifNotExists()
      .addColumn('query_id', 'text', (c) => c.notNull())
      .addColumn('data_version', 'integer', (c) => c.notNull())
      .addColumn('position', bigint, (c) => c.notNull())
      .addColumn('after_key', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('query_checkpoints_pk', ['query_id', 'data_version', 'position'] as never),
    ...(dialect === 'postgres' ? cacheOrderColumn(db, VERSIONED_CACHE_TABLES[1]) : []),
    db.schema.dropTable(CACHE_TABLES_003[1]).ifExists(),
  ]
}

/**
 * Migration 010: what bounds stored queries (execute/stored-queries.ts). `owner` is who stored the
 * query first (opaque, e.g. an API key id; NULL when stored without one), `bytes` the size of its
 * canonical JSON in UTF-8, `last_used_at` when it was last stored or paged (refreshed at most hourly).
 * Existing rows count as used when created and belong to no owner. The indexes serve the two
 * trims: an owner's least recently used queries first (with `bytes`, so summing an owner's storage
 * reads only the index), and every query unused since a cutoff.
 */
export function storedQueryUsageStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  const utf8Bytes = dialect === 'sqlite' ? sql`length(cast(canonical as blob))` : sql`octet_length(canonical)`
  return [
    db.schema.alterTable('stored_queries').addColumn('owner', 'text'),
    db.schema.alterTable('stored_queries').addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0)),
    db.schema.alterTable('stored_queries').addColumn('last_used_at', 'text', (c) => c.notNull().defaultTo('')),
    db.updateTable('stored_queries').set({ bytes: utf8Bytes, last_used_at: sql.ref('created_at') }),
    db.schema.createIndex('stored_queries_by_owner_lru').ifNotExists().on('stored_queries').columns(['owner', 'last_used_at', 'bytes']),
    db.schema.createIndex('stored_queries_by_last_used').ifNotExists().on('stored_queries').column('last_used_at'),
  ]
}
