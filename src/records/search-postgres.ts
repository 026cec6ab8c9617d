/**
 * @module GET /search's lookup on PostgreSQL, over the index of `store/search-index-postgres.ts`:
 * the same answers as the FTS5 lookup of `search.ts` (whose word cutting, tiering and final order
 * this shares), with PostgreSQL's b-trees.
 *
 * What FTS5 answers on SQLite, restated: the SQLite lookup sends FTS5 phrase-prefix queries built
 * from the term's words (`"w"*`, `"\uE000w"*`, `name : "\uE000h1 h2 last"*`); FTS5 cuts each
 * quoted string with unicode61 into a phrase, and a phrase-prefix matches where its tokens occur
 * consecutively in one column, the last one as a prefix. Here every such string is cut by the same
 * tokenizer (`store/search-tokens.ts`) and checked against the record's stored tokens (` t1 t2 …`
 * per column; `strpos(words, ' ' || phrase) > 0` is exactly that test). So the matching is FTS5's
 * by construction, including its odd corners (a letter unicode61 does not know, a mark that folds
 * away).
 *
 * How it is fast: a query per tier and type walks one posting list of `keys` in importance order
 * (the driver: the first token of one word, as a key of its own if it has at most four characters,
 * else the whole words it is a prefix of, each read to the limit and the best kept), checks the other words on each
 * candidate's tokens, and stops at the limit, like FTS5 stopping in rowid order. The driver is the
 * longest word (longer prefixes have shorter posting lists), and in a typo stage the word with the
 * fewest postings (`drivingGroup`: FTS5's AND costs what its rarest phrase costs, as it seeks the
 * others); when a word's posting list IS its test (one word of one token), the candidates need no
 * check at all.
 *
 * A misspelt term costs at least two round trips in sequence: the tiers with the typo dictionary of
 * both types (one statement) beside them, then one statement with every typo stage of both types
 * and the hits' details (`stagesAtOnce`); a long prefix stage may add one (`driverSources`).
 *
 * Values are bound parameters throughout; identifiers come from the catalog and the table list.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { datasets } from '../catalog/index.js'
import { columnName } from '../store/sql-names.js'
import { tableExists, type PostgresVentureDb } from '../store/open.js'
import { FIRST_WORD_MARKER } from '../store/schema/search-tables.js'
import {
  PG_PREFIX_KEY_LENGTH, PG_SEARCH_STATE_TABLE, PG_SEARCH_TABLES, stripMarker, type PgSearchTableNames,
} from '../store/search-index-postgres.js'
import { tokenizeEach } from '../store/search-tokens.js'
import {
  asciiLower, dictionaryKeys, nameKeys, stageWindow, MAX_SEARCH_WORDS, rankHits, runsTypoStages, SEARCH_OBJECT_TYPES, searchWords, stageScores, typoStages, typoTerm,
  type DetailRow, type FoundOfType, type SearchHit, type SearchObjectType, type SearchRequest, type Stage, type StageHit, type TypoTerm,
} from './search.js'

/** More whole words than this for one long prefix and a range read beats merging them (as on SQLite). */
const MAX_EXPANDED_WORDS = 32

/** A phrase-prefix test: tokens in order in one of the columns, the last a prefix. Empty: matches nothing. */
export interface Phrase {
  readonly tokens: readonly string[]
  readonly columns: 'name' | 'any'
}

/** One condition a record must meet: any of its phrases. */
export type Group = readonly Phrase[]

const phraseText = (p: Phrase) => p.tokens.map((t) => ` ${t}`).join('')

function phraseSql(p: Phrase): RawBuilder<unknown> {
  const text = phraseText(p)
  return p.columns === 'name'
    ? sql`strpos(d.name_words, ${text}) > 0`
    : sql`(strpos(d.name_words, ${text}) > 0 or strpos(d.other_words, ${text}) > 0)`
}

function groupSql(group: Group): RawBuilder<unknown> {
  const live = group.filter((p) => p.tokens.length > 0)
  return live.length === 0 ? sql`false` : sql`(${sql.join(live.map(phraseSql), sql` or `)})`
}

/**
 * Where a query's candidates come from, in importance order:
 * - `key`: one posting list (`key = k`);
 * - `prefix`: the whole words starting with a long prefix (expanded, or a range);
 * - `all`: every record (a group none of whose phrases has a usable first token: odd input only).
 */
export type Driver =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'prefix'; readonly prefix: string }
  | { readonly kind: 'all' }
  | { readonly kind: 'any'; readonly parts: readonly Driver[] }

/**
 * The driver of a phrase: every record it matches has a key from it. The first token, marker
 * stripped, as a key when short or whole (a non-last token must be whole), else as a prefix of
 * whole words; keys of marked tokens are kept behind the marker too, so `\uE000acm` is one key.
 * `exact` when the posting list is the phrase's matches (one token, no marker games).
 */
