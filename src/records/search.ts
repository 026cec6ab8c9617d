/**
 * @module The type-ahead lookup of GET /search (spec 4.9) over the index of
 * `store/search-index.ts`.
 *
 * Matching: the term is cut into words (runs of Unicode letters and digits, as FTS5's unicode61
 * tokenizer cuts names), and every word must be the start of a word of the record's name, domain
 * (companies) or slug (investors), case and diacritics ignored: `acm` finds acme.com, `ven cap`
 * finds "Venture Capital Partners". Words never reach FTS5 unquoted, and being letters and digits
 * only they cannot carry FTS5 syntax (`"`, `*`, `NEAR(`, `:`, `-`); `OR` is just a word.
 *
 * Ranking, in tiers: (0) the name equals the term (case-insensitive; accents, punctuation and
 * spacing too when the name is also among the name-start candidates of tier 1), (1) the name starts
 * with the term's words, (2) anything else that matches. A name that folds to the term starts with
 * its words, so only tier 1 is looked at for the promotion; then with `limit` hits in tiers 0 and 1
 * (a short prefix nearly always) tier 2 is never asked for. Within a tier by importance, the record's rank within its type divided by the
 * number of records of the type, so that a top-1% investor sits with the top-1% companies;
 * companies before investors on equal footing, then id.
 *
 * Typos and dropped words (`request.typo`, grammar-docs/guides/search.md): when fewer than
 * `request.typoThreshold` records match exactly, and then while fewer than `limit` hits are known, stages follow (`typoStages`): the names starting within the term's edits, the
 * term with each word also standing for the prefixes within its edits (both from the typo
 * dictionary, `store/search-typo.ts`), then the term without its last words. Their hits rank after
 * the tiers' by words matched, then typos (counted on the hit's own name and words), then whole
 * names first, then importance; they need their records read before the order is known.
 *
 * Cost: each tier is a query that FTS5 answers in rank order and stops at the limit (see
 * schema/search-tables.ts), so a one-letter term costs the same as a rare one. The name tiers and
 * the type's record count are one statement per type; tier 2, when needed, one more; the answered
 * hits' fields one more per type that has some. Prefixes of 4+
 * characters are asked as the exact words they stand for (from the index's words table), which
 * FTS5 reads lazily; it would otherwise merge every such word's doclist in full first.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { datasets } from '../catalog/index.js'
import { FIRST_WORD_MARKER, MIN_EXPANDED_PREFIX, SEARCH_OBJECT_TYPES, SEARCH_TABLES, type CompanyHitField, type SearchObjectType, type SearchTableNames } from '../store/schema/search-tables.js'
import type { SqliteVentureDb } from '../store/open.js'
import { limitedStatement, namedLimitedStatement, type LimitedStatement, type NamedLimitedStatement } from '../execute/statements.js'
import { tokenizeEach, tokenizePairs } from '../store/search-tokens.js'
import {
  allowedEdits, MAX_TYPOS, nameDistances, nameQueryKeys, queryKeys, termBudget, typoNameStarts, typoPrefixes, typosOf, type TypoMode, type TypoWord,
} from '../store/search-typo.js'

// The kinds of record search finds are the search tables' own (the store builds their postings).
export { SEARCH_OBJECT_TYPES, type SearchObjectType } from '../store/schema/search-tables.js'
export { TYPO_MODES, type TypoMode } from '../store/search-typo.js'

/** Words of a term beyond this many are refused (each adds an FTS5 iterator to every query). */
export const MAX_SEARCH_WORDS = 12

export interface SearchRequest {
  /** The term as sent (trimmed, non-blank). */
  readonly term: string
  readonly objectTypes: readonly SearchObjectType[]
  /** At most this many results (the caller caps it). */
  readonly limit: number
  /** Typo tolerance (`store/search-typo.ts`); default 0, exact prefixes only. */
  readonly typo?: TypoMode
  /**
   * The typo and dropped-word stages run only when fewer than this many records match every word
   * of the term exactly (Typesense's `typo_tokens_threshold`); once they run, they fill up to
   * `limit`. Default `DEFAULT_TYPO_THRESHOLD` (1): a term that finds anything exactly is answered
   * exactly, at the cost of an exact search. `limit` fills every page that exact matches leave short.
   */
  readonly typoThreshold?: number
}

/** The default `typoThreshold`: typos are tried only for a term nothing matches exactly. */
export const DEFAULT_TYPO_THRESHOLD = 1

/** Whether the typo and dropped-word stages run after `exact` exact hits (shared with search-postgres.ts). */
export function runsTypoStages(request: SearchRequest, exact: number): boolean {
  if ((request.typo ?? 0) === 0) return false
  return exact < Math.min(request.limit, request.typoThreshold ?? DEFAULT_TYPO_THRESHOLD)
}

