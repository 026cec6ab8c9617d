/**
 * @module Building the search index (tables in `schema/search-tables.ts`) from the dataset tables.
 * The build is plain SQL, so one definition serves migration 006 (which fills the index of a
 * database loaded before the index existed) and `refreshSearchIndex`, which every ingest runs after
 * materialising, because the ranks depend on derived figures (total_funding, portfolio_size).
 *
 * The build always starts over: ranks are positions in one global order, so a single new company
 * can move every rank after it. A million companies and 50,000 investors take 19.2-24.8 s with
 * the copies of migration 013, 16.7-22.6 s without (the search index build of
 * `ventureql generate`, same machine), under a tenth of a million-company load.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { Compilable, Kysely } from 'kysely'
import { datasets, relations } from '../catalog/index.js'
import { columnOf } from './sql-names.js'
import type { DialectName } from './schema/column-types.js'
import {
  COMPANY_HIT_FIELDS, companyRankColumns, FIRST_WORD_MARKER_CODE_POINT, MIN_EXPANDED_PREFIX, rawStatement, SEARCH_TABLES, searchTableDdl,
  instancesDdl, sqliteTypoNamesSelect, typoDictionaryDdl, typoKeysSelect, typoNameKeysSelect, type SearchTableNames,
} from './schema/search-tables.js'
import { MIN_DICTIONARY_WORD } from './search-typo.js'


/**
 * Characters stripped from the start of a name before the first-word marker is put in front, so
 * that `(Acme) Labs` and `"Acme"` still have `acme` as their marked first word. unicode61 splits on
 * all of them, so they carry nothing searchable.
 */
const LEADING_SEPARATORS = ` \t!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`

const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'`

/** `char(0xE000) || ltrim(name, ...)`: the name as the FTS name column stores it. */
function markedName(nameColumn: string): string {
  return `char(${FIRST_WORD_MARKER_CODE_POINT}) || ltrim(coalesce(${nameColumn}, ''), ${sqlText(LEADING_SEPARATORS)})`
}

function clear(t: SearchTableNames): string[] {
  return [
    `delete from "${t.ranks}"`,
    `delete from "${t.terms}"`,
    // Contentless FTS5 tables are emptied with this command ('delete' needs the old values).
    `insert into "${t.fts}" ("${t.fts}") values ('delete-all')`,
    // Rebuilt after the fill: a million inserts into a sorted index cost twice as much as sorting once.
    `drop index if exists "${t.nameKeyIndex}"`,
  ]
}

function finishTable(t: SearchTableNames): string[] {
  return [
    `create index if not exists "${t.nameKeyIndex}" on "${t.ranks}" (name_key, rank)`,
    // One b-tree per FTS table instead of the segments of many insert batches: fewer pages per query.
    `insert into "${t.fts}" ("${t.fts}") values ('optimize')`,
    // Shorter words are never looked up: prefixes of up to 3 characters have FTS5's own prefix index.
    `insert into "${t.terms}" (term) select term from "${t.vocab}" where length(term) >= ${MIN_EXPANDED_PREFIX}`,
    ...typoDictionaryUpdateSql(t),
  ]
}

/**
 * Brings the typo dictionary of a type up to date with its FTS index: words and names no record
 * has any more leave it with their keys, new ones come in with theirs; entries still there are not
 * touched, so an import costs the keys of the words and names it brought (the FTS table itself is
 * rebuilt). The current entries are gathered once into a temporary table (names come from the
 * `instances` vocabulary: a pass over the index's postings).
 */
