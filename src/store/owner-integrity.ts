/**
 * @module Which tag and link tables have no orphan rows, recorded per data version.
 *
 * A count such as "the funding events of this investor" or "the companies in Fintech or Software"
 * can be read from the link or tag table alone (`count(distinct funding_id) from funding_investors
 * where ...`) instead of looking each key up in the dataset table (4,449 primary-key lookups for the
 * largest portfolio at 1,000,000 companies: 7.7 ms against 0.2 ms, bench/results/1m.md). The two
 * agree only when every row of the link or tag table names a record that exists, which the schema
 * does not enforce (no foreign keys: a funding's `investor_ids` may name an investor loaded later,
 * and a record can be replaced). So the loader checks it at the end of every ingest, after the
 * data version moves, and records the tables that passed under that version (`meta` key
 * `complete_owners`). The engine counts from the link table only when the record's version is the
 * current one (`execute/counts.ts`); anything that changes rows without an ingest (`copy`, a test's
 * direct write) moves the version, so a stale record is ignored, never trusted.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { DATASET_NAMES, datasets, primaryKeyColumn, relations } from '../catalog/index.js'
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { META_TABLE } from './schema/stored-query-tables.js'

export const COMPLETE_OWNERS_KEY = 'complete_owners'

/** One check: `owner` is `table.column`; `sql` answers a row when some row's owner does not exist. */
export interface OwnerCheck {
  readonly owner: string
  readonly sql: string
}

/** The name a count from a link or tag table requires (`funding_investors.funding_id`). */
export const ownerName = (table: string, column: string): string => `${table}.${column}`

function check(table: string, column: string, dataset: DatasetDef): OwnerCheck {
  return {
    owner: ownerName(table, column),
    // Distinct owners first: each is looked up once, not once per tag or link row.
    sql: `select 1 from (select distinct "${column}" as k from "${table}") x where not exists (select 1 from "${dataset.table}" d where d."${primaryKeyColumn(dataset)}" = x.k) limit 1`,
  }
}

/** Every owner column a count may be read from: each tags field's owner, each link relation's `fromKey`. */
export function ownerChecks(): readonly OwnerCheck[] {
  const out = new Map<string, OwnerCheck>()
  for (const name of DATASET_NAMES) {
    const ds = datasets[name]
    for (const field of Object.values(ds.fields) as FieldDef[]) {
      if (field.tags) out.set(ownerName(field.tags.table, field.tags.ownerColumn), check(field.tags.table, field.tags.ownerColumn, ds))
    }
  }
  for (const r of relations) {
    if (r.kind === 'link') out.set(ownerName(r.table, r.fromKey), check(r.table, r.fromKey, datasets[r.from]))
  }
  return Object.freeze([...out.values()])
}

/** The record written to `meta`: the owners that passed, and the data version they were checked at. */
export function completeOwnersValue(version: number, owners: readonly string[]): string {
  return JSON.stringify({ data_version: version, owners: [...owners].sort() })
}

/** Checks every owner column and records those without orphans under `version` (SQLite, at the end of an ingest). */
export function recordCompleteOwnersSync(sqlite: BetterSqlite3.Database, version: number): readonly string[] {
  const passed = ownerChecks().filter((c) => sqlite.prepare(c.sql).get() === undefined).map((c) => c.owner)
  sqlite.prepare(`insert into ${META_TABLE} (key, value) values (?, ?) on conflict (key) do update set value = excluded.value`)
    .run(COMPLETE_OWNERS_KEY, completeOwnersValue(version, passed))
  return passed
}

/** The same on PostgreSQL, through a client of the ingest's transaction. */
export async function recordCompleteOwners(query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }>, version: number): Promise<readonly string[]> {
  const passed: string[] = []
  for (const c of ownerChecks()) if ((await query(c.sql)).rows.length === 0) passed.push(c.owner)
  await query(`insert into ${META_TABLE} (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value`, [COMPLETE_OWNERS_KEY, completeOwnersValue(version, passed)])
  return passed
}

/** Parses the record; an absent, malformed or other-version record trusts nothing. */
export function parseCompleteOwners(value: string | undefined, version: number): ReadonlySet<string> {
  if (value === undefined) return new Set()
  try {
    const parsed = JSON.parse(value) as { data_version?: unknown; owners?: unknown }
    if (parsed.data_version !== version || !Array.isArray(parsed.owners)) return new Set()
    return new Set(parsed.owners.filter((o): o is string => typeof o === 'string'))
  } catch {
    return new Set()
  }
}

const remembered = new WeakMap<Kysely<any>, { version: number; owners: ReadonlySet<string> }>()

/**
 * The owner columns without orphans at `version`, read once per database handle and version. A
 * missing record is not remembered: an ingest writes it just after moving the version, and a count
 * in between must not keep the slow form for the whole version.
 */
export async function completeOwners(db: Kysely<any>, version: number): Promise<ReadonlySet<string>> {
  const known = remembered.get(db)
  if (known && known.version === version) return known.owners
  const row = await db.selectFrom(META_TABLE).select('value').where('key', '=', COMPLETE_OWNERS_KEY).executeTakeFirst()
  const owners = parseCompleteOwners(row?.value as string | undefined, version)
  if (owners.size > 0) remembered.set(db, { version, owners })
  return owners
}