function driverOf(p: Phrase): { driver: Driver; exact: boolean; weight: number } | undefined {
  const first = p.tokens[0]
  if (first === undefined) return undefined
  const [word, marked] = stripMarker(first)
  if (word === '') return undefined
  const key = (marked ? FIRST_WORD_MARKER : '') + word
  const length = [...word].length
  const single = p.tokens.length === 1
  if (!single || length <= PG_PREFIX_KEY_LENGTH) return { driver: { kind: 'key', key }, exact: single && !marked, weight: length }
  return { driver: { kind: 'prefix', prefix: key }, exact: !marked, weight: length }
}

/** The smallest string above every string that starts with `prefix` (code point order, "C" collation). */
function upperBound(prefix: string): string {
  const cps = [...prefix]
  const last = cps.pop()!.codePointAt(0)!
  const next = last + 1 === 0xd800 ? 0xe000 : last + 1
  return cps.join('') + String.fromCodePoint(Math.min(next, 0x10ffff))
}

interface TypeQuery {
  readonly db: Kysely<any>
  readonly t: PgSearchTableNames
  /**
   * Long prefixes whose words are already known (a typo stage's, from the typo dictionary): the
   * words of `terms` that start with each, sorted, so that no round trip reads them again.
   */
  readonly expansions?: ReadonlyMap<string, readonly string[]>
  /** The postings' statistics: with them the driver is the group with the fewest postings (typo stages), else the longest word. */
  readonly postings?: PostingStatistics
  /**
   * Postings of some keys, counted up to `COUNT_BOUND` (the typo dictionary's words, by the
   * dictionary statement): they replace the statistics' estimate, which knows a word's share only
   * when the word is among the sampled most common keys.
   */
  readonly counts?: ReadonlyMap<string, number>
}

/**
 * Postings of a dictionary word are counted up to this many: enough to tell a rare word from a
 * common one; a count that reaches it is common, and its estimate is used when larger.
 */
export const COUNT_BOUND = 1000

/** What ANALYZE knows of a `keys` table: its rows, the most common keys' shares, and the share of any other key. */
export interface PostingStatistics {
  readonly rows: number
  readonly common: ReadonlyMap<string, number>
  readonly other: number
}

/**
 * The postings a driver reads, estimated from the statistics as the planner would: a common key's
 * share, any other key's, the listed words of a long prefix (or a range: as many as can be listed).
 */
function estimatePostings(
  driver: Driver, stats: PostingStatistics, expansions: ReadonlyMap<string, readonly string[]> | undefined, counts?: ReadonlyMap<string, number>,
): number {
  const estimate = (k: string) => (stats.common.get(k) ?? stats.other) * stats.rows
  const key = (k: string) => {
    const n = counts?.get(k)
    return n === undefined ? estimate(k) : n < COUNT_BOUND ? n : Math.max(n, estimate(k))
  }
  if (driver.kind === 'key') return key(driver.key)
  if (driver.kind === 'all') return Infinity
  if (driver.kind === 'any') return driver.parts.reduce((n, part) => n + estimatePostings(part, stats, expansions, counts), 0)
  // Listed words are all the prefix's words, however many: their postings are the range's.
  const listed = expansions?.get(driver.prefix)
  if (listed === undefined) return (MAX_EXPANDED_WORDS + 1) * stats.other * stats.rows
  return listed.reduce((n, w) => n + key(w), 0)
}

/** At most this many postings (estimated) are read in one scan and sorted, rather than per word. */
const SINGLE_SCAN_POSTINGS = 20_000

/**
 * The keys a driver reads, when they are known without a round trip (`undefined`: every record,
 * or a prefix whose words are not listed), for one scan of them all: a listed prefix of more
 * than `MAX_EXPANDED_WORDS` words gives its words too (a bound array, one parameter however long).
 */
function driverKeys(driver: Driver, expansions: ReadonlyMap<string, readonly string[]> | undefined): string[] | undefined {
  if (driver.kind === 'key') return [driver.key]
  if (driver.kind === 'all') return undefined
  if (driver.kind === 'prefix') {
    const listed = expansions?.get(driver.prefix)
    return listed === undefined ? undefined : [...listed]
  }
  const out = new Set<string>()
  for (const part of driver.parts) {
    const keys = driverKeys(part, expansions)
    if (keys === undefined) return undefined
    for (const k of keys) out.add(k)
  }
  return [...out]
}

/** Statistics per database and table, read again after this long (an index refresh re-analyzes). */
const STATISTICS_TTL_MS = 10 * 60_000
const statisticsCache = new WeakMap<Kysely<any>, Map<string, { readonly at: number; readonly stats: Promise<PostingStatistics | undefined> }>>()

