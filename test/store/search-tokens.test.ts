/**
 * The word cutting of store/search-tokens.ts: printable-ASCII texts are cut without FTS5
 * (`asciiTokens`), others by FTS5 itself; both must give FTS5's tokens. Checked against an FTS5
 * table of the index's tokenizer read directly, on generated ASCII texts (every printable
 * character, punctuation and digits dense) and on batches mixing them with non-ASCII texts.
 */
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { SEARCH_TOKENIZER } from '../../src/store/schema/search-tables.js'
import { tokenize, tokenizePairs } from '../../src/store/search-tokens.js'
import { numRuns } from '../support/num-runs.js'

const reference = new Database(':memory:')
reference.exec(`create virtual table t using fts5(a, content='', tokenize='${SEARCH_TOKENIZER}')`)
reference.exec(`create virtual table v using fts5vocab(t, 'instance')`)
afterAll(() => reference.close())

/** FTS5's tokens of one text, read from the vocabulary. */
function fts5Tokens(text: string): string[] {
  reference.prepare('insert into t (rowid, a) values (1, ?)').run(text)
  const rows = reference.prepare('select offset, term from v order by offset').raw(true).all() as [number, string][]
  reference.exec(`insert into t (t) values ('delete-all')`)
  return rows.map((r) => r[1])
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 })
const mixed = fc.string({ unit: fc.constantFrom('a', 'Z', '9', ' ', '-', '.', 'é', 'İ', 'ß', '\u0301', 'ﬁ', '\uE000', '\t', '\n', '_', '\u00a0'), maxLength: 20 })

describe('search tokens', () => {
  it('cuts printable-ASCII texts as FTS5 does', () => {
    fc.assert(fc.property(printable, (text) => { expect(tokenize(text)).toEqual(fts5Tokens(text)) }), { numRuns: numRuns(500) })
  })

  it('known cuts', () => {
    expect(tokenize('Acme-Corp, Inc. (2024)')).toEqual(['acme', 'corp', 'inc', '2024'])
    expect(tokenize('  ')).toEqual([])
    expect(tokenizePairs([['A_b', null]])).toEqual([[['a', 'b'], []]])
  })

  it('cuts a token longer than FTS5 keeps (32,768 bytes) as FTS5 does: to its first 32,768', () => {
    for (const text of [`${'a'.repeat(40_000)} b`, `x ${'Q9'.repeat(16_385)}`, 'c'.repeat(32_768)]) {
      expect(tokenize(text)).toEqual(fts5Tokens(text))
      expect(tokenizePairs([[text, 'é']])[0]![0]).toEqual(fts5Tokens(text))
    }
  })

  it('cuts batches mixing ASCII and other texts, each pair in its place', () => {
    const text = fc.oneof(printable, mixed, fc.constant(null))
    fc.assert(fc.property(fc.array(fc.tuple(text, text), { maxLength: 6 }), (pairs) => {
      expect(tokenizePairs(pairs)).toEqual(pairs.map(([a, b]) => [a === null ? [] : fts5Tokens(a), b === null ? [] : fts5Tokens(b)]))
    }), { numRuns: numRuns(300) })
  })
})
