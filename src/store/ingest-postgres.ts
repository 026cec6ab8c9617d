/**
 * @module The loader on PostgreSQL: the same `RecordLoader` as on SQLite (validation, derivations,
 * counts, rejects), with writers that buffer a batch of records in memory and send it with
 * `COPY ... FROM STDIN` (copy-writer.ts), one COPY per table per batch.
 *
 * One connection, one transaction for the whole load: readers never see part of it, and a load
 * that fails anywhere (a COPY the server refuses, a lost connection) is rolled back whole. At
 * `finish()` the derived data is computed in SQL (the same statements as on SQLite,
 * `materialiseSteps('postgres')`), dropped indexes are rebuilt, the data version moves, and the
 * transaction commits; then VACUUM (ANALYZE) of the loaded tables, then the search index is
 * brought up to date (`refreshPostgresSearchIndex` with what the load changed: only those records
 * are cut again, the ranks renumbered in SQL; in full after a load into an empty schema), as the
 * SQLite loader refreshes its FTS5 index, then the optional `afterLoad` hook.
 *
 * COPY cannot replace a row, so the writers keep SQLite's `insert or replace` / `insert or ignore`
 * semantics themselves: rows of a batch are held per owner (a company's tags, details and time
 * series; a funding event's links; an investor's tags and filings), so deleting an owner's rows
 * drops them from the batch and, for rows of earlier batches or of the database, queues a
 * `delete ... where owner = any($1)` that runs before the batch's COPY. Dataset rows and stories
 * are held by key, with the keys the load has written (and, in a schema that held rows, the keys
 * already there) remembered to tell a replacement. Acquisitions merge (a non-null value wins), so
 * they go through a temporary table and `insert ... on conflict do update`.
 */
import { refreshPostgresSearchIndex } from './search-index-postgres.js'
import type { PoolClient } from 'pg'
import { datasets, type FieldDef } from '../catalog/index.js'
import { chunkLines, copyInto, copyLine, moveDataVersion, secondaryIndexes } from './copy-writer.js'
import { tablesToCopy } from './copy.js'
import {
  datasetColumns, RecordLoader, ROW_COUNTS_SQL, rowCountsOf, type DatasetWrite, type IngestChanged, type IngestSummary, type LoadWriters, type PairWrite,
  type RowCounts, type RowWrite,
} from './ingest.js'
import { materialiseSteps } from './materialise.js'
import { recordCompleteOwners } from './owner-integrity.js'
import type { PostgresVentureDb } from './open.js'
import { forgetRowCounts } from './row-counts.js'
import { DETAIL_TABLES } from './schema/detail-tables.js'
import { VERSIONED_CACHE_TABLES } from './schema/stored-query-tables.js'

export interface IngestPostgresOptions {
  /** Records per COPY batch (default 10,000). */
  readonly batchSize?: number
  /**
   * Drop the loaded tables' secondary indexes during the load and rebuild them at `finish()`.
   * Default: only when the schema holds no companies yet.
   */
  readonly deferIndexes?: boolean
  /**
   * Empty the loaded tables first (in the load's transaction: readers see the old rows until the
   * new ones commit), as `ventureql generate` replaces its output. Default false: add to what is there.
   */
  readonly replace?: boolean
  /**
   * Called once after the load has committed (and been analysed), with the database and what the
   * load wrote: `changed` is undefined when everything may have changed (a load into an empty
   * schema), else the companies and investors written or whose derived figures moved. The search
   * index is already current by then (`finish()` refreshes it). An error it throws is the caller's:
   * the data is loaded by then.
   */
  readonly afterLoad?: (vdb: PostgresVentureDb, changed: IngestChanged | undefined) => Promise<void>
}

/** A load into PostgreSQL that failed: it was rolled back whole. */
export class PostgresLoadError extends Error {
  override readonly name = 'PostgresLoadError'
}

const companies = datasets.companies
const investors = datasets.investors
const fundings = datasets.fundings
const T = DETAIL_TABLES

