/**
 * @module SQLite's own word cutting (FTS5 `unicode61 remove_diacritics 2`, the tokenizer of the
 * search index, `schema/search-tables.ts`) for backends that do not have it: the PostgreSQL search
 * index and its lookups cut names, domains, slugs and terms with this, so their words are FTS5's
 * words by construction, not by a re-implementation that would drift on some code point (which
 * characters are letters, which marks are dropped, how `İ`, `ǅ` or `ﬁ` fold).
 *
 * How: an in-memory FTS5 table with the same tokenizer, contentless, and its `instance` vocabulary
 * (one row per token: document, column, position, folded text). Texts are inserted as documents,
 * the tokens read back in position order, the table emptied. One database per thread, created on
 * first use; about 2 µs per short text, 150,000 names per second in bulk. Printable-ASCII texts are
 * cut without it (`asciiTokens`: the same tokens, checked against FTS5 by a property test).
 */
import Database from 'better-sqlite3'
import type BetterSqlite3 from 'better-sqlite3'
import { SEARCH_TOKENIZER } from './schema/search-tables.js'

interface Tokenizer {
  readonly sqlite: BetterSqlite3.Database
  readonly insert: BetterSqlite3.Statement
  readonly read: BetterSqlite3.Statement
  readonly clear: BetterSqlite3.Statement
}

let tokenizer: Tokenizer | undefined

function open(): Tokenizer {
  if (tokenizer) return tokenizer
  const sqlite = new Database(':memory:')
  sqlite.exec(`create virtual table t using fts5(a, b, content='', tokenize='${SEARCH_TOKENIZER}')`)
  sqlite.exec(`create virtual table v using fts5vocab(t, 'instance')`)
  tokenizer = {
    sqlite,
    insert: sqlite.prepare('insert into t (rowid, a, b) values (?, ?, ?)'),
    read: sqlite.prepare('select doc, col, offset, term from v').raw(true),
    clear: sqlite.prepare(`insert into t (t) values ('delete-all')`),
  }
  return tokenizer
}

/**
 * The tokens of each pair of texts, in order, as FTS5 stores them: `[tokens of a, tokens of b]`
 * per pair. `null` texts have no tokens.
 */
export function tokenizePairs(pairs: readonly (readonly [string | null, string | null])[]): [string[], string[]][] {
  const out: [string[], string[]][] = pairs.map(([a, b]) => [asciiTokens(a), asciiTokens(b)] as [string[], string[]])
  const rest = pairs.flatMap((_, i) => (out[i]![0] === NOT_ASCII || out[i]![1] === NOT_ASCII ? [i] : []))
  if (rest.length === 0) return out
  const t = open()
  t.sqlite.transaction(() => {
    for (const i of rest) {
      out[i] = [[], []]
      t.insert.run(i + 1, pairs[i]![0], pairs[i]![1])
    }
    for (const [doc, col, offset, term] of t.read.iterate() as IterableIterator<[number, string, number, string]>) {
      out[doc - 1]![col === 'a' ? 0 : 1][offset] = term
    }
    t.clear.run()
  })()
  return out
}

/** `asciiTokens`' answer for a text it leaves to FTS5 (compared by identity). */
const NOT_ASCII: string[] = []
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/
const ASCII_SEPARATORS = /[^a-z0-9]+/
/** FTS5 stores at most this many bytes of a token (`FTS5_MAX_TOKEN_SIZE`): a longer text is left to it. */
const FTS5_MAX_TOKEN_SIZE = 32_768

/**
 * The tokens of a printable-ASCII text without FTS5: unicode61 keeps exactly the ASCII letters and
 * digits as token characters (its `aAsciiTokenChar`), folds A-Z to lower case and has no diacritics
 * to remove there. Texts that could hold a token longer than FTS5 keeps go to FTS5, which cuts it.
 * Most names are ASCII, and a search cuts up to a hundred of them per request
 * (`stageScores`), where FTS5's insert-and-read costs a transaction. Other texts: `NOT_ASCII`.
 * test/store/search-tokens.test.ts checks the two agree.
 */
function asciiTokens(text: string | null): string[] {
  if (text === null) return []
  if (text.length > FTS5_MAX_TOKEN_SIZE || !PRINTABLE_ASCII.test(text)) return NOT_ASCII
  return text.toLowerCase().split(ASCII_SEPARATORS).filter((w) => w.length > 0)
}

/** The tokens of one text, as FTS5 cuts and folds it (a quoted query string is cut the same way). */
export function tokenize(text: string): string[] {
  return tokenizePairs([[text, null]])[0]![0]
}

/** The tokens of several texts, each cut alone. */
export function tokenizeEach(texts: readonly string[]): string[][] {
  return tokenizePairs(texts.map((x) => [x, null] as const)).map((p) => p[0])
}