export interface SearchHit {
  readonly objectType: SearchObjectType
  readonly id: number
  readonly name: string | null
  /** Companies: website domain. Investors: svc_slug. */
  readonly slug: string | null
  /** Companies only. */
  readonly domain: string | null
  /** Companies: total_funding (U.S. dollars). */
  readonly companyFunding: number | null
  readonly svcScore: number | null
  /** Companies: keywords (sorted); empty for investors. */
  readonly keywords: readonly string[]
  /** Investors: U.S.-dollar total of the rounds they took part in. */
  readonly investorFunding: number | null
  /** 0 exact name, 1 name starts with the term, 2 other match. */
  readonly tier: 0 | 1 | 2
  /** Words of the term the hit matches: all of them unless words were dropped from the end. */
  readonly words: number
  /** Edits between the matched words and the hit's words (0: every word starts one of its words). */
  readonly typos: number
}

/**
 * Runs of letters, digits and combining marks: unicode61 keeps a mark inside its word (`q` + U+0301
 * is the word `q́`, stored as `q`), so splitting at marks would look for words nobody stored.
 * Private-use characters, which unicode61 also keeps, are left out: the first-word marker is one.
 */
const WORD = /[\p{L}\p{N}\p{M}]+/gu
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

/**
 * The words of a term, as unicode61 cuts names (composed first, so `e` + combining accent is the
 * one letter `é`). Empty when the term holds no letter or digit.
 */
export function searchWords(term: string): string[] {
  return (term.normalize('NFC').match(WORD) ?? []).filter((w) => HAS_LETTER_OR_DIGIT.test(w))
}

/** Case and accents folded, spaces collapsed: the comparison behind tier 0 for non-ASCII names. */
function fold(text: string): string {
  return (text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().match(WORD) ?? []).join(' ')
}

/** SQLite's lower(): ASCII letters only, so that `name_key = ?` compares like the stored keys. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase())
}

const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`

/**
 * The exact indexed words a prefix stands for, or `undefined` to leave the prefix to FTS5 (short
 * prefixes have FTS5's prefix index; very common prefixes have too many words to list).
 */
export type ExpandPrefix = (prefix: string) => readonly string[] | undefined

/** Words whose lower case is what unicode61 stores; others (accents, other scripts) are left to FTS5. */
const STORED_AS_TYPED = /^[a-z0-9]+$/
/** More words than this for one prefix and FTS5's own merge is the cheaper plan. */
const MAX_EXPANDED_WORDS = 32

/** `expand` remembering its answers (for one request: the words table changes with an import). */
function memoized(expand: ExpandPrefix): ExpandPrefix {
  const seen = new Map<string, readonly string[] | undefined>()
  return (prefix) => {
    if (seen.has(prefix)) return seen.get(prefix)
    const words = expand(prefix)
    seen.set(prefix, words)
    return words
  }
}

/** `prefix` as FTS5 alternatives: its exact words when the index can list them, else `"prefix"*`. */
function alternatives(prefix: string, expand: ExpandPrefix): string[] {
  const words = expand(prefix)
  return words === undefined ? [`${quoted(prefix)}*`] : words.map(quoted)
}

/**
 * Every word a prefix of some word of the record (a first word is stored behind the marker).
 * `undefined` when some word is the prefix of no indexed word at all: nothing can match.
 */
export function anyWordsQuery(words: readonly string[], expand: ExpandPrefix = () => undefined): string | undefined {
  const groups: string[] = []
  for (const w of new Set(words.map((x) => x.toLowerCase()))) {
    const alts = [...alternatives(w, expand), ...alternatives(FIRST_WORD_MARKER + w, expand)]
    if (alts.length === 0) return undefined
    groups.push(`(${alts.join(' OR ')})`)
  }
  return groups.join(' AND ')
}

/** The name starts with the words, in order, the last one a prefix. `undefined`: nothing can match. */
export function namePrefixQuery(words: readonly string[], nameColumn: string, expand: ExpandPrefix = () => undefined): string | undefined {
  const lower = words.map((w) => w.toLowerCase())
  const last = lower[lower.length - 1]!
  const head = lower.slice(0, -1)
  let phrases: string[]
  if (head.length === 0) {
    phrases = alternatives(FIRST_WORD_MARKER + last, expand)
  } else {
    const lead = `${FIRST_WORD_MARKER}${head.join(' ')} `
    const lastWords = expand(last)
    phrases = lastWords === undefined ? [`${quoted(lead + last)}*`] : lastWords.map((w) => quoted(lead + w))
  }
  if (phrases.length === 0) return undefined
  return `${quoted(nameColumn)} : (${phrases.join(' OR ')})`
}

//// typo tolerance and dropped words (shared with search-postgres.ts) ////

/** A word of the term for typo matching: as typed (lower case), its folded token and its edit budget. */
export interface TermWord {
  readonly raw: string
  /** The word as the index folds it; `undefined` when it is not one token (never typo-matched). */
  readonly token: string | undefined
  readonly edits: number
}

