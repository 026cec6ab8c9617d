/**
 * @module The type-ahead index of GET /search (spec 4.9): per object type, a rank table and a
 * contentless FTS5 table whose rowid IS the rank.
 *
 * Why rank as rowid: FTS5 returns matches in rowid order and stops at a LIMIT, while ordering hits
 * by anything else (bm25, a joined score) reads and sorts every hit first (design section 8: 1 ms
 * against 25 ms for 16k hits of `acm*` on a million companies). Numbering the entries by importance
 * (rank 1 = most important) makes "the ten best matches" the first ten FTS5 yields.
 *
 * Why a marker before the first word of a name: "names that start with the term" is a ranking tier
 * of its own. FTS5's `^` initial-token filter still reads the whole doclist of the word (17 ms for
 * `^ com*`, a word in every domain but at the start of no name); a first word stored as
 * U+E000 + word is a token of its own with its own short doclist. A private-use character is a
 * token character for unicode61, and request terms are tokenised to letters and digits only, so no
 * client can send it.
 *
 * Why `prefix='1 2 3'`: the one- to three-letter prefixes a type-ahead sends first then read one
 * precomputed doclist instead of merging the doclists of every word that starts with them.
 *
 * Why a table of the indexed words: for a longer prefix FTS5 merges the doclists of every word
 * that starts with it in full before the LIMIT applies (`tech*` on a million companies: 2-4 ms,
 * because `technologies` is in 111,000 names). The lookup reads the few words a prefix stands for
 * from this table (a b-tree range) and asks FTS5 for them as exact words, which it reads lazily in
 * rowid order and stops early (0.01 ms). fts5vocab itself cannot serve the range: it counts every
 * word's documents as it goes (1.6-5 ms).
 */
import { sql, type Compilable, type Kysely } from 'kysely'
import { datasets } from '../../catalog/index.js'
import { columnType, type DialectName } from './column-types.js'
import { TYPO_KEY_PATTERNS } from '../search-typo.js'

/** Tokens of names, domains and slugs: Unicode letters and digits, case and diacritics folded. */
export const SEARCH_TOKENIZER = 'unicode61 remove_diacritics 2'
/** Prefix lengths (in characters) with a precomputed doclist. */
export const SEARCH_PREFIX_LENGTHS = '1 2 3'
/** Prefixes this long (in characters, marker included) and longer are expanded through the words table. */
export const MIN_EXPANDED_PREFIX = 4
/** Stored before the first word of every name; see the module comment. */
export const FIRST_WORD_MARKER = '\uE000'
export const FIRST_WORD_MARKER_CODE_POINT = 0xe000

export interface SearchTableNames {
  /** `rank integer primary key, <id column>, name_key, ...`: rank → record, plus the exact-name key. */
  readonly ranks: string
  /** Contentless FTS5 over the searchable texts; rowid = rank. */
  readonly fts: string
  /** `(name_key, rank)`: the exact-name tier without touching FTS. */
  readonly nameKeyIndex: string
  /** Column of `ranks` holding the record's primary key. */
  readonly idColumn: string
  /** FTS5 columns, the name first. */
  readonly ftsColumns: readonly [string, string]
  /** fts5vocab over `fts`: read once per build to fill `terms`. */
  readonly vocab: string
  /** Every indexed word of 4+ characters, for expanding long prefixes into exact words (see below). */
  readonly terms: string
  /** fts5vocab `instance` over `fts` (SQLite): every token with its record and position, for the names of the typo dictionary. */
  readonly instances: string
  /**
   * The typo dictionary: every indexed word (first-word marker stripped) of 3+ characters, and
   * every name as an entry of its own (store/search-typo.ts, `NAME_ENTRY_MARKER`).
   */
  readonly typoWords: string
  /** `(key, word)`: the dictionary's deletion keys (store/search-typo.ts), the way from a misspelt word to its candidates. */
  readonly typoKeys: string
}

/** The kinds of record search finds, one search table set each. */
export const SEARCH_OBJECT_TYPES = Object.freeze(['company', 'investor'] as const)
export type SearchObjectType = (typeof SEARCH_OBJECT_TYPES)[number]

