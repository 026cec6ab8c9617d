/**
 * @module A checked query compiled once into the statements that execute needs: the ordered
 * sort keys of a page (keyset or first page), the total count, the rows and the tag values of a
 * page's ids. Each builder takes the Kysely instance to run on (a real database, or a dialect's
 * cold instance for explain and golden tests).
 */
import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { primaryKeyColumn } from '../catalog/index.js'
import type { FilterNode } from '../ast/nodes.js'
import type { CheckedQuery } from '../check/checked.js'
import type { SqlDialect } from './dialect.js'
import { seekAfter, seekRanges, type Boundary } from './page.js'
import { splitCountOf } from './split-count.js'
import { ownerCountOf, type OwnerCount } from './owner-count.js'
import { compileFilter, compileWhere } from './predicates.js'
import { ROOT_ALIAS, type HoistedSet } from './scope.js'
import { applyOrder, orderTerms, sortKeys, type SortKey } from './sort.js'
import { walkFactorFor } from './steer.js'
import { columnIndexName } from '../store/schema/dataset-tables.js'

/** The relation name of the subquery a checkpoint pass numbers the rows in. */
const INNER_ALIAS = 'inner_rows'

export interface KeysOptions {
  /**
   * Rows strictly after this boundary (sort values + primary key of the previous page's last row),
   * as one predicate. Not always an index range (see `seekRanges`); execute seeks by `range`.
   */
  readonly after?: Boundary
  /** Rows of one of `seekRanges(after)`'s ranges (instead of `after`). */
  readonly range?: Expression<SqlBool>
  readonly limit: number
  /**
   * SQL OFFSET. Execute never uses it: SQLite 3.51 miscounts OFFSET when it rewrites a correlated
   * EXISTS into a join (see execute/run.ts, `fetchKeys`), so skips are done on keys read.
   */
  readonly offset?: number
  /**
   * Walk the first sort key's index and filter on the way, instead of letting the planner drive
   * from the filter's indexes (see `steer.ts`, which decides). Ignored when the plan cannot walk.
   */
  readonly walkSortIndex?: boolean
}

export interface QueryPlan {
  readonly dataset: DatasetDef
  readonly dialect: SqlDialect
  readonly keys: readonly SortKey[]
  /** The compiled filter; undefined for match-all. */
  readonly where: Expression<SqlBool> | undefined
  /**
   * True when a keys query can be forced to walk the first sort key's index (`walkSortIndex`): the
   * dialect can mark columns unindexed, there is a filter, and the first sort key has an index.
   */
  readonly canWalkSortIndex: boolean
  /** Walk reads allowed per hit before the index-driven plan is preferred (compile/steer.ts). */
  readonly walkFactor: number
  /** `select <sort keys as k0..kn> from <table> t0 where <filter> [and <seek>] order by ... limit n`. */
  keysQuery(db: Kysely<any>, options: KeysOptions): SelectQueryBuilder<any, any, Record<string, unknown>>
  /** The rows after `after` as index ranges in sort order (`page.ts`, `seekRanges`). */
  seekRanges(after: Boundary): readonly Expression<SqlBool>[]
  /** `select count(*) as count from <table> t0 where <filter>`. */
  countQuery(db: Kysely<any>): SelectQueryBuilder<any, any, { count: number | string | bigint }>
  /**
   * `select count(*) from (select 1 from <table> t0 where <filter> limit <limit>)`: the matches, up
   * to `limit`, in at most `limit` reads of the filter's best index. A page answered without its
   * total steers with it (execute/counts.ts, `probedMatches`).
   */
  probeQuery(db: Kysely<any>, limit: number): SelectQueryBuilder<any, any, { count: number | string | bigint }>
  /**
   * `select count(*) from (select 1 from (select <filter> as hit from <table> t0 indexed by <sort
   * index> order by <keys> limit <reads>) where hit limit <hits>)`: how many of the first `reads`
   * rows in sort order match, counted up to `hits`, reading no further than the `hits`-th match. A
   * walk of the sort index that finds `hits` matches within `reads` rows is the plan to take, and
   * this tells so for the cost of that walk (execute/counts.ts, `probedMatches`). Only where the
   * dialect names the index a walk reads (`SqlDialect.walkFrom`); undefined otherwise.
   */
  readonly walkProbeQuery?: (db: Kysely<any>, reads: number, hits: number) => SelectQueryBuilder<any, any, { count: number | string | bigint }>
  /**
   * `select <key aliases> from (select <sort keys as k0..kn>, <filter> as hit from <table> t0
   * indexed by <sort index> order by <keys> limit <reads>) where hit order by <key aliases> limit
   * <hits>`: the keys of the first `hits` matches among the first `reads` rows in sort order, the
   * keys `keysQuery` reads from the start when they are all found there. The same walk as
   * `walkProbeQuery`, which a first page without its total answers with its own keys
   * (execute/counts.ts, `probedMatches`); defined where it is.
   */
  readonly walkKeysQuery?: (db: Kysely<any>, reads: number, hits: number) => SelectQueryBuilder<any, any, Record<string, unknown>>
  /**
   * For a filter that is a top-level `foreign` with `match: none`: the count of the records it does
   * NOT select (those with a related match, the `any` of the same inner filter, as a set), so that
   * the total is the table's row count minus it (`execute/counts.ts`). `none` and `any` of one inner
   * filter partition the records (a record whose relation key is NULL has no related record: it is
   * `none`), so the subtraction is exact. Counting the `none` directly probes every record of the
   * table (NOT EXISTS per row: companies without a seed round on 1,000,000 companies, 4.2 s);
   * counting the `any` reads only the set's keys (bench/suite: the mix's `companies-none-seed`).
   */
  readonly complementCount?: (db: Kysely<any>) => SelectQueryBuilder<any, any, { count: number | string | bigint }>
  /**
   * For a filter that is one tags `has_any` or one link-relation `foreign` with `match: any`: the
   * total read from the tag or link table alone, valid only while its `owner` column has no orphan
   * rows at the current data version (`compile/owner-count.ts`, `execute/counts.ts`).
   */
  readonly ownerCount?: OwnerCount
  /**
   * For a filter made only of negations, on a backend that counts it so
   * (`SqlDialect.countsNegationByRanges`): the total as a sum of counts over disjoint index ranges
   * of one negated condition's column (`compile/split-count.ts`).
   */
  readonly splitCount?: (db: Kysely<any>) => SelectQueryBuilder<any, any, { count: number | string | bigint }>
  /**
   * The sort keys of every `every`-th row of the result (rows `every`, `2 * every`, ...), with the
   * row's 1-based position as `position`, in one statement: the database numbers the rows in sort
   * order (`row_number()`) and returns only those, so one pass over the result sends
   * total / every rows to the engine, not total.
   */
  checkpointQuery(db: Kysely<any>, every: number): SelectQueryBuilder<any, any, Record<string, unknown>>
}