/** A table's rows of one batch, grouped by owner, and the owners whose stored rows must go first. */
class OwnedRows {
  rows = new Map<number, unknown[][]>()
  deletes = new Set<number>()
  constructor(readonly table: string, readonly columns: readonly string[], readonly ownerColumn: string) {}

  add(owner: number, row: unknown[]): void {
    const list = this.rows.get(owner)
    if (list) list.push(row)
    else this.rows.set(owner, [row])
  }

  /** Replaces the owner's row whose `keyIndex` value equals the new row's (insert or replace). */
  put(owner: number, row: unknown[], keyIndex: number): void {
    const list = this.rows.get(owner)
    if (!list) { this.rows.set(owner, [row]); return }
    const k = list.findIndex((r) => r[keyIndex] === row[keyIndex])
    if (k >= 0) list[k] = row
    else list.push(row)
  }

  deleteOwner(owner: number): void {
    this.rows.delete(owner)
    this.deletes.add(owner)
  }

  take(): OwnedRows {
    const out = new OwnedRows(this.table, this.columns, this.ownerColumn)
    out.rows = this.rows
    out.deletes = this.deletes
    this.rows = new Map()
    this.deletes = new Set()
    return out
  }

  *lines(): Generator<string> {
    for (const list of this.rows.values()) for (const row of list) yield copyLine(row)
  }

  get size(): number {
    return this.rows.size
  }
}

/**
 * Rows by primary key (a dataset table, stories). `known`: every key this load wrote, plus, when
 * `storedKeys` were loaded, the keys the table held; a row whose key is known replaces one, so its
 * stored row is deleted before the batch's COPY (a no-op for a row of this same batch).
 */
class KeyedRows {
  rows = new Map<number, unknown[]>()
  deletes = new Set<number>()
  /** Owner (column index) → keys, for deletes by owner (stories by company). */
  byOwner: Map<number, Set<number>> | null
  constructor(
    readonly table: string, readonly columns: readonly string[], readonly keyColumn: string,
    readonly known: Set<number>, readonly ownerIndex: number | null,
    /** The table held rows at the start whose keys are not in `known`: every key may be stored. */
    readonly anyStored: boolean,
  ) {
    this.byOwner = ownerIndex === null ? null : new Map()
  }

  /** Writes the row; true when its key was written before (by this load or before it). */
  put(key: number, row: unknown[]): boolean {
    const replaced = this.known.has(key)
    if ((replaced || this.anyStored) && !this.rows.has(key)) this.deletes.add(key)
    this.known.add(key)
    if (this.byOwner) {
      const previous = this.rows.get(key)
      if (previous) this.byOwner.get(previous[this.ownerIndex!] as number)?.delete(key)
      const owner = row[this.ownerIndex!] as number
      let keys = this.byOwner.get(owner)
      if (!keys) this.byOwner.set(owner, (keys = new Set()))
      keys.add(key)
    }
    this.rows.set(key, row)
    return replaced
  }

  take(): KeyedRows {
    const out = new KeyedRows(this.table, this.columns, this.keyColumn, this.known, this.ownerIndex, this.anyStored)
    out.rows = this.rows
    out.deletes = this.deletes
    this.rows = new Map()
    this.deletes = new Set()
    if (this.byOwner) this.byOwner = new Map()
    return out
  }

  *lines(): Generator<string> {
    for (const row of this.rows.values()) yield copyLine(row)
  }
}

/** Stories: keyed by id, deleted by company. */
class StoryRows extends KeyedRows {
  ownerDeletes = new Set<number>()

  deleteOwner(owner: number): void {
    const keys = this.byOwner!.get(owner)
    if (keys) for (const key of keys) this.rows.delete(key)
    this.byOwner!.delete(owner)
    this.ownerDeletes.add(owner)
  }

  override take(): StoryRows {
    const out = new StoryRows(this.table, this.columns, this.keyColumn, this.known, this.ownerIndex, this.anyStored)
    out.rows = this.rows
    out.deletes = this.deletes
    out.ownerDeletes = this.ownerDeletes
    this.rows = new Map()
    this.deletes = new Set()
    this.ownerDeletes = new Set()
    this.byOwner = new Map()
    return out
  }
}

