/**
 * @module The engine: the public face of the query pipeline (`execute/pipeline.ts`) and the record
 * lookups (`execute/operations.ts`), run where they never hold the caller's event loop.
 *
 *   createEngine ─ backend ─┬─ pool: worker threads, a connection each (a SQLite file; the default)
 *                           └─ inline: the caller's connection (in-memory SQLite, an open handle, PostgreSQL)
 *
 * Every method takes user input as `unknown`, returns a `Result`, and never throws for anything a
 * user can send; a thrown error means a bug or a broken database. Every argument of every call is
 * walked first on the caller's thread (`guardInput`: depth, size, JSON values only) and only a copy
 * that passed goes on to a worker thread: a Result method answers what fails that walk as its
 * issues (`limit_exceeded`, `invalid_type`), the record lookups and `access` reject with
 * `InvalidInputError` carrying the same issues. Every call has a time budget
 * (`timeoutMs`, per engine and per call) and can be cancelled with an `AbortSignal`; over budget the
 * statement is stopped and the call answers the issue `query_timeout`.
 *
 * @example
 * const engine = createEngine({ database: 'ventureql.db', timeoutMs: 5_000 })
 * const r = await engine.query({ dataset: 'investors', filter: { portfolio_size: { gte: 10 } } })
 * if (r.ok) console.log(r.value.meta.total_record_count, r.value.query_id)
 * else console.error(formatIssues(r.issues))
 * await engine.close()
 */
import { resolveLimits, type Limits } from './check/limits.js'
import { fail, issue, ok, type Issue, type Result } from './errors/issue.js'
import { previewValue } from './errors/format.js'
import {
  inlineBackend, QueryCancelledError, QueryTimeoutError,
  type Backend, type CallOptions,
} from './execute/backend.js'
import { createOperations, LIGHT_OPERATIONS, SHORT_OPERATIONS, type Authorization, type GuardableOperation, type OperationArgs, type OperationName, type OperationResult, type Operations } from './execute/operations.js'
import type { ExplainResult, ExportBatch, ExportBatchRequest, FacetOptions, FacetsResult, ListPage, ListPageWithoutTotal, PageWithoutTotal, QueryEnvelope, QueryPageWithoutTotal, RunOptions, StoredPaging, StoreOptions, StoreResult } from './execute/pipeline.js'
import { createWatchdog, makeInterruptible } from './execute/pool/interrupt.js'
import { admits, claimKeyCheck, DeferredKeyCheck, KeyRefusedError, type Guarded, type KeyCheckRequest } from './execute/key-check.js'
import { createWorkerPool, defaultPoolSize, type WorkerPool } from './execute/pool/pool.js'
import { withCallerLane, type CallerLaneStats } from './execute/pool/caller-lane.js'
import { TenantBusyError, type FairnessOptions } from './execute/fair-queue.js'
import { newCacheTally, type CacheTally } from './execute/context.js'
import type { PagingPolicy } from './execute/cursor.js'
import type { SearchRequest } from './records/search.js'
import { openDatabase, type SqliteVentureDb, type VentureDb } from './store/open.js'
import { DEFAULT_MEMORY_BUDGET_BYTES, planMemory, type MemoryPlan } from './store/memory-budget.js'
import { guardInput, InvalidInputError } from './parse/guard.js'
import { argumentIssues } from './execute/arguments.js'
import type { DatabaseStatus } from './store/status.js'

export type { ExplainResult, ExportBatch, ExportBatchRequest, FacetOptions, FacetsResult, ListPage, ListPageWithoutTotal, PageMeta, PageWithoutTotal, QueryEnvelope, QueryPageWithoutTotal, StoredPaging, StoreOptions, StoreOptions as StoreCallOptions, StoreResult } from './execute/pipeline.js'
export type { Facet, FacetValue } from './execute/facets.js'
export type { CallOptions } from './execute/backend.js'
export { EngineClosedError, QueryCancelledError, QueryTimeoutError } from './execute/backend.js'
export { TenantBusyError, type FairnessOptions } from './execute/fair-queue.js'
export type { Authorization } from './execute/operations.js'
export { DeferredKeyCheck, KeyRefusedError, type KeyCheckRequest } from './execute/key-check.js'
export { InvalidInputError } from './parse/guard.js'
export type { DatabaseStatus } from './store/status.js'

/** The default time budget of one call: generous for analytics, and still a bound. */
export const DEFAULT_TIMEOUT_MS = 30_000