/** The `keys` table's statistics (`pg_stats`), cached; `undefined` before its first ANALYZE. */
export function postingStatistics(db: Kysely<any>, table: string): Promise<PostingStatistics | undefined> {
  let tables = statisticsCache.get(db)
  if (!tables) statisticsCache.set(db, (tables = new Map()))
  const cached = tables.get(table)
  if (cached && performance.now() - cached.at < STATISTICS_TTL_MS) return cached.stats
  const stats = sql<{ rows: number; vals: string[] | null; freqs: number[] | null; n_distinct: number }>`
    select c.reltuples as rows, s.most_common_vals::text::text[] as vals, s.most_common_freqs as freqs, s.n_distinct
    from pg_stats s join pg_class c on c.oid = to_regclass(quote_ident(s.schemaname) || '.' || quote_ident(s.tablename))
    where s.schemaname = current_schema() and s.tablename = ${table} and s.attname = 'key'`.execute(db).then(({ rows }) => {
    const r = rows[0]
    if (!r || !(Number(r.rows) > 0)) return undefined
    const total = Number(r.rows)
    const common = new Map<string, number>((r.vals ?? []).map((v, i) => [v, Number(r.freqs?.[i] ?? 0)]))
    const distinct = Number(r.n_distinct) < 0 ? -Number(r.n_distinct) * total : Number(r.n_distinct)
    const rest = 1 - [...common.values()].reduce((a, b) => a + b, 0)
    return { rows: total, common, other: Math.max(0, rest) / Math.max(1, distinct - common.size) }
  }, () => undefined)
  tables.set(table, { at: performance.now(), stats })
  return stats
}

/**
 * The driver's postings as sources, each `select o1, o2, id` in importance order: one key, one
 * per listed whole word of a long prefix, or a range / every record (which need a sort). Empty:
 * nothing can match.
 */
async function driverSources(q: TypeQuery, driver: Driver): Promise<RawBuilder<unknown>[]> {
  const keys = sql.table(q.t.keys)
  if (driver.kind === 'any') return (await Promise.all(driver.parts.map((part) => driverSources(q, part)))).flat()
  if (driver.kind === 'key') return [sql`select o1, o2, id from ${keys} where key = ${driver.key}`]
  if (driver.kind === 'all') return [sql`select o1, o2, id from ${sql.table(q.t.docs)}`]
  const upper = upperBound(driver.prefix)
  const listed = q.expansions?.get(driver.prefix)
  const { rows } = listed !== undefined
    ? { rows: listed.slice(0, MAX_EXPANDED_WORDS + 1).map((term) => ({ term })) }
    : await sql<{ term: string }>`select term from ${sql.table(q.t.terms)}
      where term >= ${driver.prefix} and term < ${upper} order by term limit ${MAX_EXPANDED_WORDS + 1}`.execute(q.db)
  if (rows.length > MAX_EXPANDED_WORDS) {
    return [sql`select distinct o1, o2, id from ${keys} where key >= ${driver.prefix} and key < ${upper}`]
  }
  return rows.map((r) => sql`select o1, o2, id from ${keys} where key = ${r.term}`)
}

/**
 * The group whose postings drive a query's scan (the others are checked on each candidate), with
 * its driver; `undefined`: no group has a usable driver (every record drives). With the postings'
 * statistics (typo stages) the group with the fewest postings, counted where the dictionary
 * statement counted them (`TypeQuery.counts`), else estimated; without, the longest word.
 */
export function drivingGroup(q: Pick<TypeQuery, 'expansions' | 'postings' | 'counts'>, groups: readonly Group[]): { index: number; driver: Driver; exact: boolean; weight: number } | undefined {
  let best: { index: number; driver: Driver; exact: boolean; weight: number } | undefined
  groups.forEach((group, index) => {
    const live = group.filter((p) => p.tokens.length > 0)
    if (live.length === 0) return
    const drivers = live.map(driverOf)
    // One driver must cover every phrase of the group: the same key (e.g. `acm` for `"acm"*` and `"\uE000acm"*`).
    const first = drivers[0]
    if (!first || drivers.some((d) => d === undefined)) return
    const plainKey = (d: Driver): string => (d.kind === 'key' ? stripMarker(d.key)[0] : d.kind === 'prefix' ? stripMarker(d.prefix)[0] : '')
    const sameWord = drivers.every((d) => plainKey(d!.driver) === plainKey(first.driver) && d!.driver.kind === first.driver.kind)
    let candidate: { driver: Driver; exact: boolean; weight: number }
    if (live.length === 1) candidate = first
    else if (sameWord) {
      // The unmarked key's postings hold the marked tokens' records too (keys are made from stripped tokens).
      const word = plainKey(first.driver)
      candidate = { driver: first.driver.kind === 'key' ? { kind: 'key', key: word } : { kind: 'prefix', prefix: word }, exact: false, weight: first.weight }
      candidate = { ...candidate, exact: isExactPair(live) }
    } else {
      // Several words (a misspelt word's prefixes, or the first words of name starts): the union of
      // their postings, each word's unmarked key (its postings hold the marked tokens' records too),
      // or its marked key when only first words are asked for (a name stage: far fewer postings).
      const unmarked = new Set<string>()
      for (const d of drivers) {
        const key = d!.driver.kind === 'key' ? d!.driver.key : d!.driver.kind === 'prefix' ? d!.driver.prefix : ''
        if (!stripMarker(key)[1]) unmarked.add(`${d!.driver.kind}:${key}`)
      }
      const parts = new Map<string, Driver>()
      for (const d of drivers) {
        const word = plainKey(d!.driver)
        if (word === '') return
        const id = `${d!.driver.kind}:${word}`
        const key = unmarked.has(id) ? word : FIRST_WORD_MARKER + word
        parts.set(id, d!.driver.kind === 'key' ? { kind: 'key', key } : { kind: 'prefix', prefix: key })
      }
      // Weighed by its shortest word, ahead of a single word as long: a misspelt word's prefixes are
      // rare words, while the term's other words may be common ones ("ai", "health", thousands of
      // postings each checked against its record).
      const shortest = Math.min(...[...parts.keys()].map((k) => [...k.slice(k.indexOf(':') + 1)].length))
      candidate = { driver: { kind: 'any', parts: [...parts.values()] }, exact: false, weight: shortest + 0.5 }
    }
    if (q.postings) candidate = { ...candidate, weight: -estimatePostings(candidate.driver, q.postings, q.expansions, q.counts) }
    if (!best || candidate.weight > best.weight) best = { index, ...candidate }
  })
  return best
}

