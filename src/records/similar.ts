/**
 * @module Similar companies (spec 2.5, 4.5): a weighted Jaccard similarity over industries,
 * business models and keywords, blended with the word overlap of the descriptions.
 *
 * - A tag's weight is its inverse document frequency, ln(1 + N / df): sharing a rare keyword says
 *   more than sharing "Software". N is the number of companies and df the tag's, both counted
 *   through indexes and cached per connection and data version.
 * - Candidates are the companies that share at least one tag, gathered rarest tag first from the
 *   value indexes until a postings budget is spent (a common tag alone has up to 175,000
 *   companies on a million rows). Tags whose postings did not fit are then probed for those
 *   candidates only, so each candidate's shared tag weight is complete.
 * - The candidates are ranked by their exact weighted Jaccard of tags, from every company's total
 *   tag weight kept per connection and data version (`TagTotals`; 9 bytes a company, built a slice
 *   per call, ranking by shared weight until they are ready). Where totals cannot be kept the best
 *   by shared weight have their tags read instead (`ranking: 'shared'`), which favours companies
 *   with many tags. The budgets trade recall of the exact answer for time: the suite's similar phase (`npm run bench`)
 *   measures both for the default and other budgets.
 * - The best-ranked candidates (capped) are scored in full: descriptions are read only for those
 *   that can still reach the best `limit` with the description's part at its most, and the other
 *   fields for the answer only, so the rows read stay narrow.
 * - Probing is by bitmap, and postings read in full are kept, per connection and data version
 *   (16 MB at most): a bit test per candidate instead of an SQL probe per tag
 *   (the suite's similar phase). The first calls of a process read cold pages, count weights and
 *   build bitmaps.
 * - score = 0.8 · weighted Jaccard of the tag sets + 0.2 · Jaccard of the description words (when
 *   the company has a description); best first, equal scores by id. Never the company itself.
 *
 * - Where the similarity index holds the company at the current data version, a call at the
 *   defaults reads its answer there instead (similar-index.ts; built by similar-index-build.ts,
 *   `ventureql similar-index`): the answer this search gives with the totals built.
 *
 * The same statements run on SQLite and PostgreSQL, and every row order the arithmetic depends on
 * is explicit (tag values in binary order, owners ascending): weights are summed in the same order
 * on both backends, so equal scores stay equal and the results are the same to the last bit.
 */
