/**
 * @module The search index of GET /search on PostgreSQL (the lookup: `records/search-postgres.ts`).
 * Same words as SQLite's FTS5 index (cut by SQLite's own tokenizer, `search-tokens.ts`), same
 * ranks, so the same answers; PostgreSQL's own b-trees for the speed.
 *
 * Why b-tree postings and not `tsvector` or `pg_trgm`: a type-ahead's first request is one to four
 * letters, and at a million companies `a` is a prefix of a word of most records. A GIN index
 * (full-text `'a':*` or trigram) answers "which rows match" as an unordered bitmap, so the ten most
 * important matches cost reading and sorting every match (hundreds of thousands of rows), and
 * trigrams cannot serve one- and two-letter terms at all. What type-ahead needs is what FTS5's
 * rowid order gives SQLite: the matches of a prefix in importance order, stopping at the limit.
 * A b-tree on `(key, o1, o2, id)` does exactly that: for every word of a record, its prefixes of 1
 * to `PG_PREFIX_KEY_LENGTH` characters and the whole word are keys (the pre-cut prefixes play the
 * part of FTS5's `prefix='1 2 3'`), and `key = 'ac' order by o1, o2, id limit 10` is an index-only
 * scan that reads ten entries. Longer prefixes are expanded into the whole words they stand for
 * (the `terms` table, as on SQLite) and merged in order (Merge Append), or read as a range when
 * there are too many words. The price is size: about 20 keys per company.
 *
 * Tables, per object type (`PG_SEARCH_TABLES`):
 * - `ranks` (the same table as SQLite's: `rank, <id>, name_key[, funding]`): rank = position in
 *   the importance order of the type, for comparing a company's importance with an investor's
 *   (rank / count, records/search.ts) and for the exact-name tier (`name_key`, SQLite's lower()).
 * - `docs`: per record, what was indexed (name and domain/slug as read, the order columns) and its
 *   tokens as ` t1 t2 …` per column, against which the lookup checks phrases exactly as FTS5 does.
 * - `keys`: the postings, `(key, o1, o2, id)`. `o1, o2` are the importance order as columns
 *   (companies `-svc_score, -total_funding`, investors `-portfolio_size, -number_of_deals`, a
 *   missing value as +Infinity, then id): a posting never changes when another record moves, so
 *   an import touches the postings of the records it changed only.
 * - `terms`: every whole key longer than the pre-cut prefixes, for expanding a long prefix.
 * - `search_index_state`: one row once the index has been built (`searchIndexReady`).
 *
 * Ranks are global positions: one new company near the top moves every rank after it. They are
 * therefore never stored in the postings; `refreshPostgresSearchIndex` renumbers the `ranks` tables
 * with one window function over the dataset tables (no tokenising) and re-cuts only the records
 * that changed. Locks: a full rebuild truncates the index tables, and the renumbering truncates the
 * `ranks` tables, so searches wait for the refresh to commit (as every read waits for `copy`),
 * never see half an index; an incremental refresh holds that lock for the renumbering and the
 * few re-cut records only.
 */
import { CompiledQuery, sql, type Compilable, type Kysely, type RawBuilder } from 'kysely'
import { datasets, relations } from '../catalog/index.js'
import { columnName } from './sql-names.js'
import type { DialectName } from './schema/column-types.js'
import {
  FIRST_WORD_MARKER, FIRST_WORD_MARKER_CODE_POINT, rawStatement, SEARCH_TABLES, typoDictionaryDdl, typoKeysSelect, typoNameKeysSelect,
} from './schema/search-tables.js'
import { MIN_DICTIONARY_WORD } from './search-typo.js'
import { tokenizePairs } from './search-tokens.js'
import type { SearchObjectType } from './schema/search-tables.js'

/** Prefixes of this many characters and fewer are keys of their own (1-4 letter terms: one ordered scan). */
export const PG_PREFIX_KEY_LENGTH = 4

export interface PgSearchTableNames {
  readonly type: SearchObjectType
  readonly ranks: string
  readonly idColumn: string
  readonly docs: string
  readonly keys: string
  readonly terms: string
  readonly nameKeyIndex: string
  readonly typoWords: string
  readonly typoKeys: string
}

