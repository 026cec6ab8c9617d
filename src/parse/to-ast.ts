/**
 * @module Builds the frozen AST from input that the schemas of `./filter-schema.ts` accepted
 * (grammar-docs/language.md, "Grammar" and "Meaning of a hash"): several keys of one hash AND
 * together in an `And` at the hash's path, several operators on one field likewise, a scalar means
 * `eq`, and the top-level `{}` is `MatchAll`. It trusts the validated shape and does no checking.
 *
 * Recursion here is bounded: the guard has already refused anything deeper than `maxDepth`.
 */
import { build, type FilterNode, type QueryNode, type Scalar, type SortNode } from '../ast/index.js'
import { OPERATORS, type ForeignMatch, type OperatorName } from '../catalog/operators.js'
import { childPath } from '../errors/issue.js'
import { fieldValueSchema, foreignSchema, OPERAND_SCHEMAS, positiveIntegerSchema, querySchema, sortClauseSchema } from './filter-schema.js'

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

//// the structurally valid parts of an invalid request ////

/**
 * The AST of the parts of a request that are structurally valid, for a request the schemas
 * refused: the checker then judges their meaning, so that one answer carries the structural and
 * the semantic issues together (grammar-docs/language.md, "Errors"). Each part is judged on its own
 * with the same schemas (`./filter-schema.ts`), and a part that fails is left out whole:
 *
 * - a sort clause, `page` or `per_page` that fails is left out; the other clauses keep their paths;
 * - in an operator hash, an unknown operator or a malformed operand is left out, and a field left
 *   with no operator is left out;
 * - an `and`/`or` element, the `not` operand or the `foreign` filter that is left out whole leaves
 *   out what holds it when nothing else is left (`and: []` never reaches the checker); a `foreign`
 *   whose `dataset` or `match` is malformed is left out;
 * - the top-level filter, when nothing of it is left, is every record (there is nothing to check).
 *
 * Undefined when nothing can be checked: the input is not a hash, or its `dataset` is malformed
 * (fields mean nothing without a dataset). Only for input the guard accepted (plain JSON data
 * within the limits). Every node comes from the factory, so the checker never sees a malformed one.
 */
export function partialQueryToAst(raw: unknown): QueryNode | undefined {
  if (!isHash(raw)) return undefined
  if (!querySchema.shape.dataset.safeParse(raw['dataset']).success) return undefined
  const sort: SortNode[] = []
  const clauses = raw['sort']
  if (Array.isArray(clauses)) {
    clauses.forEach((clause, i) => {
      if (!sortClauseSchema.safeParse(clause).success) return
      const field = Object.keys(clause as Hash)[0] as string
      sort.push(build.sort(field, ((clause as Hash)[field] as string).toLowerCase() as 'asc' | 'desc', childPath('/sort', i)))
    })
  }
  const filter = raw['filter'] === undefined ? undefined : partialFilter(raw['filter'], '/filter', true)
  const page = positiveIntegerSchema.safeParse(raw['page'])
  const perPage = positiveIntegerSchema.safeParse(raw['per_page'])
  return build.query({
    dataset: raw['dataset'] as string,
    filter: filter ?? build.matchAll('/filter'),
    sort,
    ...(page.success ? { page: Number(page.data) } : {}),
    ...(perPage.success ? { per_page: Number(perPage.data) } : {}),
  })
}

function isHash(value: unknown): value is Hash {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The valid parts of a filter hash; undefined when none is left (the top level: every record). */
function partialFilter(raw: unknown, path: string, top: boolean): FilterNode | undefined {
  if (!isHash(raw)) return undefined
  const keys = Object.keys(raw)
  if (keys.length === 0) return top ? build.matchAll(path) : undefined
  const parts: FilterNode[] = []
  for (const key of keys) {
    const value = raw[key]
    const at = childPath(path, key)
    switch (key) {
      case 'and':
      case 'or': {
        if (!Array.isArray(value)) break
        const children = value.flatMap((child, i) => partialFilter(child, childPath(at, i), false) ?? [])
        if (children.length > 0) parts.push(key === 'and' ? build.and(children, at) : build.or(children, at))
        break
      }
      case 'not': {
        const child = partialFilter(value, at, false)
        if (child) parts.push(build.not(child, at))
        break
      }
      case 'foreign': {
        if (!isHash(value)) break
        const dataset = foreignSchema.shape.dataset.safeParse(value['dataset'])
        const match = foreignSchema.shape.match.safeParse(value['match'])
        const filter = partialFilter(value['filter'], childPath(at, 'filter'), false)
        if (dataset.success && match.success && filter) parts.push(build.foreign(dataset.data, filter, match.data ?? 'any', at))
        break
      }
      default: {
        const field = partialField(key, value, at)
        if (field) parts.push(field)
      }
    }
  }
  if (parts.length === 0) return top ? build.matchAll(path) : undefined
  return parts.length === 1 ? parts[0] : build.and(parts, path)
}

/** A field entry: whole when valid, else the operators of its hash whose operands are valid. */
function partialField(field: string, value: unknown, path: string): FilterNode | undefined {
  if (fieldValueSchema.safeParse(value).success) return fieldToAst(field, value, path)
  if (!isHash(value)) return undefined
  const conditions = Object.keys(value).flatMap((op) => {
    if (!Object.prototype.hasOwnProperty.call(OPERATORS, op)) return []
    if (!OPERAND_SCHEMAS[OPERATORS[op as OperatorName].operand].safeParse(value[op]).success) return []
    return [build.condition(field, op as OperatorName, value[op] as never, childPath(path, op))]
  })
  if (conditions.length === 0) return undefined
  return conditions.length === 1 ? conditions[0] : build.and(conditions, path)
}
