/**
 * @module Configurable limits on a request and on what requests leave behind. Each limit on a
 * request, when exceeded, is a `limit_exceeded` issue that names the limit and its value (attackers
 * can send pathological filters; see grammar-docs/language.md, "Limits"); `maxCost`, a limit on the
 * plan's estimated worst case rather than on the request's shape, is `cost_exceeded`. The storage
 * bounds (`maxStoredBytesPerOwner`, `storedQueryDays`) refuse nothing: they decide which stored
 * queries expire (grammar-docs/language.md, "Stored queries").
 */

export interface Limits {
  /** Deepest nesting of and/or/not/foreign (the top-level filter is depth 1). */
  readonly maxDepth: number
  /** Most filter nodes (logical nodes plus conditions) in one request. */
  readonly maxNodes: number
  /** Longest list in `in`, `nin`, `has_*`. */
  readonly maxListLength: number
  /**
   * Longest string value in a condition, in characters. SQLite refuses LIKE patterns over 50,000
   * bytes ("LIKE or GLOB pattern too complex"); 4,096 characters of up to 4 UTF-8 bytes, or of
   * escaped `%`/`_`, stay well below that, and no name, slug or domain is longer.
   */
  readonly maxStringLength: number
  /** Most sort clauses. */
  readonly maxSortClauses: number
  /** Largest `per_page`. */
  readonly maxPerPage: number
  /** `per_page` when a request gives none. */
  readonly defaultPerPage: number
  /** Most issues reported for one request (then `too_many_issues`). */
  readonly maxIssues: number
  /**
   * Largest request body, in bytes, for front-ends that read one (CLI, HTTP). It also bounds what
   * any engine call accepts (`inputBounds`): no more values, and no more characters of strings,
   * than a body of this size can encode in JSON.
   */
  readonly maxBodyBytes: number
  /**
   * Deepest nesting of arrays and objects in any input, counted before anything else reads it (the
   * outermost array or object is level 1). The deepest request the language admits needs
   * 2 × maxDepth + 2 levels: the envelope, two per logical level (`{"and": [...]}`, `{"foreign":
   * {"filter": ...}}`), then an operator hash and its list: 26 at maxDepth 12. 64 leaves a filter
   * nested up to 31 logical levels to `maxDepth`'s more precise issue, and stays far below what
   * recursive code (the schemas, the copy to a worker thread, which overflowed at 20,000 levels)
   * can walk. Not set, it grows with a raised `maxDepth` (`resolveLimits`).
   */
  readonly maxInputDepth: number
  /**
   * Largest stored query: bytes of its canonical JSON in UTF-8 (what is stored). Storing a larger
   * one (`query`, `store`) is `limit_exceeded`; running it unstored (`list`, `count`) is not.
   */
  readonly maxStoredQueryBytes: number
  /**
   * Bytes of canonical JSON one owner's stored queries may hold together (queries stored without
   * an owner count as one owner). Storing past it expires that owner's least recently used queries
   * until the rest fit. `Infinity` turns the bound off.
   */
  readonly maxStoredBytesPerOwner: number
  /** Days a stored query lives unused (not stored again, not paged); expired ones are deleted during later stores. */
  readonly storedQueryDays: number
  /**
   * Largest estimated worst-case cost of a filter per record of the queried dataset, in units of
   * one condition tested on one row (`cost.ts`); above it, `cost_exceeded`. 3,000 admits an `or`
   * of as many plain conditions as `maxNodes` allows (499), a chain of 11 nested `foreign` (2,791)
   * and an `or` of 249 `foreign` on one dataset (merged into one, 509); it refuses, among others,
   * 20 `foreign` conditions side by side that cannot share one (5,220), whose sets SQLite builds and
   * probes one by one. At 20-50 ns a unit, 3,000 is under a second on the 5,000-company demo.
   */
  readonly maxCost: number
  /**
   * Also refuse (`cost_exceeded`) a filter whose predicted time on the data it runs on
   * (`expectedWork` and `predictCost` in `cost.ts`, scaled by what the connection measured of the
   * requests it ran: `execute/time-correction.ts`) is over the call's time budget. The cost is
   * reported either way (grammar-docs/language.md, "Predicted time").
   */
  readonly refuseOverBudget: boolean
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxDepth: 12,
  maxNodes: 500,
  maxListLength: 10_000,
  maxStringLength: 4096,
  maxSortClauses: 8,
  maxPerPage: 50,
  defaultPerPage: 50,
  maxIssues: 100,
  maxBodyBytes: 1_000_000,
  maxInputDepth: 64,
  // 5,000 websites in one `in` list are ~120 KB of canonical JSON and must stay storable; a 1 MB
  // body is not (20 of them stored 19.6 MB).
  maxStoredQueryBytes: 256 * 1024,
  maxStoredBytesPerOwner: 16 * 1024 * 1024,
  storedQueryDays: 90,
  maxCost: 3000,
  refuseOverBudget: false,
})

/** Levels of nesting the deepest request admitted under `maxDepth` needs (see `maxInputDepth`), plus room for `maxDepth`'s own issue. */
const inputDepthFor = (maxDepth: number): number => 2 * maxDepth + 2 + 38

export function resolveLimits(overrides?: Partial<Limits>): Limits {
  const merged = { ...DEFAULT_LIMITS, ...overrides }
  if (overrides?.maxInputDepth === undefined) merged.maxInputDepth = Math.max(DEFAULT_LIMITS.maxInputDepth, inputDepthFor(merged.maxDepth))
  return Object.freeze(merged)
}

/**
 * The bounds on an input's size that `maxBodyBytes` implies. Every JSON value takes at least one
 * byte and every value after the first a separator (`[0,0,0]`), so a body of B bytes holds at most
 * (B + 1) / 2 values; every character of a string or key takes at least one byte (a character
 * outside the BMP is two UTF-16 units in four bytes), so at most B characters. An input over
 * either is one no body within the limit could have carried.
 */
export function inputBounds(limits: Limits): { readonly maxValues: number; readonly maxStringChars: number } {
  return { maxValues: Math.floor((limits.maxBodyBytes + 1) / 2), maxStringChars: limits.maxBodyBytes }
}