export const PG_SEARCH_TABLES: Readonly<Record<SearchObjectType, PgSearchTableNames>> = Object.freeze({
  company: Object.freeze({
    type: 'company' as const,
    ranks: SEARCH_TABLES.company.ranks,
    idColumn: SEARCH_TABLES.company.idColumn,
    docs: 'search_companies_docs',
    keys: 'search_companies_keys',
    terms: 'search_companies_terms',
    nameKeyIndex: SEARCH_TABLES.company.nameKeyIndex,
    typoWords: SEARCH_TABLES.company.typoWords,
    typoKeys: SEARCH_TABLES.company.typoKeys,
  }),
  investor: Object.freeze({
    type: 'investor' as const,
    ranks: SEARCH_TABLES.investor.ranks,
    idColumn: SEARCH_TABLES.investor.idColumn,
    docs: 'search_investors_docs',
    keys: 'search_investors_keys',
    terms: 'search_investors_terms',
    nameKeyIndex: SEARCH_TABLES.investor.nameKeyIndex,
    typoWords: SEARCH_TABLES.investor.typoWords,
    typoKeys: SEARCH_TABLES.investor.typoKeys,
  }),
})

export const PG_SEARCH_STATE_TABLE = 'search_index_state'

/** Migration 011 on PostgreSQL: the tables, empty (building needs the tokenizer: `refreshPostgresSearchIndex`). */
export function postgresSearchTableDdl(): string[] {
  const out: string[] = []
  for (const t of Object.values(PG_SEARCH_TABLES)) {
    out.push(
      `create table if not exists "${t.ranks}" (rank integer primary key, "${t.idColumn}" bigint not null unique, name_key text collate "C"`
        + `${t.type === 'investor' ? ', funding bigint' : ''})`,
      `create index if not exists "${t.nameKeyIndex}" on "${t.ranks}" (name_key, rank)`,
      `create table if not exists "${t.docs}" (id bigint primary key, name text, other text, o1 double precision not null,`
        + ` o2 double precision not null, name_words text not null, other_words text not null)`,
      `create table if not exists "${t.keys}" (key text collate "C" not null, o1 double precision not null, o2 double precision not null,`
        + ` id bigint not null, primary key (key, o1, o2, id))`,
      `create table if not exists "${t.terms}" (term text collate "C" primary key)`,
      ...typoDictionaryDdl(t, 'postgres'),
    )
  }
  out.push(`create table if not exists "${PG_SEARCH_STATE_TABLE}" (id integer primary key check (id = 1), built_at text not null)`)
  return out
}

/**
 * Migration 011: the PostgreSQL index's tables, empty; SQLite's index is migration 006. Filling
 * them needs the tokenizer (JavaScript), so `ventureql copy` and imports run
 * `refreshPostgresSearchIndex`; until one has, `searchIndexReady` says no (503, not wrong answers).
 */
export function postgresSearchIndexStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'postgres') return []
  return postgresSearchTableDdl().map((text) => rawStatement(db, text))
}

/** The dictionary's words of every record in `docs`: each token, marker stripped, of 3+ characters. */
function docsWordsSelect(t: PgSearchTableNames): string {
  return `select distinct word from (select case when left(x, 1) = chr(${FIRST_WORD_MARKER_CODE_POINT}) then substr(x, 2) else x end as word
    from "${t.docs}" d cross join lateral unnest(string_to_array(d.name_words || d.other_words, ' ')) x) w
    where length(word) >= ${MIN_DICTIONARY_WORD}`
}

/** The dictionary's names of every record in `docs`: its name tokens as stored, joined by spaces (`NAME_ENTRY_MARKER`). */
function docsNamesSelect(t: PgSearchTableNames): string {
  return `select distinct substr(d.name_words, 2) as word from "${t.docs}" d where d.name_words <> ''`
}

const isNameEntry = (column: string) => `left(${column}, 1) = chr(${FIRST_WORD_MARKER_CODE_POINT})`