/**
 * The ids of the first `limit` records (importance order) that meet every group; a group with no
 * usable phrase makes the driver every record.
 */
async function matching(q: TypeQuery, groups: readonly Group[], limit: number): Promise<number[]> {
  if (limit < 1) return []
  const query = await matchingSql(q, groups, limit)
  if (query === undefined) return []
  const { rows } = await sql<{ id: number }>`select t.id from (${query}) t order by t.o1, t.o2, t.id`.execute(q.db)
  return rows.map((r) => Number(r.id))
}

/**
 * The statement of `matching`: the `(o1, o2, id)` of its records, at most `limit` (a number, or an
 * expression of the statement it is part of: a limit of 0 reads nothing). `undefined`: nothing can
 * match. It may read the words of a long prefix first (a round trip).
 */
async function matchingSql(q: TypeQuery, groups: readonly Group[], limit: number | RawBuilder<unknown>): Promise<RawBuilder<unknown> | undefined> {
  if (groups.length === 0) return undefined
  // A word none of whose phrases has a token (FTS5's `""*`) matches nothing, so neither does the term.
  if (groups.some((g) => g.every((p) => p.tokens.length === 0))) return undefined
  const best = drivingGroup(q, groups)
  const chosen: Driver = best ? best.driver : { kind: 'all' }
  const listedKeys = q.postings ? driverKeys(chosen, q.expansions) : undefined
  // Many words with few postings in all (a typo stage's prefixes): one scan of them all and a sort,
  // instead of a limited scan per word, whose plan alone cost more than running it (30 ms to plan
  // 40 words, 9 ms to run).
  const checks = groups.filter((_, i) => !(best && best.index === i && best.exact)).map(groupSql)
  // One source: its first `limit` that pass the checks, read in index order. Several (the words of
  // a long prefix): the first `limit` of each, then the best `limit` of those. PostgreSQL 15 does
  // not merge a UNION ALL of ordered scans (it sorts every posting), so each is limited itself.
  const top = (source: RawBuilder<unknown>) => checks.length === 0
    ? sql`select k.o1, k.o2, k.id from (${source}) k order by k.o1, k.o2, k.id limit ${limit}`
    : sql`select k.o1, k.o2, k.id from (${source}) k join ${sql.table(q.t.docs)} d on d.id = k.id
        where ${sql.join(checks, sql` and `)} order by k.o1, k.o2, k.id limit ${limit}`
  if (chosen.kind === 'prefix' && q.expansions?.get(chosen.prefix) === undefined) {
    // A long prefix whose words are not known: the words read in the same statement, each word's
    // postings limited by a lateral scan, or the range when it has too many words to list (a
    // round trip less than reading the words first).
    const keys = sql.table(q.t.keys)
    const upper = upperBound(chosen.prefix)
    const words = sql`select term from ${sql.table(q.t.terms)} where term >= ${chosen.prefix} and term < ${upper} order by term limit ${MAX_EXPANDED_WORDS + 1}`
    const many = sql`(select count(*) from (${words}) c) > ${MAX_EXPANDED_WORDS}`
    return sql`select t.o1, t.o2, t.id from (
        select x.o1, x.o2, x.id from (${words}) w cross join lateral (${top(sql`select o1, o2, id from ${keys} where key = w.term`)}) x where not ${many}
        union select r.o1, r.o2, r.id from (${top(sql`select distinct o1, o2, id from ${keys} where key >= ${chosen.prefix} and key < ${upper}`)}) r where ${many}
      ) t order by t.o1, t.o2, t.id limit ${limit}`
  }
  const sources = listedKeys !== undefined && listedKeys.length > 1 && estimatePostings(chosen, q.postings!, q.expansions, q.counts) <= SINGLE_SCAN_POSTINGS
    ? [sql`select distinct o1, o2, id from ${sql.table(q.t.keys)} where key = any(${listedKeys}::text[])`]
    : await driverSources(q, chosen)
  if (sources.length === 0) return undefined
  return sources.length === 1
    ? top(sources[0]!)
    : sql`select t.o1, t.o2, t.id from (${sql.join(sources.map((x) => sql`(${top(x)})`), sql` union `)}) t order by t.o1, t.o2, t.id limit ${limit}`
}