/** drain() yields to the event loop once per this many calls while a batch is being sent. */
const YIELD_EVERY = 64

const ACQUISITION_COLUMNS = ['event_id', 'acquirer_id', 'acquirer_name', 'acquirer_domain', 'acquired_id', 'acquired_name', 'acquired_domain', 'closed_date'] as const

/** One batch, taken from the writers, on its way to the server. */
interface Batch {
  readonly owned: readonly OwnedRows[]
  readonly keyed: readonly KeyedRows[]
  readonly stories: StoryRows
  readonly acquisitions: Map<number, unknown[]>
}

/**
 * Insert or ignore of an owner's pairs: duplicates within the list are dropped. An owner's pairs
 * are written once per record, after its stored ones were deleted if the record replaced another.
 */
function pairWrite(rows: OwnedRows): PairWrite {
  return {
    pairs(owner, values) {
      if (values.length === 0) return
      const seen = new Set<string | number>()
      for (const v of values) {
        if (seen.has(v)) continue
        seen.add(v)
        rows.add(owner, [owner, v])
      }
    },
  }
}

/**
 * The loader on PostgreSQL. Open with `PostgresIngestor.open(vdb)`; write records (`add`, `write`),
 * awaiting `drain()` when it returns a promise; then `await finish()`. On any failure the load is
 * rolled back and the error is a `PostgresLoadError`; call `abort()` to give up on a load.
 */
export class PostgresIngestor extends RecordLoader {
  readonly #vdb: PostgresVentureDb
  readonly #client: PoolClient
  readonly #options: IngestPostgresOptions
  readonly #owned: OwnedRows[]
  readonly #keyed: KeyedRows[]
  readonly #stories: StoryRows
  #acquisitions = new Map<number, unknown[]>()
  readonly #deferred: { name: string; definition: string }[]
  readonly #fresh: boolean
  /** Batches sent and not yet confirmed, oldest first. */
  readonly #inFlight: Promise<void>[] = []
  #chain: Promise<void> = Promise.resolve()
  #failure: Error | undefined
  #closed = false
  #calls = 0

