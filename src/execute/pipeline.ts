/**
 * @module The query pipeline on one connection: the whole path of a structured query on one
 * screen. Every method takes user input as `unknown`, returns a `Result`, and never throws for
 * anything a user can send; a thrown error means a bug or a broken database.
 *
 *   request ─ parse ─ check ─ canonical form + id ─ store ─ compile ─ page (cursor) + total ─ envelope
 *
 * It runs wherever the connection lives: in the caller's thread for PostgreSQL and in-memory
 * SQLite, in each worker thread of the pool for a SQLite file (`execute/pool/`). `createEngine`
 * (src/engine.ts) is the public face that picks where.
 */
import type { QueryNode } from '../ast/nodes.js'
import type { CheckedQuery } from '../check/checked.js'
import { checkQuery } from '../check/index.js'
import {
  estimateCost, expectedWork, EXPECTED_TIME_MODEL, FAN_OUT, predictCost, TIME_MODEL, workOnData,
  type CostEstimate, type DataStatistics, type PredictedCost,
} from '../check/cost.js'
import { timeCostIssue } from '../check/rules/cost-within-limit.js'
import type { Limits } from '../check/limits.js'
import { selectFields, type FieldSelection } from '../check/fields.js'
import { resolveDataset } from '../catalog/index.js'
import { DIALECTS } from '../compile/index.js'
import { planQuery, type QueryPlan } from '../compile/plan.js'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import { parseQuery, parseQueryParts } from '../parse/index.js'
import { dataVersion, dataVersionSync, type VentureDb } from '../store/open.js'
import { latestRowCount, rememberedRowCounts } from '../store/row-counts.js'
import { newCacheTally, type CacheTally, type ExecContext } from './context.js'
import { memoKey, PreparedMemo } from './prepared-memo.js'
import { checkFacets } from '../check/facets.js'
import { cachedFacets, type Facet } from './facets.js'

export type { Facet } from './facets.js'
import { cachedTotal, datasetRows, knownTotal, probedMatches, rememberCountedTotal, rememberedTotal, versionAndKnownTotal, versionTotalAndStored, type VersionAndTotal } from './counts.js'
import { DEFAULT_PAGING, pageByCursor, type PagingPolicy } from './cursor.js'
import { fetchPage, walkedKeys, type KeyRow } from './run.js'
import type { ResultRecord } from './records.js'
import { readStatistics } from './statistics.js'
import { facetColumnsMissing, readFacetColumns } from './facet-columns.js'
import { unmapped } from './unmapped.js'
import { backgroundGate } from './background.js'
import {
  canonicalQuery, loadStoredQuery, queryIdOf, QUERY_VERSION, storageIssues, storeOwner, storeQuery,
  type CanonicalFilter, type CanonicalQuery,
} from './stored-queries.js'

/** Paging meta (spec 2.1). */
export interface PageMeta {
  readonly total_record_count: number
  readonly total_pages: number
  readonly current_page: number
  readonly per_page: number
}

/** The query result envelope (spec 2.14). */
export interface QueryEnvelope {
  readonly query: {
    readonly query_id: string
    readonly dataset: string
    readonly filter: CanonicalFilter
    readonly sort: CanonicalQuery['sort']
    readonly query_version: number
  }
  readonly results: readonly ResultRecord[]
  readonly meta: PageMeta
  readonly query_id: string
  /** The filter's cost on this data (`check/cost.ts`): units per record, records, predicted ms. */
  readonly cost: PredictedCost
  /** This call's cache use, for the engine's counters (`engine.stats()`); the engine removes it from what it returns. */
  readonly cache?: CacheTally
}

/**
 * A page of a stored query without its total (`Engine.pageWithoutTotal`): for clients that page
 * forward and never show a count. A page shorter than `per_page` is the last.
 */
export interface PageWithoutTotal {
  readonly query: QueryEnvelope['query']
  readonly results: readonly ResultRecord[]
  readonly meta: { readonly current_page: number; readonly per_page: number }
  readonly query_id: string
}

/** A page of a query that is run but not stored (the listing endpoints GET /companies, GET /fundings). */
export interface ListPage {
  readonly dataset: string
  readonly results: readonly ResultRecord[]
  readonly meta: PageMeta
  /** As `QueryEnvelope.cost`. */
  readonly cost: PredictedCost
  /** As `QueryEnvelope.cache`. */
  readonly cache?: CacheTally
}

/** A listing's page without its total (`Engine.listWithoutTotal`): as `ListPage`, its meta without `total_record_count` and `total_pages`. */
export interface ListPageWithoutTotal {
  readonly dataset: string
  readonly results: readonly ResultRecord[]
  readonly meta: PageWithoutTotal['meta']
  /** As `QueryEnvelope.cost`. */
  readonly cost: PredictedCost
}

/** A stored and run query's page without its total (`Engine.queryWithoutTotal`). */
export interface QueryPageWithoutTotal extends PageWithoutTotal {
  /** As `QueryEnvelope.cost`. */
  readonly cost: PredictedCost
}

