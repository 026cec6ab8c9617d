/**
 * @module What `import` and `generate` share about the database they load: opening a SQLite file
 * or a PostgreSQL URL (`--schema`). The loaders keep the search index current themselves.
 */
import type { IngestChanged } from '../store/ingest.js'
import type { IngestPostgresOptions } from '../store/ingest-postgres.js'
import type { PostgresVentureDb, VentureDb } from '../store/open.js'
import { openDatabase } from '../store/open.js'
import { isPostgresUrl, openTarget, TargetError } from '../store/open-target.js'

/**
 * Opens the database a load writes: a PostgreSQL URL (migrated, `schema` created if missing), or a
 * SQLite file, created when missing.
 */
export async function openLoadTarget(database: string, schema: string | undefined): Promise<VentureDb> {
  if (isPostgresUrl(database)) return openTarget(database, { ...(schema !== undefined ? { schema } : {}) })
  if (schema !== undefined) throw new TargetError(`--schema applies to a PostgreSQL database (postgres://...), not to the SQLite file ${database}`)
  return openDatabase(database)
}
