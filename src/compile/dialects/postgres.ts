/**
 * @module PostgreSQL hooks of the compiler (see `../dialect.ts`). The golden tests pin this SQL;
 * test/postgres/differential.test.ts runs it on a real server against the SQLite engine.
 */
import { type Expression, type SqlBool, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely'
import type { ListElementKind, SqlDialect } from '../dialect.js'

/**
 * `jsonb_array_elements_text` yields text; each column type gets its cast so that a list membership
 * compares values, not text (`10` and `10.0` are equal numbers). Booleans are stored as 0/1 integers.
 */
const LIST_CAST: Record<ListElementKind, string | undefined> = {
  integer: 'bigint',
  number: 'double precision',
  boolean: 'integer',
  string: undefined,
  date: undefined,
  datetime: undefined,
  enum: undefined,
  tags: undefined,
}

/** The column carrying the keys' order in `keysWithRecords` (no dataset column starts with `_`). */
const KEY_ORDINAL = '_key_ordinal'

const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz'

export const postgresDialect: SqlDialect = Object.freeze({
  name: 'postgres' as const,
  // `= any(array(...))`, not `in (select ...)`: the IN subquery is planned as a (hash) semi join,
  // so an index on (country, stage, employees) takes only country and employees as index
  // conditions and filters stage afterwards; an array is an index condition like a list of
  // constants (the design section 8 filter's count on 100k companies, SQL only: 4.9 -> 0.27 ms).
  // Same result as IN over a list without NULLs: NULL when the column is, else true or false.
  inList: (column: Expression<unknown>, json: string, kind: ListElementKind) => {
    const cast = LIST_CAST[kind]
    return cast
      ? sql<SqlBool>`${column} = any(array(select jsonb_array_elements_text(${json}::jsonb)::${sql.raw(cast)}))`
      : sql<SqlBool>`${column} = any(array(select jsonb_array_elements_text(${json}::jsonb)))`
  },
  // lower() and ILIKE follow the database locale and fold non-ASCII letters too; translate() folds
  // exactly A-Z, the same letters SQLite's LIKE folds, so both backends return the same rows.
  foldCase: (column: Expression<unknown>) => sql`translate(${column}, ${sql.lit(ASCII_UPPER)}, ${sql.lit(ASCII_LOWER)})`,
  foldForEquality: (column: Expression<unknown>) => sql`translate(${column}, ${sql.lit(ASCII_UPPER)}, ${sql.lit(ASCII_LOWER)})`,
  // PostgreSQL's NULLs are the largest values: last ascending, first descending.
  nullsLastByDefault: Object.freeze({ asc: true, desc: false }),
  localStatements: false,
  // PostgreSQL plans a correlated IN as a hashed subplan filter already.
  correlatedKey: (key: Expression<unknown>) => key,
  // NOT IN is never made an anti-join (its NULL rule forbids it), and a set PostgreSQL expects to
  // exceed work_mem is then rescanned for every outer row; NOT EXISTS over the same keys becomes a
  // hash anti-join. (On 100,000 companies a lone `none` over investors: NOT IN 293 ms, NOT EXISTS
  // 149 ms, while the set still fitted; the full set of 1,000,000 would not.)
  notInKeys: (key: Expression<unknown>, keys: Expression<unknown>, alias: string) =>
    sql<SqlBool>`not exists (select 1 from ${keys} as ${sql.ref(alias)} where ${sql.ref(`${alias}.k`)} = ${key})`,
  stringAgg: (value: Expression<unknown>, separator: string, orderBy: Expression<unknown>) =>
    sql<string | null>`string_agg(${value}, ${separator} order by ${orderBy})`,
  // json_agg over no rows is NULL, not an empty array.
  jsonArrayAgg: (value: Expression<unknown>, orderBy: Expression<unknown>) =>
    sql<unknown>`coalesce(json_agg(${value} order by ${orderBy}), '[]'::json)`,
  // An aggregate over a subquery takes its rows in the subquery's ORDER BY (the form PostgreSQL's
  // manual gives for ordered aggregate input). int8 and float8 values become JSON numbers, which
  // pg parses to the same numbers as the columns' own parsers (open-postgres.ts: safe integers).
  jsonRows: (query: Expression<unknown>) => sql<unknown[]>`(select coalesce(json_agg(r), '[]'::json) from ${query} as r)`,
  // A lateral join reads each key's record by its primary key; the keys' order is carried as a row
  // number taken as they come out of their own ORDER BY, so the outer join may run in any order.
  keysWithRecords: (keys: string, record: string) =>
    `select "k".*, "r".* from (select "k".*, row_number() over () as "${KEY_ORDINAL}" from (${keys}) as "k") as "k" left join lateral (${record}) as "r" on true order by "k"."${KEY_ORDINAL}"`,
  // "C" compares the bytes of UTF-8, which is SQLite's BINARY order.
  binaryText: (column: Expression<unknown>) => sql`${column} collate "C"`,
  // READ COMMITTED (the default) takes a new snapshot per statement; REPEATABLE READ keeps the
  // first statement's, and a read-only transaction of it never fails to serialize.
  snapshot: (db: Kysely<any>) => db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only'),
  coldKysely: () =>
    new Kysely<any>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    }),
})
