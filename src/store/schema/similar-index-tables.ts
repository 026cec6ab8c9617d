/**
 * @module The similarity index (migration `014-similar-companies`): each company's similar
 * companies (spec 4.5) by the score of `similarCompanies`, computed ahead by `buildSimilarIndex`
 * (records/similar-index-build.ts, `ventureql similar-index`) and served when they are of the
 * current data version. Derived data of the dataset, like the search index: on SQLite it lives in
 * the data file (only the build writes the table).
 */
import { sql, type Compilable, type Kysely } from 'kysely'
import { idType, type DialectName } from './column-types.js'

export const SIMILAR_INDEX_TABLE = 'similar_companies'

export function similarIndexStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  return [
    db.schema.createTable(SIMILAR_INDEX_TABLE).ifNotExists()
      .addColumn('company_id', sql.raw(idType(dialect)), (c) => c.primaryKey())
      // The data version the answer was computed at: served only while it is the current one.
      .addColumn('data_version', 'integer', (c) => c.notNull())
      // JSON, best first: [[id, score], ...], at most SIMILAR_LIMIT pairs; scores as JavaScript
      // writes doubles, which read back to the same bits.
      .addColumn('neighbours', 'text', (c) => c.notNull()),
  ]
}

/** The weights the index was built with (one row, `name` 'weights'): kept so an update scores as the build did. */
export const SIMILAR_INDEX_STATE_TABLE = 'similar_companies_state'

/**
 * Migration `019-similar-index-update`: each answer's fingerprint (what it depends on of its
 * company's own data and the weights), so an update recomputes only the companies an import
 * changed and those whose answer they can enter or leave; and the weights the index was built with.
 */
export function similarIndexUpdateStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  // PostgreSQL may run it again over its own result (a migration test re-runs the later ones).
  const addColumn = dialect === 'postgres'
    ? sql`alter table ${sql.table(SIMILAR_INDEX_TABLE)} add column if not exists fingerprint text`
    : sql`alter table ${sql.table(SIMILAR_INDEX_TABLE)} add column fingerprint text`
  return [
    { compile: () => addColumn.compile(db) },
    db.schema.createTable(SIMILAR_INDEX_STATE_TABLE).ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull()),
  ]
}