  private constructor(
    vdb: PostgresVentureDb, client: PoolClient, options: IngestPostgresOptions,
    setup: { fresh: boolean; deferred: { name: string; definition: string }[]; nextFundingId: number; nextStoryId: number; stored: Record<string, Set<number> | null>; rowsBefore: RowCounts },
  ) {
    super(options.batchSize ?? 10_000)
    this.#vdb = vdb
    this.#client = client
    this.#options = options
    this.#fresh = setup.fresh
    this.rowsBefore = setup.rowsBefore
    this.#deferred = setup.deferred
    this.nextFundingId = setup.nextFundingId
    this.nextStoryId = setup.nextStoryId
    if (!setup.fresh) this.changed = { companies: new Set(), investors: new Set(), fundings: new Set() }

    const owned = (table: string, columns: readonly string[], owner = columns[0]!) => {
      const rows = new OwnedRows(table, columns, owner)
      this.#owned.push(rows)
      return rows
    }
    this.#owned = []
    this.#keyed = []
    const keyed = (table: string, columns: readonly string[], keyColumn: string) => {
      const stored = setup.stored[table]
      const rows = new KeyedRows(table, columns, keyColumn, stored ?? new Set(), null, false)
      this.#keyed.push(rows)
      return rows
    }
    const datasetWrite = (ds: typeof companies, onReplace?: (key: number) => void): DatasetWrite => {
      const columns = datasetColumns(ds)
      const pk = ds.fields[ds.primaryKey]!
      const keyIndex = columns.indexOf(pk)
      const rows = keyed(ds.table, columns.map((f) => f.column!), pk.column!)
      return {
        columns,
        upsert(row) {
          const key = row[keyIndex] as number
          const replaced = rows.put(key, row)
          if (replaced) onReplace?.(key)
          return replaced
        },
      }
    }
    const deleteOwner = (rows: OwnedRows): RowWrite => ({ run: (owner) => rows.deleteOwner(owner as number) })
    /** Insert or replace by (owner, the column at keyIndex): for lists whose key may repeat (contact names). */
    const replaceByKey = (rows: OwnedRows, keyIndex: number): RowWrite => ({ run: (...row) => rows.put(row[0] as number, row, keyIndex) })
    /**
     * Rows keyed by (owner, position...): the loader numbers a record's list itself, so keys repeat
     * only when the owner is written again, and then its rows were deleted first.
     */
    const positional = (rows: OwnedRows): RowWrite => ({ run: (...row) => rows.add(row[0] as number, row) })
    /** One row per owner (the owner is the primary key). */
    const onePerOwner = (rows: OwnedRows): RowWrite => ({ run: (...row) => rows.put(row[0] as number, row, 0) })

    const companyTagFields = Object.values(companies.fields).filter((f) => f.tags)
    const tagRows = (f: FieldDef) => owned(f.tags!.table, [f.tags!.ownerColumn, f.tags!.valueColumn])
    const companyTags = companyTagFields.map((f) => [f, tagRows(f)] as const)
    const investorTags = tagRows(investors.fields.industries!)
    const companyExtra = owned(T.companyExtra, ['company_id', 'last_funding_date_raw', 'stage_raw', 'growth_score'])
    const people = owned(T.people, ['company_id', 'position', 'name', 'title', 'path'])
    const contacts = owned(T.contacts, ['company_id', 'name', 'email'])
    const tech = owned(T.techStack, ['company_id', 'title'])
    const iosApps = owned(T.iosApps, ['company_id', 'position', 'ios_store_id', 'app_name', 'developer_url', 'ios_store_url', 'category'])
    const androidApps = owned(T.androidApps, ['company_id', 'position', 'id', 'app_name', 'package_id', 'play_url', 'category'])
    const points = owned(T.timeSeries, ['company_id', 'series', 'position', 'recorded_at', 'score', 'score_is_string'])
    const fundingLinks = owned('funding_investors', ['funding_id', 'investor_id'])
    const fundingExtra = owned(T.fundingExtra, ['funding_id', 'source', 'investor_names', 'investor_slugs'])
    const pendingSlugs = owned('pg_temp.pending_funding_slugs', ['funding_id', 'slug'])
    const investorDetails = owned(T.investorDetails, ['investor_id', 'portfolio_path', 'funding_rounds_path', 'resource_type', 'industries_derived'])
    const filings = owned(T.investorFilings, ['investor_id', 'position', 'entity_name', 'total_offering', 'total_sold', 'filing_date', 'form'])
    const storedStories = setup.stored[T.stories]
    this.#stories = new StoryRows(T.stories, ['id', 'company_id', 'title', 'url', 'published_at', 'source_title'], 'id', new Set(), 1, storedStories === null)
    const stories = this.#stories
    const acquisitions = () => this.#acquisitions

    this.w = {
      company: datasetWrite(companies),
      // An investor's details row has no delete of its own in the loader (SQLite replaces it by
      // key): a replaced investor's stored details row goes here.
      investor: datasetWrite(investors, (id) => investorDetails.deleteOwner(id)),
      funding: datasetWrite(fundings),
      companyTags: companyTags.map(([f, rows]) => [f, pairWrite(rows)] as const),
      investorTag: pairWrite(investorTags),
      deleteInvestorTags: deleteOwner(investorTags),
      deleteCompanyDetails: [
        ...companyTags.map(([, rows]) => deleteOwner(rows)),
        deleteOwner(companyExtra), { run: (owner) => stories.deleteOwner(owner as number) }, deleteOwner(people),
        deleteOwner(contacts), deleteOwner(tech), deleteOwner(iosApps), deleteOwner(androidApps), deleteOwner(points),
      ],
      companyExtra: onePerOwner(companyExtra),
      fundingInvestor: pairWrite(fundingLinks),
      deleteFundingDetails: [deleteOwner(fundingLinks), deleteOwner(fundingExtra), deleteOwner(pendingSlugs)],
      pendingSlug: { run: (fundingId, slug) => pendingSlugs.add(fundingId as number, [fundingId, slug]) },
      fundingExtra: onePerOwner(fundingExtra),
      iosApp: positional(iosApps),
      androidApp: positional(androidApps),
      acquisition: {
        run: (...row) => {
          const map = acquisitions()
          const key = row[0] as number
          const previous = map.get(key)
          // The SQLite statement's `coalesce(excluded.x, x)`, applied within the batch.
          map.set(key, previous ? row.map((v, i) => v ?? previous[i]) : row)
        },
      },
      story: { run: (...row) => { stories.put(row[0] as number, row) } },
      person: positional(people),
      contact: replaceByKey(contacts, 1),
      tech: pairWrite(tech),
      point: positional(points),
      investorDetail: onePerOwner(investorDetails),
      deleteFilings: deleteOwner(filings),
      filing: positional(filings),
    } satisfies LoadWriters
  }

