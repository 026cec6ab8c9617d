/**
 * @module Everything that reads or writes the database on behalf of a caller, as one table of named
 * operations over one connection: the query pipeline, the record lookups of the detail endpoints,
 * and the API-key check with its quota count. Arguments and results are plain data (structured-
 * clone safe), so the same table runs in the caller's thread (`backend.ts`, inline) or in a worker
 * thread of the pool (`pool/worker.ts`) and answers the same.
 *
 * One operation is one message to a worker: a page of a query issues 3-8 statements, and the
 * record assembly of similar companies or an investor's aggregates is JavaScript work that would
 * otherwise run on the caller's event loop. Design section 9 put only SQL in the workers; moving
 * whole operations there costs one round trip per call instead of one per statement and takes that
 * JavaScript off the loop too.
 *
 * Lookups of a company's sub-resources answer `undefined` when the company does not exist, so the
 * HTTP layer needs one call per request instead of an existence check first.
 *
 * Everything runs on either backend: the record lookups are Kysely statements with dialect hooks
 * (src/records); search has a reader per backend over each one's own index (FTS5 on SQLite,
 * b-tree postings on PostgreSQL: records/search.ts, records/search-postgres.ts) with the same
 * answers.
 */
import type { Limits } from '../check/limits.js'
import { companyDetail, companyIdByDomain } from '../records/company.js'
import { companyExists } from '../records/company-sql.js'
import { contactEmail } from '../records/contact.js'
import { fundingExtras } from '../records/funding-extras.js'
import { investorDetail } from '../records/investor.js'
import { companyPeople } from '../records/people.js'
import { investorPortfolio } from '../records/portfolio.js'
import { searchIndexReady, searchRecords, type SearchRequest } from '../records/search.js'
import { postgresSearchIndexReady, searchRecordsPostgres } from '../records/search-postgres.js'
import { similarCompanies } from '../records/similar.js'
import { latestStories } from '../records/stories.js'
import { companyTechStack } from '../records/tech-stack.js'
import { BatchedLiveCounts, consumeQuota, countLiveKey, findApiKey, findApiKeyByHash, hashApiKey, LiveKeys, mayBeKey, quotaStatus, type ApiKeyRecord, type QuotaState } from '../store/api-keys.js'
import { dataVersion, type VentureDb } from '../store/open.js'
import { databaseStatus } from '../store/status.js'
import type { PagingPolicy } from './cursor.js'
import { admits, type Guarded, type KeyCheckRequest } from './key-check.js'
import { createPipeline } from './pipeline.js'

/** The outcome of presenting an API key (`authorize`). */
export type Authorization =
  | { readonly ok: true; readonly key: ApiKeyRecord; readonly quota: QuotaState; readonly dataVersion?: number }
  | { readonly ok: false; readonly reason: 'unknown' | 'revoked' }

/** How a connection's operations run, beyond its limits. */
export interface OperationsOptions {
  /**
   * Commit the quota counts of one turn of the event loop together (`BatchedLiveCounts`): for a
   * connection that answers many requests' key checks at once (the caller's thread); a worker runs
   * one call at a time and gains nothing from it.
   */
  readonly batchCounts?: boolean
}

/** The operations on one connection, SQLite or PostgreSQL. */
export function createOperations(database: VentureDb, limits: Limits, paging: Partial<PagingPolicy> = {}, options: OperationsOptions = {}) {
  const operations = plainOperations(database, limits, paging, options)
  return {
    ...operations,
    /**
     * A key check and the operation it guards in one call (`key-check.ts`): the operation runs only
     * when the key passes, so a refused key costs one lookup and never reads the data.
     */
    authorized: async (check: KeyCheckRequest, op: GuardableOperation, args: readonly unknown[]): Promise<Guarded<unknown>> => {
      // Checked here too: the name arrives from another thread, typed only by its sender.
      if (!Object.hasOwn(operations, op) || (op as string) === 'authorize') throw new TypeError(`authorized: ${String(op)} is not an operation a key check can guard`)
      const authorization = await operations.authorize(check.key, check.nowMs, check.count, check.withDataVersion)
      if (!admits(authorization, check.count)) return { authorization, ran: false }
      const value = await (operations[op] as (...a: readonly unknown[]) => unknown)(...args)
      return { authorization, ran: true, value }
    },
  }
}