/**
 * The sets of `foreign` (`relations.ts`) as common table expressions of the statement, each
 * computed once (MATERIALIZED, on SQLite 3.35+ and PostgreSQL 12+, so a set read twice, by its
 * emptiness guard and by its lookups, is still computed once).
 */
export function withSets(db: Kysely<any>, sets: readonly HoistedSet[]): Kysely<any> {
  let out: any = db
  for (const set of sets) out = out.with((cte: any) => cte(set.name).materialized(), () => set.keys)
  return out as Kysely<any>
}

export function planQuery(checked: Pick<CheckedQuery, 'dataset' | 'filter' | 'sort'>, dialect: SqlDialect): QueryPlan {
  const { dataset } = checked
  const keys = sortKeys(checked)
  const compiledWhere = compileWhere(checked.filter, dataset, dialect)
  const where = compiledWhere.where
  const first = keys[0]
  const canWalkSortIndex = !!(where && first && dialect.unindexed && isIndexed(dataset, first.column))
  // Compiled on first use: most plans never walk.
  let walkWhere: ReturnType<typeof compileWhere> | undefined
  const walkFilter = () =>
    (walkWhere ??= compileWhere(checked.filter, dataset, dialect, { column: first!.column, unindexed: dialect.unindexed! }))
  /** The statement's sets and its WHERE, for a plain or a walking query. */
  const filterFor = (walk: boolean) => (walk ? walkFilter() : compiledWhere)
  // The index a walk reads, named where the dialect pins it (the primary key is the table itself).
  const walkIndex = canWalkSortIndex && dialect.walkFrom && first!.column !== primaryKeyColumn(dataset) ? columnIndexName(dataset.table, first!.column) : undefined
  const from = (db: Kysely<any>, walk = false, hoisted = true) => {
    const f = filterFor(walk)
    const table = walk && walkIndex ? dialect.walkFrom!(dataset.table, ROOT_ALIAS, walkIndex) : `${dataset.table} as ${ROOT_ALIAS}`
    // A walk's FROM is raw SQL (Kysely has no INDEXED BY); every reference to t0 is a `sql.ref`
    // string, so Kysely need not know the alias, and the cast only satisfies its table typing.
    const q = (hoisted ? withSets(db, f.sets) : db).selectFrom(table as `${string} as ${string}`)
    return f.where ? q.where(f.where) : q
  }

  const complement = complementOf(checked.filter)
  const ownerCount = ownerCountOf(checked.filter, dataset, dialect)
  const splitCount = where && dialect.countsNegationByRanges ? splitCountOf(checked.filter, dataset, (f) => compileFilter(f, dataset, dialect)) : undefined
  // Its `foreign` compiled as a set (`preferSets`), inline: counted by driving from the set's keys.
  const complementFrom = (db: Kysely<any>, filter: FilterNode) => {
    const f = compileWhere(filter, dataset, dialect, undefined, false, true)
    const q = db.selectFrom(`${dataset.table} as ${ROOT_ALIAS}`)
    return f.where ? q.where(f.where) : q
  }

  return Object.freeze({
    dataset,
    dialect,
    keys,
    where,
    canWalkSortIndex,
    walkFactor: walkFactorFor(checked.filter, dataset, first?.field),
    keysQuery(db: Kysely<any>, options: KeysOptions) {
      const walk = canWalkSortIndex && options.walkSortIndex === true
      let q = from(db, walk).select(keys.map((k) => sql.ref(`${ROOT_ALIAS}.${k.column}`).as(k.alias)))
      if (options.after) q = q.where(seekAfter(keys, options.after))
      if (options.range) q = q.where(options.range)
      q = applyOrder(q, keys, dialect).limit(options.limit)
      if (options.offset) q = q.offset(options.offset)
      return q as SelectQueryBuilder<any, any, Record<string, unknown>>
    },
    seekRanges(after: Boundary) {
      return seekRanges(keys, after, { tieGroupFirst: dialect.descendingTiesSorted === true })
    },
    countQuery(db: Kysely<any>) {
      return from(db).select(sql<number>`count(*)`.as('count'))
    },
    probeQuery(db: Kysely<any>, limit: number) {
      const some = from(db, false, false).select(sql<number>`1`.as('one')).limit(limit)
      return withSets(db, filterFor(false).sets).selectFrom(some.as('probe')).select(sql<number>`count(*)`.as('count'))
    },
    ...(canWalkSortIndex && dialect.walkFrom && where ? {
      walkProbeQuery(db: Kysely<any>, reads: number, hits: number) {
        const f = filterFor(false)
        const table = walkIndex ? dialect.walkFrom!(dataset.table, ROOT_ALIAS, walkIndex) : `${dataset.table} as ${ROOT_ALIAS}`
        const walked = applyOrder(db.selectFrom(table as `${string} as ${string}`).select(sql<SqlBool>`${f.where!}`.as('hit')), keys, dialect).limit(reads)
        const matched = db.selectFrom(walked.as('walked')).select(sql<number>`1`.as('one')).where(sql<SqlBool>`${sql.ref('walked.hit')}`).limit(hits)
        return withSets(db, f.sets).selectFrom(matched.as('probe')).select(sql<number>`count(*)`.as('count'))
      },
      walkKeysQuery(db: Kysely<any>, reads: number, hits: number) {
        const f = filterFor(false)
        const table = walkIndex ? dialect.walkFrom!(dataset.table, ROOT_ALIAS, walkIndex) : `${dataset.table} as ${ROOT_ALIAS}`
        const walked = applyOrder(db.selectFrom(table as `${string} as ${string}`)
          .select([...keys.map((k) => sql.ref(`${ROOT_ALIAS}.${k.column}`).as(k.alias)), sql<SqlBool>`${f.where!}`.as('hit')]), keys, dialect).limit(reads)
        // Ordered again outside: the walk's order, which SQLite keeps from the subquery without a sort of its own.
        const matched = withSets(db, f.sets).selectFrom(walked.as(INNER_ALIAS))
          .select(keys.map((k) => sql.ref(`${INNER_ALIAS}.${k.alias}`).as(k.alias)))
          .where(sql<SqlBool>`${sql.ref(`${INNER_ALIAS}.hit`)}`)
        return applyOrder(matched, keys, dialect, INNER_ALIAS).limit(hits) as SelectQueryBuilder<any, any, Record<string, unknown>>
      },
    } : {}),
    ...(ownerCount ? { ownerCount } : {}),
    ...(splitCount ? { splitCount } : {}),
    ...(complement ? { complementCount: (db: Kysely<any>) => complementFrom(db, complement).select(sql<number>`count(*)`.as('count')) } : {}),
    checkpointQuery(db: Kysely<any>, every: number) {
      // Planned without walk marks: the pass reads every hit, so driving from the filter's indexes
      // and sorting once beats walking the sort index with a row lookup per entry (1,000,000
      // companies, 638,009 hits: 0.87 s against 2.1 s).
      const position = sql<number>`row_number() over (order by ${sql.join(orderTerms(keys, dialect))})`
      // The sets go on the outer statement, which numbers the rows of the inner one.
      const ranked = from(db, false, false).select([...keys.map((k) => sql.ref(`${ROOT_ALIAS}.${k.column}`).as(k.alias)), position.as('position')])
      return withSets(db, filterFor(false).sets)
        .selectFrom(ranked.as(INNER_ALIAS))
        .select([...keys.map((k) => sql.ref(`${INNER_ALIAS}.${k.alias}`).as(k.alias)), sql.ref(`${INNER_ALIAS}.position`).as('position')])
        .where(sql<SqlBool>`${sql.ref(`${INNER_ALIAS}.position`)} % ${every} = 0`)
        .orderBy(sql.ref(`${INNER_ALIAS}.position`)) as SelectQueryBuilder<any, any, Record<string, unknown>>
    },
  })
}

