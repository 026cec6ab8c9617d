/**
 * @module Tag postings and bitmaps of similar companies, kept per connection and data version:
 * reading postings and probing candidates were most of a call, and they are the same for every
 * company sharing a tag. Apart from the search because the cache outlives a call and the
 * similarity index's build sets how much of it is kept (`keepEveryPosting`).
 */
import { LRUCache } from 'lru-cache'
import type { VentureDb } from '../../store/open.js'
import type { RecordSession } from '../session.js'
import { POSTINGS, POSTINGS_BEFORE, POSTINGS_FROM, splitKey, type TagKey } from './statements.js'

//// Tag bitmaps and postings, kept ////

/**
 * The companies of a common tag as a bitmap over company ids, for probing candidates: a bit test per
 * candidate instead of a primary-key lookup per candidate in SQL. The probes were most of a call:
 * 106 ms of ~130 (every statement timed) on the 1M-company database, 25,000 candidates times up to
 * four common tags. A bitmap costs one read of the tag's postings and 125 KB per million companies.
 * Bitmaps and the postings of tags read in full are kept per connection and data version, at most
 * `MAX_BITMAP_BYTES` together per connection, least recently used out.
 */
interface TagCache {
  readonly version: number
  /** Whether a tag read in part is read in full instead, kept, and its part taken from it (`keepEveryPosting`). */
  readonly whole: boolean
  /**
   * By `b` or `p` (bitmap or postings) and the tag key; at most `MAX_BITMAP_BYTES`, or what
   * `keepEveryPosting` set, counted in bytes (an empty array counts one).
   */
  readonly maps: LRUCache<string, Uint32Array | Int32Array>
}
const MAX_BITMAP_BYTES = 16 * 1024 * 1024
const tagCaches = new WeakMap<object, TagCache>()
/** Connections that keep every posting (`keepEveryPosting`), with their cache's size. */
const wholePostings = new WeakMap<object, number>()

/**
 * For a connection that answers for every company in turn (the similarity index's build): every
 * tag's postings are kept once read, up to `bytes` with the bitmaps (default 256 MB; 21 MB of
 * postings at 1,000,000 companies), and the part of a common rarest tag that a call reads is taken
 * from them instead of from the database: the same ids, as `partOf` says. Reading that part in SQL
 * for every company was 46% of the build's time (a CPU profile of 1,500 companies at 1M, a scratch
 * script); kept, a company costs 3.17 against 7.29 ms (the suite builds the index: `npm run bench`).
 * Returns the undoing: the connection's cache back to its usual size and use.
 */
export function keepEveryPosting(vdb: VentureDb, bytes = 256 * 1024 * 1024): () => void {
  wholePostings.set(vdb.db, bytes)
  tagCaches.delete(vdb.db)
  return () => {
    wholePostings.delete(vdb.db)
    tagCaches.delete(vdb.db)
  }
}

/**
 * The part of a tag's postings (`whole`, ascending) that the statements `POSTINGS_FROM` then
 * `POSTINGS_BEFORE` read: up to `limit` ids from `pivot` up, then, when those are fewer, the lowest
 * ids below it, those first (so the part is ascending).
 */
export function partOf(whole: Int32Array, pivot: number, limit: number): Int32Array {
  let low = 0
  let high = whole.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (whole[mid]! < pivot) low = mid + 1
    else high = mid
  }
  const from = whole.subarray(low, Math.min(whole.length, low + Math.max(0, limit)))
  const before = whole.subarray(0, Math.min(low, Math.max(0, limit - from.length)))
  if (before.length === 0) return from
  const part = new Int32Array(before.length + from.length)
  part.set(before)
  part.set(from, before.length)
  return part
}

/** Highest company id a bitmap covers (4 MB); a tag with a higher id is probed in SQL. */
export const MAX_BITMAP_ID = 32 * 1024 * 1024 - 1

export async function tagMembers(vdb: VentureDb, s: RecordSession, version: number, key: TagKey): Promise<Uint32Array | undefined> {
  const cache = tagCache(vdb, version)
  const known = recall(cache, `b${key}`)
  if (known) return known as Uint32Array
  const [field, value] = splitKey(key)
  const owners = await s.column(POSTINGS[field]!, { value })
  let highest = 0
  for (const owner of owners) {
    // A negative or huge id (imported data) has no place in a bitmap: such a tag is probed in SQL.
    if (!(owner >= 0 && owner <= MAX_BITMAP_ID)) return undefined
    if (owner > highest) highest = owner
  }
  const bits = new Uint32Array((highest >>> 5) + 1)
  for (const owner of owners) bits[owner >>> 5]! |= 1 << (owner & 31)
  remember(cache, `b${key}`, bits)
  return bits
}

