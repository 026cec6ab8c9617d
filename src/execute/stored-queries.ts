/**
 * @module Stored queries (design section 4): a canonical form, a content-addressed id, an integer
 * version, idempotent storage and loading with a re-check under the current catalog.
 *
 * Canonical form: the checker's normal form (sugar removed: no `ne`/`nin`/`has_none`, `eq: null`
 * is `is_null`, tags `eq`/`in` are `has_any`, aliases resolved) written as a filter hash of the
 * language itself, so it can be parsed and checked again. On top of the normal form:
 * - every condition is `{field: {operator: value}}` (never the scalar shorthand);
 * - `and`/`or` inside the same connective are flattened; their children are de-duplicated and
 *   sorted by canonical JSON; a connective with one child is that child; `not not P` is `P`;
 * - `in`/`has_*` lists are de-duplicated and sorted; a one-value `in` is `eq`;
 * - `foreign` always states `match`;
 * - object keys are sorted when serialised.
 * Sorting compares UTF-16 code units (never locale collation), so the id is the same on every
 * machine. The sort is part of the query (it decides the pages), `page`/`per_page` are not.
 *
 * Storage is bounded (grammar-docs/language.md, "Stored queries"): a query larger than
 * `maxStoredQueryBytes` is not stored; each owner's queries together stay within
 * `maxStoredBytesPerOwner`, least recently used expiring first; a query unused for
 * `storedQueryDays` expires. "Used" is `last_used_at`: set when stored, refreshed when stored again
 * or loaded, at most once an hour (a best-effort write, so loading never waits for a lock).
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { FilterNode, Scalar } from '../ast/nodes.js'
import { visitFilter, type FilterVisitor } from '../ast/visit.js'
import { CATALOG_VERSION } from '../catalog/index.js'
import type { CheckedQuery } from '../check/checked.js'
import { DEFAULT_LIMITS, type Limits } from '../check/limits.js'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import { VERSIONED_CACHE_TABLES } from '../store/schema/stored-query-tables.js'
import { writeCache, type CacheWriter } from './cache-write.js'

/**
 * Version of the filter language's semantics; bump when a stored query could mean something else.
 * 2: a blank text under `eq`/`ne`/`in`/`nin` on a string or enum field means "no value" (it was
 * the literal empty string; grammar-docs/guides/serving.md, "Missing values").
 */
export const LANGUAGE_VERSION = 2

/** The `query_version` of queries stored now: language and catalog version in one integer (2001 = 2.001). */
export const QUERY_VERSION = LANGUAGE_VERSION * 1000 + CATALOG_VERSION

export type CanonicalFilter = { readonly [key: string]: unknown }

export interface CanonicalQuery {
  readonly dataset: string
  readonly filter: CanonicalFilter
  readonly sort: readonly Readonly<Record<string, 'asc' | 'desc'>>[]
}

//// canonical form ////

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function compareScalars(a: Scalar, b: Scalar): number {
  const ta = typeof a
  const tb = typeof b
  if (ta !== tb) return compareText(ta, tb)
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return compareText(String(a), String(b))
}

function canonicalList(values: readonly Scalar[]): Scalar[] {
  const seen = new Set<string>()
  const unique = values.filter((v) => {
    const key = JSON.stringify(v)
    return seen.has(key) ? false : (seen.add(key), true)
  })
  return unique.sort(compareScalars)
}

const LIST_OPERATORS = new Set(['in', 'nin', 'has_any', 'has_all', 'has_none'])

function connective(key: 'and' | 'or', children: readonly FilterNode[]): CanonicalFilter {
  const parts: CanonicalFilter[] = []
  for (const child of children) {
    const c = canonicalFilter(child)
    const nested = c[key]
    // (a and (b and c)) is (a and b and c): the same query however it was grouped.
    if (Object.keys(c).length === 1 && Array.isArray(nested)) parts.push(...(nested as CanonicalFilter[]))
    else parts.push(c)
  }
  const byJson = new Map<string, CanonicalFilter>()
  for (const p of parts) byJson.set(canonicalJson(p), p)
  const sorted = [...byJson.entries()].sort(([a], [b]) => compareText(a, b)).map(([, p]) => p)
  return sorted.length === 1 ? sorted[0]! : Object.freeze({ [key]: Object.freeze(sorted) })
}