export function typoDictionaryUpdateSql(t: SearchTableNames): string[] {
  const marker = `char(${FIRST_WORD_MARKER_CODE_POINT})`
  const word = `case when substr(term, 1, 1) = ${marker} then substr(term, 2) else term end`
  const words = `select word from (select ${word} as word from "${t.vocab}") where length(word) >= ${MIN_DICTIONARY_WORD}`
  const current = `temp."${t.typoWords}_current"`
  const fresh = (names: boolean) => `select word from ${current} where substr(word, 1, 1) ${names ? '=' : '<>'} ${marker} except select word from "${t.typoWords}"`
  return [
    instancesDdl(t),
    `drop table if exists ${current}`,
    `create temp table "${t.typoWords}_current" (word text primary key) without rowid`,
    `insert into ${current} (word) ${words} union ${sqliteTypoNamesSelect(t)}`,
    `delete from "${t.typoKeys}" where word in (select word from "${t.typoWords}" except select word from ${current})`,
    `delete from "${t.typoWords}" where word not in (select word from ${current})`,
    `insert into "${t.typoKeys}" (key, word) ${typoKeysSelect(fresh(false))}`,
    `insert into "${t.typoKeys}" (key, word) ${typoNameKeysSelect(fresh(true), 'sqlite')}`,
    `insert into "${t.typoWords}" (word) select word from ${current} except select word from "${t.typoWords}"`,
    `drop table ${current}`,
  ]
}

/** Migration 018 (SQLite): the names of the typo dictionary, added to the words it holds. */
export function typoNameStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'sqlite') return []
  return Object.values(SEARCH_TABLES).flatMap((t) => typoDictionaryUpdateSql(t)).map((text) => rawStatement(db, text))
}

/** Migration 015 (SQLite): the typo dictionary's tables, filled from the index's vocabulary. */
export function typoDictionaryStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'sqlite') return []
  return Object.values(SEARCH_TABLES).flatMap((t) => [...typoDictionaryDdl(t, 'sqlite'), ...typoDictionaryUpdateSql(t)]).map((text) => rawStatement(db, text))
}

/**
 * The statements that rebuild the whole index, in order. Importance (spec 2.9's tie-breaks, made
 * total by the id): companies by svc_score, then total_funding, then id; investors
 * by portfolio_size, then number_of_deals, then id. `name_key` is `lower(name)`: SQLite's lower()
 * folds ASCII only, and the lookup folds the term the same way (records/search.ts).
 */
export function searchIndexBuildSql(): string[] {
  const C = datasets.companies
  const I = datasets.investors
  const F = datasets.fundings
  const c = (n: string) => columnOf(C, n)
  const i = (n: string) => columnOf(I, n)
  const f = (n: string) => columnOf(F, n)
  const sc = SEARCH_TABLES.company
  const si = SEARCH_TABLES.investor
  const link = relations.find((r) => r.from === 'fundings' && r.to === 'investors')
  if (!link || link.kind !== 'link') throw new Error('store: the search index needs the fundings → investors link relation')

  return [
    ...clear(sc),
    `insert into "${sc.ranks}" (rank, "${sc.idColumn}", name_key, ${COMPANY_HIT_FIELDS.join(', ')})
      select row_number() over (order by x.${c('svc_score')} desc nulls last, x.${c('total_funding')} desc nulls last, x.${c('id')}),
        x.${c('id')}, lower(x.${c('name')}), ${companyHitValues('x')}
      from "${C.table}" x`,
    `insert into "${sc.fts}" (rowid, "${sc.ftsColumns[0]}", "${sc.ftsColumns[1]}")
      select s.rank, ${markedName(`x.${c('name')}`)}, x.${c('website')}
      from "${sc.ranks}" s join "${C.table}" x on x.${c('id')} = s."${sc.idColumn}"`,
    ...finishTable(sc),

    ...clear(si),
    // investor_funding: the U.S.-dollar total of the rounds the investor took part in, by the rule
    // of a company's total_funding (materialise.ts; grammar-docs/guides/serving.md, "Missing values"): 0 without rounds,
    // NULL when no round's amount is disclosed.
    `insert into "${si.ranks}" (rank, "${si.idColumn}", name_key, funding)
      select row_number() over (order by x.${i('portfolio_size')} desc nulls last, x.${i('number_of_deals')} desc nulls last, x.${i('investor_id')}),
        x.${i('investor_id')}, lower(x.${i('name')}), case when a.investor_id is null then 0 else a.total end
      from "${I.table}" x left join (
        select l."${link.toKey}" as investor_id,
          sum(case when e.${f('amount')} is null then null when upper(e.${f('currency')}) = 'USD' then e.${f('amount')} else 0 end) as total
        from "${link.table}" l join "${F.table}" e on e.${f('id')} = l."${link.fromKey}"
        group by l."${link.toKey}"
      ) a on a.investor_id = x.${i('investor_id')}`,
    `insert into "${si.fts}" (rowid, "${si.ftsColumns[0]}", "${si.ftsColumns[1]}")
      select s.rank, ${markedName(`x.${i('name')}`)}, x.${i('svc_slug')}
      from "${si.ranks}" s join "${I.table}" x on x.${i('investor_id')} = s."${si.idColumn}"`,
    ...finishTable(si),
  ]
}

