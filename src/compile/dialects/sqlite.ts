/**
 * @module SQLite hooks of the compiler (see `../dialect.ts`).
 */
import { type Expression, type SqlBool, DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely'
import type { SqlDialect } from '../dialect.js'

export const sqliteDialect: SqlDialect = Object.freeze({
  name: 'sqlite' as const,
  // json_each yields numbers as integer/real and strings as text, which compare with the column's
  // own storage class without casts; booleans were bound as 0/1 before they became JSON.
  inList: (column: Expression<unknown>, json: string) => sql<SqlBool>`${column} in (select value from json_each(${json}))`,
  // SQLite's LIKE already ignores the case of ASCII letters, and only of those, which is exactly
  // the folding PostgreSQL is made to do; so the column needs no function (and keeps its affinity).
  foldCase: (column: Expression<unknown>) => column,
  // lower() of SQLite (without ICU, as better-sqlite3 builds it) folds ASCII letters only.
  foldForEquality: (column: Expression<unknown>) => sql`lower(${column})`,
  // SQLite's NULLs are the smallest values: first ascending, last descending.
  nullsLastByDefault: Object.freeze({ asc: false, desc: true }),
  localStatements: true,
  // not(or(country = USA, employees < 10)) on 100,000 companies: the three ranges outside USA,
  // ~1 ms, against ~23 ms testing every entry of the composite index (split-count.ts).
  countsNegationByRanges: true,
  // A unary plus makes the column an expression, which SQLite never uses to drive an index lookup.
  correlatedKey: (key: Expression<unknown>) => sql`+${key}`,
  // The same mark on filter columns leaves the ORDER BY's index as the only one SQLite can use:
  // its planner never picks an early-terminating walk of the sort index by itself, even with
  // stat4 statistics (see compile/steer.ts for the figures).
  unindexed: (column: Expression<unknown>) => sql`+${column}`,
  // With a LIMIT it can read, its planner may still prefer scanning a covering composite index
  // whole and sorting (see dialect.ts): INDEXED BY leaves it the sort index alone.
  walkFrom: (table: string, alias: string, index: string) => sql`${sql.table(table)} as ${sql.id(alias)} indexed by ${sql.id(index)}`,
  // Its indexes are ascending: `order by col desc, id asc` walks `(col, id)` backwards and sorts
  // every group of equal col by id (a group of 6,000 svc_scores: 2.3 ms per page).
  descendingTiesSorted: true,
  // group_concat takes an ORDER BY of its own since SQLite 3.44 (better-sqlite3 12 bundles 3.5x).
  stringAgg: (value: Expression<unknown>, separator: string, orderBy: Expression<unknown>) =>
    sql<string | null>`group_concat(${value}, ${separator} order by ${orderBy})`,
  // Aggregates take an ORDER BY since SQLite 3.44; over no rows json_group_array gives '[]'.
  jsonArrayAgg: (value: Expression<unknown>, orderBy: Expression<unknown>) => sql<unknown>`json_group_array(${value} order by ${orderBy})`,
  // An aggregate's ORDER BY sorts its rows in a temporary b-tree even when they arrive in order, as
  // a link table's WITHOUT ROWID key (owner, value) gives them: 5 sorts per company record, about a quarter
  // of a page's records statement (`BENCH_ONLY=pages npx tsx bench/facets.ts`, pages without total).
  ownedValuesAgg: (value: Expression<unknown>) => sql<unknown>`json_group_array(${value})`,
  // BINARY is every column's collation unless declared otherwise, and no record table declares one.
  binaryText: (column: Expression<unknown>) => column,
  // A deferred transaction reads one WAL snapshot from its first read to its end; it never takes
  // the write lock, so it neither waits for an import nor holds one up.
  snapshot: (db: Kysely<any>) => db.transaction(),
  coldKysely: () =>
    new Kysely<any>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    }),
})