export function termWords(words: readonly string[], mode: TypoMode): TermWord[] {
  const raws = words.map((w) => w.toLowerCase())
  // One pass of the tokenizer for every word (each pass is a transaction of its own).
  const cut = tokenizeEach(raws)
  return raws.map((raw, i) => {
    const tokens = cut[i]!
    const token = tokens.length === 1 ? tokens[0]! : undefined
    return { raw, token, edits: token === undefined ? 0 : allowedEdits(token, mode) }
  })
}

/** One word of a stage's query: the word as typed (a prefix), or any of the prefixes it stands for within its budget. */
export interface StageGroup {
  readonly raw: string
  readonly prefixes: readonly string[]
}

/**
 * A query after the exact one: the first `words` words of the term, each with at most `budget`
 * edits (its own budget when smaller: `groups`), or, for the whole term, the names whose start is
 * within `budget` edits of the term's letters (`names`: the name starts as tokens, the first with
 * the first-word marker). The hits it adds are scored with `typoWords` and the term's letters.
 */
export interface Stage {
  readonly words: number
  readonly groups: readonly StageGroup[]
  readonly names?: readonly (readonly string[])[]
  readonly typoWords: readonly TypoWord[]
}

/** The whole term as typo matching sees it: its words, its letters (tokens joined) and its edit budget. */
export interface TypoTerm {
  readonly words: readonly TermWord[]
  readonly flat: string
  readonly budget: number
}

export function typoTerm(words: readonly string[], mode: TypoMode): TypoTerm {
  const term = termWords(words, mode)
  const tokens = term.map((w) => w.token ?? w.raw)
  return { words: term, flat: tokens.join(''), budget: termBudget(tokens, mode) }
}

/**
 * The stages of a tolerant search, in the order they are asked while fewer than `limit` hits are
 * known: for the whole term, at 1 then 2 edits, the names starting within that many edits of the
 * term's letters (spaces ignored, so the edits fall in any word, a short one too), then the records
 * with each word within that many edits of a start of one of their words (each word within its
 * own budget); then (dropping words from the end, as Typesense's drop_tokens_threshold does) the
 * first n-1 words exactly, with 1, with 2 edits per word, and so on down to the first word. Levels
 * nothing has the budget for are left out. `dictionary(i)`: the typo dictionary's words for term
 * word i (its `queryKeys` looked up), `names()`: its names for the term's letters (`nameQueryKeys`);
 * each asked once.
 */
export function typoStages(term: TypoTerm, dictionary: (i: number) => readonly string[], names: () => readonly string[]): Stage[] {
  const words = term.words
  const found = new Map<number, readonly string[]>()
  const dict = (i: number) => {
    let d = found.get(i)
    if (d === undefined) found.set(i, (d = dictionary(i)))
    return d
  }
  let nameEntries: readonly string[] | undefined
  const prefixes = new Map<string, string[]>()
  const prefixesOf = (i: number, token: string, k: number) => {
    const key = `${i}:${k}`
    let p = prefixes.get(key)
    if (p === undefined) prefixes.set(key, (p = typoPrefixes(token, k, dict(i))))
    return p
  }
  const out: Stage[] = []
  for (let m = words.length; m >= 1; m--) {
    const head = words.slice(0, m)
    const most = Math.max(...head.map((w) => w.edits), m === words.length ? term.budget : 0)
    for (let budget = m === words.length ? 1 : 0; budget <= Math.min(most, MAX_TYPOS); budget++) {
      const typoWords = head.map((w) => ({ token: w.token ?? w.raw, edits: Math.min(w.edits, budget) }))
      if (m === words.length && budget >= 1 && budget <= term.budget) {
        // Pushed even when empty, so that every type's plan has the same stages in the same places.
        const b = budget
        out.push(lazyStage({ words: m, groups: [], typoWords }, 'names', () => typoNameStarts(term.flat, b, (nameEntries ??= names()))))
      }
      if (budget > 0 && !head.some((w) => w.edits >= budget)) continue
      const b = budget
      out.push(lazyStage({ words: m, typoWords }, 'groups', () => head.map((w, i): StageGroup => {
        const k = Math.min(w.edits, b)
        return { raw: w.raw, prefixes: k === 0 || w.token === undefined ? [] : prefixesOf(i, w.token, k) }
      })))
    }
  }
  return out
}

/**
 * A stage whose `names` or `groups` (the part read from the typo dictionary) is worked out when
 * first read, once: SQLite asks the stages one by one and stops once `limit` hits are known, most
 * often after the first, so the dictionary lookups of the later ones are never made (a lookup
 * returns hundreds of words). Which stages there are does not depend on the dictionary, so every
 * type's plan still has the same stages in the same places.
 */
function lazyStage<K extends 'names' | 'groups'>(fixed: Omit<Stage, 'groups' | 'names'> & Partial<Stage>, key: K, make: () => NonNullable<Stage[K]>): Stage {
  let value: NonNullable<Stage[K]> | undefined
  return Object.defineProperty({ ...fixed }, key, { enumerable: true, get: () => (value ??= make()) }) as Stage
}

