/**
 * @module Test helpers for the compile stage: hand-made checked queries (normal form) and
 * compiled SQL per dialect through each dialect's cold Kysely instance.
 */
import type { FilterNode } from '../../src/ast/nodes.js'
import { datasets, type DatasetName } from '../../src/catalog/index.js'
import type { CheckedQuery, CheckedSort } from '../../src/check/checked.js'
import { DIALECTS, planQuery, type Boundary } from '../../src/compile/index.js'
import { matchAll } from '../../src/ast/factory.js'

export function checked(dataset: DatasetName, filter: FilterNode = matchAll(), sort: readonly [string, 'asc' | 'desc'][] = [], perPage = 10): CheckedQuery {
  const ds = datasets[dataset]
  const s: CheckedSort[] = sort.map(([f, direction]) => {
    const field = ds.fields[f]
    if (!field) throw new Error(`no field ${f}`)
    return { field, direction }
  })
  return { dataset: ds, filter, sort: s, page: 1, perPage }
}

export function keysSql(dialect: 'sqlite' | 'postgres', q: CheckedQuery, after?: Boundary, walk = false) {
  const plan = planQuery(q, DIALECTS[dialect])
  const { sql, parameters } = plan.keysQuery(DIALECTS[dialect].coldKysely(), { limit: q.perPage, ...(after ? { after } : {}), walkSortIndex: walk }).compile()
  return { sql, parameters: [...parameters] }
}

/**
 * The keys statements a page after `after` runs (execute/run.ts): one per seek range, in order
 * (the NULL tail's only when the first range runs out).
 */
export function rangesSql(dialect: 'sqlite' | 'postgres', q: CheckedQuery, after: Boundary) {
  const plan = planQuery(q, DIALECTS[dialect])
  return plan.seekRanges(after).map((range) => {
    const { sql, parameters } = plan.keysQuery(DIALECTS[dialect].coldKysely(), { limit: q.perPage, range }).compile()
    return { sql, parameters: [...parameters] }
  })
}

export function countSql(dialect: 'sqlite' | 'postgres', q: CheckedQuery) {
  const plan = planQuery(q, DIALECTS[dialect])
  const { sql, parameters } = plan.countQuery(DIALECTS[dialect].coldKysely()).compile()
  return { sql, parameters: [...parameters] }
}

/**
 * Only the WHERE clause of the count query: the part each filter case is about; and, when the
 * filter has sets of `foreign` (compile/relations.ts), the common table expressions that define
 * them, as `ctes` (the text between `with ` and the count's `select`).
 */
export function whereSql(dialect: 'sqlite' | 'postgres', dataset: DatasetName, filter: FilterNode): { sql: string; parameters: unknown[]; ctes?: string } {
  const { sql, parameters } = countSql(dialect, checked(dataset, filter))
  const marker = ` from "${datasets[dataset].table}" as "t0" where `
  const i = sql.indexOf(marker)
  const where = i < 0 ? '' : sql.slice(i + marker.length)
  if (!sql.startsWith('with ')) return { sql: where, parameters }
  return { sql: where, parameters, ctes: sql.slice('with '.length, sql.indexOf(' select count(*)')) }
}
