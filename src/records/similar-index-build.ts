/**
 * @module Building the similarity index (records/similar-index.ts): every company's answer of
 * `similarCompanies` at the defaults, with the kept totals built first (`totalsBuildMs: Infinity`),
 * stored with the data version it was computed at.
 *
 * - Resumable: a company whose row is already of the current data version is skipped, so a build
 *   that was stopped goes on where it was, and a second one finds nothing to do.
 * - Follows the data: rows are written with the version read before their batch was computed, and
 *   never over a row of a newer version. When the version moves during the build (an import starts
 *   or ends), the build starts over at the new one; rows of an old version are never served. Run
 *   it after an import, not during one: an import that stops half-way leaves the version it set
 *   at its start, and answers computed while its rows came in would stand.
 * - Sharded: `shard: { index, count }` takes the companies with `id % count = index`, so `count`
 *   processes (`ventureql similar-index --jobs N`) build one index together, each with a core.
 * - Cost: one search per company plus its write, faster once every posting is in memory
 *   (the suite builds the index before its similar phase, `npm run bench`); over an hour of CPU at 1,000,000 companies,
 *   hence the shards. The search answers meanwhile. On SQLite the rows go to the data file, so each
 *   batch written makes the other connections re-read their page caches, as an import does.
 */
import { dataVersion, type VentureDb } from '../store/open.js'
import { SIMILAR_INDEX_TABLE } from '../store/schema/similar-index-tables.js'
import { COMPANY_ID, COMPANY_TABLE } from './company-sql.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'
import { completeTagTotals, keepEveryPosting, similarCompanies } from './similar.js'
import { encodeNeighbours, MISSING, SHARD_SIZE, shardFilter, type MissingParams } from './similar-index.js'

export interface SimilarIndexOptions {
  /** Build the companies with `id % count = index` only (0 <= index < count). */
  readonly shard?: { readonly index: number; readonly count: number }
  /** Companies computed between writes (default 256). */
  readonly batchSize?: number
  /** After each batch written: companies done (computed or already current) of this build's share. */
  readonly onProgress?: (progress: { readonly done: number; readonly total: number; readonly dataVersion: number }) => void
  /** Stops the build between two companies; what was written stays (the next build resumes). */
  readonly signal?: AbortSignal
}

export interface SimilarIndexSummary {
  /** The data version the index was completed at. */
  readonly dataVersion: number
  /** Companies of this build's share. */
  readonly companies: number
  /** Answers computed and written by this build. */
  readonly computed: number
  /** Companies whose row was already of the data version. */
  readonly current: number
  /** Times the data version moved during the build (each made it start over). */
  readonly restarts: number
  /**
   * How the answers were ranked: `jaccard` (the search's default, with every company's tag total
   * kept) or, where totals cannot be kept (sparse or negative ids, more than 200,000 distinct tags),
   * `shared` (by shared tag weight, as the search then ranks too).
   */
  readonly ranking: 'jaccard' | 'shared'
  readonly ms: number
}

const MAX_BATCH = 10_000


const SHARD_CURRENT = queryShape<MissingParams, { n: number | string }>('similar index: companies of the shard already built', (db, _d, p) =>
  db.selectFrom(`${COMPANY_TABLE} as c`)
    .innerJoin(`${SIMILAR_INDEX_TABLE} as n`, (join) => join.onRef('n.company_id', '=', `c.${COMPANY_ID}`))
    .select((eb) => eb.fn.countAll().as('n'))
    .where(shardFilter(p))
    .where('n.data_version', '=', p.version))

/** Builds (or completes) the similarity index on either backend. */
export async function buildSimilarIndex(vdb: VentureDb, options: SimilarIndexOptions = {}): Promise<SimilarIndexSummary> {
  const started = performance.now()
  const shard = options.shard ?? { index: 0, count: 1 }
  if (!Number.isSafeInteger(shard.count) || shard.count < 1 || !Number.isSafeInteger(shard.index) || shard.index < 0 || shard.index >= shard.count) {
    throw new RangeError(`buildSimilarIndex: shard must be { index, count } with 0 <= index < count (got ${JSON.stringify(shard)})`)
  }
  const batchSize = options.batchSize ?? 256
  // One statement writes a batch, three values a company: SQLite binds at most 32,766.
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
    throw new RangeError(`buildSimilarIndex: batchSize must be a whole number from 1 to ${MAX_BATCH} (got ${batchSize})`)
  }
  if (vdb.readonly) throw new Error('buildSimilarIndex: the database is open read-only')
  // Every company in turn reads every tag: kept whole, a common rarest tag's part is sliced from memory.
  const release = keepEveryPosting(vdb)
  try {
    return await build(vdb, shard, batchSize, options, started)
  } finally {
    release()
  }
}

async function build(vdb: VentureDb, shard: { index: number; count: number }, batchSize: number, options: SimilarIndexOptions, started: number): Promise<SimilarIndexSummary> {
  const s = recordSession(vdb)
  const base = { after: 0, count: shard.count, index: shard.index, limit: batchSize }
  let restarts = 0
  for (;;) {
    const version = await dataVersion(vdb)
    // Every answer ranked as the search ranks with its totals built (not by shared weight while they are).
    const ranking = (await completeTagTotals(vdb)) ? 'jaccard' : 'shared'
    const total = Number((await s.first(SHARD_SIZE, { ...base, version }))?.n ?? 0)
    const current = Number((await s.first(SHARD_CURRENT, { ...base, version }))?.n ?? 0)
    let computed = 0
    // Below every id (ids are whole numbers; imports take them from 1 up).
    let after = Number.MIN_SAFE_INTEGER
    let moved = false
    for (;;) {
      options.signal?.throwIfAborted()
      const ids = await s.column(MISSING, { ...base, after, version })
      if (ids.length === 0) break
      const rows: { company_id: number; data_version: number; neighbours: string }[] = []
      for (const id of ids) {
        options.signal?.throwIfAborted()
        const answer = await similarCompanies(vdb, id, { index: false, totalsBuildMs: Number.POSITIVE_INFINITY })
        rows.push({ company_id: id, data_version: version, neighbours: encodeNeighbours(answer.map((r) => [r.id, r.score])) })
      }
      // Never over a row of a newer version: a build still on an older one (another process) would
      // undo the newer build's work, which has moved past those companies.
      await vdb.db.insertInto(SIMILAR_INDEX_TABLE).values(rows)
        .onConflict((oc) => oc.column('company_id')
          .doUpdateSet((eb) => ({ data_version: eb.ref('excluded.data_version'), neighbours: eb.ref('excluded.neighbours') }))
          .where((eb) => eb(eb.ref(`${SIMILAR_INDEX_TABLE}.data_version`), '<=', eb.ref('excluded.data_version'))))
        .execute()
      computed += rows.length
      after = ids[ids.length - 1]!
      if ((await dataVersion(vdb)) !== version) {
        moved = true
        break
      }
      options.onProgress?.({ done: Math.min(total, current + computed), total, dataVersion: version })
    }
    if (moved) {
      restarts++
      continue
    }
    return { dataVersion: version, companies: total, computed, current, restarts, ranking, ms: performance.now() - started }
  }
}