/**
 * Records a stage reads (besides those already known), in importance order: more than the limit,
 * because its hits are then ordered by their typos, and a less important record with fewer typos
 * must be among them to rank first.
 */
export const STAGE_WINDOW = 50
export const stageWindow = (limit: number) => Math.max(limit, STAGE_WINDOW)

/** The keys of every term word with a budget, for one dictionary query per type (`undefined`: no typo matching at all). */
export function dictionaryKeys(words: readonly TermWord[]): string[][] {
  return words.map((w) => (w.token === undefined || w.edits === 0 ? [] : queryKeys(w.token, w.edits)))
}

/** The keys of the term's letters for the names of the dictionary (none without a budget). */
export function nameKeys(term: TypoTerm): string[] {
  return term.budget === 0 ? [] : nameQueryKeys(term.flat, term.budget)
}

/** A candidate's place among the stages: the words it matched, the stage's words to score it with, the term's letters and budget. */
export interface StageHit {
  readonly words: number
  readonly typoWords: readonly TypoWord[]
  readonly names?: unknown
}

/**
 * The score of a stage hit, from its record's name and domain or slug. Typos: for a hit of every
 * word, the fewer of its words' edits (each word to a start of one of the record's words) and its
 * name's (the term's letters to the start of the name's letters), the latter only when within the
 * term's budget; a hit of a name stage counts its name's alone (above the term's budget: not a
 * hit, `rankHits`). Whole: the whole name, not only a start of it, is within the term's budget.
 */
export function stageTypos(hit: StageHit, term: TypoTerm, [nameTokens, otherTokens]: readonly [readonly string[], readonly string[]]): { typos: number; whole: boolean } {
  // Both distances only matter up to the term's budget (one scan, stopped beyond it).
  const distances = nameDistances(term.flat, nameTokens, term.budget)
  const whole = distances.whole <= term.budget
  const byName = hit.words === term.words.length ? distances.least : Infinity
  const named = byName <= term.budget ? byName : Infinity
  if (hit.names !== undefined) return { typos: named, whole }
  return { typos: Math.min(typosOf(hit.typoWords, [...nameTokens, ...otherTokens]), named), whole }
}

/**
 * A stage's FTS5 query: every group, any of its alternatives (word or prefix, plain or first word);
 * for a name stage, the name column starting with any of the name starts. `undefined`: nothing can match.
 */
export function stageQuery(stage: Pick<Stage, 'groups' | 'names'>, nameColumn: string, expand: ExpandPrefix = () => undefined): string | undefined {
  if (stage.names !== undefined) return nameStartsQuery(stage.names, nameColumn, expand)
  const groups = stage.groups
  const parts: string[] = []
  for (const g of groups) {
    const alts = [g.raw, ...g.prefixes].flatMap((w) => [...alternatives(w, expand), ...alternatives(FIRST_WORD_MARKER + w, expand)])
    if (alts.length === 0) return undefined
    parts.push(`(${[...new Set(alts)].join(' OR ')})`)
  }
  return parts.join(' AND ')
}

/** The name column starting with any of the name starts (each its tokens, the first marked, the last a prefix). */
function nameStartsQuery(starts: readonly (readonly string[])[], nameColumn: string, expand: ExpandPrefix): string | undefined {
  const phrases: string[] = []
  for (const tokens of starts) {
    const last = tokens[tokens.length - 1]!
    if (tokens.length === 1) { phrases.push(...alternatives(last, expand)); continue }
    const lead = `${tokens.slice(0, -1).join(' ')} `
    const lastWords = expand(last)
    phrases.push(...(lastWords === undefined ? [`${quoted(lead + last)}*`] : lastWords.map((w) => quoted(lead + w))))
  }
  if (phrases.length === 0) return undefined
  return `${quoted(nameColumn)} : (${[...new Set(phrases)].join(' OR ')})`
}

interface TypeStatements {
  /**
   * The name tiers and the type's record count, as `[rank, name_key, tier]` rows (`nameCandidates`):
   * `@key` the term's name key, `@match` the name-start query. Their LIMITs are written as a number
   * where they can be: a bound LIMIT costs a prepare on every run (`withLiteralLimit`).
   */
  readonly nameTiers: NamedLimitedStatement
  /** The same without the name-start tier, for a term whose words start no indexed word. */
  readonly exactTier: NamedLimitedStatement
  readonly match: LimitedStatement
  readonly details: BetterSqlite3.Statement
  readonly expand: ExpandPrefix
  /** The typo dictionary's words for some keys; `undefined` on a database without the dictionary (read-only, before migration 015). */
  readonly dictionary: ((keys: readonly string[]) => string[]) | undefined
}

export interface DetailRow {
  rank: number
  id: number
  name: string | null
  slug: string | null
  domain: string | null
  company_funding: number | null
  svc_score: number | null
  investor_funding: number | null
}

