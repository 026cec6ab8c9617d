/**
 * The bit-parallel distance of store/search-distance.ts against the textbook table of optimal
 * string alignment, on generated words and texts: letters that collide often (so distances are
 * small and swaps happen), digits, accented and astral characters, the first-word marker and
 * spaces (skipped in `letters` scans), words past 32 characters (the plain-table path), every cap
 * the search uses and none.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { scanPrefixes, typoPattern } from '../../src/store/search-distance.js'
import { numRuns } from '../support/num-runs.js'

/** The last row of the table (word down, text across): the distance from `w` to each prefix of `t`, by code point. */
function referenceRow(w: string, t: string): number[] {
  const a = [...w]
  const b = [...t]
  const table: number[][] = []
  for (let i = 0; i <= a.length; i++) {
    table.push([])
    for (let j = 0; j <= b.length; j++) {
      if (i === 0) { table[i]![j] = j; continue }
      if (j === 0) { table[i]![j] = i; continue }
      let v = Math.min(table[i - 1]![j]! + 1, table[i]![j - 1]! + 1, table[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, table[i - 2]![j - 2]! + 1)
      table[i]![j] = v
    }
  }
  return table[a.length]!
}

const MARKER = '\uE000'
const alphabet = ['a', 'b', 'c', 'a', 'b', 'e', '1', '7', 'é', 'ß', 'ж', '🦄', '𝒳']
const word = (max: number, min = 0) => fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max, size: 'max' }).map((cs) => cs.join(''))
/** A text near the word: the word with a few random edits, or an unrelated one. */
const near = (w: string) => fc.oneof(
  word(40),
  fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.nat(), fc.constantFrom(...alphabet)), { maxLength: 4 }).map((edits) => {
    const cs = [...w]
    for (const [kind, at, c] of edits) {
      const i = at % (cs.length + 1)
      if (kind === 0) cs.splice(i, 0, c)
      else if (kind === 1 && cs.length > 0) cs.splice(Math.min(i, cs.length - 1), 1)
      else if (kind === 2 && cs.length > 0) cs[Math.min(i, cs.length - 1)] = c
      else if (cs.length > 1) { const j = Math.min(i, cs.length - 2); [cs[j], cs[j + 1]] = [cs[j + 1]!, cs[j]!] }
    }
    return cs.join('')
  }),
)
const caps = fc.constantFrom(0, 1, 2, 3, Infinity)

/** What a scan must say about a reference row under a cap. */
function expected(row: readonly number[], m: number, cap: number) {
  const least = Math.min(...row)
  const whole = row[row.length - 1]!
  const first = row.findIndex((v, j) => j >= 1 && v <= cap)
  return { least, whole, shortest: m <= cap || first < 0 ? 0 : first }
}

function check(w: string, t: string, cap: number, letters: boolean) {
  const row = referenceRow(w, letters ? t.replace(/[ \uE000]/g, '') : t)
  const want = expected(row, [...w].length, cap)
  const p = typoPattern(w)
  const got = { ...scanPrefixes(p, t, cap, false, letters) }
  expect(got.shortest).toBe(want.shortest)
  for (const k of ['least', 'whole'] as const) {
    if (want[k] <= cap) expect(got[k], k).toBe(want[k])
    else expect(got[k], k).toBeGreaterThan(cap)
  }
  expect(scanPrefixes(p, t, cap, true, letters).shortest).toBe(want.shortest)
  return want
}

describe('scanPrefixes', () => {
  it('agrees with the reference table on the examples of every edit kind', () => {
    const row = referenceRow('istuscape', 'istucape')
    expect(row[row.length - 1]).toBe(1)
    expect(check('istuscape', 'itsuscape', Infinity, false).whole).toBe(1)
    expect(check('ca', 'abc', Infinity, false).whole).toBe(3)
    expect(check('tecnol', 'technologies', 1, false).shortest).toBe(7)
    expect(check('acmee', 'acme', Infinity, false).least).toBe(1)
    expect(check('zentrxlbas', `${MARKER}zentrix labs`, 2, true).shortest).toBe(11)
    // Past 32 characters (the plain table) and astral characters counted once.
    expect(check('ab'.repeat(20), `${'ab'.repeat(19)}ba`, Infinity, false).whole).toBe(1)
    expect(check('🦄bc1e', '🦄cb1e', 1, false).whole).toBe(1)
  })

  it('equals the reference on generated words and near texts, every cap, letters or all characters', () => {
    let small = 0
    let long = 0
    fc.assert(fc.property(
      fc.oneof({ arbitrary: word(14), weight: 4 }, { arbitrary: word(40, 30), weight: 1 }).chain((w) => fc.tuple(fc.constant(w), near(w), caps, fc.boolean(), fc.array(fc.nat(), { maxLength: 3 }))),
      ([w, t, cap, letters, cuts]) => {
        // Spaces and markers between the text's characters, for the letters scans.
        let text = t
        if (letters) for (const at of cuts) { const cs = [...text]; cs.splice(at % (cs.length + 1), 0, at % 2 ? ' ' : MARKER); text = cs.join('') }
        const want = check(w, text, cap, letters)
        if (want.least <= 2 && [...w].length >= 3) small++
        if ([...w].length > 32) long++
      },
    ), { numRuns: numRuns(2000) })
    // Non-trivial: many pairs within the caps the search uses, and some on the plain-table path.
    expect(small).toBeGreaterThan(200)
    expect(long).toBeGreaterThan(20)
  })

  it('a lone surrogate is one character, as [...text] counts it', () => {
    check('ab\uD800cd', 'ab\uD800cd', Infinity, false)
    expect(scanPrefixes(typoPattern('ab\uD800cd'), 'abxcd', Infinity).whole).toBe(1)
  })
})
