/**
 * @module The edit distance behind typo matching (`search-typo.ts`): optimal string alignment
 * (an insertion, a deletion, a substitution or a swap of neighbours is one edit, a swapped pair is
 * not edited again) from a word to every prefix of a text, in one pass over the text.
 *
 * How: the word is the pattern, compiled once (`typoPattern`: per character, the positions it
 * holds as bits). A text is read character by character, each one a column of the distance table
 * computed 32 cells at a time: Myers' bit-vector algorithm (1999) in Hyyrö's form for the
 * distance of whole strings, with his transposition term (Hyyrö 2003, "A bit-vector algorithm for
 * computing Levenshtein and Damerau edit distances"). The column's last cell is the distance from
 * the word to the text read so far. Words longer than 32 characters take a plain table over typed
 * arrays (same results, same early exits). Nothing is allocated per text.
 *
 * Early exit under a cap: a cell of column j in row i is at least |i - j|, so only the rows within
 * `cap` of j can hold a cell within the cap; when none does, no later column can (a path to any
 * later cell crosses this column), and the scan stops.
 *
 * Characters are code points (a lone surrogate is one character), as `[...text]` counts them.
 */

/** A word compiled for `scanPrefixes`. */
export interface TypoPattern {
  /** The word, as compiled. */
  readonly word: string
  /** Its characters (code points). */
  readonly length: number
  /** Per ASCII code, the rows (bit i: character i) holding it; words of up to 32 characters. */
  readonly ascii: Int32Array
  /** The same for other code points. */
  readonly other: ReadonlyMap<number, number>
  /** The code points, for the table of longer words. */
  readonly codes: Int32Array
}

/** The most characters a pattern takes bit-parallel (one 32-bit word per column). */
const WORD_BITS = 32

/** Compiles a word (its code points as `[...word]` gives them). */
export function typoPattern(word: string): TypoPattern {
  const codes = Int32Array.from([...word], (c) => c.codePointAt(0)!)
  const ascii = new Int32Array(128)
  const other = new Map<number, number>()
  if (codes.length <= WORD_BITS) {
    codes.forEach((c, i) => {
      if (c < 128) ascii[c] = ascii[c]! | (1 << i)
      else other.set(c, (other.get(c) ?? 0) | (1 << i))
    })
  }
  return { word, length: codes.length, ascii, other, codes }
}

/** What one scan found (read right after it: shared, so that a scan allocates nothing). */
export interface ScanResult {
  /** The least distance from the word to a prefix of the text (the empty one included); above the cap: some value above it. */
  least: number
  /** The distance to the whole text; above the cap: some value above it. */
  whole: number
  /** The characters of the shortest non-empty prefix within the cap (0: none). */
  shortest: number
}

const result: ScanResult = { least: 0, whole: 0, shortest: 0 }

/** The first-word marker of the index (schema/search-tables.ts), which `letters` scans skip as they skip spaces. */
const MARKER = 0xe000
const SPACE = 0x20

/**
 * Scans `text` against the pattern. `cap`: distances above it need not be exact (the scan stops
 * once nothing can come within it); `Infinity` for exact ones. `untilShortest`: stop at the first
 * prefix within the cap (then `whole` is not known). `letters`: skip spaces and the first-word
 * marker (a name entry read as its letters). A word within the cap of the empty prefix has no
 * shortest prefix (as with no prefix at all: `shortest` 0).
 */
export function scanPrefixes(p: TypoPattern, text: string, cap: number, untilShortest = false, letters = false): ScanResult {
  return p.length > 0 && p.length <= WORD_BITS ? scanBits(p, text, cap, untilShortest, letters) : scanTable(p, text, cap, untilShortest, letters)
}

