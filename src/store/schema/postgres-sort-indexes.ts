/**
 * @module PostgreSQL indexes in the engine's descending sort order (migration 007; nothing on
 * SQLite). The engine orders `col DESC NULLS LAST, pk ASC` (compile/sort.ts). A PostgreSQL b-tree
 * serves an ORDER BY only in its own direction and NULL placement or the exact reverse of both,
 * so the ascending `(col, pk)` indexes of 001 and 004 serve `col ASC NULLS LAST, pk ASC` but not
 * the descending sorts: every hit was sorted (page 1 of all 100,000 companies by `svc_score desc`,
 * the default sort: a parallel sequential scan and top-N sort, 20 ms of SQL).
 *
 * Derived from the catalog: for every indexed scalar field (the one-column indexes of 001) and every
 * composite index of 004, the same columns with the last one in the order the engine writes for
 * `desc` (`applyOrder`: `desc nulls last` when the column is nullable, plain `desc` when NOT NULL,
 * since PostgreSQL does not treat the two as the same order), then the primary key ascending.
 */
import { sql, type Compilable, type Kysely, type RawBuilder } from 'kysely'
import { datasets, DATASET_NAMES, getField, primaryKeyColumn, type FieldDef } from '../../catalog/index.js'
import { postgresDialect } from '../../compile/dialects/postgres.js'
import type { DialectName } from './column-types.js'
import { COMPOSITE_INDEXES } from './composite-indexes.js'

export interface SortIndex {
  readonly table: string
  readonly name: string
  /** Leading columns, ascending (equality conditions of a composite index). */
  readonly leading: readonly string[]
  /** The sort column, descending in the engine's NULL placement. */
  readonly column: string
  readonly nullable: boolean
  readonly primaryKey: string
}

/** Every descending sort index, in catalog order. */
export function postgresSortIndexes(): SortIndex[] {
  const out: SortIndex[] = []
  for (const name of DATASET_NAMES) {
    const ds = datasets[name]
    const pk = primaryKeyColumn(ds)
    for (const f of Object.values(ds.fields) as FieldDef[]) {
      if (!f.indexed || f.tags || !f.column || f.column === pk || !f.sortable) continue
      out.push({ table: ds.table, name: `${ds.table}_${f.column}_desc`, leading: [], column: f.column, nullable: f.nullable, primaryKey: pk })
    }
  }
  for (const index of COMPOSITE_INDEXES) {
    const ds = datasets[index.dataset]
    const fields = index.fields.map((n) => {
      const f = getField(ds, n)
      if (!f?.column) throw new Error(`store: composite index on ${ds.name} names ${n}, which is not a scalar column`)
      return f
    })
    const last = fields[fields.length - 1]!
    const leading = fields.slice(0, -1).map((f) => f.column!)
    out.push({
      table: ds.table, name: `${ds.table}_by_${[...leading, last.column!].join('_')}_desc`,
      leading, column: last.column!, nullable: last.nullable, primaryKey: primaryKeyColumn(ds),
    })
  }
  return out
}

/** `desc nulls last` where the engine writes it (nullable columns), `desc` otherwise. */
function descending(nullable: boolean): RawBuilder<unknown> {
  return sql.raw(nullable && !postgresDialect.nullsLastByDefault.desc ? 'desc nulls last' : 'desc')
}

export function postgresSortIndexStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'postgres') return []
  return postgresSortIndexes().map((i) => {
    const statement = sql`create index if not exists ${sql.id(i.name)} on ${sql.table(i.table)} (${sql.join([
      ...i.leading.map((c) => sql.id(c)),
      sql`${sql.id(i.column)} ${descending(i.nullable)}`,
      sql.id(i.primaryKey),
    ])})`
    return { compile: () => statement.compile(db) }
  })
}
