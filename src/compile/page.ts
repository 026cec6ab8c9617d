/**
 * @module Keyset paging: "the rows after this boundary" as a predicate over the sort keys, so page N
 * is an index seek instead of an OFFSET that reads and discards (N-1) pages (660 ms vs 0.16 ms at
 * 200,000 rows on SQLite, design section 8).
 *
 * The boundary is the sort values plus the primary key of the last row of the previous page. The
 * order is lexicographic over the keys, each ascending or descending with NULLs last. So a row r is
 * after boundary b when, for some i, r equals b on keys 1..i-1 and is strictly after b on key i:
 *
 *   after_i(r, b):  b_i NULL       → never (nothing sorts after NULL when NULLs are last)
 *                   b_i not NULL   → r_i > b_i (asc) or r_i < b_i (desc), or r_i IS NULL
 *   same_i(r, b):   b_i NULL       → r_i IS NULL
 *                   b_i not NULL   → r_i = b_i
 *
 * nested as after_1 OR (same_1 AND (after_2 OR (same_2 AND ...))). `r_i IS NULL` is left out for
 * columns the catalog declares NOT NULL. The last key is the primary key, so the order is total and
 * no row is repeated or skipped between pages. Every comparison is against a non-NULL bound
 * parameter, so each term is NULL only if r_i is, and those cases are covered by the IS NULL terms.
 */
import { sql, type Expression, type SqlBool } from 'kysely'
import { eb } from './compiled.js'
import { ROOT_ALIAS } from './scope.js'
import type { SortKey } from './sort.js'
import { bindable } from './values.js'

export type Boundary = readonly (string | number | boolean | null)[]

/** Rows strictly after `boundary` in the order of `keys`. */
export function seekAfter(keys: readonly SortKey[], boundary: Boundary): Expression<SqlBool> {
  if (boundary.length !== keys.length) throw new Error(`compile: boundary has ${boundary.length} values for ${keys.length} sort keys`)
  // The last key is the non-null primary key, so at least that term exists.
  const seek = seekFrom(keys, boundary, 0) ?? sql<SqlBool>`1 = 0`
  const range = leadingRange(keys, boundary)
  return range ? eb.and([range, seek]) : seek
}

/**
 * A condition implied by the seek that the planner can use as the start of an index range on the
 * first key: `k1 >= b1` (asc) or `k1 <= b1` (desc), plus `OR k1 IS NULL` when k1 is nullable. The
 * nested OR form alone makes SQLite scan the sort index from its start and filter (O(offset):
 * 24.5 ms for page 1,001 of 100k companies by svc_score desc); with this conjunct, 4.9 ms, and
 * 0.4 ms when the first key is NOT NULL (a pure range). Redundant, so it never changes the rows.
 */
function leadingRange(keys: readonly SortKey[], boundary: Boundary): Expression<SqlBool> | undefined {
  const key = keys[0]
  const b = boundary[0] ?? null
  // A NULL boundary already leads with `k1 IS NULL`, which is an index range.
  if (!key || b === null || keys.length === 1) return undefined
  const column = sql.ref(`${ROOT_ALIAS}.${key.column}`)
  const atOrAfter = eb(column, key.direction === 'asc' ? '>=' : '<=', bindable(b))
  return key.nullable ? eb.or([atOrAfter, eb(column, 'is', null)]) : atOrAfter
}

/**
 * The rows after `boundary` as index ranges, in sort order: the rows after the boundary are the
 * rows of the first range, then those of the second, and so on. One range (`seekAfter`) unless:
 *
 * - the first key is nullable and the boundary's first value is not NULL: then the non-NULL rows
 *   after the boundary, which sort first, and `k1 IS NULL`, the NULL tail. Neither SQLite nor
 *   PostgreSQL takes the one-predicate form's `k1 <= b1 OR k1 IS NULL` into a range of the sort
 *   index: SQLite read the index from its start (page 10,000 of 638,009 hits on 1,000,000
 *   companies, svc_score desc: 240 ms of SQL; the non-NULL range alone, 2.3 ms), and PostgreSQL
 *   walked it from its top (page 20 of the design section 8 filter on 100k companies: 40.6 ms;
 *   split, 1.1 ms).
 * - `tieGroupFirst` (SQLite, `SqlDialect.descendingTiesSorted`) and the first key is descending:
 *   the non-NULL rows after the boundary are split again into the rest of the boundary's tie group
 *   (`k1 = b1 AND <after b on k2..>`, for a sort on one field an ascending range of the `(k1, pk)`
 *   index) and the rows strictly after it (`k1 < b1`). SQLite reads a descending order from the
 *   ascending index backwards, which gives the primary key descending within a tie, so it sorts
 *   every tie group it enters whole: a seek into a group of 6,000 equal svc_scores sorted it for
 *   every page (2.3 ms of SQL); as its own range, the group's rest is read in order (0.3 ms), and a
 *   group is sorted once, by the page that enters it.
 *
 * Running the ranges one after another (execute/run.ts) reads a later range only when the earlier
 * ones run out.
 */
export function seekRanges(keys: readonly SortKey[], boundary: Boundary, options: { tieGroupFirst?: boolean } = {}): readonly Expression<SqlBool>[] {
  if (boundary.length !== keys.length) throw new Error(`compile: boundary has ${boundary.length} values for ${keys.length} sort keys`)
  const key = keys[0]
  const b = boundary[0] ?? null
  // A NULL first value: the NULL group, already one range (`k1 IS NULL AND ...`).
  if (!key || b === null || keys.length === 1) return Object.freeze([seekAfter(keys, boundary)])
  const column = sql.ref(`${ROOT_ALIAS}.${key.column}`)
  const value = bindable(b)
  const ranges: Expression<SqlBool>[] = []
  if (options.tieGroupFirst && key.direction === 'desc') {
    const rest = seekFrom(keys, boundary, 1)
    if (rest) ranges.push(eb.and([eb(column, '=', value), rest]))
    // Excludes NULLs: a comparison with NULL is never true.
    ranges.push(eb(column, '<', value))
  } else if (key.nullable) {
    const atOrAfter = eb(column, key.direction === 'asc' ? '>=' : '<=', value)
    ranges.push(eb.and([atOrAfter, seekFrom(keys, boundary, 0, false) ?? sql<SqlBool>`1 = 0`]))
  } else {
    return Object.freeze([seekAfter(keys, boundary)])
  }
  if (key.nullable) ranges.push(eb(column, 'is', null))
  return Object.freeze(ranges)
}

/**
 * The seek over keys i.., or undefined when no row can be after the boundary on them. With
 * `nullsAfter` false, key i's NULL rows are left out (they are `seekRanges`' second range).
 */
function seekFrom(keys: readonly SortKey[], boundary: Boundary, i: number, nullsAfter = true): Expression<SqlBool> | undefined {
  const key = keys[i]
  if (!key) return undefined
  const column = sql.ref(`${ROOT_ALIAS}.${key.column}`)
  const b = boundary[i] ?? null
  const next = seekFrom(keys, boundary, i + 1)
  if (b === null) {
    // Only NULL rows tie with a NULL boundary; none sorts after it on this key.
    return next && eb.and([eb(column, 'is', null), next])
  }
  const value = bindable(b)
  const strictly = eb(column, key.direction === 'asc' ? '>' : '<', value)
  const after = key.nullable && nullsAfter ? eb.or([strictly, eb(column, 'is', null)]) : strictly
  return next ? eb.or([after, eb.and([eb(column, '=', value), next])]) : after
}
