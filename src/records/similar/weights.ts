/**
 * @module Tag weights of similar companies: a tag's weight is ln(1 + N / df), df counted through
 * the value indexes and cached per connection and data version (`TagWeights`), and every company's
 * total tag weight kept for the ranking by Jaccard (`TagTotals`). Apart from the search because
 * both caches outlive a call and are built in steps of their own.
 */
import { dataVersion, type VentureDb } from '../../store/open.js'
import { recordSession, type RecordSession } from '../session.js'
import { MAX_BITMAP_ID } from './postings.js'
import { ALL_TAG_COUNTS, COMPANY_COUNT, COUNTS_OF_TAGS, keyOf, MAX_COMPANY_ID, MAX_TOTALS_TAGS, MIN_COMPANY_ID, POSTINGS, splitKey, TAG_TABLES, type TagKey } from './statements.js'

/** Tag weights computed on demand per request at most; later unknown tags take the mean weight. */
const MAX_NEW_WEIGHTS_PER_REQUEST = 300
/** Tag weights kept per connection (bounds memory on imported data with huge vocabularies). */
const MAX_CACHED_WEIGHTS = 50_000

export interface WeightCache {
  readonly version: number
  /** Companies (N of the weights). */
  readonly companies: number
  readonly maxId: number
  readonly minId: number
  readonly df: Map<TagKey, number>
}
/** Per connection (a SQLite handle, a PostgreSQL pool): keyed by the database's Kysely instance. */
const weightCaches = new WeakMap<object, WeightCache>()

export async function weightCache(vdb: VentureDb, s: RecordSession): Promise<WeightCache> {
  const version = await dataVersion(vdb)
  let cache = weightCaches.get(vdb.db)
  if (!cache || cache.version !== version) {
    const [count, max, min] = await Promise.all([s.first(COMPANY_COUNT, {}), s.first(MAX_COMPANY_ID, {}), s.first(MIN_COMPANY_ID, {})])
    weightCaches.set(vdb.db, (cache = { version, companies: Number(count?.n ?? 0), maxId: Number(max?.id ?? 0), minId: Number(min?.id ?? 0), df: new Map() }))
  }
  return cache
}

//// Every company's total tag weight, kept ////

/**
 * The weighted Jaccard of two tag sets is I / (W_A + W_B − I), with I the weight they share and W
 * a company's total tag weight. With every W at hand, the candidates found are ranked by their
 * exact Jaccard instead of by I: I favours companies with many tags, and ranking by it then
 * scoring the best 500 in full found 0.32 of the exact answer's 20 on a million companies, where
 * the same 25,000 postings ranked by Jaccard found 0.62 with the best 200 scored (18 companies;
 * the suite's similar phase measures the default: `npm run bench -- --size 1000000`).
 * It also spares reading the candidates' tags.
 *
 * Built once per connection and data version by reading every tag row (5.4 million at 1M
 * companies: about 1.5-2.5 s in all), a slice of tags per call of about
 * `totalsBuildMs`, so neither a worker nor an inline caller's event loop is held for long; 9 bytes
 * per company id, the total and its floor (ids must be dense: up to 4 per company, or 2^20). The weights are those of `TagWeights`; per owner they are added field by
 * field, values in binary order, so both backends sum them alike. Not kept (undefined) for ids a
 * bitmap cannot hold, negative ids, sparse ids, or more than `MAX_TOTALS_TAGS` distinct tags.
 */
export interface TagTotals {
  readonly version: number
  /** df of every tag. */
  readonly df: ReadonlyMap<TagKey, number>
  /** By company id: the sum of its tags' weights. */
  readonly totals: Float64Array
  /**
   * By company id: its total rounded down to a multiple of 1/`FLOOR_STEPS` (at most 255 of them), a
   * byte each, filled when the totals are complete. The ranking bounds a candidate's Jaccard with it
   * before reading its total: 1 MB at 1M companies is read where the 8 MB array would not be.
   */
  readonly floors: Uint8Array
}
/** Steps of a total's floor per unit of weight: a weight is ln(1 + N / df), from ln 2 (every company's tag) to ln(1 + N). */
export const FLOOR_STEPS = 4

/**
 * The totals of one connection and data version while they are built a slice per call: the tags
 * in the order their weights are added, and how far the sums have got. Each tag's postings are
 * added in one synchronous step after they are read, so a call stopped over its budget leaves
 * `next` at a tag boundary and the next call resumes there.
 */