function plainOperations(database: VentureDb, limits: Limits, paging: Partial<PagingPolicy>, options: OperationsOptions) {
  const pipeline = createPipeline(database, limits, paging)
  // PostgreSQL: only a yes is remembered (an index once built stays).
  let searchReady = false
  // Keys by hash, for counting a known key in one statement (store/api-keys.ts, countLiveKey).
  const liveKeys = new LiveKeys()
  const batched = options.batchCounts && database.dialect === 'sqlite' ? new BatchedLiveCounts(database.sqlite, liveKeys) : undefined
  const ifCompany = async <T>(id: number, lookup: () => Promise<T>): Promise<T | undefined> =>
    (await companyExists(database, id)) ? lookup() : undefined
  return {
    query: pipeline.query,
    list: pipeline.list,
    store: pipeline.store,
    page: pipeline.page,
    pageWithoutTotal: pipeline.pageWithoutTotal,
    exportBatch: pipeline.exportBatch,
    explain: pipeline.explain,
    count: pipeline.count,
    listWithoutTotal: pipeline.listWithoutTotal,
    queryWithoutTotal: pipeline.queryWithoutTotal,
    facets: pipeline.facets,
    storedFacets: pipeline.storedFacets,
    /** Resolves once the cost prediction's statistics and the facet columns are read on this connection (`Pipeline.backgroundReads`). */
    backgroundReads: () => pipeline.backgroundReads(),
    /** Commits the quota counts still waiting for their turn's batch (`BatchedLiveCounts.drain`): before the connection closes. */
    drainCounts: (): void => batched?.drain(),

    companyDetail: (id: number) => companyDetail(database, id),
    companyByDomain: async (domain: string) => {
      const id = await companyIdByDomain(database, domain)
      return id === undefined ? undefined : companyDetail(database, id)
    },
    companyExists: (id: number) => companyExists(database, id),
    companyStories: (id: number) => ifCompany(id, () => latestStories(database, id)),
    similarCompanies: (id: number) => ifCompany(id, () => similarCompanies(database, id)),
    companyPeople: (id: number) => ifCompany(id, () => companyPeople(database, id)),
    companyTechStack: (id: number) => ifCompany(id, () => companyTechStack(database, id)),
    contactEmail: (companyId: number, fullName: string) => contactEmail(database, companyId, fullName),
    investorDetail: (id: number) => investorDetail(database, id),
    investorPortfolio: (id: number, paging: { page: number; perPage: number }) => investorPortfolio(database, id, paging),
    /**
     * `undefined` when the database has no search index: a pre-006 SQLite file opened read-only, a
     * PostgreSQL database whose index was never built (`refreshPostgresSearchIndex`).
     */
    search: async (request: SearchRequest) => {
      if (database.dialect === 'sqlite') return searchIndexReady(database) ? searchRecords(database, request) : undefined
      if (!searchReady) searchReady = await postgresSearchIndexReady(database)
      return searchReady ? searchRecordsPostgres(database, request) : undefined
    },
    fundingExtras: (ids: readonly number[]) => fundingExtras(database, ids),

    /**
     * The key's record and its quota state: counted (one atomic statement, exact across
     * connections and processes) unless `count` is false (GET /ratelimit/usage).
     */
    authorize: async (key: string, nowMs: number, count: boolean, withDataVersion = false): Promise<Authorization> => {
      if (!mayBeKey(key)) return { ok: false, reason: 'unknown' }
      const hash = hashApiKey(key)
      const now = new Date(nowMs)
      // A key this connection has seen is counted in one statement that also refuses it once revoked.
      const live = !count ? undefined : batched ? await batched.count(hash, now) : countLiveKey(database, liveKeys, hash, now)
      let record: ApiKeyRecord | undefined
      let quota: QuotaState
      if (live) {
        ({ record, quota } = live)
      } else {
        record = await findApiKeyByHash(database, hash)
        if (!record) return { ok: false, reason: 'unknown' }
        if (record.revokedAt !== null) return { ok: false, reason: 'revoked' }
        quota = count ? await consumeQuota(database, record, now) : await quotaStatus(database, record, now)
        if (quota.allowed) liveKeys.remember(hash, record)
      }
      // Asked for by GET requests, whose ETag is the data version (http/caching.ts): read in the same call.
      return withDataVersion ? { ok: true, key: record, quota, dataVersion: await dataVersion(database) } : { ok: true, key: record, quota }
    },

    /**
     * Counts `units` more requests against the key's quota at once, all or none (an export's
     * reservation: one request per started 1,000 rows); `allowed: false` when they do not fit.
     */
    reserveQuota: async (key: string, nowMs: number, units: number): Promise<Authorization> => {
      const record = await findApiKey(database, key)
      if (!record) return { ok: false, reason: 'unknown' }
      if (record.revokedAt !== null) return { ok: false, reason: 'revoked' }
      return { ok: true, key: record, quota: await consumeQuota(database, record, new Date(nowMs), units) }
    },

    /** GET /readyz: the database answers, its migrations are this code's, and its data version. */
    status: () => databaseStatus(database),
  }
}

/** The operations a key check may guard: all but the check itself. */
export type GuardableOperation = Exclude<keyof ReturnType<typeof plainOperations>, 'authorize'>

export type Operations = ReturnType<typeof createOperations>

export type OperationName = keyof Operations
export type OperationArgs<K extends OperationName> = Parameters<Operations[K]>
export type OperationResult<K extends OperationName> = Awaited<ReturnType<Operations[K]>>

/**
 * Operations that are index lookups of a bounded number of rows: an engine with workers answers
 * them on the caller's thread (`pool/caller-lane.ts`), else they may use the pool's reserved worker,
 * so a key check or a detail lookup never waits behind slow counts (`pool/pool.ts`).
 */
export const LIGHT_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>([
  'authorize', 'reserveQuota', 'companyDetail', 'companyByDomain', 'companyExists', 'companyStories', 'companyPeople',
  'companyTechStack', 'contactEmail', 'status',
])

/**
 * Operations whose cost has a small bound, which the pool may post to a busy worker behind another
 * such call (`pool/pool.ts`, pipelining): the light ones, and search. Search is not light (it does
 * not take the reserved worker): FTS5 reads each tier in rank order and stops at the limit, but a
 * term of twelve one-letter words that match nothing together took 20 ms at 1,000,000 companies,
 * the other terms tried 0.1-6 ms at limit 10 or 100 (the suite's search rows: `npm run bench`).
 */
export const SHORT_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>([...LIGHT_OPERATIONS, 'search'])