/** `"w"*` and `"\uE000w"*` over all columns, when both are one token w / \uE000w: the unmarked key's postings exactly. */
function isExactPair(live: readonly Phrase[]): boolean {
  if (live.length !== 2 || live.some((p) => p.tokens.length !== 1 || p.columns !== 'any')) return false
  const [a, b] = live.map((p) => p.tokens[0]!)
  return (stripMarker(a!)[1] !== stripMarker(b!)[1]) && stripMarker(a!)[0] === stripMarker(b!)[0]
    && stripMarker(a!)[0] !== '' && !stripMarker(stripMarker(a!)[0])[1] && !stripMarker(stripMarker(b!)[0])[1]
}

/** The phrases of the SQLite lookup's queries for `words` (see the module comment), cut by unicode61. */
function phrasesOf(words: readonly string[]): { anyWords: Group[]; namePrefix: Group } {
  const lower = [...new Set(words.map((w) => w.toLowerCase()))]
  // One pass of the tokenizer: each word, each word behind the marker, the name-start phrase.
  const cut = tokenizeEach([...lower, ...lower.map((w) => FIRST_WORD_MARKER + w), FIRST_WORD_MARKER + words.map((w) => w.toLowerCase()).join(' ')])
  const anyWords = lower.map((_, i) => [
    { tokens: cut[i]!, columns: 'any' as const },
    { tokens: cut[lower.length + i]!, columns: 'any' as const },
  ])
  return { anyWords, namePrefix: [{ tokens: cut[2 * lower.length]!, columns: 'name' }] }
}

/**
 * A stage's groups as phrase groups: the word as typed (cut as the SQLite lookup's quoted strings
 * are), or one of its prefixes; a name stage's one group, the name column starting with any of its
 * name starts (tokens as stored, the last a prefix).
 */
export function stagePhrases(stage: Pick<Stage, 'groups' | 'names'>): Group[] {
  if (stage.names !== undefined) return [stage.names.map((tokens) => ({ tokens, columns: 'name' as const }))]
  const groups = stage.groups
  const raws = groups.map((g) => g.raw)
  const cut = tokenizeEach([...raws, ...raws.map((w) => FIRST_WORD_MARKER + w)])
  return groups.map((g, i) => [
    { tokens: cut[i]!, columns: 'any' as const },
    { tokens: cut[raws.length + i]!, columns: 'any' as const },
    ...g.prefixes.flatMap((p) => [{ tokens: [p], columns: 'any' as const }, { tokens: [FIRST_WORD_MARKER + p], columns: 'any' as const }]),
  ])
}

/**
 * The typo dictionary's words for each list of keys (each sorted, as on SQLite), for every type,
 * in one statement: `words[type][list]`; and the postings of each word of the lists from
 * `countedFrom` on (words, not names), counted up to `COUNT_BOUND` by an index-only scan of the
 * type's keys: `counts[type]`. The typo stages' scans are driven by the group with the fewest
 * postings, as FTS5's AND costs what its rarest phrase's postings cost (it seeks the others), and
 * the statistics cannot tell a common word outside their sampled most common keys from a rare one.
 */
export async function dictionaryLookup(
  db: Kysely<any>, types: readonly SearchObjectType[], keyLists: readonly (readonly string[])[], countedFrom: number,
): Promise<{ words: string[][][]; counts: Map<string, number>[] }> {
  const out = types.map(() => keyLists.map(() => new Set<string>()))
  const counts = types.map(() => new Map<string, number>())
  const keys = keyLists.flatMap((list) => list)
  if (keys.length > 0 && types.length > 0) {
    const lists = keyLists.flatMap((list, i) => list.map(() => i))
    const arms = types.map((type, t) => {
      const postings = sql.table(PG_SEARCH_TABLES[type].keys)
      return sql`select f.t, f.i, f.word, case when f.i >= ${countedFrom}::int
          then (select count(*) from (select 1 from ${postings} p where p.key = f.word limit ${COUNT_BOUND}) c) end as n
        from (select distinct ${t}::int as t, g.i, k.word from unnest(${keys}::text[], ${lists}::int[]) as g(key, i)
          join ${sql.table(PG_SEARCH_TABLES[type].typoKeys)} k on k.key = g.key) f`
    })
    const { rows } = await sql<{ t: number; i: number; word: string; n: number | string | null }>`${sql.join(arms, sql` union all `)}`.execute(db)
    for (const r of rows) {
      out[r.t]![r.i]!.add(r.word)
      if (r.n !== null) counts[r.t]!.set(r.word, Number(r.n))
    }
  }
  // Code point order, as the dictionary's "C" collation and SQLite's binary order sort.
  return { words: out.map((lists) => lists.map((words) => [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))), counts }
}