export const SEARCH_TABLES = Object.freeze({
  company: Object.freeze({
    ranks: 'search_companies',
    fts: 'search_companies_fts',
    nameKeyIndex: 'search_companies_name_key',
    idColumn: 'company_id',
    ftsColumns: ['name', 'domain'] as const,
    vocab: 'search_companies_vocab',
    terms: 'search_companies_terms',
    instances: 'search_companies_instances',
    typoWords: 'search_companies_typo_words',
    typoKeys: 'search_companies_typo_keys',
  }),
  investor: Object.freeze({
    ranks: 'search_investors',
    fts: 'search_investors_fts',
    nameKeyIndex: 'search_investors_name_key',
    idColumn: 'investor_id',
    ftsColumns: ['name', 'slug'] as const,
    vocab: 'search_investors_vocab',
    terms: 'search_investors_terms',
    instances: 'search_investors_instances',
    typoWords: 'search_investors_typo_words',
    typoKeys: 'search_investors_typo_keys',
  }),
} satisfies Record<string, SearchTableNames>)

/** A statement built lazily from raw SQL (Kysely's `sql` needs an executor to compile). */
export function rawStatement(db: Kysely<any>, text: string): Compilable {
  return { compile: () => sql.raw(text).compile(db) }
}

/**
 * The company rank table's columns: the rank, the company, its exact-name key, and since migration
 * 013 what a hit shows (`COMPANY_HIT_FIELDS`), copied from the company at build time. A search then
 * reads its answered hits from this table alone, where the best ranks sit together on a few pages,
 * instead of one company row and one keywords seek per hit spread over the file: 29-32 against
 * 47-49 µs for the ten hits of "a" on a million companies, and 45-66 against 75-118 µs right after
 * a scan of the companies (three runs; the suite's search rows: `npm run bench`). On a million companies the
 * table grows from 25 to 94 MB (SQLite's dbstat), the index build takes 2-6 s longer
 * (`ventureql generate` at 1,000,000 companies), and migration 013 took 9.1 s.
 */
export function companyRankColumns(): string {
  // Each hit field as the catalog types it; a tags field (keywords) as its JSON array, text.
  const hitColumns = COMPANY_HIT_FIELDS.map((name) => {
    const kind = datasets.companies.fields[name]!.type.kind
    return `${name} ${kind === 'tags' ? 'text' : columnType('sqlite', kind)}`
  })
  return [`rank integer primary key, "${SEARCH_TABLES.company.idColumn}" integer not null, name_key text`, ...hitColumns].join(', ')
}

/**
 * What a company hit shows, in the rank table: catalog fields of the companies, each in a column of
 * its name; a tags field (`keywords`) holds its values as a JSON array in value order.
 */
export const COMPANY_HIT_FIELDS = Object.freeze(['name', 'website', 'total_funding', 'svc_score', 'keywords'] as const)
export type CompanyHitField = (typeof COMPANY_HIT_FIELDS)[number]

/**
 * The typo dictionary's tables (the same on both backends): the words, and their deletion keys
 * (`typoKeys` of store/search-typo.ts) with the words they lead to.
 */
export function typoDictionaryDdl(t: Pick<SearchTableNames, 'typoWords' | 'typoKeys'>, dialect: DialectName): string[] {
  const text = dialect === 'postgres' ? 'text collate "C"' : 'text'
  const rowid = dialect === 'sqlite' ? ' without rowid' : ''
  return [
    `create table if not exists "${t.typoWords}" (word ${text} primary key)${rowid}`,
    `create table if not exists "${t.typoKeys}" (key ${text} not null, word ${text} not null, primary key (key, word))${rowid}`,
  ]
}

/**
 * The key patterns as a table (`column1`..`column5`: positions from 1, 0 for none; `column6`: the
 * word's least length), for building keys in SQL on both backends.
 */