function typeStatements(sqlite: BetterSqlite3.Database, type: SearchObjectType): TypeStatements {
  const t: SearchTableNames = SEARCH_TABLES[type]
  const termsInRange = sqlite.prepare(`select term from "${t.terms}" where term >= ? and term < ? order by term limit ${MAX_EXPANDED_WORDS + 1}`).pluck()
  const hasDictionary = sqlite.prepare(`select count(*) from sqlite_master where type = 'table' and name = ?`).pluck().get(t.typoKeys) === 1
  // The words as one newline-separated text (no token holds a newline: unicode61 splits there, and a
  // name entry joins tokens with spaces), a word once per key it shares, made distinct here: SQLite's
  // DISTINCT (a temporary b-tree) and a row per word cost about a third more. In no order: the
  // callers sort what they keep.
  const dictionaryWords = hasDictionary
    ? sqlite.prepare(`select group_concat(word, char(10)) from "${t.typoKeys}" where key in (select value from json_each(?))`).pluck()
    : undefined
  const common = {
    dictionary: dictionaryWords && ((keys: readonly string[]): string[] => {
      const joined = keys.length === 0 ? null : dictionaryWords.get(JSON.stringify(keys)) as string | null
      return joined === null ? [] : [...new Set(joined.split('\n'))]
    }),
    expand: (prefix: string): readonly string[] | undefined => {
      const word = prefix.startsWith(FIRST_WORD_MARKER) ? prefix.slice(FIRST_WORD_MARKER.length) : prefix
      if ([...prefix].length < MIN_EXPANDED_PREFIX || !STORED_AS_TYPED.test(word)) return undefined
      // Every word that starts with `prefix` sorts before the prefix with its last character moved up by one.
      const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)
      const found = termsInRange.all(prefix, upper) as string[]
      return found.length > MAX_EXPANDED_WORDS ? undefined : found
    },
    // Three parts in one statement: each statement run has a fixed cost, paid once here instead of
    // three times (the suite's search phase measures it, `npm run bench`).
    // The name-start tier comes with each match's name key, for the promotion to tier 0: one
    // primary-key step per row, cheaper than a second statement over the ranks. The count is the
    // highest rank (the denominator of a hit's importance), tier -1.
    nameTiers: namedLimitedStatement((limit) => sqlite.prepare(`${exactArm(t, limit)}
      union all select * from (select f.rowid, s.name_key, 1 from "${t.fts}" f join "${t.ranks}" s on s.rank = f.rowid
        where "${t.fts}" match @match order by f.rowid limit ${limit})
      union all ${countArm(t)}`).raw()),
    exactTier: namedLimitedStatement((limit) => sqlite.prepare(`${exactArm(t, limit)} union all ${countArm(t)}`).raw()),
    match: limitedStatement((limit) => sqlite.prepare(`select rowid from "${t.fts}" where "${t.fts}" match ? order by rowid limit ${limit}`).pluck()),
  }
  if (type === 'company') return { ...common, details: sqlite.prepare(companyDetailsSql(sqlite, t, RANKS_IN)) }
  const I = datasets.investors
  const col = (n: string) => `x."${I.fields[n]!.column}"`
  return {
    ...common,
    details: sqlite.prepare(`select s.rank, ${col('investor_id')} as id, ${col('name')} as name, ${col('svc_slug')} as slug, null as domain,
        null as company_funding, null as svc_score, s.funding as investor_funding
      from "${t.ranks}" s join "${I.table}" x on x."${I.fields.investor_id!.column}" = s."${t.idColumn}" where ${RANKS_IN}`),
  }
}

/** Tier 0 of `nameTiers`: the name key equals the term's. */
const exactArm = (t: SearchTableNames, limit: string) =>
  `select * from (select rank, name_key, 0 from "${t.ranks}" where name_key = @key order by rank limit ${limit})`
/** The records of the type (ranks run from 1 without gaps), as tier -1: a constant row. */
const countArm = (t: SearchTableNames) => `select coalesce(max(rank), 0), null, -1 from "${t.ranks}"`

/** The answered hits of a type: their ranks, one JSON array bound as the statement's parameter. */
export const RANKS_IN = 's.rank in (select value from json_each(?))'

/**
 * The answered companies' fields, from the rank table alone (migration 013 copied them there:
 * schema/search-tables.ts), or else from the companies and their keywords by id: on a file opened
 * read-only before that migration, and on one whose index an earlier release rebuilt after it
 * (that build leaves the copies empty: the first rank's keywords, always a JSON array when filled,
 * are then NULL).
 */