/** The typo dictionary of a type from scratch, from `docs` (SQL only). */
function typoDictionaryRebuildSql(t: PgSearchTableNames): string[] {
  return [
    `truncate table "${t.typoWords}", "${t.typoKeys}"`,
    `insert into "${t.typoWords}" (word) ${docsWordsSelect(t)} union ${docsNamesSelect(t)}`,
    `insert into "${t.typoKeys}" (key, word) ${typoKeysSelect(`select word from "${t.typoWords}" where not ${isNameEntry('word')}`)}`,
    `insert into "${t.typoKeys}" (key, word) ${typoNameKeysSelect(`select word from "${t.typoWords}" where ${isNameEntry('word')}`, 'postgres')}`,
    // Without statistics the planner takes a key lookup for a third of the table and runs it in parallel workers (50 ms instead of 0.2).
    `analyze "${t.typoWords}", "${t.typoKeys}"`,
  ]
}

/**
 * Migration 015 on PostgreSQL: the typo dictionary's tables, filled from an index already built
 * (empty otherwise: the next refresh fills them). Migration 018 runs it again for the names.
 */
export function postgresTypoDictionaryStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  if (dialect !== 'postgres') return []
  return Object.values(PG_SEARCH_TABLES).flatMap((t) => [...typoDictionaryDdl(t, 'postgres'), ...typoDictionaryRebuildSql(t)]).map((text) => rawStatement(db, text))
}

/**
 * The typo dictionary after an incremental refresh: `added` (tokens of the re-cut records) come
 * in with their keys when new; `dropped` (their old tokens) leave with theirs when no record's
 * tokens hold them any more (the postings of the word, or of the prefix key it is, then its docs).
 * Names the same way (`addedNames`, `droppedNames`: name tokens joined by spaces), a name staying
 * while some record's name tokens are it (found through the postings of its first token).
 */
async function updateTypoDictionary(
  db: Kysely<any>, t: PgSearchTableNames, added: ReadonlySet<string>, dropped: ReadonlySet<string>,
  addedNames: ReadonlySet<string>, droppedNames: ReadonlySet<string>,
): Promise<void> {
  const words = (set: ReadonlySet<string>) => [...set].map((x) => stripMarker(x)[0]).filter((x) => chars(x).length >= MIN_DICTIONARY_WORD)
  const gone = words(dropped)
  const remove = async (list: readonly string[]) => {
    if (list.length === 0) return
    await sql`delete from ${sql.table(t.typoKeys)} where word = any(${list}::text[])`.execute(db)
    await sql`delete from ${sql.table(t.typoWords)} where word = any(${list}::text[])`.execute(db)
  }
  if (gone.length > 0) {
    const marker = FIRST_WORD_MARKER
    const { rows } = await sql<{ word: string }>`select g.word from unnest(${[...new Set(gone)]}::text[]) as g(word)
      where not exists (select 1 from ${sql.table(t.keys)} k join ${sql.table(t.docs)} d on d.id = k.id where k.key = g.word
        and (strpos(d.name_words || ' ', ' ' || g.word || ' ') > 0 or strpos(d.name_words || ' ', ' ' || ${marker} || g.word || ' ') > 0
          or strpos(d.other_words || ' ', ' ' || g.word || ' ') > 0))`.execute(db)
    await remove(rows.map((r) => r.word))
  }
  const goneNames = [...droppedNames].filter((x) => !addedNames.has(x))
  if (goneNames.length > 0) {
    // The first token is a key of its own (behind the marker) unless it is the marker alone: then every record is looked at.
    const { rows } = await sql<{ word: string }>`select g.word from unnest(${goneNames}::text[]) as g(word)
      where not exists (select 1 from ${sql.table(t.keys)} k join ${sql.table(t.docs)} d on d.id = k.id
          where k.key = split_part(g.word, ' ', 1) and d.name_words = ' ' || g.word)
        and not (split_part(g.word, ' ', 1) = ${FIRST_WORD_MARKER}
          and exists (select 1 from ${sql.table(t.docs)} d where d.name_words = ' ' || g.word))`.execute(db)
    await remove(rows.map((r) => r.word))
  }
  const fresh = words(added)
  if (fresh.length > 0) {
    const { rows } = await sql<{ word: string }>`insert into ${sql.table(t.typoWords)} (word) select distinct unnest(${fresh}::text[])
      on conflict do nothing returning word`.execute(db)
    if (rows.length > 0) {
      await db.executeQuery(CompiledQuery.raw(`insert into "${t.typoKeys}" (key, word) ${typoKeysSelect('select unnest($1::text[]) as word')}
        on conflict do nothing`, [rows.map((r) => r.word)]))
    }
  }
  if (addedNames.size > 0) {
    const { rows } = await sql<{ word: string }>`insert into ${sql.table(t.typoWords)} (word) select distinct unnest(${[...addedNames]}::text[])
      on conflict do nothing returning word`.execute(db)
    if (rows.length > 0) {
      await db.executeQuery(CompiledQuery.raw(`insert into "${t.typoKeys}" (key, word) ${typoNameKeysSelect('select unnest($1::text[]) as word', 'postgres')}
        on conflict do nothing`, [rows.map((r) => r.word)]))
    }
  }
}