function keyPatternsValues(): string {
  return `(values ${TYPO_KEY_PATTERNS.map((p) => `(${[0, 1, 2, 3, 4].map((i) => (p[i] === undefined ? 0 : p[i]! + 1)).join(', ')}, ${p[p.length - 1]! + 1})`).join(', ')})`
}

/**
 * `select key, word` of the keys of the words `words` selects (one column, \`word\`): SQL that
 * SQLite and PostgreSQL both run (both count characters in \`substr\` and \`length\`).
 */
export function typoKeysSelect(wordsSelect: string): string {
  const at = (c: string) => `case when p.${c} = 0 then '' else substr(w.word, p.${c}, 1) end`
  return `select distinct ${['column1', 'column2', 'column3', 'column4', 'column5'].map(at).join(' || ')} as key, w.word
    from (${wordsSelect}) w cross join ${keyPatternsValues()} p where length(w.word) >= p.column6`
}

/**
 * `select key, word` of the keys of the name entries `names` selects (one column, \`word\`, each
 * the marker and the name's tokens joined by spaces): the marker and the keys of the name's letters,
 * spaces and the first-word marker left out (store/search-typo.ts, `NAME_ENTRY_MARKER`).
 */
export function typoNameKeysSelect(namesSelect: string, dialect: DialectName): string {
  const marker = dialect === 'postgres' ? `chr(${FIRST_WORD_MARKER_CODE_POINT})` : `char(${FIRST_WORD_MARKER_CODE_POINT})`
  const at = (c: string) => `case when p.${c} = 0 then '' else substr(w.flat, p.${c}, 1) end`
  return `select distinct ${marker} || ${['column1', 'column2', 'column3', 'column4', 'column5'].map(at).join(' || ')} as key, w.word
    from (select n.word, replace(replace(n.word, ${marker}, ''), ' ', '') as flat from (${namesSelect}) n) w
    cross join ${keyPatternsValues()} p where length(w.flat) >= p.column6`
}

/**
 * The name entries of the typo dictionary on SQLite, from the index itself (`instances`): each
 * record's name tokens in order, joined by spaces (the first carries the first-word marker).
 */
export function sqliteTypoNamesSelect(t: SearchTableNames): string {
  return `select group_concat(term, ' ' order by offset) as word from "${t.instances}" where col = '${t.ftsColumns[0]}' group by doc`
}

/** The `instances` vocabulary table (SQLite). */
export const instancesDdl = (t: SearchTableNames) => `create virtual table if not exists "${t.instances}" using fts5vocab("${t.fts}", 'instance')`

/** `create` statements of the search tables (empty). */
export function searchTableDdl(): string[] {
  const c = SEARCH_TABLES.company
  const i = SEARCH_TABLES.investor
  // Contentless (the texts live in the dataset tables), with the per-row size table kept: without it
  // FTS5 refuses to scan the table, and whole-database digests and dumps read every table.
  const fts = (t: SearchTableNames) => `create virtual table if not exists "${t.fts}" using fts5(${t.ftsColumns.map((x) => `"${x}"`).join(', ')}, `
    + `content='', tokenize='${SEARCH_TOKENIZER}', prefix='${SEARCH_PREFIX_LENGTHS}')`
  const words = (t: SearchTableNames) => [
    `create virtual table if not exists "${t.vocab}" using fts5vocab("${t.fts}", 'row')`,
    instancesDdl(t),
    `create table if not exists "${t.terms}" (term text primary key) without rowid`,
  ]
  return [
    `create table if not exists "${c.ranks}" (${companyRankColumns()})`,
    fts(c),
    ...words(c),
    ...typoDictionaryDdl(c, 'sqlite'),
    // investor_funding (spec 2.9) is an aggregate over funding events: computed with the ranks;
    // NULL when no round's amount is disclosed (migration 012 dropped the column's NOT NULL).
    `create table if not exists "${i.ranks}" (rank integer primary key, "${i.idColumn}" integer not null, name_key text, funding integer)`,
    fts(i),
    ...words(i),
    ...typoDictionaryDdl(i, 'sqlite'),
  ]
}