interface TotalsBuild {
  readonly version: number
  /** Undefined: the totals do not fit (ids beyond a bitmap, negative ids, too many tags). */
  readonly totals: TagTotals | undefined
  readonly order: readonly { readonly field: number; readonly value: string; readonly weight: number }[]
  next: number
  /** The slice being built now: concurrent calls (PostgreSQL) wait for it instead of reading the same tag. */
  advancing: Promise<void> | undefined
}
const totalsBuilds = new WeakMap<object, TotalsBuild>()

/**
 * The totals, when they are built; otherwise the call builds for up to `buildMs` (at least one
 * tag) and gets them only if that finished them. A million companies take ~2 s in all, so the
 * first several calls after a start or new data rank by shared weight: no call waits seconds, and
 * none is stopped over a short time budget while an unfinished build would start over every time.
 */
export async function keptTagTotals(vdb: VentureDb, s: RecordSession, cache: WeightCache, buildMs: number): Promise<TagTotals | undefined> {
  let build = totalsBuilds.get(vdb.db)
  const started = performance.now()
  if (build?.version !== cache.version) {
    build = await startTotals(s, cache)
    // Another call may have started the same version meanwhile: one build is kept, and never an
    // older version's over a newer one.
    const other = totalsBuilds.get(vdb.db)
    if (other !== undefined && other.version >= cache.version) {
      if (other.version === cache.version) build = other
    } else totalsBuilds.set(vdb.db, build)
  }
  const current = build
  if (!current.totals || current.next >= current.order.length) return current.totals
  if (current.advancing) {
    await current.advancing.catch(() => undefined)
  } else {
    current.advancing = advanceTotals(s, current, started + buildMs).finally(() => { current.advancing = undefined })
    await current.advancing
  }
  return current.next >= current.order.length ? current.totals : undefined
}

/**
 * Builds this connection's tag totals for the current data version to the end, waiting for a slice
 * another call has under way: what the similarity index's build does first, so that every answer
 * it stores is ranked by Jaccard (`totalsBuildMs: Infinity` alone gives up after another call's
 * slice). False where totals cannot be kept (sparse or negative ids, too many tags): the search
 * then ranks by shared weight.
 */
export async function completeTagTotals(vdb: VentureDb): Promise<boolean> {
  const s = recordSession(vdb)
  for (;;) {
    const cache = await weightCache(vdb, s)
    if (await keptTagTotals(vdb, s, cache, Number.POSITIVE_INFINITY)) return true
    const build = totalsBuilds.get(vdb.db)
    // Unfit for this version; otherwise another call's slice ended first, or the version moved: again.
    if (build?.version === cache.version && build.totals === undefined) return false
  }
}

async function startTotals(s: RecordSession, cache: WeightCache): Promise<TotalsBuild> {
  const unfit = { version: cache.version, totals: undefined, order: [], next: 0, advancing: undefined }
  // The array is indexed by id: sparse ids (a few companies with ids in the millions) would cost far
  // more than 8 bytes a company on every connection.
  if (cache.minId < 0 || cache.maxId > MAX_BITMAP_ID || cache.maxId + 1 > Math.max(4 * cache.companies, 1 << 20)) return unfit
  const counted = await Promise.all(ALL_TAG_COUNTS.map((shape) => s.rows(shape, {})))
  if (counted.reduce((n, rows) => n + rows.length, 0) > MAX_TOTALS_TAGS) return unfit
  const df = new Map<TagKey, number>()
  const order: { field: number; value: string; weight: number }[] = []
  counted.forEach((rows, field) => {
    const values: { field: number; value: string; weight: number }[] = []
    for (const [value, n] of rows as [string, number | string][]) {
      df.set(keyOf(field, value), Number(n))
      values.push({ field, value, weight: tagWeight(cache.companies, Number(n)) })
    }
    // Per owner, weights are added field by field and value by value in one order on both
    // backends (JavaScript's, not the database's collation).
    // (A loop, not push(...values): a spread of 100,000s of arguments overflows the call stack.)
    for (const v of values.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))) order.push(v)
  })
  return { version: cache.version, totals: { version: cache.version, df, totals: new Float64Array(cache.maxId + 1), floors: new Uint8Array(cache.maxId + 1) }, order, next: 0, advancing: undefined }
}

/**
 * Adds tags' postings to the totals until `until` (performance.now()), at least one tag. Postings
 * are plain integers: reading them tag by tag made less garbage than rows of (owner, value) and
 * took ~2.6 s against ~4.5 s on a million companies (when written, in one call).
 */
