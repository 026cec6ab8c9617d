/**
 * @module The few places where SQLite and PostgreSQL need different SQL for the filter language,
 * as one small hook object per backend (`dialects/sqlite.ts`, `dialects/postgres.ts`). The
 * compiler calls hooks and never asks which backend it is compiling for, so a third backend is one
 * more file, not a hunt for `if (dialect === ...)`.
 */
import type { Expression, Kysely, RawBuilder } from 'kysely'
import type { FieldTypeKind } from '../catalog/field-types.js'
import type { DialectName } from '../store/schema/column-types.js'

/** The scalar kinds a list element can have (tags values are strings). */
export type ListElementKind = Exclude<FieldTypeKind, 'tags'> | 'tags'

export interface SqlDialect {
  readonly name: DialectName
  /**
   * A parenthesised subquery yielding the elements of `json` (a JSON array, bound as ONE parameter)
   * as rows of one column whose type compares correctly with a column of `kind`. One parameter
   * whatever the list length, so there is no bind-variable ceiling (SQLite's is 32,766; pg's 65,535).
   */
  jsonList(json: string, kind: ListElementKind): RawBuilder<unknown>
  /**
   * The column folded to lower case for the literal text operators, ASCII letters only, so that
   * both backends fold exactly the same characters (see `text.ts`).
   */
  foldCase(column: Expression<unknown>): Expression<unknown>
  /** A Kysely instance that compiles this dialect's SQL without a database (explain, golden tests). */
  coldKysely(): Kysely<any>
}
