/**
 * @module Migration 016: an index of every tags link table on its value folded to lower case (ASCII
 * letters only) and its owner. Tag conditions compare the folded value (compile/tags.ts), so that
 * `industries=software` finds "Software"; this index is the one they look their values up in, as
 * the plain `(value, owner)` index served the case-sensitive comparison. The expression is the
 * compiler's own (`SqlDialect.foldForEquality`), which each planner must match exactly to use it.
 */
import { sql, type Compilable, type Kysely } from 'kysely'
import { datasets } from '../../catalog/index.js'
import { postgresDialect } from '../../compile/dialects/postgres.js'
import { sqliteDialect } from '../../compile/dialects/sqlite.js'
import type { DialectName } from './column-types.js'

export function tagFoldIndexStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  const fold = (dialect === 'postgres' ? postgresDialect : sqliteDialect).foldForEquality
  const out: Compilable[] = []
  for (const d of Object.values(datasets)) {
    for (const f of Object.values(d.fields)) {
      if (!f.tags) continue
      const t = f.tags
      out.push({
        compile: () => sql`create index if not exists ${sql.id(`${t.table}_by_folded_value`)} on ${sql.table(t.table)} (${fold(sql.id(t.valueColumn))}, ${sql.id(t.ownerColumn)})`.compile(db),
      })
    }
  }
  return out
}
