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
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { FilterNode, Scalar } from '../ast/nodes.js'
import { visitFilter, type FilterVisitor } from '../ast/visit.js'
import { CATALOG_VERSION } from '../catalog/index.js'
import type { CheckedQuery } from '../check/checked.js'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'

/** Version of the filter language's semantics; bump when a stored query could mean something else. */
export const LANGUAGE_VERSION = 1

/** The `query_version` of queries stored now: language and catalog version in one integer (1001 = 1.001). */
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

/** Stores the query under its id; storing it again is a no-op (the id is its content). */
export async function storeQuery(db: Kysely<any>, canonical: CanonicalQuery): Promise<StoredQuery> {
  const query_id = queryIdOf(canonical)
  await db
    .insertInto('stored_queries')
    .values({
      query_id,
      query_version: QUERY_VERSION,
      dataset: canonical.dataset,
      canonical: canonicalJson(canonical),
      created_at: new Date().toISOString().replace('T', ' ').slice(0, 19),
    })
    .onConflict((oc) => oc.column('query_id').doNothing())
    .execute()
  return Object.freeze({ query_id, query_version: QUERY_VERSION, canonical })
}

/** Checks a canonical query again (parse + check under the current catalog); supplied by the engine. */
export type Recheck = (canonical: CanonicalQuery) => Result<CheckedQuery>

export interface LoadedQuery extends StoredQuery {
  readonly checked: CheckedQuery
}

/**
 * Loads a stored query and checks it again. `unknown_query` when there is no such id;
 * `query_outdated` (with the re-check's issues after it) when it was stored under another
 * `query_version` or no longer checks: never a silently different result.
 */
export async function loadStoredQuery(db: Kysely<any>, queryId: string, recheck: Recheck): Promise<Result<LoadedQuery>> {
  const row = await db.selectFrom('stored_queries').select(['query_version', 'canonical']).where('query_id', '=', queryId).executeTakeFirst()
  if (!row) {
    return fail([issue({ code: 'unknown_query', path: '', message: `No stored query has the id "${queryId}".`, got: queryId })])
  }
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
