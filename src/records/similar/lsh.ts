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
 * - Typed arrays throughout, since the cost is per candidate (about 3,400 a set at a million
 *   companies): each tag's draws are taken once, a candidate's shared weight is read from the set's
 *   weights by tag id, and the candidates are ordered by 1,024 ranges of tag score (counting sort).
 * - A company's answer walks its set's candidates best range first, scoring every member with
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
  /** Buckets a set must share with another to be its candidate (default 1). */
  readonly minHits?: number
}

/**
 * The banding for a number of distinct tag sets. The more companies, the closer a company's best
 * matches (their tag Jaccard is 0.1-0.2 among 300 companies, 0.25-0.5 at 100,000, 0.34-0.75 at a
 * million: the 5th and 95th percentiles of the exact 20) and the larger the buckets: more rows a
 * band find fewer, closer candidates. At a million companies, a set is a candidate when it shares
 * 2 of 80 buckets of 3 rows (probability 0.82 at a tag Jaccard of 0.34, 0.99 at 0.5, 0.03 at
 * 0.15): 3,377 candidate sets a set against 8,504 with 1 of 40, and more of the exact 20 (0.971
 * against 0.953 on average; `bench/similar-model.ts --size 1000000`). The rule is the same for both sets of a pair (the buckets they share),
 * so a set is a candidate of another exactly when that one is its own, which the update relies on.
 * Measured by `bench/similar-model.ts` (overlap with the exact 20, CPU a set).
 */
export function bandingFor(sets: number): Banding {
  if (sets < 20_000) return { bands: 24, rows: 1 }
  if (sets < 200_000) return { bands: 24, rows: 2 }
  return { bands: 80, rows: 3, minHits: 2 }
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
  /**
   * A tag id's hash of its text (`tagHash`), which seeds its MinHash draws: a tag's draws do not
   * depend on which other tags exist, so an import adding or removing a tag leaves the buckets of
   * the sets without it as they were, and an update equals a full build.
   */
  readonly tagHashes: Uint32Array
}

/** A 32-bit FNV-1a hash of a tag's text (its UTF-16 code units), the seed of its MinHash draws. */
export function tagHash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** A company's answer: ids best first, with their scores. */
export type Scored = [id: number, score: number][]

export class SimilarityModel {
  /** What the model is made of (typed arrays, shared between threads when built `shared`). */
  readonly parts: ModelParts
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
  /** Set s: its buckets (one a band) at bucketOf[s * bands .. (s + 1) * bands); `NO_BUCKET` for a set without tags. */
  readonly bucketOf: Uint32Array
  /** Bucket b: its sets (ascending) at bucketSets[bucketStart[b] .. bucketStart[b + 1]). */
  readonly bucketStart: Uint32Array
  readonly bucketSets: Uint32Array
  readonly bands: number
  readonly rows: number
  readonly minHits: number
  /**
   * Every set, in the order of their MinHash signatures: consecutive sets share buckets, so their
   * candidates overlap and stay in the CPU's caches from one set to the next (the build computes
   * the answers in this order; in set order every candidate is a cache miss at a million companies).
   */
  readonly order: Uint32Array
  // Scratch of `candidates` and `neighbours` (one call at a time: the model is not shared between threads).
  /** The sets met by the current `candidates` call, one bit each (cleared before it returns): small enough to stay in cache. */
  readonly #hits: Uint8Array
  /** The current set's tag weights by tag id (0 for the tags it lacks). */
  readonly #ownWeights: Float64Array
  /** The current company's words: the stamp of the last `neighbours` call whose company has the word. */
  readonly #ownWords: Uint32Array
  #wordStamp = 0
  /** Company i's words hashed to 128 bits at wordBits[4i .. 4i + 4). */
  readonly #wordBits: Uint32Array
  readonly #found: Uint32Array
  readonly #scores: Float64Array
  readonly #order: Uint32Array
  readonly #binEnd: Uint32Array
  readonly #best = new TopScores(SIMILAR_LIMIT_MAX)
  readonly #records: Uint32Array | undefined
  readonly #recordTotals: Float64Array | undefined
  readonly #ownMask = new Uint32Array(RECORD)

