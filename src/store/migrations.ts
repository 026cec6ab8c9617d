/**
 * @module The schema migrations, listed in code (no file scanning, so they work from the tsup
 * bundle). Each migration is a list of unexecuted statements built for a dialect; the same list
 * runs through Kysely's `Migrator` (async, any dialect) and through `applyMigrationsSync`, which
 * opening a SQLite file uses because `openDatabase` is synchronous. Both keep their bookkeeping in
 * Kysely's own `kysely_migration` table, so either path sees what the other applied.
 */
import { Migrator, type Compilable, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import type BetterSqlite3 from 'better-sqlite3'
import { datasetTableStatements } from './schema/dataset-tables.js'
import { detailTableStatements } from './schema/detail-tables.js'
import { cacheOrderStatements, checkpointTableStatements, storedQueryStatements, storedQueryUsageStatements } from './schema/stored-query-tables.js'
import { compositeIndexStatements } from './schema/composite-indexes.js'
import { apiKeyStatements } from './schema/api-key-tables.js'
import { companyHitFieldsStatements, searchIndexStatements, typoDictionaryStatements, typoNameStatements } from './search-index.js'
import { postgresSearchIndexStatements, postgresTypoDictionaryStatements } from './search-index-postgres.js'
import { postgresSortIndexStatements } from './schema/postgres-sort-indexes.js'
import { missingValueStatements } from './schema/missing-values-migration.js'
import type { DialectName } from './schema/column-types.js'
import { similarIndexStatements, similarIndexUpdateStatements } from './schema/similar-index-tables.js'
import { neverRaisedStatements } from './schema/never-raised-migration.js'
import { tagFoldIndexStatements } from './schema/tag-fold-indexes.js'

export interface StoreMigration {
  readonly name: string
  readonly statements: (db: Kysely<any>, dialect: DialectName) => Compilable[]
}

/** In application order; never rename or reorder an entry once released (names are recorded). */
export const MIGRATIONS: readonly StoreMigration[] = Object.freeze([
  { name: '001-dataset-tables', statements: datasetTableStatements },
  { name: '002-detail-tables', statements: detailTableStatements },
  { name: '003-stored-queries', statements: storedQueryStatements },
  { name: '004-composite-indexes', statements: compositeIndexStatements },
  { name: '005-api-keys', statements: apiKeyStatements },
  { name: '006-search-index', statements: searchIndexStatements },
  { name: '007-postgres-sort-indexes', statements: postgresSortIndexStatements },
  { name: '008-postgres-cache-order', statements: cacheOrderStatements },
  { name: '009-query-checkpoints', statements: checkpointTableStatements },
  { name: '010-stored-query-usage', statements: storedQueryUsageStatements },
  { name: '011-postgres-search-index', statements: postgresSearchIndexStatements },
  { name: '012-missing-values', statements: missingValueStatements },
  { name: '013-search-hit-fields', statements: companyHitFieldsStatements },
  { name: '014-similar-companies', statements: similarIndexStatements },
  { name: '015-never-raised-amounts', statements: neverRaisedStatements },
  { name: '016-tag-fold-indexes', statements: tagFoldIndexStatements },
  {
    name: '017-search-typo-dictionary',
    statements: (db, dialect) => [...typoDictionaryStatements(db, dialect), ...postgresTypoDictionaryStatements(db, dialect)],
  },
  {
    name: '018-search-typo-names',
    statements: (db, dialect) => [...typoNameStatements(db, dialect), ...postgresTypoDictionaryStatements(db, dialect)],
  },
  { name: '019-similar-index-update', statements: similarIndexUpdateStatements },
])

export const MIGRATION_TABLE = 'kysely_migration'
const MIGRATION_LOCK_TABLE = 'kysely_migration_lock'
const MIGRATION_LOCK_ID = 'migration_lock'

/** A Kysely provider over `MIGRATIONS` for `dialect`. */
export function migrationProvider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {}
      for (const m of MIGRATIONS) {
        out[m.name] = {
          async up(db: Kysely<any>) {
            for (const statement of m.statements(db, dialect)) await db.executeQuery(statement.compile())
          },
        }
      }
      return out
    },
  }
}

/**
 * A Migrator over `MIGRATIONS`. `schema` (PostgreSQL) is where the bookkeeping tables live: Kysely
 * otherwise takes a `kysely_migration` table in ANY schema of the database as this one's, and a
 * database whose `search_path` names another schema would never be migrated.
 */
export function createMigrator(db: Kysely<any>, dialect: DialectName, schema?: string): Migrator {
  return new Migrator({ db, provider: migrationProvider(dialect), ...(schema ? { migrationTableSchema: schema } : {}) })
}

/**
 * Applies the pending migrations through better-sqlite3 in one transaction. `db` only builds
 * statements (it is never executed); each statement is compiled and run synchronously.
 * Returns the names applied.
 */
export function applyMigrationsSync(db: Kysely<any>, sqlite: BetterSqlite3.Database): string[] {
  // The bookkeeping tables exactly as Kysely's Migrator creates them.
  sqlite.exec(`create table if not exists "${MIGRATION_TABLE}" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null)`)
  sqlite.exec(`create table if not exists "${MIGRATION_LOCK_TABLE}" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null)`)
  sqlite.prepare(`insert or ignore into "${MIGRATION_LOCK_TABLE}" ("id", "is_locked") values (?, 0)`).run(MIGRATION_LOCK_ID)
  const applied = new Set((sqlite.prepare(`select name from "${MIGRATION_TABLE}"`).pluck().all() as string[]))
  const pending = MIGRATIONS.filter((m) => !applied.has(m.name))
  if (pending.length === 0) return []
  sqlite.transaction(() => {
    for (const m of pending) {
      for (const statement of m.statements(db, 'sqlite')) {
        const compiled = statement.compile()
        sqlite.prepare(compiled.sql).run(...(compiled.parameters as unknown[]))
      }
      sqlite.prepare(`insert into "${MIGRATION_TABLE}" ("name", "timestamp") values (?, ?)`).run(m.name, new Date().toISOString())
    }
  }).immediate()
  return pending.map((m) => m.name)
}