export function companyDetailsSql(sqlite: BetterSqlite3.Database, t: SearchTableNames, ranksIn: string, form: 'auto' | 'joined' = 'auto'): string {
  // The rank table's copy of a hit field (its column has the field's name).
  const hit = (field: CompanyHitField) => `s."${field}"`
  const copied = form === 'auto'
    && (sqlite.prepare(`select name from pragma_table_info(?)`).pluck().all(t.ranks) as string[]).includes('keywords')
    && sqlite.prepare(`select count(*) from "${t.ranks}" s where s.rank = (select min(rank) from "${t.ranks}") and ${hit('keywords')} is null`).pluck().get() === 0
  if (copied) {
    return `select s.rank, s."${t.idColumn}" as id, ${hit('name')} as name, ${hit('website')} as slug, ${hit('website')} as domain,
      ${hit('total_funding')} as company_funding, ${hit('svc_score')} as svc_score, null as investor_funding, ${hit('keywords')} as keywords
      from "${t.ranks}" s where ${ranksIn}`
  }
  const C = datasets.companies
  const col = (n: string) => `x."${C.fields[n]!.column}"`
  const keywords = C.fields.keywords!.tags!
  // The keywords as a JSON array in the same statement: a second statement over the ids cost
  // more than the lists (10 companies: 44 against 32 µs).
  return `select s.rank, ${col('id')} as id, ${col('name')} as name, ${col('website')} as slug, ${col('website')} as domain,
      ${col('total_funding')} as company_funding, ${col('svc_score')} as svc_score, null as investor_funding,
      (select json_group_array(k."${keywords.valueColumn}" order by k."${keywords.valueColumn}") from "${keywords.table}" k
        where k."${keywords.ownerColumn}" = ${col('id')}) as keywords
    from "${t.ranks}" s join "${C.table}" x on x."${C.fields.id!.column}" = s."${t.idColumn}" where ${ranksIn}`
}

/** Prepared once per connection: a type-ahead request should cost microseconds of SQL, not a prepare. */
const statementCache = new WeakMap<BetterSqlite3.Database, Record<SearchObjectType, TypeStatements>>()

function statementsFor(sqlite: BetterSqlite3.Database): Record<SearchObjectType, TypeStatements> {
  let cached = statementCache.get(sqlite)
  if (!cached) {
    cached = { company: typeStatements(sqlite, 'company'), investor: typeStatements(sqlite, 'investor') }
    statementCache.set(sqlite, cached)
  }
  return cached
}

/** The candidates of a type, each rank's tier, and the records of the type. */
interface TypeCandidates {
  readonly tierOf: Map<number, 0 | 1 | 2>
  readonly total: number
}

/**
 * The candidates of one type in the name tiers, best first within each, at most `limit` per tier:
 * 0 (the name key equals the term's) and 1 (the name starts with the words; promoted to 0 when its
 * name folds to the term, `rankHits`); and the records of the type, read in the same statement.
 */
function nameCandidates(s: TypeStatements, words: readonly string[], termKey: string, termFolded: string, nameColumn: string, limit: number): TypeCandidates {
  const namePrefix = namePrefixQuery(words, nameColumn, s.expand)
  const rows = (namePrefix === undefined ? s.exactTier.all(limit, { key: termKey }) : s.nameTiers.all(limit, { key: termKey, match: namePrefix })) as [number, string | null, -1 | 0 | 1][]
  const tierOf = new Map<number, 0 | 1 | 2>()
  let total = 0
  // Tier 0 first: a record in both tiers is in tier 0 (the arms' order in the rows is not relied on).
  for (const [rank, , tier] of rows) if (tier === 0) tierOf.set(rank, 0)
  for (const [rank, nameKey, tier] of rows) {
    if (tier === -1) total = rank
    else if (tier === 1 && !tierOf.has(rank)) tierOf.set(rank, nameKey !== null && fold(nameKey) === termFolded ? 0 : 1)
  }
  return { tierOf, total }
}

/** Adds tier 2 (every word somewhere): enough that `limit` remain after dropping those already in a better tier. */
function addOtherMatches(s: TypeStatements, words: readonly string[], tierOf: Map<number, 0 | 1 | 2>, limit: number): void {
  const anyWords = anyWordsQuery(words, s.expand)
  if (anyWords === undefined) return
  for (const rank of s.match.all(limit + tierOf.size, anyWords) as number[]) if (!tierOf.has(rank)) tierOf.set(rank, 2)
}

/**
 * Whether the database has the search index: a database loaded before migration 006 and opened
 * read-only (no migrations run) does not. Only a yes is remembered; tables do not disappear.
 */
export function searchIndexReady(vdb: SqliteVentureDb): boolean {
  if (statementCache.has(vdb.sqlite)) return true
  const tables = Object.values(SEARCH_TABLES).flatMap((t) => [t.ranks, t.fts, t.terms])
  const found = vdb.sqlite.prepare(`select count(*) from sqlite_master where type = 'table' and name in (select value from json_each(?))`)
    .pluck().get(JSON.stringify(tables)) as number
  if (found !== tables.length) return false
  statementsFor(vdb.sqlite)
  return true
}