/**
 * The words a stage's long prefixes stand for, from what the dictionary lookup found: every word
 * with a start within a word's edits shares a key with it, so the dictionary words that start with
 * one of its prefixes (or with the word itself) are all the indexed words that do; and every name
 * with a start within the term's edits was found, so the first words of the names found that start
 * with a name start's first word are all the first words that do.
 */
export function stageExpansions(stage: Stage, term: TypoTerm, found: readonly string[][]): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>()
  const long = (p: string) => [...stripMarker(p)[0]].length > PG_PREFIX_KEY_LENGTH
  if (stage.names !== undefined) {
    const firsts = [...new Set(found[0]!.map((entry) => entry.split(' ')[0]!))].sort()
    for (const start of stage.names) if (start.length === 1 && long(start[0]!)) out.set(start[0]!, firsts.filter((w) => w.startsWith(start[0]!)))
    return out
  }
  stage.groups.forEach((g, i) => {
    const w = term.words[i]!
    if (w.token === undefined || w.edits === 0) return
    const dictionary = found[i + 1]!
    for (const p of [w.token, ...g.prefixes]) if (long(p)) out.set(p, dictionary.filter((d) => d.startsWith(p)))
  })
  return out
}

interface PgDetailRow extends Omit<DetailRow, 'rank' | 'id'> { rank: number; id: number | string; total: number; keywords?: string[] | null }

/** Records of the type: the highest rank (a backward step of the primary key), with every row to save a round trip. */
const total = (t: PgSearchTableNames) => sql`(select coalesce(max(rank), 0) from ${sql.table(t.ranks)})`

/**
 * The details of the type's records whose ids `ids` gives (an SQL array of bigint), every column
 * typed alike for both types, so that the stage statement can read both types' at once.
 */
function detailsSql(type: SearchObjectType, ids: RawBuilder<unknown>): RawBuilder<unknown> {
  const t = PG_SEARCH_TABLES[type]
  if (type === 'company') {
    const C = datasets.companies
    const col = (n: string) => sql.ref(`x.${columnName(C, n)}`)
    // Keywords sorted in the tag table's "C" collation, SQLite's order.
    const k = C.fields.keywords!.tags!
    return sql`select s.rank, ${total(t)} as total, ${col('id')} as id, ${col('name')} as name, ${col('website')} as slug,
        ${col('website')} as domain, ${col('total_funding')}::bigint as company_funding, ${col('svc_score')}::float8 as svc_score, null::bigint as investor_funding,
        (select array_agg(k.${sql.ref(k.valueColumn)} order by k.${sql.ref(k.valueColumn)}) from ${sql.table(k.table)} k
          where k.${sql.ref(k.ownerColumn)} = ${col('id')})::text[] as keywords
      from ${sql.table(t.ranks)} s join ${sql.table(C.table)} x on ${col('id')} = s.${sql.ref(t.idColumn)}
      where s.${sql.ref(t.idColumn)} = any(${ids})`
  }
  const I = datasets.investors
  const col = (n: string) => sql.ref(`x.${columnName(I, n)}`)
  return sql`select s.rank, ${total(t)} as total, ${col('investor_id')} as id, ${col('name')} as name, ${col('svc_slug')} as slug,
      null::text as domain, null::bigint as company_funding, null::float8 as svc_score, s.funding::bigint as investor_funding, null::text[] as keywords
    from ${sql.table(t.ranks)} s join ${sql.table(I.table)} x on ${col('investor_id')} = s.${sql.ref(t.idColumn)}
    where s.${sql.ref(t.idColumn)} = any(${ids})`
}

/** A details row as read, to its fields (investors' funding is read as a string). */
const detailRow = (r: PgDetailRow): PgDetailRow => (r.investor_funding === null ? r : { ...r, investor_funding: Number(r.investor_funding) })

async function detailsOf(db: Kysely<any>, type: SearchObjectType, ids: readonly number[]): Promise<PgDetailRow[]> {
  const { rows } = await sql<PgDetailRow>`${detailsSql(type, sql`${ids.map(String)}::bigint[]`)}`.execute(db)
  return rows.map(detailRow)
}