export interface EngineOptions<D extends VentureDb = VentureDb> {
  /**
   * A SQLite file path (opened, and closed by `close()`), or an open database (left open): SQLite
   * (`openDatabase`) or PostgreSQL (`openPostgres`).
   */
  readonly database: string | D
  readonly limits?: Partial<Limits>
  /** Milliseconds one call may take (queueing included) before it is stopped: 30,000 by default; 0: no budget. */
  readonly timeoutMs?: number
  /**
   * Worker threads that run queries on a SQLite file, each with its own connection; one more is
   * kept for light lookups. Default: the number of cores for a file path, 0 for an open handle.
   * 0 runs every statement on the caller's thread (an in-memory database always does).
   * On PostgreSQL: how many calls other than light lookups (key checks, details) run at once; the
   * rest wait their turn within their budget. Default: the number of cores of this machine. A
   * request's statements use several pooled connections at once, and letting every request in
   * thrashed a 2-core database: similar companies at 1M fell from 9 to 1.9 requests/s going from
   * 5 to 30 concurrent clients (one run, `ventureql serve` on PostgreSQL under autocannon).
   */
  readonly workers?: number
  /**
   * Milliseconds a write (a quota count, storing a query) waits for another connection's or
   * process's write lock before it fails (503 over HTTP): 500 by default. Reads never wait for it
   * (WAL), and cache writes are skipped instead of waiting.
   */
  readonly writeWaitMs?: number
  /** How paging by id remembers sort keys, and which totals are written (execute/cursor.ts, DEFAULT_PAGING); tests make it small. */
  readonly paging?: Partial<PagingPolicy>
  /**
   * With a file path: start with an empty state file on purpose when the data file's is missing,
   * empty, another database's or corrupt (`OpenOptions.newState`); without it, opening throws
   * `StateFileError`. Every API key, quota count and stored query of the lost file is then gone.
   */
  readonly newState?: boolean
  /**
   * Per-tenant limits of heavy calls (those that are not light lookups), for calls made with a
   * `tenant` (`CallOptions`): calls running at once, calls waiting, worker time per minute. Beyond
   * the first a call waits in its tenant's own queue; beyond the others it fails at once with
   * `TenantBusyError` (issue `tenant_busy`). Worker pool and PostgreSQL only (inline SQLite runs one
   * call at a time on the caller's thread). grammar-docs/guides/fairness.md.
   */
  readonly fairness?: FairnessOptions
  /**
   * Bytes of memory the engine may hold over a SQLite file: 1 GiB by default, at least 64 MiB.
   * Half of it is shared out as the mapped size of the data file (`mmap_size`) of each connection,
   * the caller's and every worker's; the rest is left for heaps and caches
   * (`engine.execution.memory`; grammar-docs/guides/serving.md, "Memory"). An open handle keeps
   * its own mapping; the workers opened for it take their share. Ignored on PostgreSQL.
   */
  readonly memoryBudget?: number
}

/** Stored queries whose own `per_page` an engine remembers (`page()` without one), the least recently stored forgotten first. */
const REMEMBERED_PER_PAGES = 10_000

/** A write lock held longer than this is another process's bulk work (an import), not a request's write. */
export const DEFAULT_WRITE_WAIT_MS = 500

