/**
 * @module Similar companies in memory, for the similarity index: candidates found by weighted
 * MinHash with LSH banding, ranked by the exact score of the search (similar.ts).
 *
 * - The tag sets of the companies are kept once per distinct set (companies with the same tags
 *   share their candidates and their tag scores): a set's candidates are the sets that share an
 *   LSH bucket with it, each scored by its exact weighted Jaccard, I / (W_A + W_B − I).
 * - The MinHash is an exponential race: for hash k, every tag t of a set draws −ln(U_k(t)) / w_t and
 *   the set's k-th value is the tag with the least draw. The draws of a tag are the same in every
 *   set, so two sets agree on hash k exactly when the least draw over their union falls on a shared
 *   tag, which happens with probability Σ_{A∩B} w / Σ_{A∪B} w: their weighted Jaccard (the
 *   weights are per tag, the sets plain sets).
 * - Bands of hashes (`bandingFor`: more rows a band on more data): two sets are candidates when
 *   they agree on every hash of some band, with probability 1 − (1 − J^rows)^bands. Only candidate generation is approximate: the
 *   candidates are scored exactly, so an answer holds the search's scores and order for the
 *   companies it holds (`bench/similar-index.ts` measures the share of the exhaustive answer
 *   found).
 * - A company's answer walks its set's candidates best tag score first, scoring every member with
 *   its description words, and stops when the tag score plus the description's largest part can no
 *   longer reach the `limit`-th best: score = 0.8 · tag Jaccard + 0.2 · description Jaccard (the tag
 *   Jaccard alone for a company without description words), best first, equal scores by id.
 *
 * Pure: no database. similar-index-build.ts reads the data into it.
 */
import { mix } from './scoring.js'

/** 2^-32: a 32-bit hash as a uniform draw in (0, 1). */
const UNIT = 2 ** -32
const TAG_WEIGHT = 0.8
const DESCRIPTION_WEIGHT = 0.2

/** LSH banding: bands of MinHash values, `rows` values a band. */
export interface Banding {
  readonly bands: number
  readonly rows: number
}

/**
 * The banding for a number of distinct tag sets. The more companies, the closer a company's best
 * matches (their tag Jaccard is 0.1-0.2 among 300 companies, 0.25-0.5 at 100,000, 0.35-0.75 at a
 * million) and the larger the buckets: more rows a band find fewer, closer candidates. Measured by
 * `bench/similar-index.ts` (overlap with the exhaustive search, and the build's time); at a million
 * companies 24 bands of 2 rows found 36,800 candidate sets a set, 40 of 3 found 8,500.
 */
export function bandingFor(sets: number): Banding {
  if (sets < 20_000) return { bands: 24, rows: 1 }
  if (sets < 200_000) return { bands: 24, rows: 2 }
  return { bands: 40, rows: 3 }
}

/** What the model is built from: companies in ascending id order, their tags and description words as ids. */
export interface SimilarityInput {
  /** Company ids, ascending. */
  readonly ids: Float64Array
  /** The tags of company i: tags[tagStart[i] .. tagStart[i + 1]), ascending tag ids. */
  readonly tagStart: Uint32Array
  readonly tags: Uint32Array
  /** The description words of company i: words[wordStart[i] .. wordStart[i + 1]), ascending word ids. */
  readonly wordStart: Uint32Array
  readonly words: Uint32Array
  /** A tag id's weight. Tag ids are in the order weights are summed in (field, then value). */
  readonly weights: Float64Array
}

/** A company's answer: ids best first, with their scores. */
export type Scored = [id: number, score: number][]

export class SimilarityModel {
  readonly input: SimilarityInput
  /** Company index → its distinct tag set. */
  readonly setOf: Uint32Array
  /** Set s: its tags at setTags[setStart[s] .. setStart[s + 1]). */
  readonly setStart: Uint32Array
  readonly setTags: Uint32Array
  /** Set s: its total tag weight (summed in tag order). */
  readonly setTotal: Float64Array
  /** Set s: its companies (indexes, ascending) at members[memberStart[s] .. memberStart[s + 1]). */
  readonly memberStart: Uint32Array
  readonly members: Uint32Array
  /** Set s: its buckets (one a band) at bucketOf[s * bands .. (s + 1) * bands). */
  readonly bucketOf: Uint32Array
  /** Bucket b: its sets (ascending) at bucketSets[bucketStart[b] .. bucketStart[b + 1]). */
  readonly bucketStart: Uint32Array
  readonly bucketSets: Uint32Array
  readonly bands: number
  readonly rows: number
  /** Scratch of `candidates`: the last set that marked a set (+1; 0 is none). */
  readonly #seen: Uint32Array