/** What `facets` and `storedFacets` take besides the request: values listed per facet (1-100, default 10). */
export interface FacetOptions {
  readonly limit?: unknown
}

/** Facet counts of a query (`Engine.facets`): per field, its top values by count, the rest and the records without a value. */
export interface FacetsResult {
  readonly dataset: string
  /** The content-addressed id of the query's filter and sort: the key facets and totals are cached under. */
  readonly query_id: string
  /** The number of records the filter selects. */
  readonly total: number
  /** By field name, in the order the fields were named. */
  readonly facets: Readonly<Record<string, Facet>>
}

export interface StoreResult {
  readonly query_id: string
  readonly query_version: number
  readonly canonical: CanonicalQuery
}

export interface ExplainResult extends StoreResult {
  /** The first page's keys query (later pages add a keyset seek; see grammar-docs, "Paging"). */
  readonly sql: string
  readonly parameters: readonly unknown[]
  readonly count_sql: string
  readonly count_parameters: readonly unknown[]
  /** As `QueryEnvelope.cost`: what `query` and `list` would be held to. */
  readonly cost: PredictedCost
}

/** Who is storing (POST /queries): an opaque owner id, e.g. the API key's; see grammar-docs, "Stored queries". */
export interface StoreOptions {
  /** A non-empty string of at most 200 characters: storage bounds are kept per owner. */
  readonly owner?: unknown
}

/**
 * What the engine passes along with a call that runs a filter: the call's time budget (0 or
 * absent: none). A filter predicted to take longer (`check/cost.ts`) is refused before it runs.
 */
export interface RunOptions {
  readonly budgetMs?: number
}

/** The engine's query methods on one connection (see `Engine` in src/engine.ts for their contracts). */
export interface Pipeline {
  query(request: unknown, options?: StoreOptions, run?: RunOptions): Promise<Result<QueryEnvelope>>
  list(request: unknown, run?: RunOptions): Promise<Result<ListPage>>
  store(request: unknown, options?: StoreOptions): Promise<Result<StoreResult>>
  page(queryId: unknown, paging?: StoredPaging): Promise<Result<QueryEnvelope>>
  pageWithoutTotal(queryId: unknown, paging?: StoredPaging): Promise<Result<PageWithoutTotal>>
  exportBatch(queryId: unknown, batch: ExportBatchRequest): Promise<Result<ExportBatch>>
  explain(request: unknown): Promise<Result<ExplainResult>>
  count(request: unknown, run?: RunOptions): Promise<Result<number>>
  listWithoutTotal(request: unknown, run?: RunOptions): Promise<Result<ListPageWithoutTotal>>
  queryWithoutTotal(request: unknown, options?: StoreOptions, run?: RunOptions): Promise<Result<QueryPageWithoutTotal>>
  facets(request: unknown, fields: unknown, options?: FacetOptions, run?: RunOptions): Promise<Result<FacetsResult>>
  storedFacets(queryId: unknown, fields: unknown, options?: FacetOptions): Promise<Result<FacetsResult>>
  /**
   * Resolves once the statistics of the cost prediction and the facet columns wanted are read for
   * the current data version (or their read failed), starting the reads if none is under way:
   * what a worker waits for before it takes calls, and `Engine.ready()` inline.
   */
  backgroundReads(): Promise<void>
}

/**
 * The answer options of a stored query's page: its number and size, and the fields of its records
 * (an array of names or one comma-separated string; `check/fields.ts`).
 */
export interface StoredPaging {
  readonly page?: unknown
  readonly per_page?: unknown
  readonly fields?: unknown
}

/** One batch of a stored query's export (`Engine.exportBatch`): `limit` records after `after`, in sort order. */
export interface ExportBatchRequest {
  /** The `next` of the previous batch; absent for the first. */
  readonly after?: readonly (string | number | boolean | null)[] | undefined
  readonly limit: number
  readonly fields?: unknown
}

export interface ExportBatch {
  readonly dataset: string
  readonly records: readonly ResultRecord[]
  /** The keyset position after this batch's last record, for the next batch; absent after the last one. */
  readonly next?: readonly (string | number | boolean | null)[]
}

interface Prepared {
  readonly checked: CheckedQuery
  readonly canonical: CanonicalQuery
  readonly queryId: string
}