export interface Engine<D extends VentureDb = VentureDb> {
  /** Parses, checks, stores and runs a query (POST /queries): the envelope of its page. */
  query(request: unknown, options?: CallOptions & StoreOptions): Promise<Result<QueryEnvelope>>
  /**
   * Parses, checks and runs a query without storing it: listing endpoints build a request per call
   * and have no use for an id. Page boundaries and totals are still cached under the query's
   * content-addressed id, so walking the pages of a listing is a keyset seek too.
   */
  list(request: unknown, options?: CallOptions): Promise<Result<ListPage>>
  /** Parses, checks and stores a query without running it. */
  store(request: unknown, options?: CallOptions & StoreOptions): Promise<Result<StoreResult>>
  /**
   * A page of a stored query (GET /queries/:id). Without `per_page`, at the `per_page` the query
   * last ran or was stored with through this engine (so `page: 2` follows on from `query`'s first
   * page), else the default. `paging.fields` picks the records' fields (an array of names or one
   * comma-separated string; the primary key is always there).
   */
  page(queryId: unknown, paging?: StoredPaging, options?: CallOptions): Promise<Result<QueryEnvelope>>
  /**
   * A page of a stored query without its total: never counts (a first count can take seconds on a
   * broad filter; a cached one is still used to plan the page). For clients that page forward and
   * show no count: a page shorter than `per_page` is the last. Same paging rules as `page`.
   */
  pageWithoutTotal(queryId: unknown, paging?: StoredPaging, options?: CallOptions): Promise<Result<PageWithoutTotal>>
  /**
   * One batch of a stored query's records in sort order, for an export: `limit` (at most 10,000)
   * records after `after`, the `next` of the batch before (absent for the first). Each batch is
   * one keyset seek and one call, so a long export never holds a worker between batches and takes
   * its turn in the fair queue like any call; its budget is the call's (`timeoutMs`), per batch.
   */
  exportBatch(queryId: unknown, batch: ExportBatchRequest, options?: CallOptions): Promise<Result<ExportBatch>>
  /** The canonical form, id and SQL of a query, without storing or running it. */
  explain(request: unknown, options?: CallOptions): Promise<Result<ExplainResult>>
  /** The number of records a query selects. */
  count(request: unknown, options?: CallOptions): Promise<Result<number>>
  /**
   * As `list`, without counting: `meta` has `current_page` and `per_page` only. A page shorter
   * than `per_page` is the last.
   */
  listWithoutTotal(request: unknown, options?: CallOptions): Promise<Result<ListPageWithoutTotal>>
  /** As `query` (the query is stored under the same id), without counting; `meta` as `listWithoutTotal`'s. */
  queryWithoutTotal(request: unknown, options?: CallOptions & StoreOptions): Promise<Result<QueryPageWithoutTotal>>
  /**
   * Counts per value of each of `fields` (facetable fields of the request's dataset: enums, tags,
   * country, dates by year) over the records the request's filter selects, and their total. Each
   * facet lists its `limit` most frequent values (default 10, at most 100; ties by value), the sum
   * of the rest (`other`) and the records without a value (`missing`). The request's sort and
   * paging are ignored. Cached with the total under the query's id and the data version.
   */
  facets(request: unknown, fields: unknown, options?: CallOptions & FacetOptions): Promise<Result<FacetsResult>>
  /** `facets` of a stored query, by its id (GET /queries/:id?facets=). */
  storedFacets(queryId: unknown, fields: unknown, options?: CallOptions & FacetOptions): Promise<Result<FacetsResult>>
  /**
   * Record lookups of the detail endpoints and search, on either backend: on SQLite on the same
   * worker threads as queries, on PostgreSQL through the same connection pool.
   */
  readonly records: EngineRecords
  /** API keys and quotas as the reference server checks them (one atomic statement per counted request, either backend). */
  readonly access: EngineAccess
  /**
   * Refuses new calls, lets running ones finish for up to `graceMs` (default 5,000) and then stops
   * them, ends the workers and closes a database it opened.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>
  /**
   * Resolves once the worker threads have started and each connection has read the statistics the
   * cost prediction uses (a sample of the data, read again in the background when the data
   * changes; until then a call is predicted by the worst case). A call's time limit counts from the
   * call, starting threads included (about a second): a server awaits this before it takes
   * requests.
   */
  ready(): Promise<void>
  /** Counters since the engine was created, and the state of its connections: for metrics (`GET /metrics`). */
  stats(): EngineStats
  /**
   * The database's state for a readiness probe (`GET /readyz`): its data version and migrations
   * this code defines that it lacks (or it has that this code does not know). Rejects when the
   * database cannot be reached.
   */
  status(options?: CallOptions): Promise<DatabaseStatus>
  readonly limits: Limits
  /**
   * The caller's own connection: the one queries run on inline, or, with workers, the one that
   * applied the migrations (for administration: creating keys, imports). Statements on it run on
   * the caller's thread.
   */
  readonly database: D
  /** Where queries run: `pool` with this many worker threads, or `inline`; whether budgets interrupt statements. */
  readonly execution: {
    readonly kind: 'pool' | 'inline'; readonly workers: number; readonly interruptible: boolean; readonly timeoutMs: number
    /** How `EngineOptions.memoryBudget` is shared out (SQLite; undefined on PostgreSQL). */
    readonly memory: MemoryPlan | undefined
  }
  /**
   * The refusal a heavy call of this tenant would get now (`TenantBusyError`: its backlog is full or
   * its worker-time allowance used up), or undefined. No call is made: a host can answer 429 before
   * counting the request against a quota.
   */
  tenantRefusal(tenant: string): TenantBusyError | undefined
}