//// what is indexed ////

/** Stripped from the start of a name before the marker, as on SQLite (search-index.ts). */
const LEADING_SEPARATORS = new Set(` \t!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`)

/** The name as SQLite's FTS name column stores it: marker + ltrim(coalesce(name, ''), separators). */
export function markedName(name: string | null): string {
  const text = name ?? ''
  let i = 0
  while (i < text.length && LEADING_SEPARATORS.has(text[i]!)) i++
  return FIRST_WORD_MARKER + text.slice(i)
}

const chars = (text: string) => [...text]

/** A token without its marker, and whether it had one. */
export function stripMarker(token: string): [string, boolean] {
  return token.startsWith(FIRST_WORD_MARKER) ? [token.slice(FIRST_WORD_MARKER.length), true] : [token, false]
}

/**
 * The keys of a record's tokens: for every token (its marker stripped), its prefixes of up to
 * `PG_PREFIX_KEY_LENGTH` characters and itself; for tokens with the marker (the first word of a
 * name) the same again behind the marker.
 */
export function keysOfTokens(tokens: readonly string[]): Set<string> {
  const keys = new Set<string>()
  for (const token of tokens) {
    const [word, marked] = stripMarker(token)
    if (word === '') continue
    const cs = chars(word)
    for (let n = 1; n <= Math.min(PG_PREFIX_KEY_LENGTH, cs.length); n++) {
      const prefix = cs.slice(0, n).join('')
      keys.add(prefix)
      if (marked) keys.add(FIRST_WORD_MARKER + prefix)
    }
    keys.add(word)
    if (marked) keys.add(FIRST_WORD_MARKER + word)
  }
  return keys
}

/** Whether a key is a whole word longer than the pre-cut prefixes (kept in `terms`). */
export function isLongKey(key: string): boolean {
  return chars(stripMarker(key)[0]).length > PG_PREFIX_KEY_LENGTH
}

/** Token lists as stored in `docs`: ` t1 t2 …` (tokens hold no spaces), so ` a b` is a phrase test. */
export const joinTokens = (tokens: readonly string[]) => tokens.map((t) => ` ${t}`).join('')

//// building ////

interface Source {
  readonly table: string
  readonly id: string
  readonly name: string
  readonly other: string
  /** The importance order as two ascending columns (missing last). */
  readonly o1: string
  readonly o2: string
}

const desc = (column: string) => `case when x."${column}" is null then 'Infinity'::float8 else -(x."${column}"::float8) end`

function sourceOf(type: SearchObjectType): Source {
  if (type === 'company') {
    const C = datasets.companies
    return {
      table: C.table, id: columnName(C, 'id'), name: columnName(C, 'name'), other: columnName(C, 'website'),
      o1: desc(columnName(C, 'svc_score')), o2: desc(columnName(C, 'total_funding')),
    }
  }
  const I = datasets.investors
  return {
    table: I.table, id: columnName(I, 'investor_id'), name: columnName(I, 'name'), other: columnName(I, 'svc_slug'),
    o1: desc(columnName(I, 'portfolio_size')), o2: desc(columnName(I, 'number_of_deals')),
  }
}

interface SourceRow { id: number | string; name: string | null; other: string | null; o1: number; o2: number }