import { sql } from 'kysely'
import { LRUCache } from 'lru-cache'
import { dataVersion, type VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { columnName, COMPANIES, tagTableOf } from '../store/sql-names.js'
import { COMPANY_ID, COMPANY_TABLE } from './company-sql.js'
import { queryShape, type ShapeBuilder } from './query-shape.js'
import { recordSession, type RecordSession } from './session.js'
import { indexedNeighbours, SIMILAR_LIMIT } from './similar-index.js'

export { SIMILAR_LIMIT }

export interface SimilarityOptions {
  /** Results (default 20). */
  readonly limit?: number
  /** Tag postings read to find candidates (default 50,000 when ranked by Jaccard, 25,000 by shared weight). */
  readonly postingsBudget?: number
  /**
   * Candidate × unread-tag lookups to complete each candidate's shared weight with the common tags
   * (default 1,000,000 when ranked by Jaccard with bitmap probes, each a bit test; 100,000 otherwise,
   * ~13 ms per 25,000 SQL lookups on a million companies). Past it the candidates rank by shared weight.
   */
  readonly probeBudget?: number
  /** Candidates scored in full (default 200 when ranked by Jaccard, 500 by shared weight). */
  readonly candidateCap?: number
  /**
   * How the candidates found are ranked before the best `candidateCap` are scored in full:
   * - `jaccard` (the default): by their exact weighted Jaccard of tags, from each company's total
   *   tag weight, kept per connection and data version (`TagTotals`);
   * - `shared`: by the tag weight they share with the company, then their tags read to score them.
   *   What runs where totals cannot be kept (ids beyond a bitmap, sparse ids, a huge vocabulary),
   *   while they are being built (`totalsBuildMs`), and when the probes do not fit `probeBudget`;
   *   the budgets stay those of the Jaccard ranking in the last two cases.
   */
  readonly ranking?: 'jaccard' | 'shared'
  /**
   * How long a call may spend building the kept totals before it answers ranked by shared weight
   * (default 250 ms): a target, not a limit. The first call also counts every tag in one statement,
   * each call reads at least one whole tag's postings, and a call finding another's slice under way
   * waits for it. Tests and benchmarks set it.
   */
  readonly totalsBuildMs?: number
  /**
   * How candidates are probed for the common tags: `bitmap` (the default; kept per connection and
   * data version) or `sql`, one statement per tag, which ids too large for a bitmap use. The same
   * results either way under the same ranking and budgets (the default probe budget is smaller with
   * `sql`); `sql` is here so tests and benchmarks can compare the two.
   */
  readonly probe?: 'bitmap' | 'sql'
  /**
   * Whether the answer may come from the similarity index (`buildSimilarIndex`, `ventureql
   * similar-index`; default true). It does when the index holds the company at the current data
   * version, `limit` is at most `SIMILAR_LIMIT` and none of the options above is set: the index holds
   * the answers of the defaults with the totals built (as `totalsBuildMs: Infinity` gives them), best
   * first, so a smaller limit takes the first of them. False: always search (what the build does).
   */
  readonly index?: boolean
}

export interface SimilarCompanyRow {
  readonly id: number
  readonly name: string | null
  readonly description: string | null
  readonly website: string | null
  /** The stage as the record spelled it ('exited (acquired)') when kept, else as stored. */
  readonly stage: string | null
  readonly total_funding: number | null
  /** 1 for the best match, the others relative to it (0 < p ≤ 1). */
  readonly probability: number
  /** The similarity itself (0 < score ≤ 1), before normalising by the best; not on the wire. */
  readonly score: number
}

/** The multi-valued fields compared, by catalog name. */
const TAG_FIELDS = Object.freeze(['industries', 'business_models', 'keywords'] as const)
/** The tag tables of the fields similarity reads (from the catalog); exported for the benchmarks. */
export const TAG_TABLES = TAG_FIELDS.map((name) => tagTableOf(COMPANIES, name))
const TAG_WEIGHT = 0.8
const DESCRIPTION_WEIGHT = 0.2
/** Tag weights computed on demand per request at most; later unknown tags take the mean weight. */
const MAX_NEW_WEIGHTS_PER_REQUEST = 300
/** Tag weights kept per connection (bounds memory on imported data with huge vocabularies). */
const MAX_CACHED_WEIGHTS = 50_000

/** A tag of one field, as one string key: field index, NUL, value. */
type TagKey = string
const keyOf = (field: number, value: string): TagKey => `${field}\u0000${value}`

//// Statements, one of each per tags field ////

type Owner = { owner: number }
const perField = <P extends object, R>(name: string, build: (t: (typeof TAG_TABLES)[number]) => ShapeBuilder<P>) =>
  TAG_TABLES.map((t) => queryShape<P, R>(`similar: ${name} (${t.table})`, build(t)))

/** The company's own tags, in binary order. */
const TAGS_OF_ONE = perField<{ id: number }, { value: string }>('tags of the company', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.valueColumn} as value`).where(t.ownerColumn, '=', p.id).orderBy(t.valueColumn))
/** The tags of the candidates, by owner then value (the order their weights are summed in). */
const TAGS_OF_MANY = perField<{ ids: string }, { owner: number; value: string }>('tags of the candidates', (t) => (db, d, p) =>
  db.selectFrom(t.table).select([`${t.ownerColumn} as owner`, `${t.valueColumn} as value`])
    .where(d.inList(sql.ref(t.ownerColumn), p.ids, 'integer')).orderBy(t.ownerColumn).orderBy(t.valueColumn))
/** df of several tags at once, through the value index. */
const COUNTS_OF_TAGS = perField<{ values: string }, { value: string; n: number | string }>('tag counts', (t) => (db, d, p) =>
  db.selectFrom(t.table).select((eb) => [`${t.valueColumn} as value`, eb.fn.countAll().as('n')])
    .where(d.inList(sql.ref(t.valueColumn), p.values, 'tags')).groupBy(t.valueColumn))
const POSTINGS = perField<{ value: string }, Owner>('postings', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value).orderBy(t.ownerColumn))
const PROBE = perField<{ value: string; ids: string }, Owner>('probe', (t) => (db, d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value)
    .where(d.inList(sql.ref(t.ownerColumn), p.ids, 'integer')))
const POSTINGS_FROM = perField<{ value: string; pivot: number; limit: number }, Owner>('postings from a pivot', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value).where(t.ownerColumn, '>=', p.pivot)
    .orderBy(t.ownerColumn).limit(p.limit))
const POSTINGS_BEFORE = perField<{ value: string; pivot: number; limit: number }, Owner>('postings before a pivot', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value).where(t.ownerColumn, '<', p.pivot)
    .orderBy(t.ownerColumn).limit(p.limit))

/** df of every tag of a field, for the totals (`TagTotals`): every tag with its count; one row past `MAX_TOTALS_TAGS` at most, so a huge vocabulary is not read in full. */
const ALL_TAG_COUNTS = perField<object, { value: string; n: number | string }>('every tag count', (t) => (db) =>
  db.selectFrom(t.table).select((eb) => [`${t.valueColumn} as value`, eb.fn.countAll().as('n')]).groupBy(t.valueColumn).limit(MAX_TOTALS_TAGS + 1))

/** N of the weights: exact, so both backends weigh alike (ANALYZE's estimates differ between them). */
const COMPANY_COUNT = queryShape<object, { n: number | string }>('similar: companies', (db) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.countAll().as('n')))
const MAX_COMPANY_ID = queryShape<object, { id: number | string | null }>('similar: highest company id', (db) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.max(COMPANY_ID).as('id')))
const MIN_COMPANY_ID = queryShape<object, { id: number | string | null }>('similar: lowest company id', (db) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.min(COMPANY_ID).as('id')))

const COMPANY_FIELDS = queryShape<{ ids: string }, CompanyFields>('similar: companies by id', (db, d, p) =>
  db.selectFrom(`${COMPANY_TABLE} as c`).leftJoin(`${DETAIL_TABLES.companyExtra} as x`, 'x.company_id', `c.${COMPANY_ID}`)
    .select((eb) => [
      `c.${COMPANY_ID} as id`, `c.${columnName(COMPANIES, 'name')} as name`, `c.${columnName(COMPANIES, 'description')} as description`,
      `c.${columnName(COMPANIES, 'website')} as website`, eb.fn.coalesce('x.stage_raw', `c.${columnName(COMPANIES, 'stage')}`).as('stage'),
      `c.${columnName(COMPANIES, 'total_funding')} as total_funding`,
    ])
    .where(d.inList(sql.ref(`c.${COMPANY_ID}`), p.ids, 'integer')))

type CompanyFields = Omit<SimilarCompanyRow, 'probability' | 'score'>

/** What scoring reads of a candidate: its description (the other fields only for the answer). */
const DESCRIPTIONS = queryShape<{ ids: string }, { id: number; description: string | null }>('similar: descriptions by id', (db, d, p) =>
  db.selectFrom(COMPANY_TABLE).select([`${COMPANY_ID} as id`, `${columnName(COMPANIES, 'description')} as description`])
    .where(d.inList(sql.ref(COMPANY_ID), p.ids, 'integer')))

//// Weights ////

interface WeightCache {
  readonly version: number
  /** Companies (N of the weights). */
  readonly companies: number
  readonly maxId: number
  readonly minId: number
  readonly df: Map<TagKey, number>
}
/** Per connection (a SQLite handle, a PostgreSQL pool): keyed by the database's Kysely instance. */
const weightCaches = new WeakMap<object, WeightCache>()

async function weightCache(vdb: VentureDb, s: RecordSession): Promise<WeightCache> {
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
const FLOOR_STEPS = 4
const MAX_TOTALS_TAGS = 200_000
/** The budgets when ranking by Jaccard (the suite's similar phase measures them against an exhaustive search: `npm run bench`). */
const JACCARD_DEFAULTS = Object.freeze({ postingsBudget: 50_000, probeBudget: 1_000_000, candidateCap: 200 })
/** What a call may spend building the totals before it answers by shared weight (ms). */
const TOTALS_BUILD_MS = 250

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
async function keptTagTotals(vdb: VentureDb, s: RecordSession, cache: WeightCache, buildMs: number): Promise<TagTotals | undefined> {
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
const MAX_BITMAP_ID = 32 * 1024 * 1024 - 1

async function tagMembers(vdb: VentureDb, s: RecordSession, version: number, key: TagKey): Promise<Uint32Array | undefined> {
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
async function tagPostings(vdb: VentureDb, s: RecordSession, version: number, key: TagKey): Promise<ArrayLike<number>> {
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
async function partOfTag(vdb: VentureDb, s: RecordSession, version: number, key: TagKey, pivot: number, limit: number): Promise<ArrayLike<number>> {
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
function addMembers(bits: Uint32Array, weight: number, ids: Float64Array, sums: Float64Array): void {
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

/**
 * The companies most similar to `companyId`, best first; empty when the company has no tags (no
 * candidate shares anything with it) or does not exist.
 */
export async function similarCompanies(vdb: VentureDb, companyId: number, options: SimilarityOptions = {}): Promise<SimilarCompanyRow[]> {
  if (!Number.isSafeInteger(companyId)) return []
  const limit = options.limit ?? SIMILAR_LIMIT
  const s = recordSession(vdb)
  if (answersFromIndex(options, limit)) {
    const neighbours = await indexedNeighbours(vdb, s, companyId)
    if (neighbours !== undefined) return answerOf(s, neighbours.slice(0, limit).map(([id, score]) => ({ id, score })))
  }
  const cache = await weightCache(vdb, s)
  const totals = options.ranking === 'shared' ? undefined : await keptTagTotals(vdb, s, cache, options.totalsBuildMs ?? TOTALS_BUILD_MS)
  const byJaccard = totals !== undefined
  const budget = options.postingsBudget ?? (byJaccard ? JACCARD_DEFAULTS.postingsBudget : 25_000)
  // A bitmap probe is a bit test: ranking by Jaccard needs the whole shared weight of a candidate.
  const probeBudget = options.probeBudget ?? (byJaccard && options.probe !== 'sql' ? JACCARD_DEFAULTS.probeBudget : 100_000)
  const cap = options.candidateCap ?? (byJaccard ? JACCARD_DEFAULTS.candidateCap : 500)
  const weights = new TagWeights(cache, totals?.df)

  const target: TagKey[] = []
  const own = await Promise.all(TAGS_OF_ONE.map((shape) => s.column(shape, { id: companyId })))
  own.forEach((values, field) => { for (const value of values) target.push(keyOf(field, value)) })
  if (target.length === 0) return []
  // Every tag of the company is counted, whatever the budget (as it is read or probed below).
  await weights.count(s, target)

  // Rarest first: the postings of rare tags are short and the most telling. A tag with more
  // postings than the budget has left is skipped, except the rarest one, which is read in part,
  // starting at a point derived from the company (not always the lowest ids) and wrapping around.
  const byRarity = target.map((key) => ({ key, df: weights.df(key) })).sort((a, b) => a.df - b.df || (a.key < b.key ? -1 : 1))
  const shared = new SharedWeights(budget)
  const unread: TagKey[] = []
  let read = 0
  for (const { key, df } of byRarity) {
    const remaining = budget - read
    if (read > 0 && df > remaining) {
      unread.push(key)
      continue
    }
    const w = weights.of(key)
    let owners: ArrayLike<number>
    if (df <= remaining) owners = await tagPostings(vdb, s, cache.version, key)
    else owners = await partOfTag(vdb, s, cache.version, key, mix(companyId, df) % (cache.maxId + 1), remaining)
    read += owners.length
    shared.addPostings(owners, w, companyId)
  }
  // The common tags whose postings did not fit still rank the candidates found: each is probed for
  // the candidates only (primary-key lookups), so a company sharing "Software" and "B2C" on top of
  // the rare tag comes before one sharing the rare tag alone. The probes run together; their
  // weights are added in the tags' order, as the sums must not depend on which answers first.
  const probed = unread.length === 0 || shared.size * unread.length <= probeBudget
  if (unread.length > 0 && shared.size > 0 && probed) {
    let ids: string | undefined
    const members = await Promise.all(unread.map(async (key) => {
      const bits = options.probe === 'sql' ? undefined : await tagMembers(vdb, s, cache.version, key)
      if (bits) return bits
      // Ids too large for a bitmap (imported data): the candidates probed in SQL.
      const [field, value] = splitKey(key)
      return new Set(await s.column(PROBE[field]!, { value, ids: (ids ??= JSON.stringify(shared.ids())) }))
    }))
    // Each candidate's weights are added in the tags' order, whichever lookup answered first.
    const { ids: owners, sums } = shared.entries()
    unread.forEach((key, i) => {
      const w = weights.of(key)
      const found = members[i]!
      if (found instanceof Set) {
        for (let i = 0; i < owners.length; i++) if (found.has(owners[i]!)) sums[i] = sums[i]! + w
      } else {
        addMembers(found, w, owners, sums)
      }
    })
  }
  const [selfRows, found] = await Promise.all([
    s.all(COMPANY_FIELDS, { ids: JSON.stringify([companyId]) }),
    // (A company beyond the totals' ids cannot be: they are of this data version. Guarded all the same.)
    totals && probed && companyId < totals.totals.length ? Promise.resolve(rankByJaccard(shared, totals, cap, companyId)) : rankByShared(s, weights, shared, target, cap, companyId),
  ])
  const self = selfRows[0]
  if (!self) return []
  const { candidates, tagScores } = found
  if (candidates.length === 0) return []

  // The description's part is at most DESCRIPTION_WEIGHT, so a candidate whose tag part plus that
  // falls short of the `limit`-th best tag part alone cannot be among the best: only the others'
  // records (their descriptions) are read. In floating point too: the score is
  // TAG_WEIGHT·t + DESCRIPTION_WEIGHT·j with 0 <= j <= 1, which lies between TAG_WEIGHT·t and
  // TAG_WEIGHT·t + DESCRIPTION_WEIGHT as computed. A candidate without a record (tags of a deleted
  // company) is dropped, and the bound is taken again over the rest until nothing more is needed.
  const targetWords = descriptionWords(self.description)
  const withWords = targetWords.size > 0
  const lower = (id: number) => (withWords ? TAG_WEIGHT * tagScores.get(id)! : tagScores.get(id)!)
  const upper = (id: number) => (withWords ? TAG_WEIGHT * tagScores.get(id)! + DESCRIPTION_WEIGHT : tagScores.get(id)!)
  const descriptions = new Map<number, string | null>()
  const missing = new Set<number>()
  for (;;) {
    const alive = candidates.filter((id) => !missing.has(id))
    const lows = alive.map(lower).sort((a, b) => b - a)
    const bar = lows.length >= limit ? lows[limit - 1]! : -Infinity
    const needed = alive.filter((id) => !descriptions.has(id) && upper(id) >= bar)
    if (needed.length === 0) break
    for (const [id, description] of await s.rows(DESCRIPTIONS, { ids: JSON.stringify(needed) }) as [number, string | null][]) descriptions.set(id, description)
    for (const id of needed) if (!descriptions.has(id)) missing.add(id)
  }

  const ranked: { id: number; score: number }[] = []
  for (const id of candidates) {
    if (!descriptions.has(id)) continue
    const tagScore = tagScores.get(id)!
    const score = withWords ? TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT * jaccard(targetWords, descriptionWords(descriptions.get(id)!)) : tagScore
    if (score > 0) ranked.push({ id, score })
  }
  ranked.sort((a, b) => b.score - a.score || a.id - b.id)
  return answerOf(s, ranked.slice(0, limit))
}

/** The options a call may set and still be answered by the index (any other, present or added later, searches). */
const INDEX_OPTIONS: ReadonlySet<string> = new Set<keyof SimilarityOptions>(['limit', 'index'])

/** Whether a call with these options is answered by the similarity index when it holds the company. */
function answersFromIndex(options: SimilarityOptions, limit: number): boolean {
  return options.index !== false && Number.isInteger(limit) && limit >= 1 && limit <= SIMILAR_LIMIT &&
    Object.entries(options).every(([name, value]) => value === undefined || INDEX_OPTIONS.has(name))
}

/**
 * The answer's rows for the best companies found (best first), searched or from the index: the
 * records are read for the answer only, a company without one is left out (tags of a deleted
 * company), and `probability` is each score relative to the best.
 */
async function answerOf(s: RecordSession, top: readonly { id: number; score: number }[]): Promise<SimilarCompanyRow[]> {
  if (top.length === 0) return []
  const rows = new Map<number, CompanyFields>()
  for (const row of await s.all(COMPANY_FIELDS, { ids: JSON.stringify(top.map((r) => r.id)) }) as CompanyFields[]) rows.set(row.id, row)
  const scored = top.flatMap(({ id, score }) => (rows.has(id) ? [{ row: rows.get(id)!, score }] : []))
  const best = scored[0]?.score ?? 0
  return scored.map(({ row, score }) => ({
    ...row,
    score,
    // Rounded for the wire; the best is exactly 1.
    probability: score === best ? 1 : Math.round((score / best) * 10_000) / 10_000,
  }))
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
async function rankByShared(s: RecordSession, weights: TagWeights, shared: SharedWeights, target: readonly TagKey[], cap: number, companyId: number): Promise<Ranked> {
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

/**
 * Tag weights: ln(1 + N / df), df counted through the value index and cached. Counting is
 * asynchronous and happens in batches before the weights are needed (`count`), so that weighing
 * stays a synchronous loop.
 */
class TagWeights {
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

function splitKey(key: TagKey): [number, string] {
  const nul = key.indexOf('\u0000')
  return [Number(key.slice(0, nul)), key.slice(nul + 1)]
}

/** A 32-bit mix of two ids (deterministic; only used to order equal candidates fairly). */
/** (Exported for the tests of `rankByJaccard`'s ties.) */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35)
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  return h >>> 0
}

/** Words too common in company descriptions to say anything about similarity. */
const STOP_WORDS = new Set([
  'the', 'and', 'for', 'with', 'that', 'this', 'from', 'are', 'its', 'our', 'your', 'their', 'has', 'have', 'was', 'will',
  'into', 'onto', 'over', 'about', 'all', 'any', 'can', 'more', 'most', 'other', 'such', 'than', 'then', 'them', 'they',
  'who', 'which', 'what', 'how', 'you', 'not', 'but', 'also', 'inc', 'llc', 'ltd', 'company', 'companies',
])

/** Characters `plainText` acts on anywhere: tags, entities, links and images, emphasis, code. */
const MARKUP = /[<>&[\]*_`~]/
/** What it acts on at the start of a line: headings, list bullets, numbered items. */
const LINE_MARKS = /^\s{0,3}(#|[-+]\s|\d+\.\s)/m

/** The set of content words of a description (markup stripped, lower case, 3+ letters, no stop words). */
export function descriptionWords(description: string | null): Set<string> {
  const out = new Set<string>()
  if (!description) return out
  // Plain prose (no character any markup rule of `plainText` looks for) has the same words without
  // it: its rules would only collapse white space. Most descriptions are plain. Scoring the
  // descriptions of 500 candidates took 2.0-2.3 ms of a call with the rules for every one, and
  // 0.6-0.7 ms with this check (1M companies, the phases of a call timed one by one).
  const text = MARKUP.test(description) || LINE_MARKS.test(description) ? plainText(description) : description
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length >= 3 && !STOP_WORDS.has(word)) out.add(word)
  }
  return out
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0
  let both = 0
  for (const x of a) if (b.has(x)) both++
  return both / (a.size + b.size - both)
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/**
 * A description without HTML or markdown (spec 2.5 `description_plain_text`): tags removed,
 * entities decoded, links reduced to their text, emphasis, headings, quotes, list bullets and code
 * marks dropped, white space collapsed.
 */
export function plainText(description: string): string {
  return description
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6])\s*>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' '
      }
      return ENTITIES[name.toLowerCase()] ?? whole
    })
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/gm, '')
    // Emphasis only where the marks stand outside words, so snake_case_names keep their underscores.
    .replace(/(?<![\p{L}\p{N}])(\*\*|__|\*|_|~~|`+)(?=\S)([\s\S]*?\S)\1(?![\p{L}\p{N}])/gu, '$2')
    .replace(/`/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}
