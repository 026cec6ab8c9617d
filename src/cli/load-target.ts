/**
 * @module What `import` and `generate` share about the database they load: opening a SQLite file
 * or a PostgreSQL URL (`--schema`), and the one hook that runs after a load into PostgreSQL has
 * committed.
 */
import type { IngestChanged } from '../store/ingest.js'
import type { IngestPostgresOptions } from '../store/ingest-postgres.js'
import type { PostgresVentureDb, VentureDb } from '../store/open.js'
import { openDatabase } from '../store/open.js'
import { isPostgresUrl, openTarget, TargetError } from '../store/open-target.js'

/**
 * Runs after every `import`, `generate` and `copy` into PostgreSQL has committed, with what the
 * load wrote (`changed` undefined: everything may have changed, e.g. a load into an empty schema or
 * a copy). THE single call site for keeping the PostgreSQL search index current after a load:
 *
 *   MERGE(search): `await refreshPostgresSearchIndex(vdb.db, changed)` goes here
 *   (src/store/search-index.ts, being written on the search branch).
 *
 * Until then it does nothing: search on PostgreSQL does not exist on this branch.
 */
export async function refreshSearchAfterLoad(vdb: PostgresVentureDb, changed: IngestChanged | undefined): Promise<void> {
  void vdb
  void changed
}

/** The PostgreSQL loader's options as the CLI uses them. */
export const CLI_POSTGRES_LOAD: IngestPostgresOptions = Object.freeze({ afterLoad: refreshSearchAfterLoad })

/**
 * Opens the database a load writes: a PostgreSQL URL (migrated, `schema` created if missing), or a
 * SQLite file, created when missing.
 */
export async function openLoadTarget(database: string, schema: string | undefined): Promise<VentureDb> {
  if (isPostgresUrl(database)) return openTarget(database, { ...(schema !== undefined ? { schema } : {}) })
  if (schema !== undefined) throw new TargetError(`--schema applies to a PostgreSQL database (postgres://...), not to the SQLite file ${database}`)
  return openDatabase(database)
}