export function createPipeline(vdb: VentureDb, limits: Limits, pagingPolicy: Partial<PagingPolicy> = {}): Pipeline {
  const dialect = DIALECTS[vdb.dialect]
  const paging: PagingPolicy = Object.freeze({ ...DEFAULT_PAGING, ...pagingPolicy })
  // Cache writes go through the raw SQLite handle so they never wait for the lock (execute/cache-write.ts).
  const writer = { db: vdb.db, readonly: vdb.readonly, persistTotalsFromMs: paging.persistTotalsFromMs, ...(vdb.dialect === 'sqlite' ? { sqlite: vdb.sqlite } : {}) }
  /** The data version the last statement read (the cost's memo keys by it on PostgreSQL). */
  let seenVersion: number | undefined
  const context = async (): Promise<ExecContext> => ({ ...writer, dialect, dataVersion: (seenVersion = await dataVersion(vdb)) })
  /**
   * The context, and the query's total cached at its data version when the plan has a filter: both
   * read in one statement (`versionAndKnownTotal`; one round trip instead of two on PostgreSQL).
   * A match-all total is never cached (counts.ts), so only the version is read for one.
   */
  const contextAndTotal = async (plan: QueryPlan, queryId: string, read?: VersionAndTotal): Promise<{ ctx: ExecContext; lookedUp?: VersionAndTotal }> => {
    // Already read with the stored query (`storeToRun`).
    if (read) return { ctx: { ...writer, dialect, dataVersion: read.dataVersion }, ...(plan.where === undefined ? {} : { lookedUp: read }) }
    if (plan.where === undefined) return { ctx: await context() }
    const lookedUp = await versionAndKnownTotal({ ...writer, dialect }, queryId)
    seenVersion = lookedUp.dataVersion
    return { ctx: { ...writer, dialect, dataVersion: lookedUp.dataVersion }, lookedUp }
  }

  // Successes of prepare() and recheck(), by request text, and each checked query's plan
  // (prepared-memo.ts): a repeated request skips parse, check, hashing and planning.
  const preparedMemo = new PreparedMemo<Result<Prepared>>()
  const recheckedMemo = new PreparedMemo<Result<CheckedQuery>>()
  const plans = new WeakMap<CheckedQuery, QueryPlan>()
  function planOf(checked: CheckedQuery): QueryPlan {
    let plan = plans.get(checked)
    if (!plan) plans.set(checked, (plan = planQuery(checked, dialect)))
    return plan
  }

  /**
   * The cost of a checked filter on this connection's data. It is computed here, where the pipeline
   * runs (a worker of the pool for a SQLite file), because only here is the data known: the static
   * estimate is a walk of the checked tree, the prediction the same walk with the selectivities and
   * row counts of the data (`statistics.ts`). Both are kept per checked query and data version, so
   * a repeated request pays a map lookup. SQLite reads the version (one prepared statement);
   * PostgreSQL takes the one its last request read, so after another process changes the data one
   * request may be predicted on the previous version's figures.
   *
   * The statistics are read in the background, never on a request's path: when the pipeline is
   * created (a worker right after it opens its connection) and when a request first sees a new data
   * version. Until they are read, a request is predicted by the worst case on the data's row counts
   * (`workOnData`, `TIME_MODEL`), and that prediction is not kept.
   */
  // What a background read awaits before each statement: a turn of the event loop, and no call in
  // flight on the connection (background.ts).
  const gate = backgroundGate(vdb.db)
  const nextTurn = (): Promise<void> => gate.turn()
  const costs = new WeakMap<CheckedQuery, { version: number; value: { estimate: CostEstimate; predicted: PredictedCost } }>()
  let statistics: { version: number; value: DataStatistics } | undefined
  let reading: { version: number; done: Promise<void> } | undefined
  function readInBackground(version: number): void {
    if (statistics?.version === version || reading?.version === version) return
    const done = readStatistics({ ...writer, dialect, dataVersion: version }, nextTurn)
      // A failed read (a closed connection) leaves the worst case until a request starts another.
      .then((value) => { statistics = { version, value } }, () => {})
      .finally(() => { if (reading?.done === done) reading = undefined })
    reading = { version, done }
  }
  const started = vdb.dialect === 'sqlite'
    ? readInBackground(dataVersionSync(vdb.sqlite))
    : dataVersion(vdb).then(readInBackground, () => {})

  /**
   * The facet columns (`facet-columns.ts`) are read in the background too, never on a request's
   * path: by `backgroundReads` (a worker before it takes calls, `Engine.ready()` inline) and when a
   * facets request finds columns missing at its data version (a new version, or fields not asked
   * for before). Until they are read, facets are counted by the `GROUP BY`s.
   */
  let readingColumns: { version: number; done: Promise<void> } | undefined
  function readColumnsInBackground(version: number): void {
    if (readingColumns?.version === version || !facetColumnsMissing(vdb.db, version)) return
    const done = readFacetColumns({ ...writer, dialect, dataVersion: version }, nextTurn)
      // A failed read (a closed connection) leaves the columns missing until a request starts another.
      .catch(() => {})
      .finally(() => { if (readingColumns?.done === done) readingColumns = undefined })
    readingColumns = { version, done }
  }

  const backgroundReads = async (): Promise<void> => {
    await started
    try {
      const version = vdb.dialect === 'sqlite' ? dataVersionSync(vdb.sqlite) : await dataVersion(vdb)
      readInBackground(version)
      readColumnsInBackground(version)
    } catch {
      return // A connection that cannot read its version fails its calls on its own.
    }
    await Promise.all([reading?.done, readingColumns?.done])
  }

  async function costOf(checked: CheckedQuery, knownVersion?: number): Promise<{ estimate: CostEstimate; predicted: PredictedCost }> {
    const version = knownVersion ?? (vdb.dialect === 'sqlite' ? dataVersionSync(vdb.sqlite) : seenVersion ?? (seenVersion = await dataVersion(vdb)))
    const known = costs.get(checked)
    if (known && known.version === version) return known.value
    const estimate = estimateCost(checked.filter)
    if (statistics?.version !== version) {
      readInBackground(version)
      return { estimate, predicted: await worstCase(checked, estimate, version) }
    }
    const stats = statistics.value
    const work = expectedWork(checked.filter, checked.dataset.name, stats)
    const predicted = predictCost(estimate.total, work, stats.rows(checked.dataset.table), vdb.dialect, checked.dataset.name, EXPECTED_TIME_MODEL[vdb.dialect])
    const value = { estimate, predicted }
    costs.set(checked, { version, value })
    return value
  }

  /**
   * The worst case on the data's row counts: the queried dataset's (counted once per data version,
   * as plan steering counts it) and the others as last counted on this connection; a table never
   * counted here holds `FAN_OUT` rows per record of the queried dataset, the static estimate's shape.
   */
  async function worstCase(checked: CheckedQuery, estimate: CostEstimate, version: number): Promise<PredictedCost> {
    const root = await datasetRows({ ...writer, dialect, dataVersion: version }, checked.dataset)
    const counted = rememberedRowCounts(vdb.db)
    const rows = (table: string) => counted.get(`${version}\u0000${table}`) ?? latestRowCount(vdb.db, table) ?? FAN_OUT * root
    const work = workOnData(checked.filter, checked.dataset.name, rows)
    return predictCost(estimate.total, work, root, vdb.dialect, checked.dataset.name, TIME_MODEL[vdb.dialect])
  }

  /** The cost, or `cost_exceeded` when the prediction is over the call's budget. */
  async function costWithinBudget(checked: CheckedQuery, run: RunOptions | undefined, knownVersion?: number): Promise<Result<PredictedCost>> {
    const { estimate, predicted } = await costOf(checked, knownVersion)
    const budget = run?.budgetMs
    // Opt-in (`refuseOverBudget`): the prediction knows the data, not the machine's load, and on
    // corpora it was not fitted on 84-98% of the requests it accepts finish within 10 s
    // (`npx tsx bench/cost-calibration.ts`, grammar-docs/language.md, "Predicted time").
    // `maxCost: Infinity` turns the cost checks off, the static one and this one.
    const enforced = limits.refuseOverBudget && Number.isFinite(limits.maxCost) && budget !== undefined && budget > 0 && Number.isFinite(budget)
    if (enforced && predicted.ms > budget) {
      return fail([timeCostIssue(estimate, predicted, budget, checked.dataset.name)])
    }
    return ok(predicted)
  }

  function prepare(request: unknown): Result<Prepared> {
    const key = memoKey(request)
    const known = key === undefined ? undefined : preparedMemo.get(key)
    if (known) return known
    const checked = parseAndCheck(request, limits)
    if (!checked.ok) return checked
    const canonical = canonicalQuery(checked.value)
    const prepared = ok({ checked: checked.value, canonical, queryId: queryIdOf(canonical) })
    if (key !== undefined) preparedMemo.set(key, prepared)
    return prepared
  }

  /**
   * The structural limits for re-checking a stored query. Its canonical form spells `ne`, `nin` and
   * `has_none` as `not(...)`, one level and one node more than the request that was accepted, so
   * the same limits would refuse a query they once admitted and every page request would fail.
   */
  const recheckLimits: Limits = Object.freeze({ ...limits, maxDepth: limits.maxDepth + 1, maxNodes: limits.maxNodes * 2 })

  /** Parses and checks a stored canonical query under the current catalog. */
  function recheck(canonical: CanonicalQuery): Result<CheckedQuery> {
    const request = { dataset: canonical.dataset, filter: canonical.filter, sort: canonical.sort }
    const key = memoKey(request)
    const known = key === undefined ? undefined : recheckedMemo.get(key)
    if (known) return known
    const parsed = parseQuery(request, recheckLimits)
    const checked = parsed.ok ? checkQuery(parsed.value as QueryNode, recheckLimits) : parsed
    if (checked.ok && key !== undefined) recheckedMemo.set(key, checked)
    return checked
  }

  async function envelope(plan: QueryPlan, canonical: CanonicalQuery, queryId: string, version: number, page: number, perPage: number, cost: PredictedCost, selection?: FieldSelection, preRead?: VersionAndTotal): Promise<QueryEnvelope> {
    const tally = newCacheTally()
    const read = await contextAndTotal(plan, queryId, preRead)
    const ctx: ExecContext = { ...read.ctx, tally }
    const total = await cachedTotal(ctx, plan, queryId, read.lookedUp)
    // Past the last page there is nothing to seek to: answer without walking.
    const fetched = (page - 1) * perPage >= total ? { records: [] } : await pageByCursor(ctx, plan, { queryId, page, perPage, matches: total, selection }, paging)
    return Object.freeze({
      query: Object.freeze({ query_id: queryId, dataset: canonical.dataset, filter: canonical.filter, sort: canonical.sort, query_version: version }),
      results: Object.freeze([...fetched.records]),
      meta: Object.freeze({ total_record_count: total, total_pages: Math.ceil(total / perPage), current_page: page, per_page: perPage }),
      query_id: queryId,
      cost,
      cache: tally,
    })
  }

  /** A page without counting (pageWithoutTotal, listWithoutTotal, queryWithoutTotal): a total cached earlier still steers the keys query's plan (run.ts). */
  async function pageOnly(plan: QueryPlan, canonical: CanonicalQuery, id: string, version: number, page: number, perPage: number, selection?: FieldSelection, preRead?: VersionAndTotal): Promise<PageWithoutTotal> {
    const { ctx, lookedUp } = await contextAndTotal(plan, id, preRead)
    const known = plan.where === undefined ? await knownTotal(ctx, id) : lookedUp!.total ?? rememberedTotal(ctx, id)
    // Without a total, a bounded probe of the matches still lets the keys query walk the sort index.
    // On page 1, a probe that walks the sort index reads the page's keys as it goes: when it finds
    // them all, they are the page (one walk instead of a probe and then the page's keys query).
    let firstKeys: KeyRow[] | undefined
    const walk = page === 1 ? async (reads: number) => (firstKeys = await walkedKeys(ctx, plan, reads, perPage)).length : undefined
    const matches = known === undefined && plan.canWalkSortIndex ? await probedMatches(ctx, plan, id, page * perPage, walk) : known
    const fetched = await pageByCursor(ctx, plan, { queryId: id, page, perPage, matches, selection, firstKeys }, paging)
    return Object.freeze({
      query: Object.freeze({ query_id: id, dataset: canonical.dataset, filter: canonical.filter, sort: canonical.sort, query_version: version }),
      results: Object.freeze([...fetched.records]),
      meta: Object.freeze({ current_page: page, per_page: perPage }),
      query_id: id,
    })
  }

  /** The total and the facets of a checked query, both cached under its id and the data version. */
  async function facetsOf(checked: CheckedQuery, canonical: CanonicalQuery, queryId: string, fields: unknown, options: FacetOptions, paths?: { fields: string; limit: string }): Promise<Result<FacetsResult>> {
    const facets = checkFacets(checked.dataset, fields, options.limit, paths)
    if (!facets.ok) return facets
    const plan = planOf(checked)
    const { ctx, lookedUp } = await contextAndTotal(plan, queryId)
    // Facets counted in memory count the total in the same pass: then it is not counted in SQL too.
    const counted = await cachedFacets(ctx, checked, queryId, facets.value.fields, facets.value.limit)
    readColumnsInBackground(ctx.dataVersion)
    const total = counted.total !== undefined && lookedUp?.total === undefined && rememberedTotal(ctx, queryId) === undefined
      ? rememberCountedTotal(ctx, queryId, counted.total)
      : await cachedTotal(ctx, plan, queryId, lookedUp)
    return ok(Object.freeze({ dataset: canonical.dataset, query_id: queryId, total, facets: counted.facets }))
  }

  /** A stored query's plan and the page asked for, validated (page() and pageWithoutTotal()). */
  async function storedPage(queryId: unknown, rawPaging: StoredPaging): Promise<Result<{
    plan: QueryPlan; checked: CheckedQuery; canonical: CanonicalQuery; id: string; version: number; page: number; perPage: number
    selection: FieldSelection | undefined
    /** The data version and cached total, read with the stored query. */
    read: VersionAndTotal | undefined
  }>> {
    const paging = { page: fromDigits(rawPaging.page), per_page: fromDigits(rawPaging.per_page) }
    const issues = pagingIssues(queryId, paging, limits)
    if (issues.length > 0) return fail(issues)
    // The stored query's row with the data version and cached total: one round trip on PostgreSQL.
    const read = (queryId as string).includes('\u0000') ? undefined : await versionTotalAndStored({ ...writer, dialect }, queryId as string)
    if (read) seenVersion = read.dataVersion
    const loaded = await loadStoredQuery(vdb.db, queryId as string, recheck, { writer, ...(read ? { row: read.stored } : {}) })
    if (!loaded.ok) return loaded
    const { checked, canonical, query_version } = loaded.value
    const selection = selectFields(checked.dataset, rawPaging.fields)
    if (!selection.ok) return selection
    return ok({
      selection: selection.value,
      read,
      plan: planOf(checked),
      checked,
      canonical,
      id: loaded.value.query_id,
      version: query_version,
      page: (paging.page as number | undefined) ?? 1,
      perPage: (paging.per_page as number | undefined) ?? limits.defaultPerPage,
    })
  }

  /** A request less its `fields` answer option, prepared, with the selection resolved: every issue of both at once. */
  function prepareWithFields(fullRequest: unknown): Result<Prepared & { readonly selection: FieldSelection | undefined }> {
    const { request, fields } = splitFields(fullRequest)
    const prepared = prepare(request)
    if (!prepared.ok) return withFieldIssues(prepared, request, fields)
    const selection = selectFields(prepared.value.checked.dataset, fields)
    if (!selection.ok) return selection
    return ok({ ...prepared.value, selection: selection.value })
  }

  /**
   * The storing half of `query` and `queryWithoutTotal`: its owner and size checked, then its cost
   * (refused before it is stored: a query that would not finish within the budget is not kept
   * either), then stored. A read-only database cannot remember the query: it runs under its id all
   * the same, and page() finds it only if it was stored before the file became read-only.
   */
  async function storeToRun(prepared: Prepared, storeOptions: StoreOptions, run: RunOptions | undefined): Promise<Result<{ stored: { query_id: string; query_version: number }; cost: PredictedCost; read?: VersionAndTotal }>> {
    const owner = storeOwner(storeOptions.owner)
    if (!owner.ok) return owner
    const tooLarge = storageIssues(prepared.canonical, limits)
    if (tooLarge.length > 0) return fail(tooLarge)
    if (vdb.readonly) {
      const cost = await costWithinBudget(prepared.checked, run)
      return cost.ok ? ok({ stored: { query_id: prepared.queryId, query_version: QUERY_VERSION }, cost: cost.value }) : cost
    }
    // The stored query's row, the data version and the cached total in one statement, for the
    // store and the page after it (one round trip on PostgreSQL instead of two).
    const read = await versionTotalAndStored({ ...writer, dialect }, prepared.queryId)
    seenVersion = read.dataVersion
    const cost = await costWithinBudget(prepared.checked, run)
    if (!cost.ok) return cost
    const stored = await storeQuery(vdb.db, prepared.canonical, { owner: owner.value, limits, writer, existing: read.stored })
    return ok({ stored, cost: cost.value, read })
  }

  /** `query` and `queryWithoutTotal`'s first half: the request prepared (fields checked), then stored within its budget. */
  async function preparedAndStored(fullRequest: unknown, storeOptions: StoreOptions, run: RunOptions | undefined) {
    const prepared = prepareWithFields(fullRequest)
    if (!prepared.ok) return prepared
    const kept = await storeToRun(prepared.value, storeOptions, run)
    return kept.ok ? ok({ ...prepared.value, ...kept.value }) : kept
  }

  const pipeline: Pipeline = {
    async list(fullRequest, run) {
      const prepared = prepareWithFields(fullRequest)
      if (!prepared.ok) return prepared
      const { checked, canonical, queryId, selection } = prepared.value
      const cost = await costWithinBudget(checked, run)
      if (!cost.ok) return cost
      const plan = planOf(checked)
      const { results, meta, cache } = await envelope(plan, canonical, queryId, QUERY_VERSION, checked.page, checked.perPage, cost.value, selection)
      return ok(Object.freeze({ dataset: canonical.dataset, results, meta, cost: cost.value, cache }))
    },

    async query(fullRequest, storeOptions = {}, run) {
      const kept = await preparedAndStored(fullRequest, storeOptions, run)
      if (!kept.ok) return kept
      const { checked, canonical, selection, stored, cost, read } = kept.value
      return ok(await envelope(planOf(checked), canonical, stored.query_id, stored.query_version, checked.page, checked.perPage, cost, selection, read))
    },

    async store(fullRequest, storeOptions = {}) {
      // `fields` is an answer option: accepted (and checked) here too, so any query request can be stored as it is.
      const prepared = prepareWithFields(fullRequest)
      if (!prepared.ok) return prepared
      const owner = storeOwner(storeOptions.owner)
      if (!owner.ok) return owner
      const tooLarge = storageIssues(prepared.value.canonical, limits)
      if (tooLarge.length > 0) return fail(tooLarge)
      return ok(await storeQuery(vdb.db, prepared.value.canonical, { owner: owner.value, limits, writer }))
    },

    async page(queryId, rawPaging = {}) {
      const stored = await storedPage(queryId, rawPaging)
      if (!stored.ok) return stored
      const { plan, checked, canonical, id, version, page, perPage, selection, read } = stored.value
      // A stored query was held to the budget when it was stored; its later pages report the cost
      // and are not refused (the budget still stops a page that runs over it).
      const { predicted } = await costOf(checked)
      return ok(await envelope(plan, canonical, id, version, page, perPage, predicted, selection, read))
    },

    async pageWithoutTotal(queryId, rawPaging = {}) {
      const stored = await storedPage(queryId, rawPaging)
      if (!stored.ok) return stored
      const { plan, canonical, id, version, page, perPage, selection, read } = stored.value
      return ok(await pageOnly(plan, canonical, id, version, page, perPage, selection, read))
    },

    async listWithoutTotal(fullRequest, run) {
      const prepared = prepareWithFields(fullRequest)
      if (!prepared.ok) return prepared
      const { checked, canonical, queryId, selection } = prepared.value
      // The data version read once, with the query's cached total where it has a filter, for the
      // cost check and the page both (a statement less per page, of a ~1 ms page at 1,000,000
      // companies: `BENCH_ONLY=pages npx tsx bench/facets.ts`).
      const plan = planOf(checked)
      const { ctx, lookedUp } = await contextAndTotal(plan, queryId)
      const cost = await costWithinBudget(checked, run, ctx.dataVersion)
      if (!cost.ok) return cost
      const read: VersionAndTotal = lookedUp ?? { dataVersion: ctx.dataVersion, total: undefined }
      const { results, meta } = await pageOnly(plan, canonical, queryId, QUERY_VERSION, checked.page, checked.perPage, selection, read)
      return ok(Object.freeze({ dataset: canonical.dataset, results, meta, cost: cost.value }))
    },

    async queryWithoutTotal(fullRequest, storeOptions = {}, run) {
      const kept = await preparedAndStored(fullRequest, storeOptions, run)
      if (!kept.ok) return kept
      const { checked, canonical, selection, stored, cost, read } = kept.value
      const page = await pageOnly(planOf(checked), canonical, stored.query_id, stored.query_version, checked.page, checked.perPage, selection, read)
      return ok(Object.freeze({ ...page, cost }))
    },

    async facets(request, fields, options = {}, run) {
      const prepared = prepare(request)
      if (!prepared.ok) return prepared
      const { checked, canonical, queryId } = prepared.value
      const cost = await costWithinBudget(checked, run)
      if (!cost.ok) return cost
      return facetsOf(checked, canonical, queryId, fields, options)
    },

    async storedFacets(queryId, fields, options = {}) {
      if (typeof queryId !== 'string' || !QUERY_ID_SHAPE.test(queryId)) return fail(pagingIssues(queryId, {}, limits))
      const loaded = await loadStoredQuery(vdb.db, queryId, recheck, { writer })
      if (!loaded.ok) return loaded
      return facetsOf(loaded.value.checked, loaded.value.canonical, loaded.value.query_id, fields, options)
    },

    backgroundReads,

    async exportBatch(queryId, batch) {
      const limit = batch?.limit
      if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EXPORT_BATCH) {
        return fail([issue({ code: 'invalid_value', path: '/limit', message: `An export batch's \`limit\` is a whole number from 1 to ${MAX_EXPORT_BATCH}.`, expected: `1 to ${MAX_EXPORT_BATCH}`, got: JSON.stringify(limit) ?? String(limit) })])
      }
      const stored = await storedPage(queryId, { fields: batch.fields })
      if (!stored.ok) return stored
      const { plan, canonical, id, selection } = stored.value
      // `after` comes back from a caller: exactly one plain value per sort key, or it is refused.
      const after: unknown = batch.after
      const keys = plan.keys.length
      if (after !== undefined && !(Array.isArray(after) && after.length === keys && after.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v)))) {
        return fail([issue({ code: 'invalid_value', path: '/after', message: `\`after\` is the \`next\` of the batch before: ${keys} sort key values.`, expected: `an array of ${keys} strings, numbers, booleans or nulls`, got: JSON.stringify(after)?.slice(0, 100) ?? String(after) })])
      }
      // Keyset batches: each is one seek from the last key of the one before, never a count or a
      // skip, so a batch costs the same at row 10 as at row 1,000,000. The cached total (if any)
      // steers the plan as for a page.
      const { ctx, lookedUp } = await contextAndTotal(plan, id)
      const matches = plan.where === undefined ? await knownTotal(ctx, id) : lookedUp!.total ?? rememberedTotal(ctx, id)
      // Read without the file's memory map: an export's pages would stay resident (`unmapped.ts`).
      const fetched = await unmapped(ctx.sqlite, () => fetchPage(ctx, plan, { after: batch.after, limit, matches }, selection))
      const last = fetched.keys[fetched.keys.length - 1]
      return ok(Object.freeze({
        dataset: canonical.dataset,
        records: fetched.records,
        ...(fetched.keys.length === limit && last ? { next: last.boundary } : {}),
      }))
    },

    async explain(fullRequest) {
      const { request } = splitFields(fullRequest)
      const prepared = prepare(request)
      if (!prepared.ok) return prepared
      const { checked, canonical, queryId } = prepared.value
      const plan = planOf(checked)
      const keys = plan.keysQuery(vdb.db, { limit: checked.perPage }).compile()
      const count = plan.countQuery(vdb.db).compile()
      const { predicted } = await costOf(checked)
      return ok(Object.freeze({
        canonical, query_id: queryId, query_version: QUERY_VERSION,
        sql: keys.sql, parameters: Object.freeze([...keys.parameters]),
        count_sql: count.sql, count_parameters: Object.freeze([...count.parameters]),
        cost: predicted,
      }))
    },

    async count(fullRequest, run) {
      const { request } = splitFields(fullRequest)
      const prepared = prepare(request)
      if (!prepared.ok) return prepared
      const { checked, queryId } = prepared.value
      // Cached by id like a stored query's total; the query itself is not stored. The version read
      // with the cached total is the one the cost is predicted on: one statement less per count.
      const plan = planOf(checked)
      const { ctx, lookedUp } = await contextAndTotal(plan, queryId)
      const cost = await costWithinBudget(checked, run, ctx.dataVersion)
      if (!cost.ok) return cost
      return ok(await cachedTotal(ctx, plan, queryId, lookedUp))
    },
  }
  return Object.freeze(pipeline)
}

