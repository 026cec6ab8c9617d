/**
 * @module Typo tolerance of GET /search: the edit budget of a word, the distance, the candidate
 * prefixes a misspelt word stands for (from the typo dictionary, `store/schema/search-tables.ts`),
 * and the typos of a hit. Shared by both backends, so their answers are the same by construction.
 *
 * Distance: optimal string alignment (Damerau-Levenshtein without re-editing a transposed pair):
 * an insertion, a deletion, a substitution or a swap of two neighbouring letters is one edit;
 * computed bit-parallel against each word compiled once (`search-distance.ts`).
 *
 * Matching: a word of the term matches a word of a record when some prefix of the record's word is
 * within the word's edit budget (so the last word of a term stays a prefix, as every word of an
 * exact search is one). `acmee` finds `acme` (one deletion) and `acmecorp`.
 *
 * Candidates (SymSpell's symmetric deletes, limited to a short key): every dictionary word stores
 * the keys `typoKeys` gives; a misspelt word asks for the keys `queryKeys` gives. If a prefix p of
 * a dictionary word d is within k <= 2 edits of w, some string c is both w and p with at most k
 * letters deleted each (a substitution or a swap deletes one letter on each side, an insertion one
 * on one side); c's first `TYPO_KEY_LENGTH` letters are a subsequence of d that skips at most k
 * letters before its last one, which is a stored key of d. So the lookup misses no candidate, and
 * the exact distance then keeps only the true ones.
 */
import { scanPrefixes, typoPattern, type TypoPattern } from './search-distance.js'

/** `typo` of a request: 0 none, 1 or 2 edits at most (from 5 letters), `auto` 1 from 5 letters and 2 from 9. */
export type TypoMode = 0 | 1 | 2 | 'auto'
export const TYPO_MODES: readonly TypoMode[] = Object.freeze([0, 1, 2, 'auto'] as const)

/** Words shorter than this (in characters) are never typo-matched. */
export const MIN_TYPO_WORD = 5
/** From this many characters, `auto` allows two edits. */
export const TWO_TYPOS_WORD = 9
/** The most edits any mode allows (the dictionary's keys are built for it). */
export const MAX_TYPOS = 2
/** Length of the dictionary keys, and their shortest length. */
export const TYPO_KEY_LENGTH = 5
export const MIN_TYPO_KEY_LENGTH = MIN_TYPO_WORD - MAX_TYPOS
/** Dictionary words shorter than this cannot be within budget of a typo-matched word. */
export const MIN_DICTIONARY_WORD = MIN_TYPO_WORD - MAX_TYPOS

const chars = (text: string): string[] => [...text]

/** The edits a word (folded token) may carry under the mode. */
export function allowedEdits(word: string, mode: TypoMode): number {
  return editsForLength(chars(word).length, mode)
}

/** The edits `n` letters may carry under the mode: none below 5, then 1 (`auto`: 2 from 9). */
function editsForLength(n: number, mode: TypoMode): number {
  if (mode === 0 || n < MIN_TYPO_WORD) return 0
  if (mode === 'auto') return n >= TWO_TYPOS_WORD ? 2 : 1
  return mode
}

/**
 * The word compiled for the distance, kept for the next scans: a request scans many candidates
 * against the same few words (its term's words and letters), and the next request often has them too.
 */
function patternOf(word: string): TypoPattern {
  let p = patterns.get(word)
  if (p === undefined) {
    if (patterns.size >= MAX_PATTERNS) patterns.clear()
    patterns.set(word, (p = typoPattern(word)))
  }
  return p
}
const patterns = new Map<string, TypoPattern>()
const MAX_PATTERNS = 256

/** The distance of the whole strings (optimal string alignment). */
export function osaDistance(w: string, d: string): number {
  return scanPrefixes(patternOf(w), d, Infinity).whole
}

/** The least distance from `w` to a prefix of `d`. */
export function prefixDistance(w: string, d: string): number {
  return scanPrefixes(patternOf(w), d, Infinity).least
}

