/**
 * @module Building and updating the similarity index (records/similar-index.ts): every company's
 * similar companies, found by weighted MinHash with LSH banding and ranked by the search's exact
 * score (similar/lsh.ts), stored with the data version they are of.
 *
 * - In memory: every company's tags and description words are read (in ranges of ids), the
 *   distinct tag sets hashed into LSH buckets, and each company's answer taken from the sets that
 *   share a bucket with its own. The index's cost grows with the companies times their candidates,
 *   not with a search per company (the bench's similar phase times the build: `npm run bench`).
 * - The weights (N and each tag's df) and the LSH banding are those of the build that took them, kept in
 *   `similar_companies_state`: an update scores as the build did, so updating after an import gives
 *   what a build over every company gives. A build takes new weights when asked (`reweigh`), when
 *   there are none, or when the number of companies has moved by more than `REWEIGH_SHARE` since;
 *   every answer is then recomputed.
 * - An update recomputes only the companies whose own data changed (their fingerprint: tags,
 *   description, weights) and the companies whose answer such a company can enter or leave: those
 *   holding a changed or deleted company, and those sharing an LSH bucket with a changed company
 *   whose score with it reaches the last of their answer. The other rows only take the new data
 *   version.
 * - The answers are computed first (in the model's order), then written in id order, a transaction
 *   every `commitEvery` rows, each first checking that the data version is still the one read: when
 *   an import ran meanwhile, or another build stored other weights, the build starts over (the
 *   transactions of builds are serialised by a lock). Run it after an import; rows
 *   of an old version are never served. Before the rows, one transaction writes the weights, deletes
 *   the rows of deleted companies and clears the fingerprint of every row to be rewritten: a build
 *   stopped while writing leaves those as changed, so the next one recomputes them and the
 *   companies whose answer they can enter or leave, and the index is then what a full build gives.
 */
import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { dataVersion, type VentureDb } from '../store/open.js'
import { SIMILAR_INDEX_STATE_TABLE, SIMILAR_INDEX_TABLE } from '../store/schema/similar-index-tables.js'
import { recordSession } from './session.js'
import { companiesNow, currentWeights, loadModelInput, type ModelWeights } from './similar/load.js'
import { SimilarityModel, type Banding } from './similar/lsh.js'
import { computeAnswers } from './similar/threads.js'
import { decodeNeighbours, encodeNeighbours, SIMILAR_LIMIT } from './similar-index.js'
import type { TagKey } from './similar/statements.js'

export interface SimilarIndexOptions {
  /** Recompute every company (with the kept weights unless `reweigh`). */
  readonly full?: boolean
  /** Take new weights from the data now (every company is recomputed). */
  readonly reweigh?: boolean
  /** Rows written per statement (default 500). */
  readonly batchSize?: number
  /** Rows written a transaction (default 50,000): what a build stopped during its writes keeps. */
  readonly commitEvery?: number
  /**
   * Threads computing the answers (default 1: the calling thread). Above 1, the model is built in
   * shared memory and read by that many worker threads (similar/threads.ts); the answers are the
   * same whatever the number.
   */
  readonly jobs?: number
  /**
   * As the companies are computed (`phase` 'compute': companies done of those to compute), then
   * after each transaction of rows (`phase` 'write': rows written of those to write).
   */
  readonly onProgress?: (progress: { readonly done: number; readonly total: number; readonly dataVersion: number; readonly phase: 'compute' | 'write' }) => void
  /**
   * Stops the build between two companies or two transactions of rows. Stopped while computing,
   * it has written nothing; stopped while writing, the rows written stay (served: they are
   * answers of the current data) and the next build or update completes the index.
   */
  readonly signal?: AbortSignal
}

export interface SimilarIndexSummary {
  /** The data version the index was completed at. */
  readonly dataVersion: number
  /** Companies. */
  readonly companies: number
  /** Answers computed and written by this build. */
  readonly computed: number
  /** Companies whose answer was already right (their row only took the data version). */
  readonly current: number
  /** Rows of companies that no longer exist, deleted. */
  readonly deleted: number
  /** Times the data version moved during the build (each made it start over). */
  readonly restarts: number
  /** Whether this build took new weights. */
  readonly reweighed: boolean
  /** Distinct tag sets of the companies. */
  readonly sets: number
  /** LSH buckets of the model. */
  readonly buckets: number
  /** Wall time of the build (ms). */
  readonly ms: number
  /**
   * Wall time of the last attempt's phases (ms): reading the data, building the model, computing
   * the answers, and writing them (with the first transaction and the last).
   */
  readonly phases: { readonly readMs: number; readonly modelMs: number; readonly computeMs: number; readonly writeMs: number }
}