const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz'

/** The rank table of a type, renumbered from the dataset tables (the same order and name_key as SQLite's). */
async function renumber(db: Kysely<any>, type: SearchObjectType): Promise<void> {
  const t = PG_SEARCH_TABLES[type]
  const s = sourceOf(type)
  await sql.raw(`truncate table "${t.ranks}"`).execute(db)
  // name_key: SQLite's lower() folds ASCII only; translate() does exactly that whatever the locale.
  const nameKey = `translate(x."${s.name}", '${ASCII_UPPER}', '${ASCII_LOWER}')`
  if (type === 'company') {
    await sql.raw(`insert into "${t.ranks}" (rank, "${t.idColumn}", name_key)
      select row_number() over (order by ${s.o1}, ${s.o2}, x."${s.id}"), x."${s.id}", ${nameKey} from "${s.table}" x`).execute(db)
    return
  }
  const F = datasets.fundings
  const link = relations.find((r) => r.from === 'fundings' && r.to === 'investors')
  if (!link || link.kind !== 'link') throw new Error('store: the search index needs the fundings → investors link relation')
  // The U.S.-dollar total of the rounds the investor took part in, by the rule of a company's
  // total_funding (materialise.ts; grammar-docs/guides/serving.md, "Missing values"): 0 without rounds, NULL when no round's
  // amount is disclosed. upper() of SQLite is ASCII-only too.
  const amount = `e."${columnName(F, 'amount')}"`
  await sql.raw(`insert into "${t.ranks}" (rank, "${t.idColumn}", name_key, funding)
    select row_number() over (order by ${s.o1}, ${s.o2}, x."${s.id}"), x."${s.id}", ${nameKey}, case when a.investor_id is null then 0 else a.total end
    from "${s.table}" x left join (
      select l."${link.toKey}" as investor_id,
        sum(case when ${amount} is null then null
          when translate(e."${columnName(F, 'currency')}", '${ASCII_LOWER}', '${ASCII_UPPER}') = 'USD' then ${amount} else 0 end) as total
      from "${link.table}" l join "${F.table}" e on e."${columnName(F, 'id')}" = l."${link.fromKey}"
      group by l."${link.toKey}"
    ) a on a.investor_id = x."${s.id}"`).execute(db)
}

/** Records read and cut per batch. */
const BATCH = 5000

/** Cuts `rows` and writes their docs, keys and long terms (none of them may be indexed yet). */
async function indexRows(db: Kysely<any>, t: PgSearchTableNames, rows: readonly SourceRow[], tokensOut?: Set<string>, namesOut?: Set<string>): Promise<number> {
  if (rows.length === 0) return 0
  const cut = tokenizePairs(rows.map((r) => [markedName(r.name), r.other] as const))
  if (tokensOut) for (const [a, b] of cut) for (const token of [...a, ...b]) tokensOut.add(token)
  if (namesOut) for (const [a] of cut) if (a.length > 0) namesOut.add(a.join(' '))
  const keyCol: string[] = [], o1Col: number[] = [], o2Col: number[] = [], idCol: string[] = []
  const terms = new Set<string>()
  rows.forEach((r, i) => {
    const [nameTokens, otherTokens] = cut[i]!
    for (const key of keysOfTokens([...nameTokens, ...otherTokens])) {
      keyCol.push(key); o1Col.push(r.o1); o2Col.push(r.o2); idCol.push(String(r.id))
      if (isLongKey(key)) terms.add(key)
    }
  })
  await sql`insert into ${sql.table(t.docs)} (id, name, other, o1, o2, name_words, other_words)
    select * from unnest(${rows.map((r) => String(r.id))}::bigint[], ${rows.map((r) => r.name)}::text[], ${rows.map((r) => r.other)}::text[],
      ${rows.map((r) => r.o1)}::float8[], ${rows.map((r) => r.o2)}::float8[],
      ${cut.map((c) => joinTokens(c[0]))}::text[], ${cut.map((c) => joinTokens(c[1]))}::text[])`.execute(db)
  await sql`insert into ${sql.table(t.keys)} (key, o1, o2, id)
    select * from unnest(${keyCol}::text[], ${o1Col}::float8[], ${o2Col}::float8[], ${idCol}::bigint[])`.execute(db)
  if (terms.size > 0) {
    await sql`insert into ${sql.table(t.terms)} (term) select unnest(${[...terms]}::text[]) on conflict do nothing`.execute(db)
  }
  return rows.length
}