const CANONICAL: FilterVisitor<CanonicalFilter> = {
  MatchAll: () => Object.freeze({}),
  And: (node) => connective('and', node.children),
  Or: (node) => connective('or', node.children),
  Not: (node) => (node.child.kind === 'Not' ? canonicalFilter(node.child.child) : Object.freeze({ not: canonicalFilter(node.child) })),
  Foreign: (node) => Object.freeze({ foreign: Object.freeze({ dataset: node.dataset, filter: canonicalFilter(node.filter), match: node.match }) }),
  Condition: (node) => {
    let operator: string = node.operator
    let value: unknown = node.value
    if (LIST_OPERATORS.has(node.operator)) {
      const list = canonicalList(node.value as readonly Scalar[])
      if (node.operator === 'in' && list.length === 1) {
        operator = 'eq'
        value = list[0]
      } else value = Object.freeze(list)
    }
    return Object.freeze({ [node.field]: Object.freeze({ [operator]: value }) })
  },
}

export function canonicalFilter(node: FilterNode): CanonicalFilter {
  return visitFilter(node, CANONICAL)
}

export function canonicalQuery(query: Pick<CheckedQuery, 'dataset' | 'filter' | 'sort'>): CanonicalQuery {
  return Object.freeze({
    dataset: query.dataset.name,
    filter: canonicalFilter(query.filter),
    sort: Object.freeze(query.sort.map((s) => Object.freeze({ [s.field.name]: s.direction }))),
  })
}

/** JSON with object keys sorted at every level (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort(compareText).map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  )
}

/** URL-safe base64 of SHA-256 over the version and the canonical JSON, cut to 22 characters (132 bits). */
export function queryIdOf(canonical: CanonicalQuery, version: number = QUERY_VERSION): string {
  return createHash('sha256').update(`${version}\n${canonicalJson(canonical)}`).digest('base64url').slice(0, 22)
}

//// storage ////

export interface StoredQuery {
  readonly query_id: string
  readonly query_version: number
  readonly canonical: CanonicalQuery
}

/** The limits storage applies (`check/limits.ts`). */
export type StorageLimits = Pick<Limits, 'maxStoredQueryBytes' | 'maxStoredBytesPerOwner' | 'storedQueryDays'>

export interface StoreOptions {
  /**
   * Who stores the query: an opaque string (an API key id, a user id), or undefined for no one.
   * The first to store a query owns it and its bytes count against that owner's bound; storing it
   * again, by anyone, only marks it used.
   */
  readonly owner?: string | undefined
  /** Defaults: DEFAULT_LIMITS. */
  readonly limits?: StorageLimits
  /** Where the best-effort writes go (marking a query used): the engine's connection; `db` otherwise. */
  readonly writer?: CacheWriter
  /** The current time (tests). */
  readonly now?: Date
  /**
   * The stored query's row as a read just found it (null: not stored), which spares this its own
   * read (`execute/counts.ts`, `versionTotalAndUse`); undefined: read it here.
   */
  readonly existing?: { readonly last_used_at: string } | null
}

/** How long a stored query's `last_used_at` stays unrefreshed: loading it writes at most once per this. */
export const TOUCH_EVERY_MS = 60 * 60 * 1000

/** Stores between sweeps for expired queries, per connection (the first store sweeps too). */
const SWEEP_EVERY = 100
/** Most expired queries one sweep deletes; the next sweep takes the rest. */
const SWEEP_ROWS = 1000
const stores = new WeakMap<object, number>()

/** `YYYY-MM-DD HH:MM:SS` (UTC): text order is time order on every backend. */
function timestamp(at: Date): string {
  return at.toISOString().replace('T', ' ').slice(0, 19)
}

/** Bytes of the canonical JSON in UTF-8: the size of what is stored. */
export function storedBytes(canonical: CanonicalQuery): number {
  return Buffer.byteLength(canonicalJson(canonical), 'utf8')
}

/** `limit_exceeded` when the canonical form is larger than `maxStoredQueryBytes`, else nothing. */
export function storageIssues(canonical: CanonicalQuery, limits: Pick<Limits, 'maxStoredQueryBytes'> = DEFAULT_LIMITS): Issue[] {
  const bytes = storedBytes(canonical)
  if (bytes <= limits.maxStoredQueryBytes) return []
  return [issue({
    code: 'limit_exceeded',
    path: '/filter',
    message: `The query is ${bytes} bytes as stored (canonical JSON); the limit (maxStoredQueryBytes) is ${limits.maxStoredQueryBytes} bytes. Shorten its lists, or split it into several queries.`,
    expected: `at most ${limits.maxStoredQueryBytes} bytes`,
    got: `${bytes} bytes`,
  })]
}

