/**
 * @module The fixture database other tests build on: a few hundred generated companies in memory
 * (or in `file`), deterministic for a seed, loaded through the regular loader. Small enough to
 * build in well under a second, shaped so that filters match non-trivially (every enum value
 * occurs, tag values repeat, most nullable fields have NULLs, investors with 0, 1 and many
 * portfolio companies). Unlike `ventureql generate` and the demo database, its dates do not move
 * with the calendar: they are relative to `FIXTURE_AS_OF` unless `asOf` says otherwise, so results
 * computed from it (golden values, snapshots) stay the same whatever day the tests run.
 */
import { openDatabase, type SqliteVentureDb } from '../open.js'
import { generateInto } from './build.js'

/** The fixture's "today" (`GenerateOptions.asOf`): fixed, so tests give the same answers every day. */
export const FIXTURE_AS_OF = '2024-06-30'

export interface FixtureOptions {
  /** Number of companies (default 400; investors are one per 20, at least 6). */
  readonly companies?: number
  /** PRNG seed (default 1). */
  readonly seed?: number
  /** Database file; in memory when absent. */
  readonly file?: string
  /** The generator's "today", YYYY-MM-DD (default `FIXTURE_AS_OF`). */
  readonly asOf?: string
}

export async function createFixtureDatabase(options: FixtureOptions = {}): Promise<SqliteVentureDb> {
  const vdb = openDatabase(options.file ?? ':memory:')
  try {
    generateInto(vdb, { companies: options.companies ?? 400, seed: options.seed ?? 1, asOf: options.asOf ?? FIXTURE_AS_OF })
  } catch (error) {
    await vdb.close()
    throw error
  }
  return vdb
}
