/**
 * @module The database drivers' objects as the public types name them, restated here (as Kysely
 * restates the driver interfaces it uses) so that the published type declarations import neither
 * `better-sqlite3` nor `pg` types. Those come from `@types/*` packages, development dependencies
 * of ventureql that a consumer need not install: a strict consumer without them compiles
 * (test/package/consumer.test.ts). The alternative, making `@types/better-sqlite3` and `@types/pg`
 * dependencies, would install them into every consumer and tie its versions of them to ours.
 *
 * better-sqlite3's `Database` is restated whole (callers use much of it through `vdb.sqlite`);
 * of `pg`, only what a caller may do with `connect()` and what `openPostgres({pool})` needs.
 */

//// better-sqlite3 ////
// Restated from @types/better-sqlite3 7.6 (MIT, DefinitelyTyped): the whole `Database` and
// `Statement`, so that code written against better-sqlite3 (`vdb.sqlite.prepare(sql).pluck().get()`,
// `transaction`, `function`) keeps compiling. test/package/driver-types.test.ts asserts that these
// and the real types are assignable both ways, so an upgrade that changes the driver's API fails there.

type VariableArgFunction = (...params: any[]) => unknown
type ArgumentTypes<F extends VariableArgFunction> = F extends (...args: infer A) => unknown ? A : never
type ElementOf<T> = T extends Array<infer E> ? E : T

export interface BetterSqliteRunResult {
  changes: number
  lastInsertRowid: number | bigint
}

export interface BetterSqliteColumn {
  name: string
  column: string | null
  table: string | null
  database: string | null
  type: string | null
}

/** A prepared statement of better-sqlite3. */
export interface BetterSqliteStatement<BindParameters extends unknown[] = unknown[], Result = unknown> {
  database: BetterSqliteDatabase
  source: string
  reader: boolean
  readonly: boolean
  busy: boolean
  run(...params: BindParameters): BetterSqliteRunResult
  get(...params: BindParameters): Result | undefined
  all(...params: BindParameters): Result[]
  iterate(...params: BindParameters): IterableIterator<Result>
  pluck(toggleState?: boolean): this
  expand(toggleState?: boolean): this
  raw(toggleState?: boolean): this
  bind(...params: BindParameters): this
  columns(): BetterSqliteColumn[]
  safeIntegers(toggleState?: boolean): this
}

export interface BetterSqliteTransaction<F extends VariableArgFunction> {
  (...params: ArgumentTypes<F>): ReturnType<F>
  default(...params: ArgumentTypes<F>): ReturnType<F>
  deferred(...params: ArgumentTypes<F>): ReturnType<F>
  immediate(...params: ArgumentTypes<F>): ReturnType<F>
  exclusive(...params: ArgumentTypes<F>): ReturnType<F>
}

export interface BetterSqliteRegistrationOptions {
  varargs?: boolean | undefined
  deterministic?: boolean | undefined
  safeIntegers?: boolean | undefined
  directOnly?: boolean | undefined
}

/** A better-sqlite3 `Database` (what `openDatabase` opens). */
export interface BetterSqliteDatabase {
  memory: boolean
  readonly: boolean
  name: string
  open: boolean
  inTransaction: boolean
  prepare<BindParameters extends unknown[] | {} = unknown[], Result = unknown>(
    source: string,
  ): BindParameters extends unknown[] ? BetterSqliteStatement<BindParameters, Result> : BetterSqliteStatement<[BindParameters], Result>
  transaction<F extends VariableArgFunction>(fn: F): BetterSqliteTransaction<F>
  exec(source: string): this
  pragma(source: string, options?: { simple?: boolean | undefined }): unknown
  function(name: string, cb: (...params: any[]) => any): this
  function(name: string, options: BetterSqliteRegistrationOptions, cb: (...params: any[]) => any): this
  aggregate<T>(
    name: string,
    options: BetterSqliteRegistrationOptions & {
      start?: T | (() => T)
      step: (total: T, next: ElementOf<T>) => T | void
      inverse?: ((total: T, dropped: T) => T) | undefined
      result?: ((total: T) => unknown) | undefined
    },
  ): this
  loadExtension(path: string): this
  close(): this
  defaultSafeIntegers(toggleState?: boolean): this
  backup(destinationFile: string, options?: { attached?: string; progress?: (info: { totalPages: number; remainingPages: number }) => number }): Promise<{ totalPages: number; remainingPages: number }>
  table(name: string, options: {
    rows: (...params: unknown[]) => Generator
    columns: string[]
    parameters?: string[] | undefined
    safeIntegers?: boolean | undefined
    directOnly?: boolean | undefined
  }): this
  unsafeMode(unsafe?: boolean): this
  serialize(options?: { attached?: string }): Buffer
}

//// pg ////

/** The result of a `pg` query, as far as callers use it. */
export interface PgQueryResult {
  readonly rows: unknown[]
  readonly rowCount: number | null
}

/** A connection checked out of a `pg` pool (`PoolClient`), as far as callers use it. */
export interface PgClient {
  query(text: string, values?: unknown[]): Promise<PgQueryResult>
  /** Returns the connection to the pool; `true` or an error discards it instead. */
  release(destroy?: boolean | Error): void
}

/**
 * A `pg` pool (`new pg.Pool(...)`) given to `openPostgres`. It must be a `pg` pool: ventureql
 * watches its clients' `error` events and cancels their statements by backend process id.
 */
export interface PgPool {
  connect(): Promise<PgClient & { on(event: 'error', listener: (error: Error) => void): unknown }>
  query(text: string, values?: unknown[]): Promise<PgQueryResult>
  end(): Promise<void>
}