/** The filter whose records a `complementCount` counts, when there is one (see `QueryPlan.complementCount`). */
function complementOf(filter: FilterNode): FilterNode | undefined {
  return filter.kind === 'Foreign' && filter.match === 'none' ? Object.freeze({ ...filter, match: 'any' as const }) : undefined
}

/** Whether `column` leads an index: the primary key, or a field the catalog declares indexed. */
function isIndexed(dataset: DatasetDef, column: string): boolean {
  if (column === primaryKeyColumn(dataset)) return true
  return (Object.values(dataset.fields) as FieldDef[]).some((f) => f.column === column && f.indexed === true)
}

/** The column under which `recordsByIdsQuery` returns a tags field's values (never a table column's name). */
export function tagsAlias(field: FieldDef): string {
  return `tags__${field.name}`
}

/**
 * A page's records in one statement: `select <every scalar column>, <each tags field's values as a
 * JSON array> from <table> t0 where pk in (<ids as one JSON parameter>)`. The tag lists are
 * correlated aggregates over each link table's (owner, value) primary key, so each is an index
 * range read per record; one statement instead of one per tags field (six per company page) took
 * a 50-record page from 1.06 ms to 0.71 ms on 1,000,000 companies (the suite's page 1 rows, `npm run bench -- --size 1000000`).
 */
