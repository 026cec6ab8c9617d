/**
 * @module Migration 012: brings a database loaded before the one missing-value rule
 * (grammar-docs/guides/serving.md, "Missing values") under it, so that what every response shows is what filters find, without
 * loading the data again. What the loader now writes, applied to what is there:
 *
 * - a blank text (`''`, spaces only) on a text field of a dataset is NULL (record-schemas.ts);
 * - a company without a stage has the stage 'Unknown' (ingest.ts);
 * - `total_funding` is 0 for a company without funding rounds (and no stated total), and for one
 *   with rounds the sum of the disclosed U.S.-dollar amounts, NULL when no amount is disclosed
 *   (materialise.ts); it was NULL and 0 the other way round;
 * - the search index's investor funding (spec 2.9 `investor_funding`) follows the same rule: its
 *   column loses NOT NULL and is recomputed;
 * - the data version is bumped (when there is data), which drops cached totals and page
 *   boundaries and changes every ETag.
 *
 * On a new, empty database every statement touches nothing. Search ranks (positions, not values)
 * are not renumbered here: ties in importance may keep their old order until the next ingest.
 * Cost: one pass per text column and two over the companies (about 10 s for a million companies).
 */
import type { Compilable, Kysely } from 'kysely'
import { datasets } from '../../catalog/index.js'
import { columnOf, linkOf } from '../sql-names.js'
import type { DialectName } from './column-types.js'
import { rawStatement, SEARCH_TABLES } from './search-tables.js'
import { DATA_VERSION_KEY, META_TABLE, VERSIONED_CACHE_TABLES } from './stored-query-tables.js'

export function missingValueStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  return missingValueSql(dialect).map((text) => rawStatement(db, text))
}

/** The statements of migration 012 for `dialect`, in order. */
export function missingValueSql(dialect: DialectName): string[] {
  const pg = dialect === 'postgres'
  const C = datasets.companies
  const F = datasets.fundings
  const I = datasets.investors
  const c = (n: string) => columnOf(C, n)
  const f = (n: string) => columnOf(F, n)
  const companies = `"${C.table}"`
  const fundings = `"${F.table}"`
  const out: string[] = []

  for (const d of Object.values(datasets)) {
    for (const field of Object.values(d.fields)) {
      if (field.type.kind !== 'string' || !field.column) continue
      const col = columnOf(d, field.name)
      out.push(`update "${d.table}" set ${col} = null where trim(${col}) = ''`)
    }
  }
  out.push(`update ${companies} set ${c('stage')} = 'Unknown' where ${c('stage')} is null`)

  const roundsOf = `from ${fundings} e where e.${f('company_id')} = ${companies}.${c('id')}`
  out.push(`update ${companies} set ${c('total_funding')} = 0 where ${c('total_funding')} is null and not exists (select 1 ${roundsOf})`)
  const usd = (e: string) => `case when ${e}.${f('amount')} is null then null when upper(${e}.${f('currency')}) = 'USD' then ${e}.${f('amount')} else 0 end`
  out.push(`update ${companies} set ${c('total_funding')} = (select sum(${usd('e')}) ${roundsOf}) where exists (select 1 ${roundsOf})`)

  const ranks = `"${SEARCH_TABLES.investor.ranks}"`
  const id = `"${SEARCH_TABLES.investor.idColumn}"`
  if (pg) {
    out.push(`alter table ${ranks} alter column funding drop not null`, `alter table ${ranks} alter column funding drop default`)
  } else {
    // SQLite cannot drop a NOT NULL: the table is copied into one without it.
    const t = SEARCH_TABLES.investor
    out.push(
      `create table "${t.ranks}_012" (rank integer primary key, ${id} integer not null, name_key text, funding integer)`,
      `insert into "${t.ranks}_012" (rank, ${id}, name_key, funding) select rank, ${id}, name_key, funding from ${ranks}`,
      `drop table ${ranks}`,
      `alter table "${t.ranks}_012" rename to "${t.ranks}"`,
      `create index if not exists "${t.nameKeyIndex}" on ${ranks} (name_key, rank)`,
    )
  }
  const link = linkOf('fundings', 'investors')
  const dealsOf = `from ${link.table} l join ${fundings} e on e.${f('id')} = l.${link.fromKey} where l.${link.toKey} = ${ranks}.${id}`
  out.push(`update ${ranks} set funding = case when exists (select 1 ${dealsOf}) then (select sum(${usd('e')}) ${dealsOf}) else 0 end`)

  const hasData = `exists (select 1 from ${companies}) or exists (select 1 from "${I.table}") or exists (select 1 from ${fundings})`
  const integer = pg ? 'bigint' : 'integer'
  out.push(`update "${META_TABLE}" set value = cast(cast(value as ${integer}) + 1 as text) where key = '${DATA_VERSION_KEY}' and (${hasData})`)
  for (const table of VERSIONED_CACHE_TABLES) {
    out.push(`delete from "${table}" where data_version <> (select cast(value as ${integer}) from "${META_TABLE}" where key = '${DATA_VERSION_KEY}')`)
  }
  return out
}