async function advanceTotals(s: RecordSession, build: TotalsBuild, until: number): Promise<void> {
  const totals = build.totals!.totals
  do {
    const { field, value, weight } = build.order[build.next]!
    const owners = await s.column(POSTINGS[field]!, { value })
    for (const owner of owners) if (owner >= 0 && owner < totals.length) totals[owner] = totals[owner]! + weight
    build.next++
  } while (build.next < build.order.length && performance.now() < until)
  // Complete: the floors are filled in the same step, so no call sees the totals without them.
  // (Scaling by a power of two and flooring are exact, so floor / FLOOR_STEPS <= the total.)
  if (build.next >= build.order.length) {
    const floors = build.totals!.floors
    for (let id = 0; id < totals.length; id++) floors[id] = Math.min(255, Math.floor(totals[id]! * FLOOR_STEPS))
  }
}

/** A tag's weight: ln(1 + N / df). */
export function tagWeight(companies: number, df: number): number {
  return Math.log(1 + companies / Math.max(1, df))
}

/**
 * Tag weights: ln(1 + N / df), df counted through the value index and cached. Counting is
 * asynchronous and happens in batches before the weights are needed (`count`), so that weighing
 * stays a synchronous loop.
 */
export class TagWeights {
  #newThisRequest = 0
  readonly #cache: WeightCache
  /** This request's counts, also kept when the connection's cache is cleared in between. */
  readonly #mine = new Map<TagKey, number>()
  readonly #fallback: number[] = []
  /** Every tag's count, when the totals are kept: nothing is counted then. */
  readonly #every: ReadonlyMap<TagKey, number> | undefined

  constructor(cache: WeightCache, every?: ReadonlyMap<TagKey, number>) {
    this.#cache = cache
    this.#every = every
  }

  #known(key: TagKey): number | undefined {
    return this.#every?.get(key) ?? this.#mine.get(key) ?? this.#cache.df.get(key)
  }

  /**
   * The distinct keys of `keys` without a known count, in order, as many as the request may still
   * count: the keys a weighing loop over `keys` would count, one at a time, until the budget ran out.
   */
  unknown(keys: Iterable<TagKey>): TagKey[] {
    const out = new Set<TagKey>()
    const room = MAX_NEW_WEIGHTS_PER_REQUEST - this.#newThisRequest
    for (const key of keys) {
      if (out.size >= room) break
      if (this.#known(key) === undefined) out.add(key)
    }
    return [...out]
  }

  /** Counts the companies of each key not known yet (one statement per tags field). */
  async count(s: RecordSession, keys: readonly TagKey[]): Promise<void> {
    const byField = TAG_TABLES.map((): string[] => [])
    const wanted = new Set<TagKey>()
    for (const key of keys) {
      if (this.#known(key) !== undefined || wanted.has(key)) continue
      wanted.add(key)
      const [field, value] = splitKey(key)
      byField[field]!.push(value)
    }
    if (wanted.size === 0) return
    const counted = await Promise.all(byField.map((values, field) => (values.length === 0 ? [] : s.all(COUNTS_OF_TAGS[field]!, { values: JSON.stringify(values) }))))
    const found = new Map<TagKey, number>()
    counted.forEach((rows, field) => { for (const r of rows) found.set(keyOf(field, r.value), Number(r.n)) })
    if (this.#cache.df.size + wanted.size > MAX_CACHED_WEIGHTS) this.#cache.df.clear()
    for (const key of wanted) {
      // A tag without rows (deleted since it was read) has no companies.
      const n = found.get(key) ?? 0
      this.#mine.set(key, n)
      this.#cache.df.set(key, n)
    }
    this.#newThisRequest += wanted.size
  }

  /** Companies with this tag (counted by `count` first). */
  df(key: TagKey): number {
    const known = this.#known(key)
    if (known === undefined) throw new Error(`similar: the tag ${JSON.stringify(key)} was weighed before it was counted`)
    return known
  }

  of(key: TagKey): number {
    const known = this.#known(key)
    if (known === undefined) {
      // Past the per-request budget (`unknown`): imported data with a huge vocabulary, where
      // counting every candidate's rare tags could take seconds. An unseen tag then weighs what
      // the tags seen so far weigh on average.
      return this.#fallback.length ? this.#fallback.reduce((a, b) => a + b, 0) / this.#fallback.length : 1
    }
    const w = tagWeight(this.#cache.companies, known)
    if (this.#fallback.length < 64) this.#fallback.push(w)
    return w
  }
}