  /**
   * Starts a load: takes a connection, begins the transaction, reads what the schema holds
   * (empty or not, largest ids, stored keys), drops secondary indexes when loading into an empty
   * schema (unless told otherwise).
   */
  static async open(vdb: PostgresVentureDb, options: IngestPostgresOptions = {}): Promise<PostgresIngestor> {
    const client = (await vdb.connect()) as PoolClient // a pg client (open-postgres.ts); the public type restates less
    client.on('error', () => undefined)
    try {
      await client.query('begin')
      // One load per schema at a time: a second waits here until the first commits or rolls back,
      // then reads what the first wrote (its replacements and largest ids would be stale otherwise).
      await client.query(`select pg_advisory_xact_lock(hashtext('ventureql load ' || current_schema()))`)
      // For this load only: index rebuilds and the derivation's sorts of millions of pairs.
      await client.query("set local maintenance_work_mem = '256MB'")
      await client.query("set local work_mem = '64MB'")
      if (options.replace) {
        await client.query(`truncate table ${[...tablesToCopy().map((t) => `"${t.table}"`), ...VERSIONED_CACHE_TABLES.map((t) => `"${t}"`)].join(', ')}`)
      }
      const one = async (text: string): Promise<number> => Number((await client.query(text)).rows[0]?.n ?? 0)
      const rowsBefore = rowCountsOf((await client.query(ROW_COUNTS_SQL)).rows[0])
      const fresh = (await client.query(`select 1 from "${companies.table}" limit 1`)).rowCount === 0
      const pk = (ds: typeof companies) => ds.fields[ds.primaryKey]!.column!
      // Keys already stored, to tell replacements: only in a schema that holds rows. Stories are
      // not read (there may be many): in a schema that holds any, every story row deletes its id first.
      const stored: Record<string, Set<number> | null> = {}
      for (const ds of [companies, investors, fundings]) {
        const set = new Set<number>()
        if (!fresh || ds !== companies) {
          const { rows } = await client.query({ text: `select "${pk(ds)}" as k from "${ds.table}"`, rowMode: 'array' })
          for (const r of rows as [number | string][]) set.add(Number(r[0]))
        }
        stored[ds.table] = set
      }
      stored[T.stories] = (await client.query(`select 1 from "${T.stories}" limit 1`)).rowCount === 0 ? new Set() : null
      const nextFundingId = await one(`select coalesce(max("${pk(fundings)}"), 0) + 1 as n from "${fundings.table}"`)
      const nextStoryId = await one(`select coalesce(max(id), 0) + 1 as n from "${T.stories}"`)
      await client.query('create temporary table pending_funding_slugs (funding_id bigint not null, slug text not null) on commit drop')
      await client.query(`create temporary table acquisitions_load (like "${T.acquisitions}" including defaults) on commit drop`)
      let deferred: { name: string; definition: string }[] = []
      if (options.deferIndexes ?? fresh) {
        deferred = await secondaryIndexes(client, tablesToCopy().map((t) => t.table))
        for (const index of deferred) await client.query(`drop index "${index.name}"`)
      }
      return new PostgresIngestor(vdb, client, options, { fresh, deferred, nextFundingId, nextStoryId, stored, rowsBefore })
    } catch (error) {
      await client.query('rollback').catch(() => undefined)
      client.release(true)
      throw error
    }
  }