/** Candidates of one type: tier 0 (exact name key), 1 (name starts with the words), 2 (every word somewhere). */
async function candidatesOf(db: Kysely<any>, type: SearchObjectType, words: readonly string[], termKey: string, limit: number) {
  const q: TypeQuery = { db, t: PG_SEARCH_TABLES[type] }
  const { anyWords, namePrefix } = phrasesOf(words)
  // The three tiers at once (each on its own pooled connection). SQLite asks tier 2 for
  // `limit + (records already in tiers 0 and 1)`, at most `3 * limit`: asking for that many and
  // keeping the same first ones gives the same set.
  const [exact, prefix, any] = await Promise.all([
    // PostgreSQL text holds no NUL, so no stored name_key equals a term with one (and binding it would fail).
    termKey.includes('\u0000') ? Promise.resolve([] as number[]) : sql<{ id: number | string }>`select ${sql.ref(q.t.idColumn)} as id
      from ${sql.table(q.t.ranks)} where name_key = ${termKey} order by rank limit ${limit}`.execute(db).then((r) => r.rows.map((x) => Number(x.id))),
    matching(q, [namePrefix], limit),
    matching(q, anyWords, 3 * limit),
  ])
  const tierOf = new Map<number, 0 | 1 | 2>()
  for (const id of exact) tierOf.set(id, 0)
  for (const id of prefix) if (!tierOf.has(id)) tierOf.set(id, 1)
  for (const id of any.slice(0, limit + tierOf.size)) if (!tierOf.has(id)) tierOf.set(id, 2)
  return tierOf
}

/**
 * Every stage of every type in one statement (one round trip instead of one per stage asked, and
 * the hits' details in it too): for each type, the stage that first found each record (its index
 * in the plan), as the SQLite lookup's loop finds them (`searchRecords`: stage k is asked while
 * fewer than `limit` hits are known, each type to `stageWindow(limit)` + its hits known so far),
 * and the details of those records and of the tiers'. Each stage is a materialized CTE whose
 * LIMIT is that number, computed in the statement from the tiers' ids (bound arrays) and the
 * stages before it; once `limit` hits are known it is 0, and PostgreSQL then runs nothing under
 * it. So a stage the loop would not ask is not read either, and one it asks is read to the same
 * limit. `details` is undefined when no stage can match (nothing was asked).
 */
async function stagesAtOnce(
  db: Kysely<any>, types: readonly SearchObjectType[], queries: readonly (readonly { q: TypeQuery; groups: Group[] }[])[],
  tiers: readonly ReadonlyMap<number, unknown>[], limit: number,
): Promise<{ stageOf: Map<number, number>[]; details: PgDetailRow[][] | undefined }> {
  const stages = queries[0]?.length ?? 0
  const window = stageWindow(limit)
  const tierIds = tiers.map((t) => [...t.keys()].map(String))
  const tierCount = tiers.reduce((n, t) => n + t.size, 0)
  const name = (k: number, i: number) => sql.table(`stage_${k}_${i}`)
  const gate = (k: number) => sql.table(`stage_limits_${k}`)
  // Which stages have a statement (a stage that cannot match has none, and adds nothing).
  const live: boolean[][] = types.map(() => [])
  const before = (i: number, k: number) => live[i]!.slice(0, k).flatMap((on, j) => (on ? [j] : []))
  const ctes: RawBuilder<unknown>[] = []
  for (let k = 0; k < stages; k++) {
    if (k > 0) {
      // Hits of type i from the stages before k that the tiers did not have (ids are unique within a type).
      const mine = (i: number) => {
        const arms = before(i, k).map((j) => sql`select id from ${name(j, i)}`)
        return arms.length === 0 ? sql`0` : sql`(select count(*) from (${sql.join(arms, sql` union `)}) u where not (u.id = any(${tierIds[i]}::bigint[])))`
      }
      const known = sql`${tierCount}::bigint + ${sql.join(types.map((_, i) => mine(i)), sql` + `)}`
      const limits = types.map((_, i) => sql`case when ${known} < ${limit} then ${window + tiers[i]!.size}::bigint + ${mine(i)} else 0 end as ${sql.ref(`l${i}`)}`)
      ctes.push(sql`${gate(k)} as materialized (select ${sql.join(limits)})`)
    }
    const arms = await Promise.all(queries.map(({ [k]: stage }, i) => matchingSql(stage!.q, stage!.groups, k === 0 ? window + tiers[i]!.size : sql`(select ${sql.ref(`l${i}`)} from ${gate(k)})`)))
    arms.forEach((arm, i) => {
      live[i]![k] = arm !== undefined
      if (arm !== undefined) ctes.push(sql`${name(k, i)} as materialized (${arm})`)
    })
  }
  const stageOf = types.map(() => new Map<number, number>())
  if (ctes.length === 0) return { stageOf, details: undefined }
  // Per type: its tiers' and stages' records with their details, and the first stage that found each.
  const parts = types.map((type, i) => {
    const found = before(i, stages).map((k) => sql`select ${k}::int as k, id from ${name(k, i)}`)
    const foundSql = found.length === 0 ? sql`select null::int as k, null::bigint as id where false` : sql.join(found, sql` union all `)
    const ids = sql`array(select unnest(${tierIds[i]}::bigint[]) union select f.id from (${foundSql}) f)`
    return sql`select ${i}::int as t, st.k as stage, d.* from (${detailsSql(type, ids)}) d
      left join (select f.id, min(f.k) as k from (${foundSql}) f group by f.id) st on st.id = d.id`
  })
  const { rows } = await sql<PgDetailRow & { t: number; stage: number | null }>`with ${sql.join(ctes)}
    ${sql.join(parts, sql` union all `)}`.execute(db)
  const details: PgDetailRow[][] = types.map(() => [])
  for (const { t, stage, ...row } of rows) {
    if (stage !== null) stageOf[t]!.set(Number(row.id), stage)
    details[t]!.push(detailRow(row))
  }
  return { stageOf, details }
}