/** The first `n` characters (code points) of `text`. */
function headOf(text: string, n: number): string {
  let x = 0
  for (let seen = 0; seen < n && x < text.length; seen++) {
    const c = text.charCodeAt(x)
    x += c >= 0xd800 && c < 0xdc00 && x + 1 < text.length && (text.charCodeAt(x + 1) & 0xfc00) === 0xdc00 ? 2 : 1
  }
  return text.slice(0, x)
}

/**
 * The dictionary keys of a word: its subsequences of `MIN_TYPO_KEY_LENGTH` to `TYPO_KEY_LENGTH`
 * letters that skip at most `MAX_TYPOS` letters before their last one. `TYPO_KEY_PATTERNS` is the
 * same list as positions, which the stores use in SQL.
 */
export function typoKeys(word: string): string[] {
  const cs = chars(word)
  const out = new Set<string>()
  for (const pattern of TYPO_KEY_PATTERNS) {
    if (pattern[pattern.length - 1]! >= cs.length) continue
    out.add(pattern.map((p) => cs[p]).join(''))
  }
  return [...out]
}

/** The positions (from 0) of every key pattern: j of the first j + MAX_TYPOS letters, for j from the shortest key length up. */
export const TYPO_KEY_PATTERNS: readonly (readonly number[])[] = Object.freeze((() => {
  const out: number[][] = []
  const choose = (from: number, n: number, k: number, acc: number[]) => {
    if (k === 0) { out.push(acc); return }
    for (let p = from; p < n; p++) choose(p + 1, n, k - 1, [...acc, p])
  }
  for (let j = MIN_TYPO_KEY_LENGTH; j <= TYPO_KEY_LENGTH; j++) choose(0, j + MAX_TYPOS, j, [])
  return out
})())

/** The keys a word with `k` edits asks the dictionary for: its first key-length letters after up to `k` deletions. */
export function queryKeys(word: string, k: number): string[] {
  const out = new Set<string>()
  const walk = (cs: string[], k: number, from: number) => {
    const key = cs.slice(0, TYPO_KEY_LENGTH)
    if (key.length >= MIN_TYPO_KEY_LENGTH) out.add(key.join(''))
    if (k === 0) return
    for (let i = from; i < cs.length; i++) walk([...cs.slice(0, i), ...cs.slice(i + 1)], k - 1, i)
  }
  // After at most k deletions the key's letters all come from the first key-length + k: deleting
  // a later one changes no key. A whole term's letters (`nameQueryKeys`, 20 letters and more) walk
  // 29 ways instead of hundreds.
  walk(chars(word).slice(0, TYPO_KEY_LENGTH + k), k, 0)
  return [...out]
}

/**
 * The prefixes a misspelt word stands for, given the dictionary words its keys found: of each
 * word, the shortest prefix within `k` edits; then only those that no other one is a prefix of.
 * A record's word matches the misspelt word exactly when it starts with one of them.
 */
export function typoPrefixes(word: string, k: number, dictionaryWords: Iterable<string>): string[] {
  const p = patternOf(word)
  const found = new Set<string>()
  for (const d of dictionaryWords) {
    const length = scanPrefixes(p, d, k, true).shortest
    if (length > 0) found.add(headOf(d, length))
  }
  return outermost([...found]).sort()
}

/** The strings that no other one of them starts with. */
function outermost(found: readonly string[]): string[] {
  const sorted = found.map((s) => [s, [...s].length] as const).sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const kept: string[] = []
  for (const [s] of sorted) if (!kept.some((q) => s.startsWith(q))) kept.push(s)
  return kept
}

//// whole names ////

/**
 * Marks a whole name in the dictionary: the entry is the marker and the name's tokens joined by
 * spaces (`\uE000korily inc`, the first token as the index stores it), its keys are the marker and
 * the keys of the name's letters with the spaces left out (`korilyinc`). Plain words never start
 * with it (the dictionary strips the first-word marker from them), so a word lookup never meets a
 * name and a name lookup never meets a word. The first-word marker of `schema/search-tables.ts`.
 */