/**
 * The best `limit` records matching the term, best first. A term without letters or digits
 * matches nothing. Callers validate the term's length and word count first (`searchWords`).
 *
 * The hits are ordered before any record is read: `rankHits`' order needs only the tier, the rank
 * and the type (ranks are unique within a type, so the id never decides), and the one thing it
 * reads from a record, the name behind the promotion to tier 0, folds the same from the rank
 * table's `name_key` (`lower(name)`, ASCII only: folding lower-cases the rest). So only the
 * `limit` hits that are answered are looked up with their keywords, not every candidate of every
 * tier of both types (up to 60 for the default 10).
 */
export function searchRecords(vdb: SqliteVentureDb, request: SearchRequest): SearchHit[] {
  const words = searchWords(request.term).slice(0, MAX_SEARCH_WORDS)
  if (words.length === 0 || request.limit < 1) return []
  const sqlite = vdb.sqlite
  const statements = statementsFor(sqlite)
  const termKey = asciiLower(request.term.trim())
  const termFolded = fold(request.term)

  const types = SEARCH_OBJECT_TYPES.filter((type) => request.objectTypes.includes(type))
  const candidates = types.map((type) => nameCandidates(statements[type], words, termKey, termFolded, SEARCH_TABLES[type].ftsColumns[0], request.limit))
  // With `limit` hits in the name tiers, no other match can be among the best `limit`: tiers come first.
  if (candidates.reduce((n, c) => n + c.tierOf.size, 0) < request.limit) types.forEach((type, i) => addOtherMatches(statements[type], words, candidates[i]!.tierOf, request.limit))

  // Typo and dropped-word stages, while fewer than `limit` hits are known (each type's stages from its own dictionary).
  const staged = types.map(() => new Map<number, StageHit>())
  const term = typoTerm(words, request.typo ?? 0)
  if (runsTypoStages(request, candidates.reduce((n, c) => n + c.tierOf.size, 0))) {
    const keys = dictionaryKeys(term.words)
    const namesKeys = nameKeys(term)
    const plans = types.map((type) => {
      const dictionary = statements[type].dictionary
      return typoStages(term, (i) => (dictionary ? dictionary(keys[i]!) : []), () => (dictionary ? dictionary(namesKeys) : []))
    })
    const known = () => candidates.reduce((n, c) => n + c.tierOf.size, 0) + staged.reduce((n, m) => n + m.size, 0)
    // The words a prefix stands for, asked once per request: later stages repeat the earlier ones' words and prefixes.
    const expanded = types.map((type) => memoized(statements[type].expand))
    for (let k = 0; k < plans[0]!.length && known() < request.limit; k++) {
      types.forEach((type, i) => {
        const stage = plans[i]![k]!
        // Every word as typed and nothing within its edits: the exact query, whose every match is known already.
        if (stage.names === undefined && stage.words === words.length && stage.groups.every((g) => g.prefixes.length === 0)) return
        const s = statements[type]
        const query = stageQuery(stage, SEARCH_TABLES[type].ftsColumns[0], expanded[i]!)
        if (query === undefined) return
        const tierOf = candidates[i]!.tierOf
        const mine = staged[i]!
        for (const rank of s.match.all(stageWindow(request.limit) + tierOf.size + mine.size, query) as number[]) {
          if (!tierOf.has(rank) && !mine.has(rank)) mine.set(rank, stage)
        }
      })
    }
  }

  const ordered: OrderedCandidate[] = []
  const totals = new Map<SearchObjectType, number>()
  const anyStaged = staged.some((m) => m.size > 0)
  types.forEach((type, i) => {
    const { tierOf, total } = candidates[i]!
    if (tierOf.size === 0 && staged[i]!.size === 0) return
    totals.set(type, total)
    for (const [rank, tier] of tierOf) ordered.push({ objectType: type, rank, tier, importance: rank / Math.max(1, total), words: words.length, typos: 0, whole: true })
    for (const [rank] of staged[i]!) ordered.push({ objectType: type, rank, tier: 2, importance: rank / Math.max(1, total), words: words.length, typos: 0, whole: true })
  })
  ordered.sort(hitOrder)
  // Without stage hits the order is known before any record is read; stage hits need their records' words for their typos.
  const answered = anyStaged ? ordered : ordered.slice(0, request.limit)

  const found: FoundOfType[] = []
  for (const type of SEARCH_OBJECT_TYPES) {
    const mine = answered.filter((c) => c.objectType === type)
    if (mine.length === 0) continue
    const s = statements[type]
    const tierOf = new Map(mine.map((c) => [c.rank, c.tier]))
    const stageOf = staged[types.indexOf(type)]!
    const rows = s.details.all(JSON.stringify(mine.map((c) => c.rank))) as (DetailRow & { keywords?: string | null })[]
    const keywords = rows.flatMap((r) => (r.keywords ? (JSON.parse(r.keywords) as string[]).map((value) => ({ id: r.id, value })) : []))
    const scores = stageScores(rows.map((r) => stageOf.get(r.rank)), term, rows)
    found.push({
      type, total: totals.get(type)!, keywords,
      rows: rows.map(({ keywords: _keywords, ...r }, j) => ({ ...r, tier: tierOf.get(r.rank) ?? 2, ...scores[j] })),
    })
  }
  return rankHits(request, found, term)
}