/** Whether the PostgreSQL database has a built search index (migration 011 and a refresh since). */
export async function postgresSearchIndexReady(vdb: PostgresVentureDb): Promise<boolean> {
  if (!(await tableExists(vdb, PG_SEARCH_STATE_TABLE))) return false
  const built = await sql<{ n: number }>`select count(*) as n from ${sql.table(PG_SEARCH_STATE_TABLE)}`.execute(vdb.db)
  return Number(built.rows[0]?.n ?? 0) > 0
}

/** `searchRecords` on PostgreSQL: the same hits in the same order. */
export async function searchRecordsPostgres(vdb: PostgresVentureDb, request: SearchRequest): Promise<SearchHit[]> {
  const words = searchWords(request.term).slice(0, MAX_SEARCH_WORDS)
  if (words.length === 0 || request.limit < 1) return []
  const termKey = asciiLower(request.term.trim())
  const types = SEARCH_OBJECT_TYPES.filter((type) => request.objectTypes.includes(type))
  // Both types at once, each on its own connections.
  const mode = request.typo ?? 0
  const term = typoTerm(words, mode)
  // A term that can carry edits asks the typo dictionary while its exact tiers are read: a round
  // trip less when they come short (a misspelt term nearly always), a statement spent in parallel
  // when they find the term exactly. The postings' statistics are cached (`postingStatistics`).
  const keys = dictionaryKeys(term.words)
  const namesKeys = nameKeys(term)
  const typos = mode !== 0 && (namesKeys.length > 0 || keys.some((k) => k.length > 0))
    ? Promise.all([
      dictionaryLookup(vdb.db, types, [namesKeys, ...keys], 1),
      Promise.all(types.map((type) => postingStatistics(vdb.db, PG_SEARCH_TABLES[type].keys))),
    ])
    : undefined
  // Not awaited when the tiers fill the page: its failure is then nobody's.
  typos?.catch(() => undefined)
  const tiers = await Promise.all(types.map((type) => candidatesOf(vdb.db, type, words, termKey, request.limit)))

  // The typo and dropped-word stages of the SQLite lookup, with the same limits, read as its loop reads them.
  const staged = types.map(() => new Map<number, StageHit>())
  const known = () => tiers.reduce((n, m) => n + m.size, 0) + staged.reduce((n, m) => n + m.size, 0)
  // The records' details, when the stages' statement read them.
  let details: PgDetailRow[][] | undefined
  if (runsTypoStages(request, known())) {
    const [{ words: found, counts }, postings] = typos
      ? await typos
      : [{ words: types.map(() => [namesKeys, ...keys].map(() => [] as string[])), counts: types.map(() => new Map<string, number>()) }, types.map(() => undefined)]
    const plans = found.map(([names, ...dictionary]) => typoStages(term, (i) => dictionary[i]!, () => names!))
    const queries = plans.map((plan, i) => plan.map((stage) => ({
      q: { db: vdb.db, t: PG_SEARCH_TABLES[types[i]!], expansions: stageExpansions(stage, term, found[i]!), postings: postings[i], counts: counts[i] },
      groups: stagePhrases(stage),
    })))
    const got = await stagesAtOnce(vdb.db, types, queries, tiers, request.limit)
    types.forEach((_, i) => {
      for (const [id, k] of got.stageOf[i]!) if (!tiers[i]!.has(id)) staged[i]!.set(id, plans[i]![k]!)
    })
    details = got.details
  }

  const found = await Promise.all(types.map(async (type, i): Promise<FoundOfType | undefined> => {
    const tierOf = tiers[i]!
    const stageOf = staged[i]!
    if (tierOf.size === 0 && stageOf.size === 0) return undefined
    const rows = details?.[i] ?? await detailsOf(vdb.db, type, [...tierOf.keys(), ...stageOf.keys()])
    const keywords = rows.flatMap((r) => (r.keywords ?? []).map((value) => ({ id: Number(r.id), value })))
    const scores = stageScores(rows.map((r) => stageOf.get(Number(r.id))), term, rows)
    return {
      type, total: Number(rows[0]?.total ?? 0), keywords,
      rows: rows.map(({ total: _total, keywords: _keywords, ...r }, j) => ({
        ...r, id: Number(r.id), tier: tierOf.get(Number(r.id)) ?? 2, ...scores[j],
      })),
    }
  }))
  return rankHits(request, found.filter((f): f is FoundOfType => f !== undefined), term)
}
