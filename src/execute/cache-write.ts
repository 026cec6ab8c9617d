/**
 * @module Best-effort writes for what a read leaves behind: cached totals, remembered sort keys
 * (checkpoints, page boundaries), cache trims, a stored query's `last_used_at`. None of them is
 * needed for the answer, so none may hold a read up.
 *
 * On SQLite a write waits for the database's one write lock, up to the busy timeout (5 s by
 * default, `store/open.ts`), while another connection or process writes (an ingest, another
 * server's quota update, anyone holding `BEGIN IMMEDIATE`). A cache write instead runs in one
 * `BEGIN IMMEDIATE` transaction with the connection's busy timeout at 0 for its duration: the lock
 * is taken at once or the write is skipped. That happens synchronously on the raw better-sqlite3
 * handle (`ExecContext.sqlite`), in one turn of the event loop, so no other statement of this
 * process ever runs under the zero timeout (a quota update that must wait for the lock still does).
 * Without the handle (an ExecContext built by hand), the writes go through Kysely and a lock that
 * outlasts the busy timeout is skipped all the same, only late.
 *
 * On PostgreSQL the caches are row inserts that take no lock another session holds, except on the
 * same key of an insert not yet committed; they run as they are.
 */
import type { Compilable, CompiledQuery } from 'kysely'
import { LRUCache } from 'lru-cache'
import type { ExecContext } from './context.js'

/** What a best-effort write needs of an ExecContext: where to write, and how on SQLite. */
export type CacheWriter = Pick<ExecContext, 'db' | 'readonly' | 'sqlite'>

/** Prepared cache-write statements per connection, by SQL text (few shapes; values are bound). */
const STATEMENTS_PER_CONNECTION = 64
const prepared = new WeakMap<object, LRUCache<string, { run(...params: unknown[]): unknown }>>()

/** SQLite's answers for "another connection holds the lock": SQLITE_BUSY and its extended codes, SQLITE_LOCKED. */
export function isLockBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
}

/**
 * Runs `statements` as one best-effort write: true when written, false when skipped (the database
 * is read-only, or SQLite's write lock is held elsewhere). Any other failure is thrown.
 */
export async function writeCache(ctx: CacheWriter, statements: readonly Compilable[]): Promise<boolean> {
  if (ctx.readonly) return false
  if (statements.length === 0) return true
  const compiled = statements.map((s) => s.compile())
  const sqlite = ctx.sqlite
  if (sqlite) return writeNow(sqlite, compiled)
  try {
    for (const query of compiled) await ctx.db.executeQuery(query)
    return true
  } catch (error) {
    if (isLockBusy(error)) return false
    throw error
  }
}

function writeNow(sqlite: NonNullable<ExecContext['sqlite']>, compiled: readonly CompiledQuery[]): boolean {
  const run = () => {
    for (const query of compiled) statement(sqlite, query.sql).run(...(query.parameters as unknown[]))
  }
  // Inside a transaction of the caller's, the lock is the caller's already.
  if (sqlite.inTransaction) {
    run()
    return true
  }
  // The write must not wait for another connection's lock: the busy timeout is 0 while it runs.
  // Prepared statements for the pragmas and the transaction, not `pragma()` and `transaction()`,
  // which prepare or wrap anew on every call: together they were a third of writing a first
  // count's total (~0.05 of 0.15 ms).
  const kit = writeKit(sqlite)
  const timeout = Number(kit.readTimeout.get())
  kit.noWait.run()
  try {
    kit.begin.run()
    try {
      run()
      kit.commit.run()
    } catch (error) {
      if (sqlite.inTransaction) kit.rollback.run()
      throw error
    }
    return true
  } catch (error) {
    if (isLockBusy(error)) return false
    throw error
  } finally {
    restoreTimeout(sqlite, kit, Number.isSafeInteger(timeout) && timeout >= 0 ? timeout : 5000)
  }
}

interface WriteKit {
  readonly readTimeout: { get(): unknown }
  readonly noWait: { run(): unknown }
  readonly begin: { run(): unknown }
  readonly commit: { run(): unknown }
  readonly rollback: { run(): unknown }
  /** `pragma busy_timeout = N` by N (a pragma takes no bound value); few values per connection. */
  readonly restore: Map<number, { run(): unknown }>
}

const writeKits = new WeakMap<object, WriteKit>()

function writeKit(sqlite: NonNullable<ExecContext['sqlite']>): WriteKit {
  let kit = writeKits.get(sqlite)
  if (!kit) {
    kit = {
      readTimeout: sqlite.prepare('pragma busy_timeout').pluck(),
      noWait: sqlite.prepare('pragma busy_timeout = 0'),
      begin: sqlite.prepare('begin immediate'),
      commit: sqlite.prepare('commit'),
      rollback: sqlite.prepare('rollback'),
      restore: new Map(),
    }
    writeKits.set(sqlite, kit)
  }
  return kit
}

function restoreTimeout(sqlite: NonNullable<ExecContext['sqlite']>, kit: WriteKit, ms: number): void {
  let restore = kit.restore.get(ms)
  if (!restore) {
    if (kit.restore.size >= 8) kit.restore.clear()
    kit.restore.set(ms, (restore = sqlite.prepare(`pragma busy_timeout = ${Math.floor(ms)}`)))
  }
  restore.run()
}

function statement(sqlite: NonNullable<ExecContext['sqlite']>, sql: string): { run(...params: unknown[]): unknown } {
  let cache = prepared.get(sqlite)
  if (!cache) prepared.set(sqlite, (cache = new LRUCache({ max: STATEMENTS_PER_CONNECTION })))
  let s = cache.get(sql)
  if (!s) cache.set(sql, (s = sqlite.prepare(sql)))
  return s
}