/** Set bits of a 32-bit integer. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  x = (x + (x >>> 4)) & 0x0f0f0f0f
  return Math.imul(x, 0x01010101) >>> 24
}

const lowBits = (n: number) => (n >= 32 ? -1 : (1 << n) - 1)

function scanBits(p: TypoPattern, text: string, cap: number, untilShortest: boolean, letters: boolean): ScanResult {
  const m = p.length
  const top = 1 << (m - 1)
  const ascii = p.ascii
  const other = p.other
  // Column 0: cell i is i, every vertical step +1.
  let vp = lowBits(m)
  let vn = 0
  let d0 = 0
  let prevEq = 0
  let score = m
  let least = m
  let shortest = 0
  const banded = cap <= WORD_BITS
  let j = 0
  for (let x = 0; x < text.length; x++) {
    // A surrogate pair is one code point (one edit); a lone surrogate is its own unit.
    const c = text.codePointAt(x)!
    if (c > 0xffff) x++
    if (letters && (c === SPACE || c === MARKER)) continue
    j++
    const eq = c < 128 ? ascii[c]! : (other.get(c) ?? 0)
    // A swap: row i matches text j - 1 and row i - 1 matches text j, where the diagonal did not hold at (i - 1, j - 1).
    const tr = ((~d0 & eq) << 1) & prevEq
    d0 = ((((eq & vp) + vp) ^ vp) | eq | vn | tr)
    let hp = vn | ~(d0 | vp)
    const hn = vp & d0
    if (hp & top) score++
    else if (hn & top) score--
    // Row 0 of the table is 0, 1, 2, ...: its horizontal step is +1.
    hp = (hp << 1) | 1
    const hnShifted = hn << 1
    vp = hnShifted | ~(d0 | hp)
    vn = hp & d0
    prevEq = eq
    if (score < least) least = score
    if (score <= cap && shortest === 0 && m > cap) {
      shortest = j
      if (untilShortest) break
    }
    if (banded) {
      // The least cell of rows j - cap to j + cap: none within the cap and no later cell can be.
      const lo = Math.max(0, j - cap)
      const hi = Math.min(m, j + cap)
      if (lo > hi) { score = cap + 1; break }
      let v = j + popcount(vp & lowBits(lo)) - popcount(vn & lowBits(lo))
      let best = v
      for (let i = lo; i < hi; i++) {
        v += ((vp >>> i) & 1) - ((vn >>> i) & 1)
        if (v < best) best = v
      }
      if (best > cap) { score = cap + 1; break }
    }
  }
  result.least = least
  result.whole = score
  result.shortest = shortest
  return result
}

/** Rows of the plain table, grown as longer words come. */
let rowA = new Int32Array(64)
let rowB = new Int32Array(64)
let rowC = new Int32Array(64)

function scanTable(p: TypoPattern, text: string, cap: number, untilShortest: boolean, letters: boolean): ScanResult {
  const m = p.length
  const a = p.codes
  if (rowA.length < m + 1) { rowA = new Int32Array(2 * (m + 1)); rowB = new Int32Array(2 * (m + 1)); rowC = new Int32Array(2 * (m + 1)) }
  let prev2 = rowA
  let prev = rowB
  let row = rowC
  for (let i = 0; i <= m; i++) prev[i] = i
  let least = m
  let shortest = 0
  let score = m
  let prevChar = -1
  let j = 0
  for (let x = 0; x < text.length; x++) {
    // A surrogate pair is one code point (one edit); a lone surrogate is its own unit.
    const c = text.codePointAt(x)!
    if (c > 0xffff) x++
    if (letters && (c === SPACE || c === MARKER)) continue
    j++
    row[0] = j
    let best = j
    for (let i = 1; i <= m; i++) {
      let v = Math.min(prev[i]! + 1, row[i - 1]! + 1, prev[i - 1]! + (a[i - 1] === c ? 0 : 1))
      if (j > 1 && i > 1 && a[i - 1] === prevChar && a[i - 2] === c) v = Math.min(v, prev2[i - 2]! + 1)
      row[i] = v
      if (v < best) best = v
    }
    score = row[m]!
    const spare = prev2
    prev2 = prev
    prev = row
    row = spare
    prevChar = c
    if (score < least) least = score
    if (score <= cap && shortest === 0 && m > cap) {
      shortest = j
      if (untilShortest) break
    }
    if (best > cap) { score = cap + 1; break }
  }
  result.least = least
  result.whole = score
  result.shortest = shortest
  return result
}
