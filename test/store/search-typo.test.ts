/**
 * The typo module (store/search-typo.ts): the distance against a plain reference (every edit kind,
 * a swap counting one), the budgets, and the property the dictionary lookup rests on: whenever a
 * prefix of a dictionary word is within k <= 2 edits of a word, the word's query keys meet the
 * dictionary word's keys (so no candidate is missed), checked on generated near misses; the same
 * for whole names (the term's letters against the start of a name's letters, spaces ignored).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  allowedEdits, nameQueryKeys, nameTypos, NAME_ENTRY_MARKER, osaDistance, prefixDistance, queryKeys, termBudget, TYPO_KEY_PATTERNS, typoKeys,
  typoNameStarts, typoPrefixes, typosOf,
} from '../../src/store/search-typo.js'
import { numRuns } from '../support/num-runs.js'

/** Optimal string alignment by the textbook recursion with memo: the reference. */
function reference(a: string, b: string): number {
  const memo = new Map<string, number>()
  const d = (i: number, j: number): number => {
    const key = `${i},${j}`
    const hit = memo.get(key)
    if (hit !== undefined) return hit
    let v: number
    if (i === 0) v = j
    else if (j === 0) v = i
    else {
      v = Math.min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d(i - 2, j - 2) + 1)
    }
    memo.set(key, v)
    return v
  }
  return d(a.length, b.length)
}

const word = fc.stringMatching(/^[a-e]{0,10}$/)

/** A word with `n` random edits of the four kinds. */
const edited = (n: number) => fc.tuple(fc.stringMatching(/^[a-f]{3,12}$/), fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.nat(), fc.constantFrom(...'abcdefg')), { minLength: n, maxLength: n }))
  .map(([base, edits]) => {
    let w = base
    for (const [kind, at, letter] of edits) {
      const i = at % (w.length + 1)
      if (kind === 0) w = w.slice(0, i) + letter + w.slice(i)
      else if (kind === 1 && w.length > 1) w = w.slice(0, Math.min(i, w.length - 1)) + w.slice(Math.min(i, w.length - 1) + 1)
      else if (kind === 2 && w.length > 0) w = w.slice(0, Math.min(i, w.length - 1)) + letter + w.slice(Math.min(i, w.length - 1) + 1)
      else if (w.length > 1) { const j = Math.min(i, w.length - 2); w = w.slice(0, j) + w[j + 1] + w[j] + w.slice(j + 2) }
    }
    return { base, w }
  })

describe('distance', () => {
  it('one edit of each kind is 1; a swap of neighbours is one edit, not two', () => {
    expect(osaDistance('istuscape', 'istuscappe')).toBe(1)
    expect(osaDistance('istuscape', 'istucape')).toBe(1)
    expect(osaDistance('istuscape', 'istuscaoe')).toBe(1)
    expect(osaDistance('istuscape', 'itsuscape')).toBe(1)
    expect(osaDistance('istuscape', 'ostuscape')).toBe(1)
    expect(osaDistance('ca', 'abc')).toBe(3)
    expect(prefixDistance('tecnol', 'technologies')).toBe(1)
    expect(prefixDistance('acmee', 'acme')).toBe(1)
  })

  it('equals the reference recursion on generated pairs', () => {
    fc.assert(fc.property(word, word, (a, b) => { expect(osaDistance(a, b)).toBe(reference(a, b)) }), { numRuns: numRuns(300) })
  })
})

describe('budgets', () => {
  it('auto: none below 5 letters, 1 from 5, 2 from 9; 1 and 2 cap; 0 none', () => {
    expect([1, 4, 5, 8, 9, 14].map((n) => allowedEdits('x'.repeat(n), 'auto'))).toEqual([0, 0, 1, 1, 2, 2])
    expect([4, 5, 9].map((n) => allowedEdits('x'.repeat(n), 1))).toEqual([0, 1, 1])
    expect([4, 5, 9].map((n) => allowedEdits('x'.repeat(n), 2))).toEqual([0, 2, 2])
    expect(allowedEdits('x'.repeat(12), 0)).toBe(0)
    // Characters, not UTF-16 units.
    expect(allowedEdits('🦄🦄🦄🦄', 'auto')).toBe(0)
  })
})

describe('the whole term\'s budget', () => {
  it('counts the letters of all the words: 1 edit from 5, 2 from 9, none below 5', () => {
    expect(termBudget(['zen', 'lab'], 'auto')).toBe(1)
    expect(termBudget(['ab', 'cd'], 'auto')).toBe(0)
    expect(termBudget(['zentrx', 'lbas'], 'auto')).toBe(2)
    expect(termBudget(['zentrx', 'lbas'], 1)).toBe(1)
    expect(termBudget(['ab', 'cde'], 2)).toBe(2)
    expect(termBudget(['zentrx', 'lbas'], 0)).toBe(0)
  })
})