/**
 * Record lookups (spec 4.2-4.13). They throw `QueryTimeoutError` / `QueryCancelledError` over
 * budget or when cancelled; sub-resources of a company answer `undefined` when it does not exist.
 */
export interface EngineRecords {
  companyDetail(id: number, options?: CallOptions): Promise<OperationResult<'companyDetail'>>
  companyByDomain(domain: string, options?: CallOptions): Promise<OperationResult<'companyByDomain'>>
  companyExists(id: number, options?: CallOptions): Promise<boolean>
  companyStories(id: number, options?: CallOptions): Promise<OperationResult<'companyStories'>>
  similarCompanies(id: number, options?: CallOptions): Promise<OperationResult<'similarCompanies'>>
  companyPeople(id: number, options?: CallOptions): Promise<OperationResult<'companyPeople'>>
  companyTechStack(id: number, options?: CallOptions): Promise<OperationResult<'companyTechStack'>>
  contactEmail(companyId: number, fullName: string, options?: CallOptions): Promise<string | null>
  investorDetail(id: number, options?: CallOptions): Promise<OperationResult<'investorDetail'>>
  investorPortfolio(id: number, paging: { page: number; perPage: number }, options?: CallOptions): Promise<OperationResult<'investorPortfolio'>>
  /** `undefined` when the database has no search index. */
  search(request: SearchRequest, options?: CallOptions): Promise<OperationResult<'search'>>
  fundingExtras(ids: readonly number[], options?: CallOptions): Promise<OperationResult<'fundingExtras'>>
}

export interface EngineStats {
  /** Calls stopped at their time budget (answered `query_timeout`). */
  readonly queryTimeouts: number
  /**
   * Calls handed to the backend (a message to a worker thread, or a PostgreSQL operation; also one
   * it refuses at once, the engine closed or the call already cancelled): a key check carried by a
   * route's call (`keyCheck`) counts with that call, not apart.
   */
  readonly calls: number
  /**
   * Pages of queries and listings: totals found in the cache or counted; pages after the first
   * that started at a remembered boundary (a plain seek) or not (a skip or a checkpoint pass).
   */
  readonly cache: { readonly totalHits: number; readonly totalMisses: number; readonly boundaryHits: number; readonly boundaryMisses: number }
  /**
   * SQLite with workers: threads, how many run a call, calls waiting. PostgreSQL: the pool's open,
   * idle connections and callers waiting for one. Inline SQLite: just the kind.
   */
  readonly pool:
    | {
      readonly kind: 'workers'; readonly workers: number; readonly busy: number; readonly queued: number
      /** Threads ended and started again since the engine opened: a worker that died, or stayed silent after its call was given up on. */
      readonly replaced: number
      /** Calls posted to a worker thread since the engine opened (one message there and its answer back each). */
      readonly posted: number
      /** Light calls (key checks, detail lookups) answered on the caller's thread instead, on a connection of its own. */
      readonly onCallerThread: number
    }
    | { readonly kind: 'postgres'; readonly total: number; readonly idle: number; readonly waiting: number }
    | { readonly kind: 'inline' }
}

export interface EngineAccess {
  /**
   * Looks the key up by its hash and counts one request against its quota (unless `count` is
   * false). With `withDataVersion`, the answer carries the database's data version too (read in the
   * same call), for caching validators.
   */
  authorize(key: string, now: Date, count: boolean, options?: KeyCheckOptions): Promise<Authorization>
  /**
   * The same check, not run yet: give it as `keyCheck` in the options of the next engine call and it
   * runs first in that call, which then runs only if the key passes (else it fails with
   * `KeyRefusedError`). `outcome()` answers the check's result, running it on its own if no call
   * carried it. `options` serve that standalone run.
   */
  defer(key: string, now: Date, count: boolean, options?: KeyCheckOptions): DeferredKeyCheck
  /**
   * Counts `units` more requests against the key's quota at once, all or none: `quota.allowed` is
   * false (and nothing counted) when they do not fit in what is left of the period.
   */
  reserve(key: string, now: Date, units: number, options?: Omit<CallOptions, 'keyCheck'>): Promise<Authorization>
}

/** Options of a key check: a call's budget and signal (it carries no other check), and whether to read the data version too. */
export type KeyCheckOptions = Omit<CallOptions, 'keyCheck'> & { readonly withDataVersion?: boolean }