  constructor(input: SimilarityInput, banding?: Banding) {
    this.input = input
    const n = input.ids.length
    const { tagStart, tags } = input
    // Distinct sets, in the order their first company comes.
    const byKey = new Map<string, number>()
    this.setOf = new Uint32Array(n)
    const starts: number[] = [0]
    const setTags: number[] = []
    for (let i = 0; i < n; i++) {
      const a = tagStart[i]!
      const b = tagStart[i + 1]!
      let key = ''
      for (let j = a; j < b; j++) key += `${tags[j]},`
      let s = byKey.get(key)
      if (s === undefined) {
        s = starts.length - 1
        byKey.set(key, s)
        for (let j = a; j < b; j++) setTags.push(tags[j]!)
        starts.push(setTags.length)
      }
      this.setOf[i] = s
    }
    const sets = starts.length - 1
    const { bands, rows } = banding ?? bandingFor(sets)
    this.bands = bands
    this.rows = rows
    this.setStart = Uint32Array.from(starts)
    this.setTags = Uint32Array.from(setTags)
    this.setTotal = new Float64Array(sets)
    for (let s = 0; s < sets; s++) {
      let w = 0
      for (let j = this.setStart[s]!; j < this.setStart[s + 1]!; j++) w += input.weights[this.setTags[j]!]!
      this.setTotal[s] = w
    }
    // Members by set (counting sort: ascending company index within a set).
    this.memberStart = new Uint32Array(sets + 1)
    for (let i = 0; i < n; i++) this.memberStart[this.setOf[i]! + 1]!++
    for (let s = 0; s < sets; s++) this.memberStart[s + 1]! += this.memberStart[s]!
    this.members = new Uint32Array(n)
    const fill = this.memberStart.slice(0, sets)
    for (let i = 0; i < n; i++) this.members[fill[this.setOf[i]!]!++] = i

    // MinHash draws per tag.
    const k = bands * rows
    const tagCount = input.weights.length
    const draws = new Float64Array(tagCount * k)
    for (let tag = 0; tag < tagCount; tag++) {
      const w = input.weights[tag]!
      for (let h = 0; h < k; h++) draws[tag * k + h] = -Math.log((mix(tag + 1, h + 1) + 0.5) * UNIT) / w
    }
    // Band keys to bucket numbers through an open-addressing table (a Map of millions of arrays
    // costs far more memory and time).
    const keys = new BucketNumbers(Math.max(16, sets * bands))
    this.bucketOf = new Uint32Array(sets * bands)
    const signature = new Uint32Array(k)
    const least = new Float64Array(k)
    const empty = 0xffffffff
    for (let s = 0; s < sets; s++) {
      const a = this.setStart[s]!
      const b = this.setStart[s + 1]!
      if (a === b) {
        this.bucketOf.fill(empty, s * bands, (s + 1) * bands)
        continue
      }
      least.fill(Number.POSITIVE_INFINITY)
      for (let j = a; j < b; j++) {
        const tag = this.setTags[j]!
        const base = tag * k
        // Tags come in ascending id: an equal draw keeps the lower id.
        for (let h = 0; h < k; h++) {
          const d = draws[base + h]!
          if (d < least[h]!) {
            least[h] = d
            signature[h] = tag
          }
        }
      }
      for (let band = 0; band < bands; band++) this.bucketOf[s * bands + band] = keys.numberOf(bandKey(band, signature, band * rows, rows))
    }
    const buckets = keys.size
    this.bucketStart = new Uint32Array(buckets + 1)
    for (const b of this.bucketOf) if (b !== empty) this.bucketStart[b + 1]!++
    for (let b = 0; b < buckets; b++) this.bucketStart[b + 1]! += this.bucketStart[b]!
    this.bucketSets = new Uint32Array(this.bucketStart[buckets]!)
    const at = this.bucketStart.slice(0, buckets)
    for (let s = 0; s < sets; s++) {
      for (let band = 0; band < bands; band++) {
        const b = this.bucketOf[s * bands + band]!
        if (b !== empty) this.bucketSets[at[b]!++] = s
      }
    }
    this.#seen = new Uint32Array(sets)
  }