  protected beginBatch(): void {
    if (this.#failure) throw this.#failure
  }

  /** Sends the batch: queued behind the previous one, so deletes and rows keep their order. */
  protected endBatch(): void {
    const batch: Batch = {
      owned: this.#owned.map((o) => o.take()),
      keyed: this.#keyed.map((k) => k.take()),
      stories: this.#stories.take(),
      acquisitions: this.#acquisitions,
    }
    this.#acquisitions = new Map()
    const sent = this.#chain.then(() => (this.#failure ? undefined : this.#send(batch))).catch((error: unknown) => {
      this.#failure ??= this.#loadError(error)
    })
    this.#chain = sent
    this.#inFlight.push(sent)
    void sent.then(() => this.#inFlight.splice(this.#inFlight.indexOf(sent), 1))
  }

  /**
   * Waits while two batches are on their way (one being sent, one queued): bounded memory. While
   * one is being sent, also yields to the event loop every `YIELD_EVERY` calls, so the COPY's
   * socket keeps moving while the caller makes the next batch (the server works on its own core).
   */
  override drain(): Promise<void> | undefined {
    if (this.#failure) return Promise.reject(this.#failure)
    if (this.#inFlight.length === 0) return undefined
    if (this.#inFlight.length < 2) return ++this.#calls % YIELD_EVERY === 0 ? new Promise((resolve) => setImmediate(resolve)) : undefined
    return this.#inFlight[0]!.then(() => {
      if (this.#failure) throw this.#failure
    })
  }

  async #send(batch: Batch): Promise<void> {
    const c = this.#client
    const ids = (set: Set<number>) => [...set]
    for (const k of batch.keyed) {
      if (k.deletes.size) await c.query(`delete from "${k.table}" where "${k.keyColumn}" = any($1::bigint[])`, [ids(k.deletes)])
    }
    if (batch.stories.deletes.size) await c.query(`delete from "${T.stories}" where id = any($1::bigint[])`, [ids(batch.stories.deletes)])
    if (batch.stories.ownerDeletes.size) await c.query(`delete from "${T.stories}" where company_id = any($1::bigint[])`, [ids(batch.stories.ownerDeletes)])
    for (const o of batch.owned) {
      if (o.deletes.size) await c.query(`delete from ${o.table.startsWith('pg_temp.') ? o.table : `"${o.table}"`} where "${o.ownerColumn}" = any($1::bigint[])`, [ids(o.deletes)])
    }
    for (const k of [...batch.keyed, batch.stories]) {
      if (k.rows.size) await copyInto(c, k.table, k.columns, chunkLines(k.lines()))
    }
    for (const o of batch.owned) {
      if (o.size) await copyInto(c, o.table, o.columns, chunkLines(o.lines()))
    }
    if (batch.acquisitions.size) {
      await copyInto(c, 'pg_temp.acquisitions_load', ACQUISITION_COLUMNS, chunkLines([...batch.acquisitions.values()].map(copyLine)))
      const set = ACQUISITION_COLUMNS.slice(1).map((col) => `"${col}" = coalesce(excluded."${col}", t."${col}")`).join(', ')
      await c.query(`insert into "${T.acquisitions}" as t (${ACQUISITION_COLUMNS.map((col) => `"${col}"`).join(', ')})
        select ${ACQUISITION_COLUMNS.map((col) => `"${col}"`).join(', ')} from pg_temp.acquisitions_load
        on conflict (event_id) do update set ${set}`)
      await c.query('truncate pg_temp.acquisitions_load')
    }
  }

  #loadError(error: unknown): PostgresLoadError {
    if (error instanceof PostgresLoadError) return error
    const message = error instanceof Error ? error.message || String(error) : String(error)
    return new PostgresLoadError(`loading into PostgreSQL failed, the whole load was rolled back (nothing of it was kept): ${message}`, { cause: error })
  }

