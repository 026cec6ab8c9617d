/**
 * @module An in-memory copy of a database's datasets, for the reference evaluator. It is read
 * once, typed by the catalog (never by hard-coded field names), and then queried by plain JS, so
 * that property tests can compare the SQL engine with an implementation that shares none of its
 * code paths beyond the catalog itself.
 */
import type { Kysely } from 'kysely'
import type { Scalar } from '../ast/nodes.js'
import type { DatasetDef, DatasetName, FieldDef } from '../catalog/define.js'
import { DATASET_NAMES, datasets, primaryKeyColumn, relations } from '../catalog/index.js'
import { openTarget } from '../store/open-target.js'

/** One record: scalar fields by public field name, values typed as the checker's normal form types them. */
export type SnapshotRow = Readonly<Record<string, Scalar>>

export interface DatasetSnapshot {
  readonly def: DatasetDef
  /** Primary keys in ascending order. */
  readonly ids: readonly number[]
  readonly rows: ReadonlyMap<number, SnapshotRow>
  /** Tags field name → owner primary key → its values (owners without values are absent). */
  readonly tags: ReadonlyMap<string, ReadonlyMap<number, ReadonlySet<string>>>
}

/** A link table's rows, columns by name (only the integer key columns are kept). */
export type LinkRow = Readonly<Record<string, number>>

export interface Snapshot {
  readonly datasets: Readonly<Record<DatasetName, DatasetSnapshot>>
  /** Link table name → its rows. */
  readonly links: ReadonlyMap<string, readonly LinkRow[]>
}

/** Records as plain objects: scalar fields by field name, tags fields as arrays of strings. */
export type RecordInput = Readonly<Record<string, unknown>>

export interface SnapshotInput {
  readonly companies?: readonly RecordInput[]
  readonly investors?: readonly RecordInput[]
  readonly fundings?: readonly RecordInput[]
  /** Link table name → rows, e.g. `{investments: [{investor_id: 1, company_id: 2}]}`. */
  readonly links?: Readonly<Record<string, readonly LinkRow[]>>
}

/**
 * Converts a stored or hand-written value to the type the normal form uses for the field:
 * numbers for integer/number, true/false for boolean (stored as 0/1), text otherwise.
 */
export function toFieldValue(field: FieldDef, raw: unknown): Scalar {
  if (raw === null || raw === undefined) return null
  switch (field.type.kind) {
    case 'integer':
    case 'number':
      return typeof raw === 'bigint' ? Number(raw) : Number(raw)
    case 'boolean':
      return raw === true || raw === 1 || raw === '1' || raw === 'true'
    case 'string':
    case 'date':
    case 'datetime':
    case 'enum':
      return String(raw)
    case 'tags':
      throw new Error(`reference: tags field ${field.name} has no scalar value`)
  }
}

/** Builds a snapshot from plain records; `loadSnapshot` and hand-made unit-test data both go through here. */
export function createSnapshot(input: SnapshotInput): Snapshot {
  const built = {} as Record<DatasetName, DatasetSnapshot>
  for (const name of DATASET_NAMES) {
    const def = datasets[name]
    const fields = Object.values(def.fields) as FieldDef[]
    const rows = new Map<number, SnapshotRow>()
    const tags = new Map<string, Map<number, Set<string>>>()
    for (const f of fields) if (f.type.kind === 'tags') tags.set(f.name, new Map())
    for (const record of input[name] ?? []) {
      const row: Record<string, Scalar> = {}
      for (const f of fields) {
        if (f.type.kind === 'tags') continue
        row[f.name] = toFieldValue(f, record[f.name])
      }
      const pk = row[def.primaryKey]
      if (typeof pk !== 'number' || !Number.isInteger(pk)) throw new Error(`reference: ${name} record without integer ${def.primaryKey}`)
      rows.set(pk, Object.freeze(row))
      for (const [tagField, byOwner] of tags) {
        const values = record[tagField]
        if (!Array.isArray(values) || values.length === 0) continue
        byOwner.set(pk, new Set(values.map(String)))
      }
    }
    const ids = [...rows.keys()].sort((a, b) => a - b)
    built[name] = Object.freeze({ def, ids: Object.freeze(ids), rows, tags })
  }
  const links = new Map<string, readonly LinkRow[]>()
  for (const [table, rows] of Object.entries(input.links ?? {})) links.set(table, Object.freeze(rows.map((r) => Object.freeze({ ...r }))))
  return Object.freeze({ datasets: Object.freeze(built), links })
}