/**
 * Parse, then check. A request with structural issues is checked too, as far as it is well-formed
 * (`parseQueryParts`: the checker sees only the valid parts, never a malformed node), so that one
 * answer carries both kinds of issue, structural first (grammar-docs/language.md, "Errors");
 * together they are capped at `maxIssues` like either alone.
 */
export function parseAndCheck(request: unknown, limits: Limits): Result<CheckedQuery> {
  const parsed = parseQueryParts(request, limits)
  if (parsed.issues.length === 0) return checkQuery(parsed.query!, limits)
  const structural = parsed.issues
  if (!parsed.query || structural.some((i) => i.code === 'too_many_issues')) return fail(structural)
  const checked = checkQuery(parsed.query, limits)
  const semantic = checked.ok ? [] : checked.issues.filter((i) => i.code !== 'too_many_issues')
  const all = [...structural, ...semantic]
  if (all.length <= limits.maxIssues && (checked.ok || semantic.length === checked.issues.length)) return fail(all)
  return fail([...all.slice(0, limits.maxIssues), issue({
    code: 'too_many_issues',
    path: '',
    message: `More than ${limits.maxIssues} issues; only the first ${limits.maxIssues} are reported (limit maxIssues).`,
  })])
}

/** The most records one export batch may ask for. */
export const MAX_EXPORT_BATCH = 10_000

