/**
 * @module The candidates of similar companies: the tag weight each shares with the company
 * (`SharedWeights`), and their ranking before the best are scored in full, by exact weighted
 * Jaccard from the kept totals (`rankByJaccard`) or by shared weight then their tags read
 * (`rankByShared`). Apart from the search because these are the hot loops, tested on their own.
 */
import type { RecordSession } from '../session.js'
import { mix } from './scoring.js'
import { keyOf, TAGS_OF_MANY, type TagKey } from './statements.js'
import { FLOOR_STEPS, type TagTotals, type TagWeights } from './weights.js'

/**
 * The tag weight each candidate shares with the company, summed as postings are read: the ids so
 * far and their sums in two typed arrays in ascending id order, each tag's postings (ascending, as
 * read) merged in. An open-addressing table did this before, and a Map before that: a hashed slot
 * per posting is a read at a random place (22-41 ns a posting in a scratch loop over 52,000 real
 * postings). Summing the postings took 1.99 ms a call with the table and 0.79 ms merged (8 companies
 * at 1M, the phases of a call timed in scratch copies of both, called alternately). The candidates then come in id
 * order, so the probes of their bitmaps and the reads of their totals walk those arrays in order.
 * Each id's weights are added in the order the tags are merged (the first is the sum; 0 + w is w),
 * as with the table and the Map, so the sums are the same to the last bit.
 *
 * Where the answer could depend on the candidates' order, it now follows the ids, not the order the
 * table first saw them: ranked by shared weight past the request's budget of tag counts
 * (`MAX_NEW_WEIGHTS_PER_REQUEST`, a vocabulary of more than 300 uncounted tags among the candidates),
 * the tags counted are those met first among the candidates taken by score, then id.
 */
export class SharedWeights {
  /** Entries (distinct ids) so far. */
  size = 0
  #ids: Float64Array
  #sums: Float64Array
  /** The other pair: each merge writes into it, and the two pairs are then swapped. */
  #nextIds: Float64Array
  #nextSums: Float64Array

  /**
   * `expected`: about how many distinct ids will be added (the postings budget); more are fine.
   * Both pairs are sized for it (up to 2^17 ids, 4 MB in all: a caller may pass an unbounded
   * budget), so merges allocate only past it.
   */
  constructor(expected: number) {
    const sized = Number.isFinite(expected) ? Math.max(16, Math.min(Math.floor(expected), 1 << 17)) : 1 << 17
    this.#ids = new Float64Array(sized)
    this.#sums = new Float64Array(sized)
    this.#nextIds = new Float64Array(sized)
    this.#nextSums = new Float64Array(sized)
  }