/** A change in the number of companies past which a build takes new weights (a share of those it has). */
export const REWEIGH_SHARE = 0.1
const MAX_BATCH = 5_000
/** Companies computed between progress reports and signal checks. */
const PROGRESS_EVERY = 5_000
/** Rows written a transaction: what a stopped build keeps. */
const COMMIT_EVERY = 50_000

/**
 * The kept weights, the name that enters every fingerprint, and the LSH banding chosen when they
 * were taken (reused until new weights: banding by the number of sets now would move every
 * set's buckets when that number crosses a threshold, while unchanged companies keep their answers).
 */
interface KeptWeights extends ModelWeights {
  readonly epoch: string
  readonly banding?: Banding
}

/** Builds or updates the similarity index on either backend. */
export async function buildSimilarIndex(vdb: VentureDb, options: SimilarIndexOptions = {}): Promise<SimilarIndexSummary> {
  const started = performance.now()
  const batchSize = options.batchSize ?? 500
  // One statement writes a batch, four values a company: SQLite binds at most 32,766.
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
    throw new RangeError(`buildSimilarIndex: batchSize must be a whole number from 1 to ${MAX_BATCH} (got ${batchSize})`)
  }
  const commitEvery = options.commitEvery ?? COMMIT_EVERY
  if (!Number.isSafeInteger(commitEvery) || commitEvery < 1) throw new RangeError(`buildSimilarIndex: commitEvery must be a whole number from 1 (got ${commitEvery})`)
  if (vdb.readonly) throw new Error('buildSimilarIndex: the database is open read-only')
  const jobs = options.jobs ?? 1
  if (!Number.isSafeInteger(jobs) || jobs < 1 || jobs > 64) throw new RangeError(`buildSimilarIndex: jobs must be a whole number from 1 to 64 (got ${jobs})`)
  let restarts = 0
  for (;;) {
    const result = await attempt(vdb, options, batchSize, commitEvery, jobs)
    if (result !== undefined) return { ...result, restarts, ms: performance.now() - started }
    restarts++
  }
}

type Attempt = Omit<SimilarIndexSummary, 'restarts' | 'ms'>

