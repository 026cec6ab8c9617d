/**
 * @module The statements of the record lookups as query shapes: each is built by Kysely once per
 * dialect, with stand-ins for its values, and compiled; a call binds the values as parameters and
 * runs the compiled SQL (`session.ts`). Building and compiling a query through Kysely costs more
 * than running a primary-key lookup (design section 8: 0.03-0.09 ms against ~0.01 ms raw), and a
 * company detail runs a dozen, so no call builds SQL. The same idea as the by-ids statements of
 * `execute/run.ts`, for statements with several values.
 *
 * @example
 * const PEOPLE = queryShape<{ companyId: number }, PersonRow>('people', (db, _dialect, p) =>
 *   db.selectFrom('company_people').select(['name', 'title', 'path']).where('company_id', '=', p.companyId).orderBy('position'))
 * await session.all(PEOPLE, { companyId: 5 })
 */
import type { Compilable, Kysely } from 'kysely'
import type { SqlDialect } from '../compile/dialect.js'
import { DIALECTS } from '../compile/index.js'
import type { DialectName } from '../store/schema/column-types.js'

/**
 * Stands for the value of one named parameter while a shape is compiled; Kysely makes it a bound
 * parameter like any value. Used as a JavaScript value instead (`p.id + 1`, `JSON.stringify(p.ids)`),
 * it would compile into a wrong constant, so every conversion throws.
 */
class Slot {
  constructor(readonly name: string) {}
  #misuse(): never {
    throw new Error(`records: the parameter "${this.name}" of a query shape was used as a JavaScript value; pass it to Kysely as it is`)
  }
  toJSON(): never { return this.#misuse() }
  toString(): never { return this.#misuse() }
  valueOf(): never { return this.#misuse() }
  [Symbol.toPrimitive](): never { return this.#misuse() }
}

/** A compiled shape: its SQL and its parameters, each a `Slot` to fill or a constant of the shape. */
interface Compiled {
  readonly sql: string
  readonly parameters: readonly unknown[]
}

/** What a call runs: the SQL and its values. */
export interface BoundQuery {
  readonly sql: string
  readonly parameters: readonly unknown[]
}

export type ShapeBuilder<P> = (db: Kysely<any>, dialect: SqlDialect, params: P) => Compilable<unknown>

export class QueryShape<P extends object, R> {
  readonly #build: ShapeBuilder<P>
  readonly #compiled = new Map<DialectName, Compiled>()
  /** The row type, for inference only. */
  declare readonly row: R

  constructor(readonly name: string, build: ShapeBuilder<P>) {
    this.#build = build
  }

  /** The shape's query built on `db` with `params` (values or slots), for composing it into another shape. */
  build(db: Kysely<any>, dialect: SqlDialect, params: P): Compilable<unknown> {
    return this.#build(db, dialect, params)
  }

  /** The statement for `dialect` with `params` bound. */
  bind(dialect: DialectName, params: P): BoundQuery {
    const compiled = this.#compiled.get(dialect) ?? this.#compile(dialect)
    const values = params as Record<string, unknown>
    return {
      sql: compiled.sql,
      parameters: compiled.parameters.map((p) => {
        if (!(p instanceof Slot)) return p
        const value = values[p.name]
        if (value === undefined) throw new Error(`records: query shape ${this.name} needs the parameter "${p.name}"`)
        return value
      }),
    }
  }

  #compile(dialectName: DialectName): Compiled {
    const dialect = DIALECTS[dialectName]
    const slots = new Map<string, Slot>()
    const params = new Proxy({}, {
      get: (_target, key) => {
        if (typeof key !== 'string') return undefined
        let slot = slots.get(key)
        if (!slot) slots.set(key, (slot = new Slot(key)))
        return slot
      },
    }) as P
    const { sql, parameters } = this.#build(coldKysely(dialectName), dialect, params).compile()
    for (const slot of slots.values()) {
      if (!parameters.includes(slot)) throw new Error(`records: query shape ${this.name} reads "${slot.name}" but never binds it`)
    }
    const compiled = Object.freeze({ sql, parameters: Object.freeze([...parameters]) })
    this.#compiled.set(dialectName, compiled)
    return compiled
  }
}

/**
 * A query shape: `build` receives a Kysely instance that only compiles, the dialect's hooks, and
 * `params`, whose every property stands for the value of the same name at call time.
 */
export function queryShape<P extends object, R>(name: string, build: ShapeBuilder<P>): QueryShape<P, R> {
  return new QueryShape<P, R>(name, build)
}

/** One part of a batch: a shape, and its parameters made from the batch's. */
export interface BatchPart<P, R> {
  readonly shape: QueryShape<any, R>
  readonly params: (batchParams: P) => object
}

type PartRows<S> = { readonly [K in keyof S]: S[K] extends BatchPart<any, infer R> ? R[] : never }

/**
 * Several shapes read together, each part's rows under its key (`RecordSession.batch`). Where the
 * dialect turns a subquery's rows into JSON (`SqlDialect.jsonRows`: statements are round trips),
 * the parts are one statement, `combined`: one column per part, its rows as a JSON array of objects.
 * Elsewhere each part runs as its own statement. The combined statement is prepared once per
 * connection (`store/named-statements.ts`), so a batch is for lookups by key, whose plan does not
 * depend on the values.
 */
export class QueryBatch<P extends object, S extends Record<string, BatchPart<P, unknown>>> {
  /** The rows type, for inference only. */
  declare readonly rows: PartRows<S>
  readonly combined: QueryShape<P, Record<keyof S, unknown[] | null>>

  constructor(readonly name: string, readonly parts: S) {
    this.combined = new QueryShape(name, (db, dialect, p) => {
      const jsonRows = dialect.jsonRows
      if (!jsonRows) throw new Error(`records: the ${dialect.name} dialect has no jsonRows; run the parts of ${name} one by one`)
      return db.selectNoFrom(Object.entries(parts).map(([key, part]) => jsonRows(part.shape.build(db, dialect, part.params(p) as never) as never).as(key)))
    })
  }
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never
/** The batch's parameters: what every part's `params` takes. */
type BatchParams<S extends Record<string, BatchPart<any, unknown>>> = Intersection<Parameters<S[keyof S]['params']>[0]> & object

/** A batch of query shapes (see `QueryBatch`); each part's `params` maps the batch's parameters to its own. */
export function queryBatch<S extends Record<string, BatchPart<any, unknown>>>(name: string, parts: S): QueryBatch<BatchParams<S>, S> {
  return new QueryBatch(name, parts)
}

const cold = new Map<DialectName, Kysely<any>>()

function coldKysely(dialect: DialectName): Kysely<any> {
  let db = cold.get(dialect)
  if (!db) cold.set(dialect, (db = DIALECTS[dialect].coldKysely()))
  return db
}