/**
 * The postings of a tag read in full (ascending owners), kept like the bitmaps: a rare tag's
 * postings are read for every company that has it, and reading them was most of what remained of a
 * call once probing was by bitmap (~12 of 20 ms). Ids beyond 32 bits are read every time.
 */
export async function tagPostings(vdb: VentureDb, s: RecordSession, version: number, key: TagKey): Promise<ArrayLike<number>> {
  const cache = tagCache(vdb, version)
  const known = recall(cache, `p${key}`)
  if (known) return known as Int32Array
  const [field, value] = splitKey(key)
  // In order once, when kept, rather than on every call that merges them (`SharedWeights`).
  const owners = inAscendingOrder(await s.column(POSTINGS[field]!, { value }))
  for (let i = 0; i < owners.length; i++) if (!(owners[i]! >= 0 && owners[i]! <= 0x7fffffff)) return owners
  const postings = Int32Array.from(owners)
  remember(cache, `p${key}`, postings)
  return postings
}

/**
 * The part of a tag's postings read when the whole would exceed the budget: up to `limit` from
 * `pivot` up, wrapping around to the lowest ids, ascending. Taken from the kept postings on a
 * connection that keeps every posting (`keepEveryPosting`), else read in SQL.
 */
export async function partOfTag(vdb: VentureDb, s: RecordSession, version: number, key: TagKey, pivot: number, limit: number): Promise<ArrayLike<number>> {
  if (tagCache(vdb, version).whole) {
    const whole = await tagPostings(vdb, s, version, key)
    // (Not kept: negative ids or ids above 2^31 - 1, read in SQL below.)
    if (whole instanceof Int32Array) return partOf(whole, pivot, limit)
  }
  const [field, value] = splitKey(key)
  const part = await s.column(POSTINGS_FROM[field]!, { value, pivot, limit })
  if (part.length >= limit) return inAscendingOrder(part)
  // Wrapped around: the ids below the pivot come first, so the postings stay ascending.
  // (A loop, not push(...rest): a budget past ~120,000 would overflow the call stack.)
  const before = await s.column(POSTINGS_BEFORE[field]!, { value, pivot, limit: limit - part.length })
  for (const owner of part) before.push(owner)
  return inAscendingOrder(before)
}

function tagCache(vdb: VentureDb, version: number): TagCache {
  let cache = tagCaches.get(vdb.db)
  if (!cache || cache.version !== version) {
    const kept = wholePostings.get(vdb.db)
    const maps = new LRUCache<string, Uint32Array | Int32Array>({ maxSize: kept ?? MAX_BITMAP_BYTES, sizeCalculation: (value) => Math.max(1, value.byteLength) })
    tagCaches.set(vdb.db, (cache = { version, whole: kept !== undefined, maps }))
  }
  return cache
}

function recall(cache: TagCache, key: string): Uint32Array | Int32Array | undefined {
  return cache.maps.get(key)
}

function remember(cache: TagCache, key: string, value: Uint32Array | Int32Array): void {
  // Two concurrent calls (PostgreSQL runs them on one handle) may both have built it: the later replaces it.
  cache.maps.set(key, value)
}

/**
 * `ids` in ascending order, as `SharedWeights.addPostings` takes them: `ids` itself when it is
 * (postings are read ordered by owner), else a sorted copy.
 */
export function inAscendingOrder(ids: ArrayLike<number>): ArrayLike<number> {
  for (let i = 1; i < ids.length; i++) if (ids[i]! < ids[i - 1]!) return Float64Array.from(ids).sort()
  return ids
}

/**
 * Adds `weight` to the sum of each id that `bits` holds, without a branch on the bit: w · 0 adds
 * +0, which leaves a positive sum as it is, so the sums are those of adding where the bit is set.
 * Whether a candidate has a common tag is a coin toss to the processor's branch predictor: in a
 * scratch loop of 96,000 tests over ascending ids (3 bitmaps), 4.6-5.7 ns a test with the branch
 * and 3.6 without. A call for the 1M bench database's company with the most industries makes
 * 222,000 (44,000 candidates, 5 common tags; counted in a scratch copy).
 */
export function addMembers(bits: Uint32Array, weight: number, ids: Float64Array, sums: Float64Array): void {
  const words = bits.length
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!
    // Outside the bitmap (ids too large, negative, past its highest member): not a member.
    if (!(id >= 0 && id <= MAX_BITMAP_ID)) continue
    const word = id >>> 5
    const bit = word < words ? (bits[word]! >>> (id & 31)) & 1 : 0
    sums[i] = sums[i]! + weight * bit
  }
}