async function attempt(vdb: VentureDb, options: SimilarIndexOptions, batchSize: number, commitEvery: number, jobs: number): Promise<Attempt | undefined> {
  const s = recordSession(vdb)
  const version = await dataVersion(vdb)
  // The weights stored when this build began: each transaction checks that no other build has
  // stored others since (its rows would be of other weights), under a lock that serialises them.
  const storedWeights = await keptWeights(vdb.db)
  let kept = options.reweigh ? undefined : storedWeights
  let reweighed = false
  if (kept === undefined || Math.abs((await companiesNow(s)) - kept.companies) > REWEIGH_SHARE * kept.companies) {
    kept = { ...(await currentWeights(s)), epoch: `${version}.${Date.now().toString(36)}.${randomUUID().slice(0, 8)}` }
    reweighed = true
  }
  const at0 = performance.now()
  const { input, fingerprints } = await loadModelInput(s, kept, kept.epoch)
  const at1 = performance.now()
  if ((await dataVersion(vdb)) !== version) return undefined
  const model = new SimilarityModel(input, kept.banding, { shared: jobs > 1 })
  const at2 = performance.now()
  if (kept.banding === undefined) kept = { ...kept, banding: { bands: model.bands, rows: model.rows, minHits: model.minHits } }
  const n = input.ids.length

  // What the index holds: each company's fingerprint and the last of its answer.
  // Every company is recomputed on a full build: its stored answers need not be read.
  const everyCompany = options.full === true || reweighed
  const stored = (everyCompany
    ? await vdb.db.selectFrom(SIMILAR_INDEX_TABLE).select(['company_id']).execute()
    : await vdb.db.selectFrom(SIMILAR_INDEX_TABLE).select(['company_id', 'fingerprint', 'neighbours']).execute()) as { company_id: number | string; fingerprint?: string | null; neighbours?: string }[]
  const recompute = new Uint8Array(n)
  const deleted: number[] = []
  /** By company index: the last score of its stored answer (0 when it holds fewer than the limit), or -1 without a row. */
  const last = new Float64Array(n).fill(-1)
  const holders = new Map<number, number[]>()
  for (const row of stored) {
    const id = Number(row.company_id)
    const c = model.indexOf(id)
    if (c < 0) {
      deleted.push(id)
      continue
    }
    if (everyCompany || row.fingerprint !== fingerprints[c]) {
      recompute[c] = 1
      continue
    }
    const answer = decodeNeighbours(row.neighbours!, id)
    if (answer === undefined) {
      recompute[c] = 1
      continue
    }
    last[c] = answer.length < SIMILAR_LIMIT ? 0 : answer[answer.length - 1]![1]
    for (const [other] of answer) {
      const list = holders.get(other)
      if (list) list.push(c)
      else holders.set(other, [c])
    }
  }
  // Changed: no answer that stands (new, its own data or the weights changed, or a row that is not an answer).
  const changed: number[] = []
  for (let c = 0; c < n; c++) {
    if (options.full || reweighed) recompute[c] = 1
    if (last[c] === -1) changed.push(c)
    if (last[c] === -1) recompute[c] = 1
  }
  if (!options.full && !reweighed) {
    // Those holding a changed or deleted company: it leaves their answer or takes another score.
    for (const id of deleted) for (const c of holders.get(id) ?? []) recompute[c] = 1
    for (const c of changed) for (const holder of holders.get(input.ids[c]!) ?? []) recompute[holder] = 1
    // Those a changed company may enter: the members of its set's candidates whose answer's last
    // it reaches (a pair's score has the same tag and description parts either way round).
    const bySet = new Map<number, number[]>()
    for (const c of changed) {
      const list = bySet.get(model.setOf[c]!)
      if (list) list.push(c)
      else bySet.set(model.setOf[c]!, [c])
    }
    for (const [set, changedHere] of bySet) {
      const found = model.candidates(set)
      for (let i = 0; i < found.length; i++) {
        const t = found.setAt(i)
        const tagScore = found.scoreAt(i)
        for (let m = model.memberStart[t]!; m < model.memberStart[t + 1]!; m++) {
          const other = model.members[m]!
          if (recompute[other]) continue
          for (const c of changedHere) {
            if (c !== other && model.scoreOf(other, c, tagScore) >= last[other]!) {
              recompute[other] = 1
              break
            }
          }
        }
      }
    }
  }

  // The answers, each at a slot numbered in the model's order (similar/threads.ts computes them
  // set by set in that order, here or in `jobs` threads sharing the model).
  const slot = jobs > 1 ? new Int32Array(new SharedArrayBuffer(4 * Math.max(1, n))).fill(-1) : new Int32Array(n).fill(-1)
  let total = 0
  for (let o = 0; o < model.sets; o++) {
    const set = model.order[o]!
    for (let m = model.memberStart[set]!; m < model.memberStart[set + 1]!; m++) {
      const c = model.members[m]!
      if (recompute[c]) slot[c] = total++
    }
  }
  let reported = 0
  const answers = await computeAnswers(model, slot, total, SIMILAR_LIMIT, {
    jobs,
    signal: options.signal,
    onProgress: (done) => {
      if (done - reported >= PROGRESS_EVERY && done < total) {
        reported = done
        options.onProgress?.({ done, total, dataVersion: version, phase: 'compute' })
      }
    },
  })
  options.onProgress?.({ done: total, total, dataVersion: version, phase: 'compute' })
  options.signal?.throwIfAborted()
  const at3 = performance.now()

  /** Locks out other builds for the transaction, then whether the data and the stored weights are still those of `epoch`. */
  const stillCurrent = async (trx: Kysely<any>, epoch: string | undefined) => {
    await lockBuilds(vdb, trx)
    return (await dataVersion({ ...vdb, db: trx } as VentureDb)) === version && (await keptWeights(trx))?.epoch === epoch
  }
  // First the weights, the deleted rows and which rows are to be rewritten (their fingerprint
  // cleared): a build stopped during the writes leaves those as changed, so the next one computes
  // them again, with the companies whose answer they may enter or leave.
  const started = await vdb.db.transaction().execute(async (trx) => {
    if (!(await stillCurrent(trx, storedWeights?.epoch))) return false
    await trx.deleteFrom(SIMILAR_INDEX_STATE_TABLE).where('name', '=', 'weights').execute()
    await trx.insertInto(SIMILAR_INDEX_STATE_TABLE).values({ name: 'weights', value: encodeWeights(kept) }).execute()
    for (let i = 0; i < deleted.length; i += batchSize) await trx.deleteFrom(SIMILAR_INDEX_TABLE).where('company_id', 'in', deleted.slice(i, i + batchSize)).execute()
    if (total === n) {
      await trx.updateTable(SIMILAR_INDEX_TABLE).set({ fingerprint: null }).execute()
    } else {
      const ids: number[] = []
      for (let c = 0; c < n; c++) if (recompute[c]) ids.push(input.ids[c]!)
      for (let i = 0; i < ids.length; i += batchSize) await trx.updateTable(SIMILAR_INDEX_TABLE).set({ fingerprint: null }).where('company_id', 'in', ids.slice(i, i + batchSize)).execute()
    }
    return true
  })
  if (!started) return undefined
  // The answers in company id order (the table's key), a transaction every COMMIT_EVERY rows.
  const ids = input.ids
  let c = 0
  let writtenRows = 0
  while (c < n) {
    const rows: { company_id: number; data_version: number; fingerprint: string; neighbours: string }[] = []
    for (; c < n && rows.length < commitEvery; c++) {
      const k = slot[c]!
      if (k < 0) continue
      const count = answers.counts[k]!
      const pairs: [number, number][] = new Array(count)
      for (let i = 0; i < count; i++) pairs[i] = [ids[answers.at[k * SIMILAR_LIMIT + i]!]!, answers.scores[k * SIMILAR_LIMIT + i]!]
      rows.push({ company_id: ids[c]!, data_version: version, fingerprint: fingerprints[c]!, neighbours: encodeNeighbours(pairs) })
    }
    if (rows.length === 0) break
    options.signal?.throwIfAborted()
    const written = await vdb.db.transaction().execute(async (trx) => {
      if (!(await stillCurrent(trx, kept.epoch))) return false
      for (let i = 0; i < rows.length; i += batchSize) {
        await trx.insertInto(SIMILAR_INDEX_TABLE).values(rows.slice(i, i + batchSize))
          .onConflict((oc) => oc.column('company_id').doUpdateSet((eb) => ({
            data_version: eb.ref('excluded.data_version'), fingerprint: eb.ref('excluded.fingerprint'), neighbours: eb.ref('excluded.neighbours'),
          })))
          .execute()
      }
      return true
    })
    if (!written) return undefined
    writtenRows += rows.length
    options.onProgress?.({ done: writtenRows, total, dataVersion: version, phase: 'write' })
  }
  // The others' answers stand at this version.
  const closed = await vdb.db.transaction().execute(async (trx) => {
    if (!(await stillCurrent(trx, kept.epoch))) return false
    await trx.updateTable(SIMILAR_INDEX_TABLE).set({ data_version: version }).where('data_version', '<>', version).execute()
    return true
  })
  if (!closed) return undefined
  const rowsWritten = total
  const phases = { readMs: at1 - at0, modelMs: at2 - at1, computeMs: at3 - at2, writeMs: performance.now() - at3 }
  return { dataVersion: version, companies: n, computed: rowsWritten, current: n - rowsWritten, deleted: deleted.length, reweighed, sets: model.sets, buckets: model.buckets, phases }
}