/**
 * A request without its `fields` (an answer option, `check/fields.ts`), and the fields: the rest is
 * what is parsed, checked and identified, so the same query with other fields has the same id.
 */
function splitFields(request: unknown): { request: unknown; fields: unknown } {
  if (request === null || typeof request !== 'object' || Array.isArray(request) || !Object.hasOwn(request, 'fields')) return { request, fields: undefined }
  const { fields, ...rest } = request as Record<string, unknown>
  return { request: rest, fields }
}

/** A refused request's issues, and those of its `fields` when its dataset is known: all at once. */
function withFieldIssues(refused: { readonly issues: readonly Issue[] }, request: unknown, fields: unknown): Result<never> {
  const name = (request as { dataset?: unknown } | null)?.dataset
  const dataset = typeof name === 'string' ? resolveDataset(name) : undefined
  const selection = dataset ? selectFields(dataset, fields) : undefined
  return fail(selection && !selection.ok ? [...refused.issues, ...selection.issues] : [...refused.issues])
}

/** Page numbers arrive from URLs as digit strings; `query()` accepts those too (parse converts them). */
function fromDigits(value: unknown): unknown {
  return typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value
}

/** What a query id can look like (`queryIdOf` makes 22 of these characters; a little room for other lengths). */
const QUERY_ID_SHAPE = /^[A-Za-z0-9_-]{1,200}$/