  /** How many LSH buckets there are. */
  get buckets(): number {
    return this.bucketStart.length - 1
  }

  /** How many distinct tag sets the companies have. */
  get sets(): number {
    return this.setTotal.length
  }

  /** The index of a company id, or -1. */
  indexOf(id: number): number {
    const ids = this.input.ids
    let lo = 0
    let hi = ids.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const v = ids[mid]!
      if (v === id) return mid
      if (v < id) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  /** The sets sharing a bucket with set `s` (itself included), with their weighted Jaccard, best first (equal ones by set). */
  candidates(s: number): Candidates {
    const seen = this.#seen
    const found: number[] = []
    if (this.setStart[s] === this.setStart[s + 1]) return new Candidates(new Uint32Array(0), new Float64Array(0))
    const mark = s + 1
    for (let band = 0; band < this.bands; band++) {
      const b = this.bucketOf[s * this.bands + band]!
      for (let i = this.bucketStart[b]!; i < this.bucketStart[b + 1]!; i++) {
        const t = this.bucketSets[i]!
        if (seen[t] === mark) continue
        seen[t] = mark
        found.push(t)
      }
    }
    // A later call for the same set must not take them as seen.
    for (const t of found) seen[t] = 0
    const scores = new Float64Array(found.length)
    const { setStart, setTags, setTotal } = this
    const weights = this.input.weights
    const a0 = setStart[s]!
    const a1 = setStart[s + 1]!
    const wa = setTotal[s]!
    for (let i = 0; i < found.length; i++) {
      const t = found[i]!
      let x = a0
      let y = setStart[t]!
      const y1 = setStart[t + 1]!
      let both = 0
      while (x < a1 && y < y1) {
        const p = setTags[x]!
        const q = setTags[y]!
        if (p === q) {
          both += weights[p]!
          x++
          y++
        } else if (p < q) x++
        else y++
      }
      scores[i] = both / (wa + setTotal[t]! - both)
    }
    return new Candidates(Uint32Array.from(found), scores)
  }

  /** The `limit` best companies for company index `c`, from its set's candidates (`candidates(setOf[c])`). */
  neighbours(c: number, limit: number, found: Candidates): Scored {
    const { wordStart, ids } = this.input
    const withWords = wordStart[c + 1]! > wordStart[c]!
    const best = new TopScores(limit)
    for (let i = 0; i < found.length; i++) {
      const t = found.setAt(i)
      const tagScore = found.scoreAt(i)
      const upper = withWords ? TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT : tagScore
      if (best.full && upper < best.worst) break
      if (!(tagScore > 0)) break
      for (let m = this.memberStart[t]!; m < this.memberStart[t + 1]!; m++) {
        const other = this.members[m]!
        if (other !== c) best.offer(ids[other]!, withWords ? TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT * this.#words(c, other) : tagScore)
      }
    }
    return best.sorted()
  }

  /** The score of company `other` for company `c`, whose tag sets' weighted Jaccard is `tagScore`. */
  scoreOf(c: number, other: number, tagScore: number): number {
    const { wordStart } = this.input
    return wordStart[c + 1]! > wordStart[c]! ? TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT * this.#words(c, other) : tagScore
  }

  /** The Jaccard of two companies' description words (0 when either has none). */
  #words(c: number, other: number): number {
    const { wordStart, words } = this.input
    const w0 = wordStart[c]!
    const w1 = wordStart[c + 1]!
    const v0 = wordStart[other]!
    const v1 = wordStart[other + 1]!
    if (w1 === w0 || v1 === v0) return 0
    let x = w0
    let y = v0
    let both = 0
    while (x < w1 && y < v1) {
      const p = words[x]!
      const q = words[y]!
      if (p === q) {
        both++
        x++
        y++
      } else if (p < q) x++
      else y++
    }
    return both / ((w1 - w0) + (v1 - v0) - both)
  }
}

/**
 * A set's candidates, ordered best first as far as they are read: by 64 ranges of score, each
 * sorted when first reached, since an answer usually stops after the best few hundred of thousands.
 */
export class Candidates {
  readonly length: number
  readonly #sets: Uint32Array
  readonly #scores: Float64Array
  /** Entries ordered so far (a prefix of whole ranges). */
  #ordered = 0
  readonly #order: Uint32Array
  readonly #rangeEnd: Uint32Array
  #range = 0