describe('the dictionary keys miss no candidate', () => {
  it('46 key patterns: j of the first j + 2 letters, for j from 3 to 5', () => {
    expect(TYPO_KEY_PATTERNS).toHaveLength(10 + 15 + 21)
  })

  for (const k of [1, 2]) {
    it(`k = ${k}: a word within ${k} edits of a prefix of a dictionary word shares a key with it, and typoPrefixes yields a prefix of it`, () => {
      let within = 0
      fc.assert(fc.property(edited(k), fc.stringMatching(/^[a-f]{0,4}$/), ({ base, w }, tail) => {
        if ([...w].length < 5) return
        const d = base + tail
        if (prefixDistance(w, d) > k) return
        within++
        const stored = new Set(typoKeys(d))
        expect(queryKeys(w, k).some((q) => stored.has(q)), `${w} / ${d}`).toBe(true)
        const prefixes = typoPrefixes(w, k, [d])
        expect(prefixes.some((p) => d.startsWith(p))).toBe(true)
      }), { numRuns: numRuns(400) })
      // Non-trivial: most generated pairs are near misses of the right length.
      expect(within).toBeGreaterThan(100)
    })
  }

  it('queryKeys: the first 5 letters of every way to delete up to k letters anywhere in the word', () => {
    // The reference deletes anywhere (queryKeys only looks at the first 5 + k letters).
    const reference = (w: string, k: number): Set<string> => {
      const out = new Set<string>()
      const walk = (s: string, k: number) => {
        if ([...s].length >= 3) out.add([...s].slice(0, 5).join(''))
        if (k > 0) [...s].forEach((_, i) => walk([...s].filter((_, j) => j !== i).join(''), k - 1))
      }
      walk(w, k)
      return out
    }
    fc.assert(fc.property(fc.stringMatching(/^[a-dé]{0,14}$/), fc.constantFrom(0, 1, 2), (w, k) => {
      expect(new Set(queryKeys(w, k))).toEqual(reference(w, k))
    }), { numRuns: numRuns(300) })
    expect(queryKeys('abcdefghij', 1).sort()).toEqual(['abcde', 'abcdf', 'abcef', 'abdef', 'acdef', 'bcdef'])
  })

  for (const k of [1, 2]) {
    it(`k = ${k}: a term within ${k} edits of the start of a name (spaces ignored) shares a key with the name and gets a start of it`, () => {
      let within = 0
      let shortWordEdited = 0
      const entryKeys = (entry: string) => typoKeys(entry.slice(1).replace(/ /g, '')).map((key) => NAME_ENTRY_MARKER + key)
      fc.assert(fc.property(edited(k), fc.array(fc.stringMatching(/^[a-f]{1,4}$/), { minLength: 1, maxLength: 3 }), fc.nat(), ({ base, w }, rest, cut) => {
        if ([...w].length < 5) return
        // The name: the edited word's base split after `cut` letters, then short words; the term: the edited letters.
        const at = 1 + (cut % base.length)
        const tokens = [base.slice(0, at), base.slice(at), ...rest].filter((x) => x !== '')
        const entry = NAME_ENTRY_MARKER + tokens.join(' ')
        if (nameTypos(w, [NAME_ENTRY_MARKER + tokens[0]!, ...tokens.slice(1)]) > k) return
        within++
        if ([...tokens[0]!].length <= 4) shortWordEdited++
        const stored = new Set(entryKeys(entry))
        expect(nameQueryKeys(w, k).some((q) => stored.has(q)), `${w} / ${entry}`).toBe(true)
        const starts = typoNameStarts(w, k, [entry]).map((t) => t.join(' '))
        expect(starts.length).toBe(1)
        expect(entry.startsWith(starts[0]!), `${starts[0]} / ${entry}`).toBe(true)
      }), { numRuns: numRuns(400) })
      expect(within).toBeGreaterThan(100)
      expect(shortWordEdited).toBeGreaterThan(10)
    })
  }

  it('typoNameStarts cuts the name at its shortest start within budget, as tokens, the first marked', () => {
    const m = NAME_ENTRY_MARKER
    // "zentrxlbas": 2 edits from "zentrixlabs", one in each word.
    expect(typoNameStarts('zentrxlbas', 2, [`${m}zentrix labs`, `${m}zentrix`])).toEqual([[`${m}zentrix`, 'labs']])
    // The term ends inside the second word: the start is cut there (a phrase prefix).
    expect(typoNameStarts('zentirxla', 1, [`${m}zentrix labs`])).toEqual([[`${m}zentrix`, 'la']])
    expect(typoNameStarts('zentirxla', 1, [`${m}quorum labs`])).toEqual([])
    // A start another covers is left out.
    expect(typoNameStarts('acmex', 1, [`${m}acme corp`, `${m}acme`])).toEqual([[`${m}acme`]])
    expect(nameTypos('zentrxlbas', [`${m}zentrix`, 'labs'])).toBe(2)
  })

  it('typoPrefixes keeps the shortest prefix within budget, and none that another covers', () => {
    expect(typoPrefixes('acmex', 1, ['acme', 'acmecorp', 'acmexyz', 'zzzzz'])).toEqual(['acme'])
    expect(typoPrefixes('tecnol', 1, ['technologies', 'techno', 'tekton'])).toEqual(['technol'])
  })

  it('typosOf counts each word\'s least distance to a prefix of a record word, 0 when one starts with it', () => {
    expect(typosOf([{ token: 'istucape', edits: 1 }], ['istuscape', 'technologies'])).toBe(1)
    expect(typosOf([{ token: 'istus', edits: 1 }, { token: 'tecnol', edits: 1 }], ['istuscape', 'technologies'])).toBe(1)
    expect(typosOf([{ token: 'itsuscappe', edits: 2 }], ['istuscape'])).toBe(2)
  })
})