/**
 * Each found row's words, typos and whole-name flag: its stage's, scored on the record; none for a
 * hit of the exact query. The stage hits' names and domains or slugs are cut in one pass.
 */
export function stageScores(stages: readonly (StageHit | undefined)[], term: TypoTerm, rows: readonly Pick<DetailRow, 'name' | 'slug'>[]): { words?: number; typos?: number; whole?: boolean }[] {
  const scored = rows.flatMap((r, i) => (stages[i] === undefined ? [] : [i]))
  const cut = tokenizePairs(scored.map((i) => [rows[i]!.name, rows[i]!.slug] as const))
  const out: { words?: number; typos?: number; whole?: boolean }[] = rows.map(() => ({}))
  scored.forEach((i, j) => {
    const stage = stages[i]!
    out[i] = { words: stage.words, ...stageTypos(stage, term, cut[j]!) }
  })
  return out
}

interface Ordered {
  readonly objectType: SearchObjectType
  readonly tier: 0 | 1 | 2
  /** Rank within the type / records of the type. */
  readonly importance: number
  readonly words: number
  readonly typos: number
  /** For a typo hit, its whole name within the term's budget (a hit of the exact query counts as one). */
  readonly whole: boolean
}

interface OrderedCandidate extends Ordered {
  readonly rank: number
}

/**
 * The ranking rules, in order (grammar-docs/guides/search.md): exact name, name prefix (the tier),
 * more words of the term matched, fewer typos, the whole name within the edits, then importance, companies before investors (ids
 * only break ties within a type, which ranks never leave).
 */
function hitOrder(a: Ordered, b: Ordered): number {
  return a.tier - b.tier || b.words - a.words || a.typos - b.typos || Number(b.whole) - Number(a.whole) || a.importance - b.importance
    || (a.objectType === b.objectType ? 0 : a.objectType === 'company' ? -1 : 1)
}

/** The candidates of one type with their details, as a reader of either backend finds them. */
export interface FoundOfType {
  readonly type: SearchObjectType
  /** Records of the type (the highest rank). */
  readonly total: number
  /**
   * Each candidate's details, with the tier its queries found it in, and for a hit of a typo or
   * dropped-word stage the words it matched and its typos (else all words, none).
   */
  readonly rows: readonly (DetailRow & { readonly tier: 0 | 1 | 2; readonly words?: number; readonly typos?: number; readonly whole?: boolean })[]
  /** Companies' keywords, `(id, value)`, each company's in value order. */
  readonly keywords: readonly { readonly id: number; readonly value: string }[]
}

/**
 * The hits of every type in one order, best first, at most `limit` (shared by the readers of both
 * backends): tier (an accented or differently spaced spelling of the exact name in tier 1 moved up
 * to tier 0), then importance (rank / records of the type), companies first, then id. `term`: the
 * request's `typoTerm`, when the caller has it already.
 */
export function rankHits(request: SearchRequest, found: readonly FoundOfType[], term?: TypoTerm): SearchHit[] {
  const termFolded = fold(request.term)
  const words = searchWords(request.term).slice(0, MAX_SEARCH_WORDS)
  const termWordCount = words.length
  // A hit of several words, each within its own budget, may still exceed the term's: not a hit.
  const budget = (request.typo ?? 0) === 0 ? 0 : (term ?? typoTerm(words, request.typo ?? 0)).budget
  const scored: (SearchHit & { importance: number; whole: boolean })[] = []
  for (const { type, total, rows, keywords: keywordRows } of found) {
    const keywords = new Map<number, string[]>()
    for (const k of keywordRows) {
      const list = keywords.get(k.id)
      if (list) list.push(k.value)
      else keywords.set(k.id, [k.value])
    }
    for (const row of rows) {
      if (row.typos !== undefined && row.typos > budget) continue
      const tier = row.tier === 1 && row.name !== null && fold(row.name) === termFolded ? 0 : row.tier
      scored.push({
        objectType: type,
        id: row.id,
        name: row.name,
        slug: row.slug,
        domain: row.domain,
        companyFunding: row.company_funding,
        svcScore: row.svc_score,
        keywords: keywords.get(row.id) ?? [],
        investorFunding: row.investor_funding,
        tier,
        words: row.words ?? termWordCount,
        typos: row.typos ?? 0,
        whole: row.whole ?? true,
        importance: row.rank / Math.max(1, total),
      })
    }
  }
  scored.sort((a, b) => hitOrder(a, b) || a.id - b.id)
  return scored.slice(0, request.limit).map(({ importance: _importance, whole: _whole, ...hit }) => hit)
}