  /** Rolls the load back and returns the connection (after a failure of the caller's own). */
  async abort(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.finished = true
    await this.#chain
    await this.#client.query('rollback').catch(() => undefined)
    this.#client.release(true)
  }

  /**
   * Sends what is left, derives the derived data, rebuilds dropped indexes, moves the data version
   * and commits; then VACUUM (ANALYZE) and the `afterLoad` hook. `onStep` reports the phases.
   */
  async finish(onStep?: (step: string) => void): Promise<IngestSummary> {
    if (this.finished) throw new Error('store: PostgresIngestor.finish called twice')
    this.commitBatch()
    this.finished = true
    const c = this.#client
    let version: number
    let changed: IngestChanged | undefined
    let rowsAfter: RowCounts
    try {
      await this.#chain
      if (this.#failure) throw this.#failure
      const steps = materialiseSteps('postgres')
      let next = steps.next()
      while (!next.done) {
        const s = next.value
        let answer: unknown
        if ('step' in s) onStep?.(s.step)
        else if ('exec' in s) await c.query(s.exec, s.params ? [...s.params] : [])
        else answer = (await c.query({ text: s.value, rowMode: 'array' })).rows[0]?.[0]
        next = steps.next(answer)
      }
      rowsAfter = rowCountsOf((await c.query(ROW_COUNTS_SQL)).rows[0])
      if (this.#deferred.length > 0) {
        onStep?.('indexes')
        for (const index of this.#deferred) await c.query(index.definition)
      }
      if (this.changed) {
        // Investors whose aggregates the written funding events moved, slugs resolved by now.
        const { rows } = await c.query<{ id: number | string }>('select distinct investor_id as id from funding_investors where funding_id = any($1::bigint[])', [[...this.changed.fundings]])
        for (const r of rows) this.changed.investors.add(Number(r.id))
        changed = Object.freeze({
          companyIds: Object.freeze([...this.changed.companies].sort((a, b) => a - b)),
          investorIds: Object.freeze([...this.changed.investors].sort((a, b) => a - b)),
        })
      }
      version = await moveDataVersion(c)
      // In the same transaction, under the new version (store/owner-integrity.ts).
      onStep?.('integrity')
      await recordCompleteOwners((text, params) => c.query(text, params), version)
      await c.query('commit')
    } catch (error) {
      const failure = this.#loadError(error)
      this.#closed = true
      await c.query('rollback').catch(() => undefined)
      c.release(true)
      throw failure
    }
    this.#closed = true
    c.release()
    // This process's remembered row counts belong to the old rows (other processes key theirs by version).
    forgetRowCounts(this.#vdb.db)
    onStep?.('analyze')
    // VACUUM sets the visibility map, without which index-only scans read the heap too (copy.ts).
    const tables = tablesToCopy().map((t) => `"${t.table}"`)
    const vacuumClient = await this.#vdb.connect()
    try {
      await vacuumClient.query(`vacuum (analyze) ${tables.join(', ')}`)
    } finally {
      vacuumClient.release()
    }
    onStep?.('search index')
    await refreshPostgresSearchIndex(this.#vdb.db, changed)
    if (this.#options.afterLoad) {
      onStep?.('after load')
      await this.#options.afterLoad(this.#vdb, changed)
    }
    return this.summary(version, rowsAfter, changed)
  }

  /** Whether the load dropped the secondary indexes and rebuilds them at `finish()` (its 'indexes' phase). */
  get rebuildsIndexes(): boolean {
    return this.#deferred.length > 0
  }

  /** Whether the load began on a schema without companies (then `changed` is not tracked). */
  get fresh(): boolean {
    return this.#fresh
  }
}
