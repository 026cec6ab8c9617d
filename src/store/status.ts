/**
 * @module What a readiness probe asks of the database (`GET /readyz`): that it answers a statement,
 * that every migration this code knows has been applied (a server on a database an older or newer
 * release migrated would answer wrongly), and its data version.
 */
import { MIGRATIONS, MIGRATION_TABLE } from './migrations.js'
import { dataVersion, type VentureDb } from './open.js'

export interface DatabaseStatus {
  /** The data version (bumped by every ingest); 0 for a database never loaded. */
  readonly dataVersion: number
  /** Migrations this code defines that the database has not applied, in order. Empty: current. */
  readonly pendingMigrations: readonly string[]
  /** Migrations the database records that this code does not know (a newer release migrated it). */
  readonly unknownMigrations: readonly string[]
}

/** Reads the status with two small statements; a database that cannot be reached rejects. */
export async function databaseStatus(vdb: VentureDb): Promise<DatabaseStatus> {
  const rows = await vdb.db.selectFrom(MIGRATION_TABLE).select('name').execute()
  const applied = new Set(rows.map((r) => String(r.name)))
  const known = new Set(MIGRATIONS.map((m) => m.name))
  return Object.freeze({
    dataVersion: await dataVersion(vdb),
    pendingMigrations: Object.freeze(MIGRATIONS.filter((m) => !applied.has(m.name)).map((m) => m.name)),
    unknownMigrations: Object.freeze([...applied].filter((name) => !known.has(name)).sort()),
  })
}
