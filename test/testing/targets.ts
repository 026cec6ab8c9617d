/**
 * @module Implementations for the conformance harness's tests: the engine, the reference evaluator
 * answering as a backend would, and two deliberately broken ones (a `not` that is NULL-unsafe as
 * SQL's NOT is, and paging that skips a record), which the harness must catch.
 */
import { checkQuery, datasets, formatIssues, parseQuery, resolveLimits, type Engine } from '../../src/index.js'
import { referenceRows, type ConformanceQuery, type ConformanceTarget, type Snapshot } from '../../src/testing/index.js'

const LIMITS = resolveLimits({ maxPerPage: Number.MAX_SAFE_INTEGER, maxCost: Number.MAX_SAFE_INTEGER })

/** The engine as a target: the page's primary keys and `meta.total_record_count`. */
export function engineTarget(engine: Engine): ConformanceTarget {
  return {
    async run(query) {
      const result = await engine.query(query)
      if (!result.ok) throw new Error(`the engine refused ${JSON.stringify(query)}:\n${formatIssues(result.issues)}`)
      const pk = datasets[query.dataset].primaryKey
      return { ids: result.value.results.map((record) => record[pk] as number | string), total: result.value.meta.total_record_count }
    },
  }
}

/** Every matching primary key in order, by the reference evaluator. */
function allRows(snapshot: Snapshot, query: Omit<ConformanceQuery, 'page' | 'per_page'>): number[] {
  const parsed = parseQuery({ dataset: query.dataset, filter: query.filter, sort: query.sort ?? [] }, LIMITS)
  if (!parsed.ok) throw new Error(formatIssues(parsed.issues))
  const checked = checkQuery(parsed.value, LIMITS)
  if (!checked.ok) throw new Error(formatIssues(checked.issues))
  return referenceRows(checked.value.filter, checked.value.dataset, checked.value.sort, snapshot)
}

/** The reference evaluator as a backend, paging with `offset` (default: the correct one). */
export function referenceTarget(snapshot: Snapshot, offset = (page: number, perPage: number) => (page - 1) * perPage): ConformanceTarget {
  return {
    async run(query) {
      const rows = allRows(snapshot, query)
      const start = offset(query.page, query.per_page)
      return { ids: rows.slice(start, start + query.per_page), total: rows.length }
    },
  }
}

/** Paging with an off-by-one: every page after the first starts one record late. */
export function offByOnePagingTarget(snapshot: Snapshot): ConformanceTarget {
  return referenceTarget(snapshot, (page, perPage) => (page - 1) * perPage + (page > 1 ? 1 : 0))
}

const LOGICAL = new Set(['and', 'or', 'not', 'foreign'])

/** The scalar fields a filter hash names directly (tags fields have no NULL). */
export function fieldsNamed(dataset: ConformanceQuery['dataset'], filter: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(filter)) for (const item of filter) fieldsNamed(dataset, item, into)
  else if (typeof filter === 'object' && filter !== null) {
    for (const [key, value] of Object.entries(filter)) {
      if (key === 'foreign') continue
      if (LOGICAL.has(key)) fieldsNamed(dataset, value, into)
      else if (datasets[dataset].fields[key]?.type.kind !== 'tags') into.add(key)
    }
  }
  return into
}

/**
 * SQL's NOT without a null guard: `not P` leaves out every record where a field P names is NULL
 * (the comparison is UNKNOWN there, and NOT UNKNOWN is UNKNOWN), written as a rewrite of the
 * request in front of the reference evaluator.
 */
export function nullUnsafeNotTarget(snapshot: Snapshot): ConformanceTarget {
  const rewrite = (dataset: ConformanceQuery['dataset'], filter: unknown): unknown => {
    if (Array.isArray(filter)) return filter.map((item) => rewrite(dataset, item))
    if (typeof filter !== 'object' || filter === null) return filter
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(filter)) {
      if (key === 'not') {
        const known = [...fieldsNamed(dataset, value)].map((field) => ({ [field]: { is_null: false } }))
        out.and = [...((out.and as unknown[]) ?? []), { not: rewrite(dataset, value) }, ...known]
      } else if (key === 'and') out.and = [...((out.and as unknown[]) ?? []), ...(rewrite(dataset, value) as unknown[])]
      else if (key === 'foreign') {
        const f = value as { dataset: string; filter: unknown }
        const target = Object.values(datasets).find((d) => d.name === f.dataset || d.aliases.includes(f.dataset))!.name
        out.foreign = { ...f, filter: rewrite(target, f.filter) }
      } else out[key] = LOGICAL.has(key) ? rewrite(dataset, value) : value
    }
    return out
  }
  const inner = referenceTarget(snapshot)
  return { run: (query) => inner.run({ ...query, filter: rewrite(query.dataset, query.filter) as ConformanceQuery['filter'] }) }
}
