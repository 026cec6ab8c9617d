/**
 * @module Configurable limits on a request. Each one, when exceeded, is a `limit_exceeded` issue
 * that names the limit and its value (attackers can send pathological filters; see
 * grammar-docs/language.md, "Limits").
 */

export interface Limits {
  /** Deepest nesting of and/or/not/foreign (the top-level filter is depth 1). */
  readonly maxDepth: number
  /** Most filter nodes (logical nodes plus conditions) in one request. */
  readonly maxNodes: number
  /** Longest list in `in`, `nin`, `has_*`. */
  readonly maxListLength: number
  /** Most sort clauses. */
  readonly maxSortClauses: number
  /** Largest `per_page`. */
  readonly maxPerPage: number
  /** `per_page` when a request gives none. */
  readonly defaultPerPage: number
  /** Most issues reported for one request (then `too_many_issues`). */
  readonly maxIssues: number
  /** Largest request body, in bytes, for front-ends that read one (CLI, HTTP). */
  readonly maxBodyBytes: number
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxDepth: 12,
  maxNodes: 500,
  maxListLength: 10_000,
  maxSortClauses: 8,
  maxPerPage: 50,
  defaultPerPage: 50,
  maxIssues: 100,
  maxBodyBytes: 1_000_000,
})

export function resolveLimits(overrides?: Partial<Limits>): Limits {
  return Object.freeze({ ...DEFAULT_LIMITS, ...overrides })
}
