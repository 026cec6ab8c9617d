/**
 * @module The similarity index (migration `014-similar-companies`): each company's similar
 * companies (spec 4.5) as `similarCompanies` answers them, computed ahead by `buildSimilarIndex`
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