/** A file path opens SQLite (`Engine<SqliteVentureDb>`); an open database keeps its own type. */
export function createEngine(options: EngineOptions<never> & { readonly database: string }): Engine<SqliteVentureDb>
export function createEngine<D extends VentureDb>(options: EngineOptions<D>): Engine<D>
export function createEngine<D extends VentureDb>(options: EngineOptions<D>): Engine<D> {
  const limits = resolveLimits(options.limits)
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!(timeoutMs >= 0)) throw new RangeError(`createEngine: timeoutMs must be 0 (no budget) or a positive number of milliseconds, got ${String(timeoutMs)}`)
  const owned = typeof options.database === 'string'
  const writeWaitMs = options.writeWaitMs ?? DEFAULT_WRITE_WAIT_MS
  // Opening may wait longer for the lock than a request will: migrations run once, at start.
  const memory = typeof options.database !== 'string' && options.database.dialect !== 'sqlite'
    ? undefined
    : planMemory(options.memoryBudget ?? DEFAULT_MEMORY_BUDGET_BYTES, sqliteConnections(options.database, options.workers, owned))
  const vdb = (typeof options.database === 'string'
    ? openDatabase(options.database, { newState: options.newState ?? false, ...(memory ? { mmapBytes: memory.mmapBytesPerConnection } : {}) })
    : options.database) as D
  const backend = chooseBackend(vdb, limits, options.paging ?? {}, options.workers, owned, writeWaitMs, options.fairness, memory?.mmapBytesPerConnection)

  const counters = { queryTimeouts: 0, calls: 0, ...newCacheTally() }

  async function run<K extends OperationName>(op: K, rawArgs: OperationArgs<K>, call: CallOptions | undefined): Promise<OperationResult<K>> {
    // Before the key check is claimed: a refused call leaves a deferred check to run on its own, counted like any 400.
    const args = guardArguments(op, rawArgs)
    const backendCall = {
      timeoutMs: call?.timeoutMs ?? timeoutMs,
      signal: call?.signal,
      light: LIGHT_OPERATIONS.has(op),
      short: SHORT_OPERATIONS.has(op),
      tenant: call?.tenant,
    }
    const deferred = op === 'authorize' || op === 'authorized' ? undefined : call?.keyCheck
    const check = deferred === undefined ? undefined : claimKeyCheck(deferred)
    if (deferred !== undefined && check === undefined) {
      // Another call carries (or carried) the check: this one runs only if the key passed.
      const authorization = await deferred.outcome()
      if (!admits(authorization, deferred.request.count)) throw new KeyRefusedError(authorization)
    }
    counters.calls++
    try {
      if (check === undefined) return await (backend.call(op, args, backendCall) as Promise<OperationResult<K>>)
      // The key check rides with the operation (key-check.ts): one call instead of two.
      let guarded: Guarded<unknown>
      try {
        guarded = await backend.call('authorized', [check.request, op as GuardableOperation, args], backendCall)
      } catch (error) {
        check.fail(error)
        throw error
      }
      check.settle(guarded.authorization)
      if (!guarded.ran) throw new KeyRefusedError(guarded.authorization)
      return guarded.value as OperationResult<K>
    } catch (error) {
      if (error instanceof QueryTimeoutError) counters.queryTimeouts++
      throw error
    }
  }

  /** Adds a page's cache use (`cache`, reported by the pipeline) to the counters and leaves it out of the answer. */
  function tallied<R>(answer: R): R {
    const value = (answer as { ok?: boolean; value?: { cache?: CacheTally } }).value
    if (!(answer as { ok?: boolean }).ok || value?.cache === undefined) return answer
    const { cache, ...rest } = value
    counters.totalHits += cache.totalHits
    counters.totalMisses += cache.totalMisses
    counters.boundaryHits += cache.boundaryHits
    counters.boundaryMisses += cache.boundaryMisses
    return ok(Object.freeze(rest)) as R
  }

  /** The Result-returning methods answer a budget or a cancellation as their issue. */
  async function result<K extends 'query' | 'list' | 'store' | 'page' | 'pageWithoutTotal' | 'exportBatch' | 'explain' | 'count' | 'listWithoutTotal' | 'queryWithoutTotal' | 'facets' | 'storedFacets'>(op: K, args: OperationArgs<K>, call: CallOptions | undefined): Promise<OperationResult<K>> {
    try {
      return tallied(await run(op, args, call))
    } catch (error) {
      if (error instanceof QueryTimeoutError || error instanceof QueryCancelledError || error instanceof TenantBusyError) return fail([error.issue]) as OperationResult<K>
      if (error instanceof InvalidInputError) return fail([...error.issues]) as OperationResult<K>
      throw error
    }
  }

  /** `page()`'s own arguments come from callers in plain JavaScript too: a wrong shape is an issue, never a TypeError. */
  async function paged<K extends 'page' | 'pageWithoutTotal'>(op: K, queryId: unknown, paging: unknown, call: CallOptions | undefined): Promise<OperationResult<K>> {
    // Depth and size first, as for every other argument: the same issue wherever a deep value sits.
    let args: OperationArgs<K>
    try {
      args = guardArguments(op, [queryId, paging] as unknown as OperationArgs<K>)
    } catch (error) {
      if (error instanceof InvalidInputError) return fail([...error.issues]) as OperationResult<K>
      throw error
    }
    const copied = (args as readonly unknown[])[1]
    if (typeof copied !== 'object' || copied === null || Array.isArray(copied)) return fail([pagingShapeIssue(copied)]) as OperationResult<K>
    return result(op, args, call)
  }

  /**
   * Each argument as `guardInput` copies it, or `InvalidInputError` with the issues of all of them.
   * Arguments come from plain JavaScript too, whatever their declared types.
   */
  function guardArguments<K extends OperationName>(op: K, args: OperationArgs<K>): OperationArgs<K> {
    const issues: Issue[] = []
    const copies = (args as readonly unknown[]).map((arg, i) => {
      const guarded = guardInput(arg, limits, argumentName(op, i))
      if (guarded.ok) return guarded.value
      issues.push(...guarded.issues)
      return undefined
    })
    if (issues.length === 0) issues.push(...argumentIssues(op, copies))
    if (issues.length > 0) throw new InvalidInputError(issues)
    return copies as unknown as OperationArgs<K>
  }

  const facetOptions = (o: FacetOptions | undefined): FacetOptions => (o?.limit === undefined ? {} : { limit: o.limit })
  const storeOptions = (o: StoreOptions | undefined): StoreOptions => (o?.owner === undefined ? {} : { owner: o.owner })
  /** The call's budget, for the pipeline's cost prediction: a filter predicted to take longer is refused before it runs. */
  const runOptions = (o: CallOptions | undefined): RunOptions => ({ budgetMs: o?.timeoutMs ?? timeoutMs })

  /**
   * The `per_page` each stored query last ran (`query`) or was stored (`store`) with through this
   * engine, most recent last: `page()` without a `per_page` pages at it, so the pages after the first
   * follow on from it. Kept in memory (bounded) rather than with the query: the stored query is
   * shared by everyone who posts the same filter, each with a page size of their own.
   */
  const ownPerPage = new Map<string, number>()
  const rememberPerPage = (queryId: string, perPage: unknown): void => {
    if (typeof perPage !== 'number' || !Number.isSafeInteger(perPage) || perPage < 1) return
    ownPerPage.delete(queryId)
    ownPerPage.set(queryId, perPage)
    if (ownPerPage.size > REMEMBERED_PER_PAGES) ownPerPage.delete(ownPerPage.keys().next().value!)
  }
  const withOwnPerPage = (queryId: unknown, paging: unknown): unknown => {
    if (typeof queryId !== 'string' || typeof paging !== 'object' || paging === null || Array.isArray(paging)) return paging
    const own = (paging as { per_page?: unknown }).per_page === undefined ? ownPerPage.get(queryId) : undefined
    return own === undefined ? paging : { ...paging, per_page: own }
  }
  const requestedPerPage = (request: unknown): unknown => (typeof request === 'object' && request !== null ? (request as { per_page?: unknown }).per_page : undefined)

  const engine: Engine<D> = {
    limits,
    database: vdb,
    execution: Object.freeze({ kind: backend.kind, workers: backend.workers, interruptible: backend.interruptible, timeoutMs, memory }),
    query: async (request, o) => {
      const answered = await result('query', [request, storeOptions(o), runOptions(o)], o)
      if (answered.ok) rememberPerPage(answered.value.query_id, answered.value.meta.per_page)
      return answered
    },
    list: (request, o) => result('list', [request, runOptions(o)], o),
    store: async (request, o) => {
      const stored = await result('store', [request, storeOptions(o)], o)
      if (stored.ok) rememberPerPage(stored.value.query_id, requestedPerPage(request))
      return stored
    },
    page: (queryId, paging = {}, o) => paged('page', queryId, withOwnPerPage(queryId, paging), o),
    pageWithoutTotal: (queryId, paging = {}, o) => paged('pageWithoutTotal', queryId, withOwnPerPage(queryId, paging), o),
    exportBatch: (queryId, batch, o) => result('exportBatch', [queryId, batch], o),
    explain: (request, o) => result('explain', [request], o),
    count: (request, o) => result('count', [request, runOptions(o)], o),
    listWithoutTotal: (request, o) => result('listWithoutTotal', [request, runOptions(o)], o),
    queryWithoutTotal: (request, o) => result('queryWithoutTotal', [request, storeOptions(o), runOptions(o)], o),
    facets: (request, fields, o) => result('facets', [request, fields, facetOptions(o), runOptions(o)], o),
    storedFacets: (queryId, fields, o) => result('storedFacets', [queryId, fields, facetOptions(o)], o),
    records: Object.freeze<EngineRecords>({
      companyDetail: (id, o) => run('companyDetail', [id], o),
      companyByDomain: (domain, o) => run('companyByDomain', [domain], o),
      companyExists: (id, o) => run('companyExists', [id], o),
      companyStories: (id, o) => run('companyStories', [id], o),
      similarCompanies: (id, o) => run('similarCompanies', [id], o),
      companyPeople: (id, o) => run('companyPeople', [id], o),
      companyTechStack: (id, o) => run('companyTechStack', [id], o),
      contactEmail: (companyId, fullName, o) => run('contactEmail', [companyId, fullName], o),
      investorDetail: (id, o) => run('investorDetail', [id], o),
      investorPortfolio: (id, paging, o) => run('investorPortfolio', [id, paging], o),
      search: (request, o) => run('search', [request], o),
      fundingExtras: (ids, o) => run('fundingExtras', [ids], o),
    }),
    access: Object.freeze<EngineAccess>({
      authorize: (key, now, count, o) => run('authorize', [key, timeOf(now), count, o?.withDataVersion === true], o),
      reserve: (key, now, units, o) => run('reserveQuota', [key, timeOf(now), units], o),
      defer: (key, now, count, o) => new DeferredKeyCheck(
        // The check travels to a worker with the call that carries it: its key is guarded here, when it is made.
        guardedKeyCheck({ key, nowMs: timeOf(now), count, withDataVersion: o?.withDataVersion === true }, limits),
        (r) => run('authorize', [r.key, r.nowMs, r.count, r.withDataVersion], o),
      ),
    }),
    status: (o) => run('status', [], o),
    tenantRefusal: (tenant) => backend.refusal?.(tenant),
    stats: () => Object.freeze({
      queryTimeouts: counters.queryTimeouts,
      calls: counters.calls,
      cache: Object.freeze({ totalHits: counters.totalHits, totalMisses: counters.totalMisses, boundaryHits: counters.boundaryHits, boundaryMisses: counters.boundaryMisses }),
      pool: poolState(backend, vdb),
    }),
    // Inline, the connection's cost statistics and facet columns (`Pipeline.backgroundReads`); each worker reads its own before it is ready.
    ready: async () => {
      if ('whenReady' in backend) return (backend as WorkerPool).whenReady()
      await backend.call('backgroundReads', [], { timeoutMs: 0, light: true })
    },
    async close(closeOptions) {
      await backend.close(closeOptions?.graceMs)
      if (owned) await vdb.close()
    },
  }
  return Object.freeze(engine)
}