/** The owner of a store call, from a front-end: absent, or a non-empty string of at most 200 characters. */
export function storeOwner(owner: unknown): Result<string | undefined> {
  if (owner === undefined) return ok(undefined)
  if (typeof owner === 'string' && owner.length > 0 && owner.length <= 200) return ok(owner)
  return fail([issue({
    code: 'invalid_value',
    path: '',
    message: 'The owner of a stored query is a non-empty string of at most 200 characters (e.g. an API key id).',
    expected: 'a string of 1 to 200 characters',
    got: (JSON.stringify(owner) ?? String(owner)).slice(0, 80),
  })])
}

/**
 * Stores the query under its id; storing it again is no new row (the id is its content), only a
 * mark that it is used. A new row may expire others: the owner's least recently used ones beyond
 * `maxStoredBytesPerOwner`, and, every SWEEP_EVERY stores, any unused for `storedQueryDays`.
 * The size limit is the caller's to check first (`storageIssues`): this stores what it is given.
 */
export async function storeQuery(db: Kysely<any>, canonical: CanonicalQuery, options: StoreOptions = {}): Promise<StoredQuery> {
  const query_id = queryIdOf(canonical)
  const stored = Object.freeze({ query_id, query_version: QUERY_VERSION, canonical })
  const now = options.now ?? new Date()
  const limits = options.limits ?? DEFAULT_LIMITS
  // A read first: storing a query that exists is the common case, and needs no write lock.
  const existing = options.existing !== undefined
    ? options.existing ?? undefined
    : await db.selectFrom('stored_queries').select('last_used_at').where('query_id', '=', query_id).executeTakeFirst()
  if (existing) {
    await touch(options.writer ?? { db }, query_id, String(existing.last_used_at), now)
    return stored
  }
  const json = canonicalJson(canonical)
  const owner = options.owner ?? null
  const inserted = await db
    .insertInto('stored_queries')
    .values({
      query_id,
      query_version: QUERY_VERSION,
      dataset: canonical.dataset,
      canonical: json,
      created_at: timestamp(now),
      owner,
      bytes: Buffer.byteLength(json, 'utf8'),
      last_used_at: timestamp(now),
    })
    .onConflict((oc) => oc.column('query_id').doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return stored
  await enforceOwnerBound(db, owner, query_id, limits.maxStoredBytesPerOwner)
  const count = (stores.get(db) ?? 0) + 1
  stores.set(db, count)
  if (count % SWEEP_EVERY === 1) await expireStoredQueries(db, { days: limits.storedQueryDays, now })
  return stored
}

/** Deletes stored queries and their cached totals and checkpoints. */
async function deleteStoredQueries(db: Kysely<any>, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500)
    for (const table of [...VERSIONED_CACHE_TABLES, 'stored_queries']) await db.deleteFrom(table).where('query_id', 'in', chunk).execute()
  }
}

/**
 * Expires `owner`'s least recently used queries (never `keep`, the one just stored) until what
 * the owner stores is at most `maxBytes`. Queries stored without an owner are one owner here.
 */
export async function enforceOwnerBound(db: Kysely<any>, owner: string | null, keep: string, maxBytes: number): Promise<string[]> {
  if (!(maxBytes < Number.POSITIVE_INFINITY)) return []
  const ofOwner = <Q extends { where: (...args: any[]) => Q }>(q: Q): Q => (owner === null ? q.where('owner', 'is', null) : q.where('owner', '=', owner))
  const used = await ofOwner(db.selectFrom('stored_queries').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('bytes'), eb.lit(0)).as('bytes'))).executeTakeFirstOrThrow()
  let excess = Number(used.bytes) - maxBytes
  const expired: string[] = []
  // In batches, oldest first; nothing is deleted until the end, so each batch starts where the
  // previous one ended.
  for (let seen = 0; excess > 0; seen += 100) {
    // Rows without a size (stored by code from before migration 010) free nothing: left alone.
    const batch = await ofOwner(db.selectFrom('stored_queries').select(['query_id', 'bytes']))
      .where('query_id', '<>', keep)
      .where('bytes', '>', 0)
      .orderBy('last_used_at')
      .orderBy('query_id')
      .limit(100)
      .offset(seen)
      .execute()
    for (const row of batch) {
      if (excess <= 0) break
      expired.push(String(row.query_id))
      excess -= Number(row.bytes)
    }
    if (batch.length < 100) break
  }
  await deleteStoredQueries(db, expired)
  return expired
}