/**
 * What a company hit shows, from the company row `x` (`COMPANY_HIT_FIELDS`, in order): copied into
 * the rank table so that a search reads its hits from there alone (schema/search-tables.ts).
 */
function companyHitValues(x: string): string {
  const C = datasets.companies
  return COMPANY_HIT_FIELDS.map((name) => {
    const tags = C.fields[name]!.tags
    if (!tags) return `${x}.${columnOf(C, name)}`
    return `(select json_group_array(k."${tags.valueColumn}" order by k."${tags.valueColumn}") from "${tags.table}" k
      where k."${tags.ownerColumn}" = ${x}.${columnOf(C, 'id')})`
  }).join(', ')
}

/**
 * Migration 013 (SQLite): the company rank table of an existing database again, with the hit fields
 * filled from the companies; ranks, ids and name keys as they were (the FTS rows, keyed by rank,
 * stay valid). SQLite adds a column only without a check for one already there, so the table is
 * copied (a rank without its company, which no build leaves, is dropped, as the search's join
 * before dropped it). On a file loaded before migration 006, that migration already builds the table
 * with these columns and this one copies it once more. 9.1 s for a million companies (opening a copy
 * of the 1M bench file made before it).
 */
export function companyHitFieldsStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'sqlite') return []
  const C = datasets.companies
  const t = SEARCH_TABLES.company
  const copy = `${t.ranks}_013`
  return [
    `create table "${copy}" (${companyRankColumns()})`,
    `insert into "${copy}" (rank, "${t.idColumn}", name_key, ${COMPANY_HIT_FIELDS.join(', ')})
      select s.rank, s."${t.idColumn}", s.name_key, ${companyHitValues('x')}
      from "${t.ranks}" s join "${C.table}" x on x.${columnOf(C, 'id')} = s."${t.idColumn}"`,
    `drop table "${t.ranks}"`,
    `alter table "${copy}" rename to "${t.ranks}"`,
    `create index if not exists "${t.nameKeyIndex}" on "${t.ranks}" (name_key, rank)`,
  ].map((text) => rawStatement(db, text))
}

/**
 * Migration 006: the tables, filled. SQLite only: PostgreSQL's index is migration 011
 * (search-index-postgres.ts), built by `refreshPostgresSearchIndex`.
 */
export function searchIndexStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'sqlite') return []
  return [...searchTableDdl(), ...searchIndexBuildSql()].map((text) => rawStatement(db, text))
}

/**
 * Rebuilds the index from the dataset tables in one transaction (readers keep the old index until
 * it commits). Returns the milliseconds it took.
 */
export function refreshSearchIndex(sqlite: BetterSqlite3.Database): number {
  const started = performance.now()
  const statements = [...searchTableDdl(), ...searchIndexBuildSql()]
  sqlite.transaction(() => {
    for (const statement of statements) sqlite.exec(statement)
  })()
  return performance.now() - started
}