export function recordsByIdsQuery(db: Kysely<any>, dialect: SqlDialect, dataset: DatasetDef, ids: readonly number[], only?: readonly FieldDef[]) {
  const pk = sql.ref(`${ROOT_ALIAS}.${primaryKeyColumn(dataset)}`)
  return recordsQuery(db, dialect, dataset, dialect.inList(pk, JSON.stringify(ids), 'integer'), only)
}

/**
 * The record of the key `keyRef` (a column of an enclosing query), for a page's keys and records
 * read in one statement (`SqlDialect.keysWithRecords`): `recordsByIdsQuery` for one id, without
 * parameters.
 */
export function recordOfKeyQuery(db: Kysely<any>, dialect: SqlDialect, dataset: DatasetDef, keyRef: string, only?: readonly FieldDef[]) {
  const pk = sql.ref(`${ROOT_ALIAS}.${primaryKeyColumn(dataset)}`)
  return recordsQuery(db, dialect, dataset, sql<SqlBool>`${pk} = ${sql.ref(keyRef)}`, only)
}

function recordsQuery(db: Kysely<any>, dialect: SqlDialect, dataset: DatasetDef, where: Expression<SqlBool>, only?: readonly FieldDef[]) {
  // A field selection (`check/fields.ts`) reads only its columns, and only its tags fields' tables.
  const fields = only ?? (Object.values(dataset.fields) as FieldDef[])
  const columns = fields.flatMap((f) => (f.column ? [f.column] : []))
  const pk = sql.ref(`${ROOT_ALIAS}.${primaryKeyColumn(dataset)}`)
  const tagLists = fields.flatMap((f) => {
    if (!f.tags) return []
    const value = sql.ref(`tl.${f.tags.valueColumn}`)
    const list = sql`(select ${dialect.ownedValuesAgg?.(value) ?? dialect.jsonArrayAgg(value, value)} from ${sql.table(f.tags.table)} as tl where ${sql.ref(`tl.${f.tags.ownerColumn}`)} = ${pk})`
    return [list.as(tagsAlias(f))]
  })
  return db
    .selectFrom(`${dataset.table} as ${ROOT_ALIAS}`)
    .select([...columns.map((c) => sql.ref(`${ROOT_ALIAS}.${c}`).as(c)), ...tagLists])
    .where(where)
}