const sourceSelect = (s: Source) => `select x."${s.id}" as id, x."${s.name}" as name, x."${s.other}" as other, ${s.o1} as o1, ${s.o2} as o2 from "${s.table}" x`

/** Every record of the type, cut and indexed, in batches of `BATCH` by id. */
async function rebuildType(db: Kysely<any>, type: SearchObjectType): Promise<number> {
  const t = PG_SEARCH_TABLES[type]
  const s = sourceOf(type)
  await sql.raw(`truncate table "${t.docs}", "${t.keys}", "${t.terms}"`).execute(db)
  // The postings' b-tree is built once after the fill: inserting 20 keys per record into it in
  // random key order cost several times the sort of a fresh build.
  await sql.raw(`alter table "${t.keys}" drop constraint if exists "${t.keys}_pkey"`).execute(db)
  let after: number | string | null = null
  let total = 0
  for (;;) {
    const where: RawBuilder<unknown> = after === null ? sql`` : sql`where x.${sql.ref(s.id)} > ${after}`
    const { rows } = await sql<SourceRow>`${sql.raw(sourceSelect(s))} ${where} order by x.${sql.ref(s.id)} limit ${BATCH}`.execute(db)
    if (rows.length === 0) break
    total += await indexRows(db, t, rows)
    after = rows[rows.length - 1]!.id
  }
  await sql.raw(`alter table "${t.keys}" add constraint "${t.keys}_pkey" primary key (key, o1, o2, id)`).execute(db)
  for (const statement of typoDictionaryRebuildSql(t)) await sql.raw(statement).execute(db)
  return total
}

/**
 * Re-cuts the given records and every record whose indexed inputs (name, domain or slug, order
 * columns) differ from what `docs` holds, or that is missing from it or gone from the dataset.
 */
async function updateType(db: Kysely<any>, type: SearchObjectType, ids: readonly number[]): Promise<number> {
  const t = PG_SEARCH_TABLES[type]
  const s = sourceOf(type)
  const { rows: stale } = await sql<{ id: number | string }>`
    select x.${sql.ref(s.id)} as id from ${sql.table(s.table)} x left join ${sql.table(t.docs)} d on d.id = x.${sql.ref(s.id)}
    where d.id is null or d.name is distinct from x.${sql.ref(s.name)} or d.other is distinct from x.${sql.ref(s.other)}
      or d.o1 <> ${sql.raw(s.o1)} or d.o2 <> ${sql.raw(s.o2)}
    union select d.id from ${sql.table(t.docs)} d where not exists (select 1 from ${sql.table(s.table)} x where x.${sql.ref(s.id)} = d.id)`.execute(db)
  const all = [...new Set([...ids.map(String), ...stale.map((r) => String(r.id))])]
  const oldTokens = new Set<string>()
  const newTokens = new Set<string>()
  const oldNames = new Set<string>()
  const newNames = new Set<string>()
  for (let i = 0; i < all.length; i += BATCH) {
    const batch = all.slice(i, i + BATCH)
    // The old postings, from the old tokens: deleted by primary key (no index on id needed).
    const { rows: old } = await sql<{ id: number | string; o1: number; o2: number; name_words: string; other_words: string }>`
      select id, o1, o2, name_words, other_words from ${sql.table(t.docs)} where id = any(${batch}::bigint[])`.execute(db)
    const keyCol: string[] = [], o1Col: number[] = [], o2Col: number[] = [], idCol: string[] = []
    const oldTerms = new Set<string>()
    for (const d of old) {
      const tokens = [...d.name_words.split(' '), ...d.other_words.split(' ')].filter((x) => x !== '')
      for (const token of tokens) oldTokens.add(token)
      if (d.name_words !== '') oldNames.add(d.name_words.slice(1))
      for (const key of keysOfTokens(tokens)) {
        keyCol.push(key); o1Col.push(d.o1); o2Col.push(d.o2); idCol.push(String(d.id))
        if (isLongKey(key)) oldTerms.add(key)
      }
    }
    if (keyCol.length > 0) {
      await sql`delete from ${sql.table(t.keys)} k using unnest(${keyCol}::text[], ${o1Col}::float8[], ${o2Col}::float8[], ${idCol}::bigint[]) as g(key, o1, o2, id)
        where k.key = g.key and k.o1 = g.o1 and k.o2 = g.o2 and k.id = g.id`.execute(db)
    }
    await sql`delete from ${sql.table(t.docs)} where id = any(${batch}::bigint[])`.execute(db)
    const { rows } = await sql<SourceRow>`${sql.raw(sourceSelect(s))} where x.${sql.ref(s.id)} = any(${batch}::bigint[])`.execute(db)
    await indexRows(db, t, rows, newTokens, newNames)
    // Words no record has any more leave the expansion list (an index probe each).
    if (oldTerms.size > 0) {
      await sql`delete from ${sql.table(t.terms)} w where w.term = any(${[...oldTerms]}::text[])
        and not exists (select 1 from ${sql.table(t.keys)} k where k.key = w.term)`.execute(db)
    }
  }
  await updateTypoDictionary(db, t, newTokens, oldTokens, newNames, oldNames)
  return all.length
}