  /**
   * Adds `weight` to every id of `owners` but `skip` (the company itself). `owners` must be in
   * ascending order (`inAscendingOrder`; postings are read so, and kept so): checking on every call
   * cost ~40 µs a call for 35,000 ids. An id given twice gets the weight twice, as separate
   * additions would.
   */
  addPostings(list: ArrayLike<number>, weight: number, skip: number): void {
    const n = this.size
    const m = list.length
    if (this.#nextIds.length < n + m) {
      const grown = Math.max(n + m, 2 * this.#nextIds.length)
      this.#nextIds = new Float64Array(grown)
      this.#nextSums = new Float64Array(grown)
    }
    const ids = this.#ids
    const sums = this.#sums
    const outIds = this.#nextIds
    const outSums = this.#nextSums
    let i = 0
    let j = 0
    let out = 0
    while (i < n || j < m) {
      if (j >= m || (i < n && ids[i]! < list[j]!)) {
        outIds[out] = ids[i]!
        outSums[out++] = sums[i++]!
        continue
      }
      const id = list[j++]!
      if (id === skip) {
        while (j < m && list[j] === id) j++
        continue
      }
      let sum = weight
      if (i < n && ids[i] === id) sum = sums[i++]! + weight
      while (j < m && list[j] === id) {
        sum += weight
        j++
      }
      outIds[out] = id
      outSums[out++] = sum
    }
    this.#nextIds = ids
    this.#nextSums = sums
    this.#ids = outIds
    this.#sums = outSums
    this.size = out
  }

  idAt(entry: number): number {
    return this.#ids[entry]!
  }

  sumAt(entry: number): number {
    return this.#sums[entry]!
  }

  ids(): number[] {
    return Array.from(this.#ids.subarray(0, this.size))
  }

  /** The entries' ids (ascending) and sums, for loops over every entry (valid until the next `addPostings`). */
  entries(): { readonly ids: Float64Array; readonly sums: Float64Array } {
    return { ids: this.#ids.subarray(0, this.size), sums: this.#sums.subarray(0, this.size) }
  }
}

/**
 * The `cap` candidates sharing the most tag weight. Sharing the same tags gives the same sum, so
 * candidates fall into few score groups; whole groups are taken best first, and the group that
 * does not fit is sampled by a hash of both ids (a broad tag's group can hold tens of thousands of
 * companies: picking the lowest ids would always favour the oldest ones). Sorting the full map
 * with a comparator cost ~50 ms on a million companies.
 */
function topCandidates(shared: SharedWeights, cap: number, companyId: number): number[] {
  const groups = new Map<number, number[]>()
  for (let i = 0; i < shared.size; i++) {
    const id = shared.idAt(i)
    const score = shared.sumAt(i)
    const group = groups.get(score)
    if (group) group.push(id)
    else groups.set(score, [id])
  }
  const picked: number[] = []
  for (const score of [...groups.keys()].sort((a, b) => b - a)) {
    const group = groups.get(score)!
    const room = cap - picked.length
    if (group.length <= room) {
      // One at a time: spreading a group of hundreds of thousands of ids overflows the call stack.
      for (const id of group) picked.push(id)
      continue
    }
    const keys = Uint32Array.from(group, (id) => mix(companyId, id))
    const threshold = keys.slice().sort()[room - 1]!
    const below = group.filter((_, i) => keys[i]! < threshold)
    const at = group.filter((_, i) => keys[i] === threshold).sort((a, b) => a - b)
    for (const id of below) picked.push(id)
    for (const id of at.slice(0, room - below.length)) picked.push(id)
    break
  }
  return picked
}

/** The candidates to score in full, and the tag part of their score (weighted Jaccard). */
export interface Ranked {
  readonly candidates: readonly number[]
  readonly tagScores: ReadonlyMap<number, number>
}

/**
 * The `cap` candidates with the highest weighted Jaccard, I / (W_A + W_B − I), from the shared
 * weight I of each (complete: every tag of the company was read or probed) and the kept totals.
 * Equal scores (the same tags) are taken by a hash of both ids, as in `topCandidates`: the lowest
 * ids would always favour the oldest companies. A min-heap of the best so far: most candidates
 * fail the comparison with its root.
 */
export function rankByJaccard(shared: SharedWeights, kept: TagTotals, cap: number, companyId: number): Ranked {
  const { totals, floors } = kept
  // In range: the caller ranks by Jaccard only for a company the totals hold.
  const mine = totals[companyId]!
  const size = Math.max(0, Math.min(cap, shared.size))
  const heapIds = new Float64Array(size)
  const heapScores = new Float64Array(size)
  const heapKeys = new Uint32Array(size)
  let count = 0
  // Entry i is worse than entry j: a lower score, or the same score and a higher key (then a higher id).
  const worse = (i: number, j: number) => heapScores[i]! < heapScores[j]! ||
    (heapScores[i] === heapScores[j] && (heapKeys[i]! > heapKeys[j]! || (heapKeys[i] === heapKeys[j] && heapIds[i]! > heapIds[j]!)))
  const place = (i: number, id: number, score: number, key: number) => {
    heapIds[i] = id
    heapScores[i] = score
    heapKeys[i] = key
  }
  const swap = (i: number, j: number) => {
    const id = heapIds[i]!
    const score = heapScores[i]!
    const key = heapKeys[i]!
    place(i, heapIds[j]!, heapScores[j]!, heapKeys[j]!)
    place(j, id, score, key)
  }
  // Once the heap is full, a candidate whose score cannot beat its root is passed over without
  // reading its total: W_B >= I, so I / (W_A + W_B - I) <= I / W_A. About 3 candidates in 4 fail
  // this, and the floor of W_B (below) passes over most of the rest: of ~32,000 candidates a call
  // at 1M companies, ~8,900 pass the first bound and ~1,200 read their total (8 companies, counted
  // in a scratch copy). A total is a read at a random place in an array of 8 MB; the ranking was
  // 44% of a call before (a CPU profile of 800 calls). The margin covers rounding: I and W_B are
  // sums of the same weights in other orders, so W_B may come out an ulp below I.
  const bound = mine > 0 ? 1 / (mine * (1 - 1e-9)) : Number.POSITIVE_INFINITY
  const { ids, sums } = shared.entries()
  for (let entry = 0; entry < ids.length; entry++) {
    const both = sums[entry]!
    if (count === size && both * bound < heapScores[0]!) continue
    const id = ids[entry]!
    // Tags of no company (a row left by a deleted one, beyond the highest id) are never a result.
    if (id === companyId || !(id >= 0 && id < totals.length)) continue
    if (count === size) {
      // Bounded again with the candidate's floor: W_B >= floor, and rounding is monotone, so
      // the score computed below is at most this one.
      const least = mine + floors[id | 0]! / FLOOR_STEPS - both
      if (least > 0 && both / least < heapScores[0]!) continue
    }
    // An integer index (`| 0`, exact below 2^31): indexing by the double read from `ids` was slower.
    const union = mine + totals[id | 0]! - both
    // At most 1: I and W are summed in other orders, so the same tags can come out 1 + 1 ulp.
    const score = union > 0 ? Math.min(1, both / union) : 0
    if (count < size) {
      place(count, id, score, mix(companyId, id))
      for (let i = count++; i > 0;) {
        const parent = (i - 1) >> 1
        if (!worse(i, parent)) break
        swap(i, parent)
        i = parent
      }
      continue
    }
    if (size === 0 || score < heapScores[0]!) continue
    const key = mix(companyId, id)
    if (score === heapScores[0] && (key > heapKeys[0]! || (key === heapKeys[0] && id > heapIds[0]!))) continue
    place(0, id, score, key)
    for (let i = 0; ;) {
      const l = 2 * i + 1
      let least = i
      if (l < count && worse(l, least)) least = l
      if (l + 1 < count && worse(l + 1, least)) least = l + 1
      if (least === i) break
      swap(i, least)
      i = least
    }
  }
  const candidates = Array.from(heapIds.subarray(0, count))
  const tagScores = new Map<number, number>()
  candidates.forEach((id, i) => tagScores.set(id, heapScores[i]!))
  return { candidates, tagScores }
}

/**
 * The `cap` candidates sharing the most tag weight (`topCandidates`), scored from their tags read
 * in SQL: what runs without kept totals.
 */
export async function rankByShared(s: RecordSession, weights: TagWeights, shared: SharedWeights, target: readonly TagKey[], cap: number, companyId: number): Promise<Ranked> {
  const candidates = topCandidates(shared, cap, companyId)
  if (candidates.length === 0) return { candidates, tagScores: new Map() }
  const ids = JSON.stringify(candidates)
  const tagRows = await Promise.all(TAGS_OF_MANY.map((shape) => s.rows(shape, { ids })))
  const candidateTags = new Map<number, TagKey[]>()
  tagRows.forEach((rows, field) => {
    for (const [owner, value] of rows as [number, string][]) {
      let list = candidateTags.get(owner)
      if (!list) candidateTags.set(owner, (list = []))
      list.push(keyOf(field, value))
    }
  })
  const targetSet = new Set(target)
  const scoredTags = new Map<number, Set<TagKey>>()
  for (const id of candidates) scoredTags.set(id, new Set(candidateTags.get(id)))
  // The weights scoring needs that are not known yet, counted in one statement per field, in the
  // order scoring meets them and as many as the per-request budget allows (the rest take the mean).
  await weights.count(s, weights.unknown((function* () {
    for (const tags of scoredTags.values()) for (const key of tags) if (!targetSet.has(key)) yield key
  })()))

  // The tag part of every candidate's score, from the tags alone.
  const tagScores = new Map<number, number>()
  for (const [id, tags] of scoredTags) {
    let intersection = 0
    let union = 0
    for (const key of targetSet) union += weights.of(key)
    for (const key of tags) {
      if (targetSet.has(key)) intersection += weights.of(key)
      else union += weights.of(key)
    }
    tagScores.set(id, union > 0 ? intersection / union : 0)
  }
  return { candidates, tagScores }
}