  constructor(sets: Uint32Array, scores: Float64Array) {
    this.length = sets.length
    this.#sets = sets
    this.#scores = scores
    // Counting sort by range, best range first (score in [0, 1]: range 0 holds the scores nearest 1).
    const ranges = 64
    const rangeOf = (x: number) => Math.min(ranges - 1, Math.max(0, Math.floor((1 - x) * ranges)))
    const end = new Uint32Array(ranges)
    for (let i = 0; i < sets.length; i++) end[rangeOf(scores[i]!)]!++
    for (let r = 1; r < ranges; r++) end[r]! += end[r - 1]!
    const order = new Uint32Array(sets.length)
    const at = new Uint32Array(ranges)
    for (let r = 1; r < ranges; r++) at[r] = end[r - 1]!
    for (let i = 0; i < sets.length; i++) order[at[rangeOf(scores[i]!)]!++] = i
    this.#order = order
    this.#rangeEnd = end
  }

  #through(i: number): void {
    while (this.#ordered <= i) {
      const from = this.#ordered
      const to = this.#rangeEnd[this.#range++]!
      const sets = this.#sets
      const scores = this.#scores
      this.#order.subarray(from, to).sort((x, y) => scores[y]! - scores[x]! || sets[x]! - sets[y]!)
      this.#ordered = to
    }
  }

  setAt(i: number): number {
    this.#through(i)
    return this.#sets[this.#order[i]!]!
  }

  scoreAt(i: number): number {
    this.#through(i)
    return this.#scores[this.#order[i]!]!
  }
}

/** Band keys to numbers 0, 1, ... as they are first seen (open addressing, linear probing). */
class BucketNumbers {
  size = 0
  readonly #keys: Float64Array
  readonly #numbers: Int32Array
  readonly #mask: number
  constructor(expected: number) {
    let capacity = 16
    while (capacity < expected * 2) capacity *= 2
    this.#keys = new Float64Array(capacity)
    this.#numbers = new Int32Array(capacity).fill(-1)
    this.#mask = capacity - 1
  }

  numberOf(key: number): number {
    let slot = (key % (this.#mask + 1)) & this.#mask
    for (;;) {
      const n = this.#numbers[slot]!
      if (n < 0) {
        this.#keys[slot] = key
        this.#numbers[slot] = this.size
        return this.size++
      }
      if (this.#keys[slot] === key) return n
      slot = (slot + 1) & this.#mask
    }
  }
}

/** A band's key: the band and its tags, hashed to 52 bits (a collision only adds candidates, which are scored exactly). */
function bandKey(band: number, signature: Uint32Array, from: number, rows: number): number {
  let h1 = mix(band + 1, 0x51ed27)
  let h2 = mix(0x2545f491, band + 1)
  for (let r = 0; r < rows; r++) {
    h1 = mix(h1, signature[from + r]! + 1)
    h2 = mix(signature[from + r]! + 1, h2)
  }
  return h1 * 2 ** 20 + (h2 >>> 12)
}

/** The `limit` best (score desc, id asc) of the scores offered. */
class TopScores {
  readonly #limit: number
  readonly #ids: number[] = []
  readonly #scores: number[] = []
  constructor(limit: number) {
    this.#limit = limit
  }

  get full(): boolean {
    return this.#ids.length >= this.#limit
  }

  /** The worst score kept. */
  get worst(): number {
    return this.#scores[this.#scores.length - 1] ?? Number.NEGATIVE_INFINITY
  }

  offer(id: number, score: number): void {
    if (!(score > 0) || this.#limit <= 0) return
    const ids = this.#ids
    const scores = this.#scores
    const n = ids.length
    if (n >= this.#limit) {
      const ws = scores[n - 1]!
      if (score < ws || (score === ws && id > ids[n - 1]!)) return
    }
    // Insertion into a short sorted list (limit 20).
    let at = n
    while (at > 0 && (scores[at - 1]! < score || (scores[at - 1] === score && ids[at - 1]! > id))) at--
    ids.splice(at, 0, id)
    scores.splice(at, 0, score)
    if (ids.length > this.#limit) {
      ids.pop()
      scores.pop()
    }
  }

  sorted(): Scored {
    return this.#ids.map((id, i) => [id, this.#scores[i]!])
  }
}
