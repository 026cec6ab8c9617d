/**
 * @module The output of the check stage: a query whose names are resolved against the catalog
 * and whose filter is in normal form. Compile and the reference evaluator accept only this.
 *
 * Normal form of `filter` (established by check/normalize.ts, relied upon downstream):
 * - `Foreign.dataset` is the canonical dataset name (aliases resolved), and a relation exists.
 * - Every `Condition.field` exists on the dataset in scope and allows its operator.
 * - No `ne`, `nin` or `has_none`: they are rewritten to `Not(eq)`, `Not(in)`, `Not(has_any)` with the
 *   same path. `Foreign.match` keeps all three modes (each is its own EXISTS form).
 * - `eq: null` became `is_null: true`; `eq`/`in` on a tags field became `has_any`. A blank text under
 *   `eq`/`ne`/`in`/`nin` on a string or enum field ("no value", grammar-docs/guides/serving.md, "Missing values") became
 *   `is_null: true` / `is_null: false` / `Or(in of the rest, is_null: true)` / its `Not`.
 * - Values fit the field type: integers/numbers are JS numbers (numeric strings were converted),
 *   dates are 'YYYY-MM-DD', datetimes 'YYYY-MM-DD HH:MM:SS', booleans true/false, enum values are
 *   the catalog's spelling. Lists contain no null.
 * - MatchAll occurs only as the whole filter.
 */
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import type { FilterNode } from '../ast/nodes.js'

export interface CheckedSort {
  readonly field: FieldDef
  readonly direction: 'asc' | 'desc'
}

export interface CheckedQuery {
  readonly dataset: DatasetDef
  readonly filter: FilterNode
  /** The sort as requested (or the dataset's default sort); compile appends the primary key. */
  readonly sort: readonly CheckedSort[]
  /** 1-based page; 1 when the request gave none. */
  readonly page: number
  /** Page size; the limit's default when the request gave none. */
  readonly perPage: number
}
