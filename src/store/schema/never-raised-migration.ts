/**
 * @module Migration 015: a company with no funding round on record (and a total of 0) has
 * `last_funding_amount` 0, as a load now writes it (materialise.ts): the amount of its last round
 * is a known nothing, like its total_funding, and clients of the original service do arithmetic
 * on it (grammar-docs/guides/serving.md, "Missing values"). A company whose last round's amount is
 * undisclosed keeps NULL. The data version moves on (cached totals, page boundaries and ETags
 * are dropped). On an empty database nothing changes.
 */
import type { Compilable, Kysely } from 'kysely'
import { datasets } from '../../catalog/index.js'
import { columnOf } from '../sql-names.js'
import type { DialectName } from './column-types.js'
import { rawStatement } from './search-tables.js'
import { DATA_VERSION_KEY, META_TABLE, VERSIONED_CACHE_TABLES } from './stored-query-tables.js'

export function neverRaisedStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  return neverRaisedSql(dialect).map((text) => rawStatement(db, text))
}

export function neverRaisedSql(dialect: DialectName): string[] {
  const C = datasets.companies
  const F = datasets.fundings
  const c = (n: string) => columnOf(C, n)
  const companies = `"${C.table}"`
  const integer = dialect === 'postgres' ? 'bigint' : 'integer'
  const rounds = `select 1 from "${F.table}" e where e.${columnOf(F, 'company_id')} = ${companies}.${c('id')}`
  const changed = `${c('last_funding_amount')} is null and ${c('total_funding')} = 0 and not exists (${rounds})`
  return [
    // The version first, while the rows to change can still be seen.
    `update "${META_TABLE}" set value = cast(cast(value as ${integer}) + 1 as text) where key = '${DATA_VERSION_KEY}' and exists (select 1 from ${companies} where ${changed})`,
    `update ${companies} set ${c('last_funding_amount')} = 0 where ${changed}`,
    ...VERSIONED_CACHE_TABLES.map((table) =>
      `delete from "${table}" where data_version <> (select cast(value as ${integer}) from "${META_TABLE}" where key = '${DATA_VERSION_KEY}')`),
  ]
}