/**
 * A SQLite file gets the pool unless told `workers: 0`; an open handle runs inline unless told a
 * number of workers; an in-memory database and PostgreSQL always run inline (workers cannot share
 * the one, and the other's driver never blocks).
 */
function chooseBackend(vdb: VentureDb, limits: Limits, paging: Partial<PagingPolicy>, workers: number | undefined, owned: boolean, writeWaitMs: number, fairness: FairnessOptions | undefined, mmapBytes: number | undefined): Backend<Operations> {
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 0)) {
    throw new RangeError(`createEngine: workers must be a whole number (0 runs queries on the caller's thread), got ${String(workers)}`)
  }
  if (vdb.dialect === 'sqlite') {
    const file = vdb.sqlite.name
    const onDisk = file !== ':memory:' && file !== '' && !vdb.sqlite.memory
    const size = workers ?? (owned ? defaultPoolSize() : 0)
    if (onDisk && size > 0) {
      const pool = createWorkerPool({ file, size, readonly: vdb.readonly, limits, paging, busyTimeoutMs: writeWaitMs, fairness, ...(mmapBytes !== undefined ? { mmapBytes } : {}) })
      // Light calls (key checks, detail lookups) on a connection of this thread: pool/caller-lane.ts.
      return withCallerLane(pool, { file, readonly: vdb.readonly, limits, paging, mmapBytes })
    }
    // Inline on SQLite: the caller's thread runs each statement; the watchdog interrupts it at the deadline.
    if (owned) vdb.sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(writeWaitMs))}`)
    const interruptible = makeInterruptible(vdb.sqlite)
    return inlineBackend(createOperations(vdb, limits, paging), { interruptible, watchdog: interruptible ? createWatchdog() : undefined, synchronous: true })
  }
  return inlineBackend(createOperations(vdb, limits, paging), {
    cancellable: (work) => vdb.cancellable(work),
    heavyLimit: { slots: workers !== undefined && workers > 0 ? workers : defaultPoolSize(), light: LIGHT_OPERATIONS, fairness },
  })
}

/**
 * Connections a SQLite engine opens to its file: the caller's (or the given handle's), plus each
 * worker of the pool, the reserved worker for light lookups and the caller's thread's connection
 * for light calls (`chooseBackend`'s choice of pool size; pool/caller-lane.ts).
 */
function sqliteConnections(database: string | VentureDb, workers: number | undefined, owned: boolean): number {
  const file = typeof database === 'string' ? database : database.dialect === 'sqlite' ? database.sqlite.name : ''
  const inMemory = file === ':memory:' || file === '' || (typeof database !== 'string' && database.dialect === 'sqlite' && database.sqlite.memory)
  const size = inMemory ? 0 : (workers ?? (owned ? defaultPoolSize() : 0))
  return 1 + (size > 0 ? size + 2 : 0)
}

const REQUEST_METHODS: ReadonlySet<string> = new Set(['query', 'list', 'store', 'explain', 'count', 'listWithoutTotal', 'queryWithoutTotal', 'facets'])

/** How messages name an engine call's argument. */
function argumentName(op: string, index: number): string {
  if (index === 0 && REQUEST_METHODS.has(op)) return 'The request'
  if (op === 'facets' || op === 'storedFacets') return index === 0 ? 'The query id' : index === 1 ? 'The facet fields' : 'The facet options'
  if (op === 'page' || op === 'pageWithoutTotal') return index === 0 ? 'The query id' : 'The paging argument'
  return `Argument ${index + 1} of ${op}()`
}

/** `access.defer`'s check, refused (`InvalidInputError`, thrown: `defer` answers at once) unless it is safe to send to a worker. */
function guardedKeyCheck(request: KeyCheckRequest, limits: Limits): KeyCheckRequest {
  const guarded = guardInput(request, limits, 'The key check')
  if (!guarded.ok) throw new InvalidInputError(guarded.issues)
  const copy = guarded.value as KeyCheckRequest
  const issues = argumentIssues('authorize', [copy.key, copy.nowMs, copy.count])
  if (issues.length > 0) throw new InvalidInputError(issues)
  return copy
}

/** `access`'s `now` as milliseconds; anything but a Date is passed on for `argumentIssues` to name. */
const timeOf = (now: unknown): number => (now instanceof Date ? now.getTime() : now) as number

function pagingShapeIssue(paging: unknown): Issue {
  return issue({
    code: 'invalid_page',
    path: '',
    message: `The paging argument of page() is an object {page?, per_page?} (or nothing); got ${previewValue(paging)}.`,
    expected: 'an object {page?, per_page?}',
    got: previewValue(paging),
  })
}

function poolState(backend: Backend<Operations>, vdb: VentureDb): EngineStats['pool'] {
  if (vdb.dialect === 'postgres') return Object.freeze({ kind: 'postgres' as const, ...vdb.poolState() })
  const stats = (backend as Partial<Pick<WorkerPool, 'stats'>>).stats
  if (backend.kind !== 'pool' || typeof stats !== 'function') return Object.freeze({ kind: 'inline' as const })
  const { workers, busy, queued, replaced, posted, onCallerThread } = stats.call(backend) as CallerLaneStats
  return Object.freeze({ kind: 'workers' as const, workers, busy, queued, replaced, posted, onCallerThread: onCallerThread ?? 0 })
}