/** The part of `VentureDb` the snapshot needs: any Kysely instance over the dataset tables. */
export interface SnapshotSource {
  readonly db: Kysely<any>
}

/** Options of `loadSnapshot`. */
export interface LoadSnapshotOptions {
  /** A PostgreSQL URL's schema holding the tables (default: the server's search path). */
  readonly schema?: string
}

/**
 * Reads every dataset row, every tag value and every relation link table of a database into
 * memory: an open database (`openDatabase`, `openPostgres`, `createFixtureDatabase`), or one named
 * by a SQLite file path or a `postgres://` URL, which is opened read-only for the read and closed.
 * Meant for test fixtures (hundreds to a few thousand records), not for the million-row file.
 *
 * @example
 * const snapshot = await loadSnapshot('fixture.db')
 * const ids = evaluate(checked.filter, datasets.companies, snapshot)
 */
export async function loadSnapshot(source: SnapshotSource | string, options: LoadSnapshotOptions = {}): Promise<Snapshot> {
  if (typeof source === 'string') {
    const vdb = await openTarget(source, { mustExist: true, readonly: true, ...(options.schema !== undefined ? { schema: options.schema } : {}) })
    try {
      return await readSnapshot(vdb)
    } finally {
      await vdb.close()
    }
  }
  if (typeof source !== 'object' || source === null || typeof (source as { db?: { selectFrom?: unknown } }).db?.selectFrom !== 'function') {
    throw new TypeError(`loadSnapshot: expected an open ventureql database, a SQLite file path or a postgres:// URL, got ${source === null ? 'null' : typeof source}`)
  }
  return readSnapshot(source)
}

async function readSnapshot(vdb: SnapshotSource): Promise<Snapshot> {
  const input: Record<string, RecordInput[]> = {}
  for (const name of DATASET_NAMES) {
    const def = datasets[name]
    const pkColumn = primaryKeyColumn(def)
    const fields = Object.values(def.fields) as FieldDef[]
    const stored = (await vdb.db.selectFrom(def.table).selectAll().execute()) as Record<string, unknown>[]
    const byPk = new Map<number, Record<string, unknown>>()
    const records = stored.map((raw) => {
      const record: Record<string, unknown> = {}
      for (const f of fields) if (f.column) record[f.name] = raw[f.column]
      byPk.set(Number(raw[pkColumn]), record)
      return record
    })
    for (const f of fields) {
      if (!f.tags) continue
      const tagRows = (await vdb.db.selectFrom(f.tags.table).select([f.tags.ownerColumn, f.tags.valueColumn]).execute()) as Record<string, unknown>[]
      for (const t of tagRows) {
        const record = byPk.get(Number(t[f.tags.ownerColumn]))
        if (!record) continue
        const list = (record[f.name] ??= []) as unknown[]
        list.push(t[f.tags.valueColumn])
      }
    }
    input[name] = records
  }
  const links: Record<string, LinkRow[]> = {}
  for (const r of relations) {
    if (r.kind !== 'link' || links[r.table]) continue
    const rows = (await vdb.db.selectFrom(r.table).select([r.fromKey, r.toKey]).execute()) as Record<string, unknown>[]
    links[r.table] = rows.map((row) => ({ [r.fromKey]: Number(row[r.fromKey]), [r.toKey]: Number(row[r.toKey]) }))
  }
  return createSnapshot({ ...input, links })
}

/** Every distinct non-null value of a scalar field, or every distinct tag of a tags field. */
export function distinctValues(snapshot: Snapshot, dataset: DatasetName, fieldName: string): Scalar[] {
  const ds = snapshot.datasets[dataset]
  const byOwner = ds.tags.get(fieldName)
  const seen = new Set<Scalar>()
  if (byOwner) {
    for (const values of byOwner.values()) for (const v of values) seen.add(v)
  } else {
    for (const row of ds.rows.values()) {
      const v = row[fieldName]
      if (v !== null && v !== undefined) seen.add(v)
    }
  }
  return [...seen]
}