  /**
   * Builds the model from its input, or takes the parts of one already built (`parts`: another
   * thread's, shared through `SharedArrayBuffer`s). `shared`: the parts are allocated in shared
   * memory, so threads answering for the build read one copy (similar/threads.ts).
   */
  constructor(source: SimilarityInput | { readonly parts: ModelParts }, banding?: Banding, options: { readonly shared?: boolean } = {}) {
    const parts = 'parts' in source ? source.parts : buildParts(source, banding, options.shared === true)
    this.parts = parts
    this.input = parts.input
    this.setOf = parts.setOf
    this.setStart = parts.setStart
    this.setTags = parts.setTags
    this.setTotal = parts.setTotal
    this.memberStart = parts.memberStart
    this.members = parts.members
    this.bucketOf = parts.bucketOf
    this.bucketStart = parts.bucketStart
    this.bucketSets = parts.bucketSets
    this.bands = parts.bands
    this.rows = parts.rows
    this.minHits = parts.minHits
    this.order = parts.order
    this.#wordBits = parts.wordBits
    this.#records = parts.setRecords
    this.#recordTotals = parts.setRecords && new Float64Array(parts.setRecords.buffer, parts.setRecords.byteOffset, parts.setRecords.length / 2)
    const sets = parts.setTotal.length
    this.#hits = new Uint8Array(sets)
    this.#ownWeights = new Float64Array(parts.input.weights.length)
    this.#ownWords = new Uint32Array(parts.wordCount)
    this.#found = new Uint32Array(sets)
    this.#scores = new Float64Array(sets)
    this.#order = new Uint32Array(sets)
    this.#binEnd = new Uint32Array(BINS)
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

  /**
   * The sets sharing a bucket with set `s` (itself included), each with its weighted Jaccard
   * against `s`, ordered by ranges of score, best range first. Valid until the next call.
   */
  candidates(s: number): Candidates {
    const found = this.#found
    const scores = this.#scores
    if (this.setStart[s] === this.setStart[s + 1]) return new Candidates(found, scores, this.#order, this.#binEnd, 0)
    const hits = this.#hits
    let met = 0
    const { bucketOf, bucketStart, bucketSets, bands } = this
    for (let band = 0; band < bands; band++) {
      const b = bucketOf[s * bands + band]!
      const end = bucketStart[b + 1]!
      if (bands < 255) {
        // Without a branch on whether the set was met before (a coin toss to the branch
        // predictor): it is written at the end of the list every time, and the end moves past it
        // only the first time ((0 - 1) >>> 31 is 1, (h - 1) >>> 31 is 0 for h > 0). The counts stay
        // below 255: one a band.
        for (let i = bucketStart[b]!; i < end; i++) {
          const t = bucketSets[i]!
          const h = hits[t]!
          found[met] = t
          met += (h - 1) >>> 31
          hits[t] = h + 1
        }
      } else {
        for (let i = bucketStart[b]!; i < end; i++) {
          const t = bucketSets[i]!
          const h = hits[t]!
          if (h === 0) found[met++] = t
          if (h < 255) hits[t] = h + 1
        }
      }
    }
    // Candidates sharing fewer than `minHits` buckets are dropped unscored (the set itself shares them all).
    const minHits = this.minHits
    let count = 0
    for (let i = 0; i < met; i++) {
      const t = found[i]!
      if (hits[t]! >= minHits) found[count++] = t
      hits[t] = 0
    }
    // The shared weight of a candidate: its tags' weights in s, summed in tag order (the tags it
    // does not share add 0), as the search sums them.
    const { setStart, setTags, setTotal } = this
    const own = this.#ownWeights
    const weights = this.input.weights
    const a0 = setStart[s]!
    const a1 = setStart[s + 1]!
    for (let j = a0; j < a1; j++) own[setTags[j]!] = weights[setTags[j]!]!
    const wa = setTotal[s]!
    const records = this.#records
    if (records !== undefined) {
      // From the sets' records: the tags both have are the bits of the two masks' AND, their
      // weights added in ascending tag id (the order below, with the +0 of the tags the
      // candidate lacks left out, which changes no sum), the candidate's total beside its mask.
      const totals = this.#recordTotals!
      const words = this.parts.maskWords
      const mine = this.#ownMask
      for (let w = 0; w < words; w++) mine[w] = records[s * RECORD + w]!
      for (let i = 0; i < count; i++) {
        const t = found[i]!
        const base = t * RECORD
        let both = 0
        for (let w = 0; w < words; w++) {
          let x = records[base + w]! & mine[w]!
          while (x !== 0) {
            const low = x & -x
            both += weights[w * 32 + 31 - Math.clz32(low)]!
            x ^= low
          }
        }
        scores[i] = both / (wa + totals[t * (RECORD / 2) + RECORD / 2 - 1]! - both)
      }
    } else {
      for (let i = 0; i < count; i++) {
        const t = found[i]!
        let both = 0
        const y1 = setStart[t + 1]!
        for (let y = setStart[t]!; y < y1; y++) both += own[setTags[y]!]!
        scores[i] = both / (wa + setTotal[t]! - both)
      }
    }
    for (let j = a0; j < a1; j++) own[setTags[j]!] = 0
    // Counting sort into ranges of score: an answer reads the best few ranges only.
    const binEnd = this.#binEnd
    binEnd.fill(0)
    for (let i = 0; i < count; i++) binEnd[binOf(scores[i]!)]!++
    for (let r = 1; r < BINS; r++) binEnd[r]! += binEnd[r - 1]!
    const order = this.#order
    for (let i = count - 1; i >= 0; i--) order[--binEnd[binOf(scores[i]!)]!] = i
    // binEnd[r] is now the start of range r; shift to ends.
    for (let r = 0; r < BINS - 1; r++) binEnd[r] = binEnd[r + 1]!
    binEnd[BINS - 1] = count
    return new Candidates(found, scores, order, binEnd, count)
  }

  /**
   * The `limit` best companies for company index `c`, from its set's candidates
   * (`candidates(setOf[c])`): ranges of tag score best first, each company scored in full, until
   * the range's best possible score is below the `limit`-th best found.
   */
  neighboursInto(c: number, limit: number, found: Candidates): void {
    const { wordStart, words, ids } = this.input
    const w0 = wordStart[c]!
    const w1 = wordStart[c + 1]!
    const withWords = w1 > w0
    const ownWords = this.#ownWords
    if (withWords) {
      if (++this.#wordStamp === 0xffffffff) {
        ownWords.fill(0)
        this.#wordStamp = 1
      }
      for (let x = w0; x < w1; x++) ownWords[words[x]!] = this.#wordStamp
    }
    const wordMark = this.#wordStamp
    const ownSize = w1 - w0
    const wordBits = this.#wordBits
    const bits0 = wordBits[4 * c]!
    const bits1 = wordBits[4 * c + 1]!
    const bits2 = wordBits[4 * c + 2]!
    const bits3 = wordBits[4 * c + 3]!
    const records = this.#records
    const best = this.#best
    best.reset(limit)
    const { memberStart, members } = this
    let from = 0
    for (let r = 0; r < BINS && from < found.length; r++) {
      const to = found.binEnd[r]!
      if (to === from) continue
      const upperTag = binUpper(r)
      const upper = withWords ? TAG_WEIGHT * upperTag + DESCRIPTION_WEIGHT : upperTag
      if (best.full && upper < best.worst) break
      for (let i = from; i < to; i++) {
        const at = found.order[i]!
        const tagScore = found.scores[at]!
        if (!(tagScore > 0)) continue
        const t = found.sets[at]!
        if (best.full && (withWords ? TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT : tagScore) < best.worst) continue
        const tagPart = withWords ? TAG_WEIGHT * tagScore : tagScore
        if (withWords && best.full && records !== undefined) {
          // No member of the set has a word of the company's (their words' bits together share
          // none of its bits): each scores the tag part alone, as computed below, and the set is
          // passed over unread when that cannot reach the answer. Most candidates share no word.
          const r = t * RECORD + RECORD_WORDS_AT
          if (((records[r]! & bits0) | (records[r + 1]! & bits1) | (records[r + 2]! & bits2) | (records[r + 3]! & bits3)) === 0 &&
            tagPart + DESCRIPTION_WEIGHT * 0 < best.worst) continue
        }
        for (let m = memberStart[t]!; m < memberStart[t + 1]!; m++) {
          const other = members[m]!
          if (other === c) continue
          const o = 4 * other
          if (!withWords || ((wordBits[o]! & bits0) | (wordBits[o + 1]! & bits1) | (wordBits[o + 2]! & bits2) | (wordBits[o + 3]! & bits3)) === 0) {
            // No word in common: the description part is 0 (0.2 * 0 added, as the search adds it).
            const score = withWords ? tagPart + DESCRIPTION_WEIGHT * 0 : tagPart
            if (!best.full || score >= best.worst) best.offer(other, score)
            continue
          }
          const v0 = wordStart[other]!
          const v1 = wordStart[other + 1]!
          let both = 0
          for (let y = v0; y < v1; y++) if (ownWords[words[y]!] === wordMark) both++
          const description = both / (ownSize + (v1 - v0) - both)
          const score = TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT * description
          if (!best.full || score >= best.worst) best.offer(other, score)
        }
      }
      from = to
    }
  }

  /** `neighboursInto`'s answer as ids and scores. */
  neighbours(c: number, limit: number, found: Candidates): Scored {
    this.neighboursInto(c, limit, found)
    const best = this.#best
    const ids = this.input.ids
    return Array.from({ length: best.count }, (_, i): [number, number] => [ids[best.at[i]!]!, best.scores[i]!])
  }

  /** The answer of the last `neighboursInto`: company indexes and scores, best first. */
  get answer(): { readonly count: number; readonly at: Uint32Array; readonly scores: Float64Array } {
    return this.#best
  }

  /**
   * The `limit` best companies for company index `c` over every set, by the same score: the exact
   * answer LSH approximates (`bench/similar-index.ts` and the tests measure the overlap with it).
   */
  exhaustiveNeighbours(c: number, limit: number): Scored {
    const s = this.setOf[c]!
    const sets = this.sets
    const found = this.#found
    for (let t = 0; t < sets; t++) found[t] = t
    // Score every set as `candidates` scores its own, then walk them as `neighbours` does.
    const { setStart, setTags, setTotal } = this
    const own = this.#ownWeights
    const weights = this.input.weights
    const scores = this.#scores
    for (let j = setStart[s]!; j < setStart[s + 1]!; j++) own[setTags[j]!] = weights[setTags[j]!]!
    const wa = setTotal[s]!
    for (let t = 0; t < sets; t++) {
      let both = 0
      for (let y = setStart[t]!; y < setStart[t + 1]!; y++) both += own[setTags[y]!]!
      scores[t] = both === 0 ? 0 : both / (wa + setTotal[t]! - both)
    }
    for (let j = setStart[s]!; j < setStart[s + 1]!; j++) own[setTags[j]!] = 0
    const order = this.#order
    const binEnd = this.#binEnd
    binEnd.fill(0)
    for (let t = 0; t < sets; t++) binEnd[binOf(scores[t]!)]!++
    for (let r = 1; r < BINS; r++) binEnd[r]! += binEnd[r - 1]!
    for (let t = sets - 1; t >= 0; t--) order[--binEnd[binOf(scores[t]!)]!] = t
    for (let r = 0; r < BINS - 1; r++) binEnd[r] = binEnd[r + 1]!
    binEnd[BINS - 1] = sets
    return this.neighbours(c, limit, new Candidates(found, scores, order, binEnd, sets))
  }

  /** The score of company `other` for company `c`, whose tag sets' weighted Jaccard is `tagScore`. */
  scoreOf(c: number, other: number, tagScore: number): number {
    const { wordStart, words } = this.input
    const w0 = wordStart[c]!
    const w1 = wordStart[c + 1]!
    if (w1 === w0) return tagScore
    const v0 = wordStart[other]!
    const v1 = wordStart[other + 1]!
    if (v1 === v0) return TAG_WEIGHT * tagScore
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
    return TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT * (both / ((w1 - w0) + (v1 - v0) - both))
  }
}

/** The typed arrays of a model (`SimilarityModel`; the fields of the same names), and its banding. */
export interface ModelParts {
  readonly input: SimilarityInput
  readonly setOf: Uint32Array
  readonly setStart: Uint32Array
  readonly setTags: Uint32Array
  readonly setTotal: Float64Array
  readonly memberStart: Uint32Array
  readonly members: Uint32Array
  readonly bucketOf: Uint32Array
  readonly bucketStart: Uint32Array
  readonly bucketSets: Uint32Array
  readonly order: Uint32Array
  /** Company i's words hashed to 128 bits at wordBits[4i .. 4i + 4). */
  readonly wordBits: Uint32Array
  /** One more than the highest word id. */
  readonly wordCount: number
  /**
   * Set s's tags as a bit mask of `maskWords` 32-bit words at setRecords[s * RECORD ..], its
   * members' word bits together (`RECORD_WORDS_AT`), and its total weight as the record's last 8
   * bytes: a candidate scored, and passed over when none of its members shares a word, from one
   * cache line (64 bytes) instead of arrays read at random. Absent when the tags do not fit (more than
   * `RECORD_TAGS` distinct tags: imported data), where the candidates are scored from `setTags`.
   */
  readonly setRecords?: Uint32Array
  readonly maskWords: number
  readonly bands: number
  readonly rows: number
  readonly minHits: number
}

type TypedArrayOf<T> = { new (length: number): T; new (buffer: SharedArrayBuffer): T; readonly BYTES_PER_ELEMENT: number }

/**
 * A typed array of `length`, in shared memory when `shared`. Of its exact length even when empty:
 * the model reads some lengths as counts (`sets` is `setTotal.length`).
 */
function allocate<T>(kind: TypedArrayOf<T>, length: number, shared: boolean): T {
  return shared ? new kind(new SharedArrayBuffer(length * kind.BYTES_PER_ELEMENT)) : new kind(length)
}

/** `array`'s first `length` values as an array of its own (in shared memory when `shared`). */
function copyOf<T extends Uint32Array | Float64Array>(array: T, length: number, shared: boolean): T {
  const copy = allocate(array.constructor as TypedArrayOf<T>, length, shared)
  copy.set(array.subarray(0, length) as never)
  return shared ? copy.subarray(0, length) as T : copy
}

/** The input in shared memory (each array copied once). */
function sharedInput(input: SimilarityInput): SimilarityInput {
  return {
    ids: copyOf(input.ids, input.ids.length, true),
    tagStart: copyOf(input.tagStart, input.tagStart.length, true),
    tags: copyOf(input.tags, input.tags.length, true),
    wordStart: copyOf(input.wordStart, input.wordStart.length, true),
    words: copyOf(input.words, input.words.length, true),
    weights: copyOf(input.weights, input.weights.length, true),
    tagHashes: copyOf(input.tagHashes, input.tagHashes.length, true),
  }
}

function buildParts(given: SimilarityInput, banding: Banding | undefined, shared: boolean): ModelParts {
  const input = shared ? sharedInput(given) : given
  const n = input.ids.length
  const { tagStart, tags } = input
  // Distinct sets, in the order their first company comes: a hash of the tags, confirmed tag by tag.
  const setOf = allocate(Uint32Array, n, shared)
  let starts = new Uint32Array(n + 1)
  let allTags = new Uint32Array(tags.length)
  let sets = 0
  let table: Int32Array | undefined = new Int32Array(tableSize(n)).fill(-1)
  const mask = table.length - 1
  for (let i = 0; i < n; i++) {
    const a = tagStart[i]!
    const b = tagStart[i + 1]!
    let h = 0x2545f491 ^ (b - a)
    for (let j = a; j < b; j++) h = mix(h, tags[j]! + 1)
    let slot = h & mask
    let s = -1
    for (;;) {
      const t = table[slot]!
      if (t < 0) break
      if (sameTags(tags, a, b, allTags, starts[t]!, starts[t + 1]!)) {
        s = t
        break
      }
      slot = (slot + 1) & mask
    }
    if (s < 0) {
      s = sets++
      table[slot] = s
      allTags.set(tags.subarray(a, b), starts[s]!)
      starts[s + 1] = starts[s]! + (b - a)
    }
    setOf[i] = s
  }
  table = undefined
  const { bands, rows, minHits } = banding ?? bandingFor(sets)
  const setStart = copyOf(starts, sets + 1, shared)
  const setTags = copyOf(allTags, setStart[sets]!, shared)
  starts = allTags = new Uint32Array(0)
  const setTotal = allocate(Float64Array, sets, shared)
  for (let s = 0; s < sets; s++) {
    let w = 0
    for (let j = setStart[s]!; j < setStart[s + 1]!; j++) w += input.weights[setTags[j]!]!
    setTotal[s] = w
  }
  // Members by set (counting sort: ascending company index within a set).
  const memberStart = allocate(Uint32Array, sets + 1, shared)
  for (let i = 0; i < n; i++) memberStart[setOf[i]! + 1]!++
  for (let s = 0; s < sets; s++) memberStart[s + 1]! += memberStart[s]!
  const members = allocate(Uint32Array, n, shared)
  const fill = memberStart.slice(0, sets)
  for (let i = 0; i < n; i++) members[fill[setOf[i]!]!++] = i

  // MinHash draws per tag, once. The signatures are taken a band at a time (a band's `rows` values
  // for every set, then its key): all of them at once would be sets x bands x rows values, 0.8 GB
  // at a million companies with 80 bands of 3 rows.
  const k = bands * rows
  const tagCount = input.weights.length
  const draws = new Float64Array(tagCount * k)
  for (let tag = 0; tag < tagCount; tag++) {
    const w = input.weights[tag]!
    const seed = input.tagHashes[tag]!
    for (let h = 0; h < k; h++) draws[tag * k + h] = -Math.log((mix(seed, h + 1) + 0.5) * UNIT) / w
  }
  // Band by band, band keys to bucket numbers through one open-addressing table reused (a Map of
  // millions of strings costs far more memory and time).
  const bucketOf = allocate(Uint32Array, sets * bands, shared)
  const keys = new BucketNumbers(Math.max(16, sets))
  const least = new Float64Array(rows)
  const signature = new Uint32Array(rows)
  let buckets = 0
  for (let band = 0; band < bands; band++) {
    keys.clear()
    const first = band * rows
    for (let s = 0; s < sets; s++) {
      const a = setStart[s]!
      const b = setStart[s + 1]!
      if (a === b) {
        bucketOf[s * bands + band] = NO_BUCKET
        continue
      }
      least.fill(Number.POSITIVE_INFINITY)
      for (let j = a; j < b; j++) {
        const tag = setTags[j]!
        const from = tag * k + first
        // Tags come in ascending id: an equal draw (equal hashes) keeps the lower id, the first in text order.
        for (let r = 0; r < rows; r++) {
          const d = draws[from + r]!
          if (d < least[r]!) {
            least[r] = d
            signature[r] = tag
          }
        }
      }
      bucketOf[s * bands + band] = buckets + keys.numberOf(bandKey(band, signature, 0, rows))
    }
    buckets += keys.size
  }
  const bucketStart = allocate(Uint32Array, buckets + 1, shared)
  for (let i = 0; i < bucketOf.length; i++) if (bucketOf[i] !== NO_BUCKET) bucketStart[bucketOf[i]! + 1]!++
  for (let b = 0; b < buckets; b++) bucketStart[b + 1]! += bucketStart[b]!
  const bucketSets = allocate(Uint32Array, bucketStart[buckets]!, shared)
  const at = bucketStart.slice(0, buckets)
  for (let s = 0; s < sets; s++) {
    for (let band = 0; band < bands; band++) {
      const b = bucketOf[s * bands + band]!
      if (b !== NO_BUCKET) bucketSets[at[b]!++] = s
    }
  }
  // The sets in the order of their buckets, band by band: sets sharing their first bucket come
  // together, so consecutive sets share candidates, which stay in the CPU's caches from one set to
  // the next (in set order every candidate is a cache miss at a million companies).
  const order = allocate(Uint32Array, sets, shared)
  for (let i = 0; i < sets; i++) order[i] = i
  order.sort((x, y) => {
    const a = x * bands
    const b = y * bands
    for (let band = 0; band < bands; band++) {
      const d = bucketOf[a + band]! - bucketOf[b + band]!
      if (d !== 0) return d
    }
    return x - y
  })
  // A company's words as 128 bits (four words of 32): no common bit, no common word, so most
  // description scores are 0 without reading the other company's words (with 5 words a
  // description, two share a bit by chance about once in five).
  const wordBits = allocate(Uint32Array, 4 * n, shared)
  for (let i = 0; i < n; i++) {
    for (let x = input.wordStart[i]!; x < input.wordStart[i + 1]!; x++) {
      const bit = mix(input.words[x]!, 0x3c6ef372) & 127
      wordBits[4 * i + (bit >>> 5)]! |= 1 << (bit & 31)
    }
  }
  let wordCount = 0
  for (const w of input.words) if (w >= wordCount) wordCount = w + 1
  const maskWords = Math.ceil(tagCount / 32)
  let setRecords: Uint32Array | undefined
  if (tagCount <= RECORD_TAGS) {
    setRecords = allocate(Uint32Array, sets * RECORD, shared)
    const totals = new Float64Array(setRecords.buffer, setRecords.byteOffset, sets * (RECORD / 2))
    for (let s = 0; s < sets; s++) {
      for (let j = setStart[s]!; j < setStart[s + 1]!; j++) setRecords[s * RECORD + (setTags[j]! >>> 5)]! |= 1 << (setTags[j]! & 31)
      for (let m = memberStart[s]!; m < memberStart[s + 1]!; m++) {
        for (let x = 0; x < 4; x++) setRecords[s * RECORD + RECORD_WORDS_AT + x]! |= wordBits[4 * members[m]! + x]!
      }
      totals[s * (RECORD / 2) + RECORD / 2 - 1] = setTotal[s]!
    }
  }
  return { input, setOf, setStart, setTags, setTotal, memberStart, members, bucketOf, bucketStart, bucketSets, order, wordBits, wordCount, setRecords, maskWords, bands, rows, minHits: minHits ?? 1 }
}

/** The most neighbours an answer holds (the API's limit is 20). */
const SIMILAR_LIMIT_MAX = 100
/** 32-bit words of a set's record (`ModelParts.setRecords`): 64 bytes, the tag mask then the total. */
const RECORD = 16
/** Where a record holds its members' word bits together (`wordBits` OR-ed, 4 words), before the total. */
const RECORD_WORDS_AT = RECORD - 6
/** The most distinct tags a record's mask holds (10 words of 32 bits). */
const RECORD_TAGS = RECORD_WORDS_AT * 32
/** A set without tags has no bucket. */
const NO_BUCKET = 0xffffffff
/** Ranges of tag score the candidates are ordered by (range 0 holds the scores nearest 1). */
const BINS = 1024
const binOf = (score: number) => Math.min(BINS - 1, Math.max(0, Math.floor((1 - score) * BINS)))
/** The highest tag score range r can hold (with a margin for the rounding of `binOf`). */
const binUpper = (r: number) => Math.min(1, 1 - r / BINS + 1e-9)

function tableSize(n: number): number {
  let capacity = 16
  while (capacity < n * 2) capacity *= 2
  return capacity
}

function sameTags(a: Uint32Array, a0: number, a1: number, b: Uint32Array, b0: number, b1: number): boolean {
  if (a1 - a0 !== b1 - b0) return false
  for (let i = 0; i < a1 - a0; i++) if (a[a0 + i] !== b[b0 + i]) return false
  return true
}

/**
 * A set's candidates (`SimilarityModel.candidates`): `sets[i]` with weighted Jaccard `scores[i]`,
 * visited best range first through `order`; range r is order[binEnd[r - 1] .. binEnd[r]).
 * Views of the model's scratch: valid until its next call.
 */
export class Candidates {
  constructor(
    readonly sets: Uint32Array,
    readonly scores: Float64Array,
    readonly order: Uint32Array,
    readonly binEnd: Uint32Array,
    readonly length: number,
  ) {}

  /** The i-th candidate in range order (within a range, in no particular order). */
  setAt(i: number): number {
    return this.sets[this.order[i]!]!
  }

  scoreAt(i: number): number {
    return this.scores[this.order[i]!]!
  }
}

/** Band keys to numbers 0, 1, ... as they are first seen (open addressing, linear probing). */
class BucketNumbers {
  size = 0
  readonly #keys: Float64Array
  readonly #numbers: Int32Array
  readonly #mask: number
  constructor(expected: number) {
    const capacity = tableSize(expected)
    this.#keys = new Float64Array(capacity)
    this.#numbers = new Int32Array(capacity).fill(-1)
    this.#mask = capacity - 1
  }

  clear(): void {
    this.#numbers.fill(-1)
    this.size = 0
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
/** The `limit` best (score desc, then company index asc: the ids ascend with it) of the scores offered; reused from one company to the next. */
class TopScores {
  limit = 0
  count = 0
  readonly at: Uint32Array
  readonly scores: Float64Array
  constructor(capacity: number) {
    this.at = new Uint32Array(capacity + 1)
    this.scores = new Float64Array(capacity + 1)
  }

  reset(limit: number): void {
    if (limit > this.at.length - 1) throw new RangeError(`similar: limit ${limit} above ${this.at.length - 1}`)
    this.limit = limit
    this.count = 0
  }

  get full(): boolean {
    return this.count >= this.limit
  }

  /** The worst score kept. */
  get worst(): number {
    return this.count === 0 ? Number.NEGATIVE_INFINITY : this.scores[this.count - 1]!
  }

  offer(c: number, score: number): void {
    if (!(score > 0) || this.limit <= 0) return
    const at = this.at
    const scores = this.scores
    const n = this.count
    if (n >= this.limit) {
      const ws = scores[n - 1]!
      if (score < ws || (score === ws && c > at[n - 1]!)) return
    }
    // Insertion into a short sorted list (limit 20).
    let i = n
    while (i > 0 && (scores[i - 1]! < score || (scores[i - 1] === score && at[i - 1]! > c))) {
      at[i] = at[i - 1]!
      scores[i] = scores[i - 1]!
      i--
    }
    at[i] = c
    scores[i] = score
    if (n < this.limit) this.count = n + 1
  }
}
