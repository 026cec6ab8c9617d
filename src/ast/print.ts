/**
 * @module Prints the AST back to the JSON language (graphql-js's printer, for our hashes):
 * `parse(print(ast))` equals `ast` up to paths, which the round-trip property tests pin. Used for
 * explain output, canonical forms and messages. Sugar is printed in its plainest spelling: an
 * `And` as `{"and": [...]}`, an `eq` as the bare scalar, `match: "any"` left out.
 */
import type { FilterNode, QueryNode } from './nodes.js'
import { visitFilter, type FilterVisitor } from './visit.js'

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json }

const printer: FilterVisitor<{ [key: string]: Json }> = {
  MatchAll: () => ({}),
  And: (node) => ({ and: node.children.map(printFilter) }),
  Or: (node) => ({ or: node.children.map(printFilter) }),
  Not: (node) => ({ not: printFilter(node.child) }),
  Foreign: (node) => ({
    foreign: {
      dataset: node.dataset,
      filter: printFilter(node.filter),
      ...(node.match === 'any' ? {} : { match: node.match }),
    },
  }),
  Condition: (node) => {
    const value = (Array.isArray(node.value) ? [...(node.value as readonly Json[])] : node.value) as Json
    // A bare object value would read back as an operator hash, so only scalars use the short form.
    return withKey(node.field, node.operator === 'eq' ? value : withKey(node.operator, value))
  },
}

/** Builds `{[key]: value}` as an own data property, even for keys like `__proto__`. */
function withKey(key: string, value: Json): { [key: string]: Json } {
  const hash: { [key: string]: Json } = {}
  Object.defineProperty(hash, key, { value, enumerable: true, writable: true, configurable: true })
  return hash
}

/** The JSON filter hash of a filter node. */
export function printFilter(node: FilterNode): { [key: string]: Json } {
  return visitFilter(node, printer)
}

/** The JSON request of a query node (keys as in spec 4.14). */
export function printQuery(query: QueryNode): { [key: string]: Json } {
  return {
    dataset: query.dataset,
    filter: printFilter(query.filter),
    ...(query.sort.length > 0 ? { sort: query.sort.map((s) => withKey(s.field, s.direction)) } : {}),
    ...(query.page !== undefined ? { page: query.page } : {}),
    ...(query.per_page !== undefined ? { per_page: query.per_page } : {}),
  }
}

/** A path-free, structurally comparable copy of a filter (for `toEqual` and canonical comparisons). */
export type PathlessFilter =
  | { readonly kind: 'MatchAll' }
  | { readonly kind: 'And' | 'Or'; readonly children: readonly PathlessFilter[] }
  | { readonly kind: 'Not'; readonly child: PathlessFilter }
  | { readonly kind: 'Foreign'; readonly dataset: string; readonly match: string; readonly filter: PathlessFilter }
  | { readonly kind: 'Condition'; readonly field: string; readonly operator: string; readonly value: unknown }

const stripper: FilterVisitor<PathlessFilter> = {
  MatchAll: () => ({ kind: 'MatchAll' }),
  And: (node) => ({ kind: 'And', children: node.children.map(stripPaths) }),
  Or: (node) => ({ kind: 'Or', children: node.children.map(stripPaths) }),
  Not: (node) => ({ kind: 'Not', child: stripPaths(node.child) }),
  Foreign: (node) => ({ kind: 'Foreign', dataset: node.dataset, match: node.match, filter: stripPaths(node.filter) }),
  Condition: (node) => ({ kind: 'Condition', field: node.field, operator: node.operator, value: node.value }),
}

export function stripPaths(node: FilterNode): PathlessFilter {
  return visitFilter(node, stripper)
}