export interface SearchRefreshSummary {
  /** Records cut and indexed (all of them on a full rebuild). */
  readonly companies: number
  readonly investors: number
  readonly full: boolean
  readonly ms: number
}

/**
 * Brings the PostgreSQL search index up to date with the dataset tables, in one transaction
 * (readers keep the old index until it commits; inside a caller's transaction, in that one).
 *
 * - `changed` undefined: full rebuild (every record cut again).
 * - `changed` given: the listed records are cut again, and so is every record whose name,
 *   domain/slug or importance columns differ from what the index holds, or that is new or gone
 *   (one join per type finds them, so a company whose total_funding an import moved is caught even
 *   if the caller did not list it). The other records' postings are not touched.
 * - Either way the `ranks` tables are renumbered from the dataset tables in SQL (ranks are global
 *   positions) and investors' U.S.-dollar funding totals recomputed.
 */
export async function refreshPostgresSearchIndex(
  db: Kysely<any>,
  changed?: { readonly companyIds?: readonly number[]; readonly investorIds?: readonly number[] },
): Promise<SearchRefreshSummary> {
  const started = performance.now()
  const work = async (trx: Kysely<any>) => {
    for (const statement of postgresSearchTableDdl()) await sql.raw(statement).execute(trx)
    const companies = changed ? await updateType(trx, 'company', changed.companyIds ?? []) : await rebuildType(trx, 'company')
    const investors = changed ? await updateType(trx, 'investor', changed.investorIds ?? []) : await rebuildType(trx, 'investor')
    await renumber(trx, 'company')
    await renumber(trx, 'investor')
    await sql`insert into ${sql.table(PG_SEARCH_STATE_TABLE)} (id, built_at) values (1, ${new Date().toISOString()})
      on conflict (id) do update set built_at = excluded.built_at`.execute(trx)
    // Statistics: the renumbered ranks always; the postings only after a full build (a few changed records move no estimate).
    for (const t of Object.values(PG_SEARCH_TABLES)) {
      await sql.raw(changed ? `analyze "${t.ranks}"` : `analyze "${t.ranks}", "${t.docs}", "${t.keys}", "${t.terms}"`).execute(trx)
    }
    return { companies, investors }
  }
  const counts = db.isTransaction ? await work(db) : await db.transaction().execute(work)
  if (!db.isTransaction) {
    // The visibility map, so that the postings and the typo dictionary's keys are read by index-only
    // scans; without it each dictionary row also reads its heap page. Outside the transaction:
    // VACUUM cannot run in one.
    for (const t of Object.values(PG_SEARCH_TABLES)) await sql.raw(`vacuum "${t.keys}", "${t.typoKeys}"`).execute(db)
  }
  return Object.freeze({ ...counts, full: changed === undefined, ms: performance.now() - started })
}
