/**
 * @module The few places where SQLite and PostgreSQL need different SQL for the filter language
 * and the record lookups (src/records), as one small hook object per backend (`dialects/sqlite.ts`, `dialects/postgres.ts`). The
 * compiler calls hooks and never asks which backend it is compiling for, so a third backend is one
 * more file, not a hunt for `if (dialect === ...)`.
 */
import type { Expression, Kysely, RawBuilder, SqlBool, TransactionBuilder } from 'kysely'
import type { FieldTypeKind } from '../catalog/field-types.js'
import type { DialectName } from '../store/schema/column-types.js'

/** The scalar kinds a list element can have (tags values are strings). */
export type ListElementKind = Exclude<FieldTypeKind, 'tags'> | 'tags'

export interface SqlDialect {
  readonly name: DialectName
  /**
   * `column IN <the elements of json>`: `json` is a JSON array without NULLs, bound as ONE
   * parameter, its elements compared as values of the column's `kind`. One parameter whatever the
   * list length, so there is no bind-variable ceiling (SQLite's is 32,766; pg's 65,535). The result
   * is that of SQL's `IN` over a list without NULLs: NULL when the column is, else true or false.
   */
  inList(column: Expression<unknown>, json: string, kind: ListElementKind): RawBuilder<SqlBool>
  /**
   * The column folded to lower case for the literal text operators, ASCII letters only, so that
   * both backends fold exactly the same characters (see `text.ts`).
   */
  foldCase(column: Expression<unknown>): Expression<unknown>
  /**
   * The column folded to lower case for equality (tag values, `tags.ts`): ASCII letters only, as
   * `foldCase`, but as a function on both backends, since `=` does not fold. The same expression
   * is indexed (`tagFoldIndexStatements`), so a tag condition still looks its values up.
   */
  foldForEquality(column: Expression<unknown>): Expression<unknown>
  /**
   * Where the backend puts NULLs when ORDER BY says only `asc`/`desc`. The compiler writes
   * `NULLS LAST` only where it differs from this: the order is the same, but SQLite treats an
   * explicit `DESC NULLS LAST` as a different order from its index's and sorts (13.6 ms vs 0.2 ms
   * for page 1 of 100k companies by svc_score desc).
   */
  readonly nullsLastByDefault: { readonly asc: boolean; readonly desc: boolean }
  /**
   * The primary key of a `foreign` subquery's row for a tags probe (`pk IN (SELECT owner ...)`),
   * marked so the planner filters with the list instead of driving the join from it. Driving from
   * the list repeats a scan of every listed owner for each outer row: the spec's example on 100k
   * companies took 9.7 s that way on SQLite and 0.24 s filtering.
   */
  correlatedKey(key: Expression<unknown>): Expression<unknown>
  /**
   * The exact complement of `key IN (keys)` for the set form of `foreign` (`relations.ts`), where a
   * plain `NOT (key IN (...))` plans badly; `keys` selects one column `k` without NULLs and `alias`
   * is free to name it. Absent where the negation is fine: SQLite materialises the set once and
   * probes it per row either way.
   */
  readonly notInKeys?: (key: Expression<unknown>, keys: Expression<unknown>, alias: string) => Expression<SqlBool>
  /**
   * A top-level column reference the planner will not use to drive an index scan, for plans that
   * must walk the sort index instead (`compile/steer.ts`). Absent where the backend's planner
   * already weighs an early-terminating walk of the sort index against the filter's indexes
   * (PostgreSQL does, design section 8), so the compiler never forces one there.
   */
  readonly unindexed?: (column: Expression<unknown>) => Expression<unknown>
  /**
   * The FROM of a walk: `table` as `alias`, pinned to the sort index `index`, where marking the
   * filter's columns `unindexed` is not enough. SQLite, reading a literal LIMIT (execute/statements.ts,
   * `withLiteralLimit`), may scan a covering composite index whole and sort it instead (1,000,000
   * companies, `+country = 'USA'` by svc_score, 10 keys: 79 ms against 0.02 ms walking
   * companies_svc_score). Absent where the compiler never forces a walk.
   */
  readonly walkFrom?: (table: string, alias: string, index: string) => Expression<unknown>
  /**
   * Whether the backend reads a descending sort from an ascending `(col, pk)` index backwards and
   * sorts each group of equal `col` values by the primary key (SQLite: USE TEMP B-TREE FOR LAST
   * TERM), so that a seek into a large tie group sorts all of it. Then a seek after a descending
   * first key reads the rest of the boundary's tie group as a range of its own first (`page.ts`,
   * `seekRanges`). PostgreSQL has indexes in the descending order (migration 007) and needs none.
   */
  readonly descendingTiesSorted?: boolean
  /**
   * Statements run in this process (SQLite): one more costs a few microseconds, not a round trip
   * to a server. A count whose form depends on a probe then runs the probe on its own first
   * (`execute/counts.ts`) instead of carrying both forms in one statement.
   */
  readonly localStatements: boolean
  /**
   * Whether a filter made only of negations is counted as a sum of index ranges
   * (`split-count.ts`): SQLite reads each range of its indexes and tests the rest of the filter
   * on the way. Absent on PostgreSQL, whose planner may answer a large range with a scan of the
   * whole table, once per range.
   */
  readonly countsNegationByRanges?: boolean
  /**
   * The non-NULL values of `value` joined by `separator` (bound as a parameter) in the order of
   * `orderBy`, as an aggregate; NULL over no rows or only NULLs. `value` is text.
   */
  stringAgg(value: Expression<unknown>, separator: string, orderBy: Expression<unknown>): RawBuilder<string | null>
  /**
   * The values of `value` as a JSON array in the order of `orderBy`, as an aggregate; `[]` over no
   * rows. SQLite returns the array as JSON text, PostgreSQL as `json` (which pg parses): callers
   * accept both. A page's tag lists ride along with its rows in one statement this way.
   */
  jsonArrayAgg(value: Expression<unknown>, orderBy: Expression<unknown>): RawBuilder<unknown>
  /**
   * One record's tag values (a link table's rows of one owner, read by its primary key
   * `(owner, value)`) as a JSON array, as `jsonArrayAgg` gives it, ascending by value or in the
   * order of that key: the records mapper sorts a list that is not in order
   * (`execute/records.ts`), so a dialect that reads the key in order may skip the sort. Absent:
   * `jsonArrayAgg` ordered by the value.
   */
  readonly ownedValuesAgg?: (value: Expression<unknown>) => RawBuilder<unknown>
  /**
   * The rows of `query` as one JSON array of objects (column name to value, in the query's order),
   * `[]` for none: several reads become one statement (`records/query-shape.ts`, `queryBatch`).
   * Present where a statement is a round trip to a server; absent where statements run in this
   * process (`localStatements`), which runs the reads one by one and keeps each value's own type.
   */
  readonly jsonRows?: (query: Expression<unknown>) => RawBuilder<unknown[]>
  /**
   * One statement reading a page's keys and each key's record: `keys` is a compiled keys statement
   * (its parameters stay the statement's), `record` a statement without parameters reading the
   * record whose primary key is `k.<the keys' primary key alias>`. The rows are the keys' rows in
   * their order, each with its record's columns (NULL where the record is gone). Present where a
   * statement is a round trip (`execute/run.ts`, `fetchKeysAndRecords`); absent where two statements
   * cost about what one does.
   */
  readonly keysWithRecords?: (keys: string, record: string) => string
  /**
   * The text column compared byte by byte, for ORDER BY over text whose column has the database's
   * default collation (the detail tables): SQLite's default is binary already; PostgreSQL's follows
   * the database's locale (en_US sorts `b` before `C`), where the catalog's columns are "C"
   * (`store/schema/column-types.ts`). Both backends then order the same rows the same way.
   */
  binaryText(column: Expression<unknown>): Expression<unknown>
  /**
   * A transaction in which every read sees the same state of the database, for a record assembled
   * from several statements (an investor's aggregates) while an import may write.
   */
  snapshot(db: Kysely<any>): TransactionBuilder<any>
  /** A Kysely instance that compiles this dialect's SQL without a database (explain, golden tests). */
  coldKysely(): Kysely<any>
}