function encodeWeights(weights: KeptWeights): string {
  return JSON.stringify({ epoch: weights.epoch, companies: weights.companies, bands: weights.banding?.bands, rows: weights.banding?.rows, minHits: weights.banding?.minHits ?? 1, df: [...weights.df] })
}

/**
 * Serialises the transactions of builds (across processes): on PostgreSQL an advisory lock per
 * schema, on SQLite the write lock, taken by a first statement that writes (a deferred transaction
 * that reads first could not take it once another build commits).
 */
async function lockBuilds(vdb: VentureDb, trx: Kysely<any>): Promise<void> {
  if (vdb.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext('ventureql similar index ' || current_schema()))`.execute(trx)
  else await trx.updateTable(SIMILAR_INDEX_STATE_TABLE).set((eb) => ({ value: eb.ref('value') })).where('name', '=', 'weights').execute()
}

/** The weights the index was built with, or undefined (none, or a row that is not weights or has no banding). */
async function keptWeights(db: Kysely<any>): Promise<KeptWeights | undefined> {
  const row = await db.selectFrom(SIMILAR_INDEX_STATE_TABLE).select('value').where('name', '=', 'weights').executeTakeFirst() as { value: string } | undefined
  if (!row) return undefined
  try {
    const value = JSON.parse(row.value) as { epoch?: unknown; companies?: unknown; bands?: unknown; rows?: unknown; minHits?: unknown; df?: unknown }
    if (typeof value.epoch !== 'string' || !Number.isSafeInteger(value.companies) || !Array.isArray(value.df)) return undefined
    const positive = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 1
    // (Weights stored before `minHits` was kept were taken with 1.)
    if (!positive(value.bands) || !positive(value.rows) || !(value.minHits === undefined || positive(value.minHits))) return undefined
    const df = new Map<TagKey, number>()
    for (const pair of value.df as unknown[]) {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !Number.isSafeInteger(pair[1])) return undefined
      df.set(pair[0], pair[1] as number)
    }
    return { epoch: value.epoch, companies: value.companies as number, banding: { bands: value.bands, rows: value.rows, minHits: (value.minHits as number | undefined) ?? 1 }, df }
  } catch {
    return undefined
  }
}