export const NAME_ENTRY_MARKER = '\uE000'

/**
 * The edit budget of a whole term: Meilisearch's thresholds on its letters and digits (the
 * tokens of its words joined), so `zentrx lbas` (10 letters) may carry 2 edits, spread over its
 * words as they fall. A term of 1 to 4 letters gets none.
 */
export function termBudget(tokens: readonly string[], mode: TypoMode): number {
  return editsForLength(tokens.reduce((n, t) => n + chars(t).length, 0), mode)
}

/** The keys a term's letters (`flat`: its tokens joined) ask the dictionary for, to find names within `k` edits of their start. */
export function nameQueryKeys(flat: string, k: number): string[] {
  return queryKeys(flat, k).map((key) => NAME_ENTRY_MARKER + key)
}

/** A name entry's tokens, the first with the index's first-word marker (as the FTS name column stores them). */
export function nameEntryTokens(entry: string): string[] {
  return entry.split(' ')
}

/** The letters of a name's tokens, spaces (and the first-word marker) left out. */
export function nameLetters(tokens: readonly string[]): string {
  return tokens.join('').replace(/\uE000/g, '')
}

/**
 * The name starts a misspelt term stands for, given the name entries its keys found: of each
 * name, its shortest start (letters, spaces ignored) within `k` edits of the term's letters, as the
 * name's tokens up to there (the last one cut, so a phrase prefix); then only those that no other
 * one is a start of. A name is within `k` edits of the term exactly when it starts with one.
 */
export function typoNameStarts(flat: string, k: number, entries: Iterable<string>): string[][] {
  const p = patternOf(flat)
  const found = new Map<string, string[]>()
  for (const entry of entries) {
    // The entry's letters are the entry without its spaces and marker (`nameLetters` of its tokens).
    const length = scanPrefixes(p, entry, k, true, true).shortest
    if (length === 0) continue
    const cut: string[] = []
    let left = length
    for (const token of nameEntryTokens(entry)) {
      const cs = chars(token)
      const marker = cs[0] === NAME_ENTRY_MARKER ? 1 : 0
      const letters = cs.length - marker
      if (letters >= left) { cut.push(cs.slice(0, marker + left).join('')); break }
      cut.push(token)
      left -= letters
    }
    found.set(cut.join(' '), cut)
  }
  return outermost([...found.keys()]).sort().map((p) => found.get(p)!)
}

/** The whole-name typos of a record: the least distance from the term's letters to a start of its name's letters. */
export function nameTypos(flat: string, nameTokens: readonly string[]): number {
  return prefixDistance(flat, nameLetters(nameTokens))
}

/**
 * The term's letters against a name's (its tokens): the least distance to a start of them and the
 * distance to all of them, each exact up to `cap` and above it when beyond (one scan).
 */
export function nameDistances(flat: string, nameTokens: readonly string[], cap: number): { least: number; whole: number } {
  const { least, whole } = scanPrefixes(patternOf(flat), nameLetters(nameTokens), cap)
  return { least, whole }
}

/** A term word as typo matching sees it: its folded token and budget. */
export interface TypoWord {
  readonly token: string
  readonly edits: number
}

/**
 * The typos of a record for the term's words (folded tokens), from the record's tokens: for each
 * word, the least distance to a prefix of one of the record's words (0 when one starts with it),
 * at most the word's budget (a word the index matched some other way, as a phrase of several
 * tokens, counts its budget).
 */
export function typosOf(words: readonly TypoWord[], recordTokens: readonly string[]): number {
  let total = 0
  for (const w of words) {
    let best = Infinity
    const p = w.edits > 0 ? patternOf(w.token) : undefined
    for (const t of recordTokens) {
      if (t.startsWith(w.token)) { best = 0; break }
      // Only distances up to the word's budget count: the scan may stop beyond it.
      if (p !== undefined) best = Math.min(best, scanPrefixes(p, t, w.edits).least)
    }
    total += Math.min(best, w.edits)
  }
  return total
}
