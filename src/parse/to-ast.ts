/**
 * @module Builds the frozen AST from input that the schemas of `./filter-schema.ts` accepted
 * (grammar-docs/language.md, "Grammar" and "Meaning of a hash"): several keys of one hash AND
 * together in an `And` at the hash's path, several operators on one field likewise, a scalar means
 * `eq`, and the top-level `{}` is `MatchAll`. It trusts the validated shape and does no checking.
 *
 * Recursion here is bounded: the guard has already refused anything deeper than `maxDepth`.
 */
import { build, type FilterNode, type QueryNode, type Scalar, type SortNode } from '../ast/index.js'
import type { ForeignMatch, OperatorName } from '../catalog/operators.js'
import { childPath } from '../errors/issue.js'

type Hash = Readonly<Record<string, unknown>>

export function filterToAst(raw: Hash, path: string, top: boolean): FilterNode {
  const keys = Object.keys(raw)
  if (keys.length === 0 && top) return build.matchAll(path)
  const parts: FilterNode[] = []
  for (const key of keys) {
    const value = raw[key]
    const at = childPath(path, key)
    switch (key) {
      case 'and':
      case 'or': {
        const children = (value as Hash[]).map((child, i) => filterToAst(child, childPath(at, i), false))
        parts.push(key === 'and' ? build.and(children, at) : build.or(children, at))
        break
      }
      case 'not':
        parts.push(build.not(filterToAst(value as Hash, at, false), at))
        break
      case 'foreign': {
        const f = value as { dataset: string; filter: Hash; match?: ForeignMatch }
        parts.push(build.foreign(f.dataset, filterToAst(f.filter, childPath(at, 'filter'), false), f.match ?? 'any', at))
        break
      }
      default:
        parts.push(fieldToAst(key, value, at))
    }
  }
  return parts.length === 1 ? (parts[0] as FilterNode) : build.and(parts, path)
}

function fieldToAst(field: string, value: unknown, path: string): FilterNode {
  if (typeof value !== 'object' || value === null) return build.condition(field, 'eq', value as Scalar, path)
  const conditions = Object.keys(value).map((op) =>
    build.condition(field, op as OperatorName, (value as Hash)[op] as never, childPath(path, op)),
  )
  return conditions.length === 1 ? (conditions[0] as FilterNode) : build.and(conditions, path)
}

export interface RawQuery {
  readonly dataset: string
  readonly filter?: Hash
  readonly sort?: readonly Readonly<Record<string, string>>[]
  readonly page?: number | string
  readonly per_page?: number | string
}

export function queryToAst(raw: RawQuery): QueryNode {
  const sort: SortNode[] = (raw.sort ?? []).map((clause, i) => {
    const field = Object.keys(clause)[0] as string
    return build.sort(field, (clause[field] as string).toLowerCase() as 'asc' | 'desc', childPath('/sort', i))
  })
  return build.query({
    dataset: raw.dataset,
    filter: raw.filter === undefined ? build.matchAll('/filter') : filterToAst(raw.filter, '/filter', true),
    sort,
    ...(raw.page !== undefined ? { page: Number(raw.page) } : {}),
    ...(raw.per_page !== undefined ? { per_page: Number(raw.per_page) } : {}),
  })
}