/** `page()`'s own arguments come from a URL, not through parse: validate them here. */
function pagingIssues(queryId: unknown, paging: { page?: unknown; per_page?: unknown }, limits: Limits): Issue[] {
  const issues: Issue[] = []
  // Ids are URL-safe base64 (queryIdOf): anything else was never stored, and is answered before any
  // SQL (PostgreSQL refuses text holding NUL as a parameter, which would be a fault, not a 404).
  if (typeof queryId !== 'string' || !QUERY_ID_SHAPE.test(queryId)) {
    issues.push(issue({ code: 'unknown_query', path: '', message: 'A query id is a string of URL-safe base64 characters, as returned by a stored query.', got: JSON.stringify(queryId) ?? String(queryId) }))
  }
  const positive = (key: 'page' | 'per_page', max: number) => {
    const v = paging[key]
    if (v === undefined) return
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
      issues.push(issue({
        code: key === 'per_page' && typeof v === 'number' && Number.isInteger(v) && v > max ? 'limit_exceeded' : 'invalid_page',
        path: `/${key}`,
        message: `\`${key}\` must be an integer from 1 to ${max}.`,
        expected: `an integer from 1 to ${max}`,
        got: JSON.stringify(v) ?? String(v),
      }))
    }
  }
  positive('page', Number.MAX_SAFE_INTEGER)
  positive('per_page', limits.maxPerPage)
  return issues
}