/**
 * Deletes up to SWEEP_ROWS stored queries not used (stored or paged) for `days` days, with their
 * caches. Returns their ids.
 */
export async function expireStoredQueries(db: Kysely<any>, options: { days: number; now?: Date }): Promise<string[]> {
  if (!(options.days < Number.POSITIVE_INFINITY)) return []
  const cutoff = timestamp(new Date((options.now ?? new Date()).getTime() - options.days * 24 * 60 * 60 * 1000))
  // `created_at` too: a row stored by a process still running code from before migration 010 has
  // no `last_used_at` ('') and must not expire as if unused since forever.
  const rows = await db.selectFrom('stored_queries').select('query_id')
    .where('last_used_at', '<', cutoff).where('created_at', '<', cutoff)
    .orderBy('last_used_at').limit(SWEEP_ROWS).execute()
  const ids = rows.map((r) => String(r.query_id))
  await deleteStoredQueries(db, ids)
  return ids
}

/** Marks a query used when its mark is older than TOUCH_EVERY_MS: a best-effort write (cache-write.ts). */
async function touch(writer: CacheWriter, queryId: string, lastUsedAt: string, now: Date): Promise<void> {
  if (lastUsedAt > timestamp(new Date(now.getTime() - TOUCH_EVERY_MS))) return
  await writeCache(writer, [writer.db.updateTable('stored_queries').set({ last_used_at: timestamp(now) }).where('query_id', '=', queryId)])
}

/** Checks a canonical query again (parse + check under the current catalog); supplied by the engine. */
export type Recheck = (canonical: CanonicalQuery) => Result<CheckedQuery>

export interface LoadedQuery extends StoredQuery {
  readonly checked: CheckedQuery
}

export interface LoadOptions {
  /** Where marking the query used goes (best effort): the engine's connection; `db` otherwise. */
  readonly writer?: CacheWriter
  /**
   * The stored query's row as a read just found it (null: not stored), which spares this its own
   * read (`execute/counts.ts`, `versionTotalAndStored`); undefined: read it here.
   */
  readonly row?: { readonly query_version: unknown; readonly canonical: unknown; readonly last_used_at: unknown } | null
  /** The current time (tests). */
  readonly now?: Date
}

/**
 * Loads a stored query and checks it again. `unknown_query` when there is no such id;
 * `query_outdated` (with the re-check's issues after it) when it was stored under another
 * `query_version` or no longer checks: never a silently different result. Marks it used (at most
 * once per TOUCH_EVERY_MS, best effort), which keeps it from expiring.
 */
export async function loadStoredQuery(db: Kysely<any>, queryId: string, recheck: Recheck, options: LoadOptions = {}): Promise<Result<LoadedQuery>> {
  // Ids are generated without NUL, and PostgreSQL refuses a NUL in a bound text: such an id exists nowhere, before any SQL.
  const row = queryId.includes('\u0000') ? undefined
    : options.row !== undefined ? options.row ?? undefined
    : await db.selectFrom('stored_queries').select(['query_version', 'canonical', 'last_used_at']).where('query_id', '=', queryId).executeTakeFirst()
  if (!row) {
    return fail([issue({ code: 'unknown_query', path: '', message: `No stored query has the id "${queryId}".`, got: queryId })])
  }
  await touch(options.writer ?? { db }, queryId, String(row.last_used_at), options.now ?? new Date())
  const version = Number(row.query_version)
  const canonical = JSON.parse(String(row.canonical)) as CanonicalQuery
  const checked = recheck(canonical)
  if (version !== QUERY_VERSION || !checked.ok) {
    const why = version !== QUERY_VERSION
      ? `it was stored under query_version ${version} and the engine now speaks query_version ${QUERY_VERSION}`
      : 'it no longer passes the checks of the current catalog (see the issues that follow)'
    const outdated: Issue = issue({
      code: 'query_outdated',
      path: '',
      message: `The stored query "${queryId}" is outdated: ${why}. Post its filter again to get a current query id.`,
      expected: `query_version ${QUERY_VERSION}`,
      got: `query_version ${version}`,
    })
    return fail([outdated, ...(checked.ok ? [] : checked.issues)])
  }
  return ok(Object.freeze({ query_id: queryId, query_version: version, canonical, checked: checked.value }))
}
