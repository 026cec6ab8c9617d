/**
 * @module The tables the filter language queries, derived from the catalog: one table per
 * dataset (one column per scalar field), one link table per tags field, one per link relation.
 * Detail tables (stories, people, time series, ...) that no filter reaches live in their own
 * migration.
 */
import { sql, type Compilable, type CreateTableBuilder, type Kysely } from 'kysely'
import { datasets, DATASET_NAMES, primaryKeyColumn, relations, type FieldDef } from '../../catalog/index.js'
import { columnType, idType, textType, type DialectName } from './column-types.js'

/** Extra columns of link tables that are not part of any relation's join (spec 2.13). */
const LINK_TABLE_EXTRA_COLUMNS: Record<string, readonly (readonly [string, string])[]> = {
  investments: [['first_invested_on', 'text']],
}

/**
 * Tables whose primary key is the whole point (tag and link rows) are stored as the key's own
 * b-tree on SQLite: no hidden rowid and no duplicate autoindex, about a third less space.
 */
export function withoutRowid(table: CreateTableBuilder<any, any>, dialect: DialectName): CreateTableBuilder<any, any> {
  return dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table
}

/**
 * The name of the one-column index (`column`, then the primary key) of a dataset's indexed field:
 * the index a keys query walks when it is steered to walk its first sort key (compile/plan.ts).
 */
export function columnIndexName(table: string, column: string): string {
  return `${table}_${column}`
}

export async function createDatasetTables(db: Kysely<any>, dialect: DialectName): Promise<void> {
  for (const statement of datasetTableStatements(db, dialect)) await db.executeQuery(statement.compile())
}

/**
 * The DDL of `createDatasetTables` as unexecuted statements, so that the store can also apply it
 * synchronously through better-sqlite3 (opening a database is synchronous) and through Kysely's
 * Migrator (async, any dialect) from one definition.
 */
export function datasetTableStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  const out: Compilable[] = []
  for (const name of DATASET_NAMES) {
    const ds = datasets[name]
    const pk = primaryKeyColumn(ds)
    let table = db.schema.createTable(ds.table).ifNotExists()
    table = table.addColumn(pk, sql.raw(idType(dialect)), (c) => c.primaryKey())
    for (const f of Object.values(ds.fields) as FieldDef[]) {
      if (!f.column || f.column === pk || f.type.kind === 'tags') continue
      const type = f.type.kind
      table = table.addColumn(f.column, sql.raw(columnType(dialect, type)), (c) => (f.nullable ? c : c.notNull().defaultTo(0)))
    }
    out.push(table)

    for (const f of Object.values(ds.fields) as FieldDef[]) {
      if (f.tags) {
        out.push(db.schema.createTable(f.tags.table).ifNotExists()
          .addColumn(f.tags.ownerColumn, sql.raw(idType(dialect)), (c) => c.notNull())
          .addColumn(f.tags.valueColumn, sql.raw(textType(dialect)), (c) => c.notNull())
          .addPrimaryKeyConstraint(`${f.tags.table}_pk`, [f.tags.ownerColumn, f.tags.valueColumn] as never)
          .$call((t) => withoutRowid(t, dialect)))
        // value → owner: has_any / has_all probes start from the value.
        out.push(db.schema.createIndex(`${f.tags.table}_by_value`).ifNotExists().on(f.tags.table).columns([f.tags.valueColumn, f.tags.ownerColumn]))
      } else if (f.indexed && f.column && f.column !== pk) {
        out.push(db.schema.createIndex(columnIndexName(ds.table, f.column)).ifNotExists().on(ds.table).columns([f.column, pk]))
      }
    }
  }

  const linkTables = new Map<string, { a: string; b: string }>()
  for (const r of relations) {
    if (r.kind !== 'link') continue
    const known = linkTables.get(r.table)
    if (!known) linkTables.set(r.table, { a: r.fromKey, b: r.toKey })
  }
  for (const [tableName, { a, b }] of linkTables) {
    let table = db.schema.createTable(tableName).ifNotExists()
      .addColumn(a, sql.raw(idType(dialect)), (c) => c.notNull())
      .addColumn(b, sql.raw(idType(dialect)), (c) => c.notNull())
    for (const [col, type] of LINK_TABLE_EXTRA_COLUMNS[tableName] ?? []) table = table.addColumn(col, sql.raw(type))
    out.push(withoutRowid(table.addPrimaryKeyConstraint(`${tableName}_pk`, [a, b] as never), dialect))
    out.push(db.schema.createIndex(`${tableName}_by_${b}`).ifNotExists().on(tableName).columns([b, a]))
  }
  return out
}
