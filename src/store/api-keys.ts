/**
 * @module API keys and quota counters (spec sections 5 and 8), on the database so that every
 * server process sharing it (a SQLite file, or one PostgreSQL database behind several servers) sees
 * the same keys and counts, and a restart resets nothing. One Kysely code path for both backends.
 *
 * Keys are random (192 bits), so a plain SHA-256 is the right hash: there is nothing to guess that
 * a slow password hash would protect, and lookups stay one indexed equality. The key text is
 * returned once by `createApiKey` and never stored or logged.
 *
 * `consumeQuota` is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE used < limit RETURNING` statement:
 * SQLite runs it under its write lock, PostgreSQL under the counter row's lock, so N concurrent
 * requests against R remaining requests get exactly R successes, in one process or several.
 */
import { createHash, randomBytes } from 'node:crypto'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import { sql } from 'kysely'
import type BetterSqlite3 from 'better-sqlite3'
import { queryShape, type BoundQuery } from '../records/query-shape.js'
import type { VentureDb } from './open.js'
import { prepared } from './sql-names.js'
import { API_KEY_TABLES } from './schema/api-key-tables.js'

export const PLANS = Object.freeze(['full', 'trial'] as const)
export type Plan = (typeof PLANS)[number]

/** Named quota periods; `month` is a calendar month (UTC), the others fixed lengths in seconds. */
const NAMED_PERIODS: Readonly<Record<string, number>> = Object.freeze({ minute: 60, hour: 3600, day: 86400, week: 604800, month: 0 })
const PERIOD_UNITS: Readonly<Record<string, number>> = Object.freeze({ s: 1, m: 60, h: 3600, d: 86400 })
export const PERIOD_FORMS = 'minute, hour, day, week, month, or a length such as 3600, 90s, 15m, 12h or 30d'

/** The public record of a key: everything but its text. */
export interface ApiKeyRecord {
  readonly keyId: number
  /** The first characters of the key, enough for a human to tell keys apart. */
  readonly prefix: string
  readonly plan: Plan
  readonly quotaLimit: number
  /** A period as accepted by `parsePeriod` (normalised: a name, or a length in seconds). */
  readonly quotaPeriod: string
  readonly label: string | null
  readonly createdAt: string
  readonly revokedAt: string | null
}

export interface QuotaWindow {
  /** Unix seconds at which the current period started. */
  readonly start: number
  /** Unix seconds at which the next period starts (X-Quota-Reset). */
  readonly reset: number
}

export interface QuotaState extends QuotaWindow {
  readonly limit: number
  readonly remaining: number
  /** False when the request was refused because the period's quota is used up. */
  readonly allowed: boolean
}

export interface NewKey {
  readonly plan: Plan
  readonly quota: number
  readonly period: string
  readonly label?: string
}

const KEY_PREFIX = 'vql_'
/** Characters of a key shown by `keys list` and accepted by `revokeApiKey` as a prefix; longer text is a whole key. */
export const SHOWN_PREFIX_LENGTH = KEY_PREFIX.length + 6

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** Normalises a period: a name from NAMED_PERIODS or a positive length in seconds, as text. */
export function parsePeriod(text: unknown): Result<string> {
  const bad = () => fail([issue({ code: 'invalid_value', path: '/period', message: `A quota period is ${PERIOD_FORMS}.`, expected: PERIOD_FORMS, got: JSON.stringify(text) ?? String(text) })])
  if (typeof text !== 'string') return bad()
  const t = text.trim().toLowerCase()
  if (t in NAMED_PERIODS) return ok(t)
  const m = /^([0-9]{1,9})([smhd]?)$/.exec(t)
  if (!m) return bad()
  const seconds = Number(m[1]) * PERIOD_UNITS[m[2] || 's']!
  return seconds > 0 ? ok(String(seconds)) : bad()
}

/** The period containing `now`: fixed lengths are aligned to the Unix epoch, months to the calendar. */
export function quotaWindow(period: string, now: Date): QuotaWindow {
  const t = Math.floor(now.getTime() / 1000)
  if (period === 'month') {
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) / 1000
    const reset = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000
    return { start, reset }
  }
  const length = NAMED_PERIODS[period] ?? Number(period)
  const start = t - (t % length)
  return { start, reset: start + length }
}

interface KeyRow {
  key_id: number | string; key_prefix: string; plan: Plan; quota_limit: number | string; quota_period: string
  label: string | null; created_at: string; revoked_at: string | null
}

// PostgreSQL's bigint may arrive as a string (a pool not opened by openPostgres): numbers here.
const toRecord = (r: KeyRow): ApiKeyRecord => Object.freeze({
  keyId: Number(r.key_id), prefix: r.key_prefix, plan: r.plan, quotaLimit: Number(r.quota_limit), quotaPeriod: r.quota_period,
  label: r.label, createdAt: r.created_at, revokedAt: r.revoked_at,
})

const KEY_COLUMNS = ['key_id', 'key_prefix', 'plan', 'quota_limit', 'quota_period', 'label', 'created_at', 'revoked_at'] as const
const KEYS = API_KEY_TABLES.keys
const USAGE = API_KEY_TABLES.usage

/** Creates a key and returns its text (shown once) with its record. */
export async function createApiKey(vdb: VentureDb, spec: NewKey, now = new Date()): Promise<Result<{ key: string; record: ApiKeyRecord }>> {
  const issues: Issue[] = []
  if (!(PLANS as readonly string[]).includes(spec.plan)) {
    issues.push(issue({ code: 'invalid_value', path: '/plan', message: `A plan is one of ${PLANS.join(', ')}.`, allowed: [...PLANS], got: JSON.stringify(spec.plan) ?? String(spec.plan) }))
  }
  if (!Number.isSafeInteger(spec.quota) || spec.quota < 1) {
    issues.push(issue({ code: 'invalid_value', path: '/quota', message: 'A quota is a positive whole number of requests per period.', expected: 'a positive integer', got: String(spec.quota) }))
  }
  const period = parsePeriod(spec.period)
  if (!period.ok) issues.push(...period.issues)
  if (issues.length > 0 || !period.ok) return fail(issues)
  const key = KEY_PREFIX + randomBytes(24).toString('base64url')
  const row = await vdb.db.insertInto(KEYS).values({
    key_hash: hashApiKey(key), key_prefix: key.slice(0, SHOWN_PREFIX_LENGTH), plan: spec.plan, quota_limit: spec.quota,
    quota_period: period.value, label: spec.label ?? null, created_at: now.toISOString(),
  }).returning(KEY_COLUMNS).executeTakeFirstOrThrow() as KeyRow
  return ok({ key, record: toRecord(row) })
}

export async function listApiKeys(vdb: VentureDb): Promise<ApiKeyRecord[]> {
  return ((await vdb.db.selectFrom(KEYS).select(KEY_COLUMNS).orderBy('key_id').execute()) as KeyRow[]).map(toRecord)
}

/** Revokes by key id, by the shown prefix, or by the key itself. Returns the records revoked. */
export async function revokeApiKey(vdb: VentureDb, which: string, now = new Date()): Promise<ApiKeyRecord[]> {
  const [column, value] = /^[0-9]{1,15}$/.test(which) ? ['key_id', Number(which)] as const
    : which.length > SHOWN_PREFIX_LENGTH ? ['key_hash', hashApiKey(which)] as const
      : ['key_prefix', which] as const
  const rows = await vdb.db.updateTable(KEYS).set({ revoked_at: now.toISOString() })
    .where(column, '=', value).where('revoked_at', 'is', null).returning(KEY_COLUMNS).execute() as KeyRow[]
  return rows.map(toRecord)
}

/** Whether a text may be a key at all: anything else is unknown without a lookup. */
export const mayBeKey = (key: string): boolean => key.length > 0 && key.length <= 200

/** The record of a key's text, revoked or not; undefined for a key that never existed. */
export async function findApiKey(vdb: VentureDb, key: string): Promise<ApiKeyRecord | undefined> {
  if (!mayBeKey(key)) return undefined
  return findApiKeyByHash(vdb, hashApiKey(key))
}

/** As `findApiKey`, by the key's hash (`hashApiKey`). */
export async function findApiKeyByHash(vdb: VentureDb, hash: string): Promise<ApiKeyRecord | undefined> {
  const fast = sqliteOutsideTransaction(vdb)
  const row = fast
    ? runShape(fast, KEY_BY_HASH.bind('sqlite', { hash })) as KeyRow | undefined
    : await vdb.db.selectFrom(KEYS).select(KEY_COLUMNS).where('key_hash', '=', hash).executeTakeFirst() as KeyRow | undefined
  return row ? toRecord(row) : undefined
}

/** Counts one request against the key's current period, unless the quota is used up: one atomic statement. */
export async function consumeQuota(vdb: VentureDb, record: ApiKeyRecord, now = new Date(), units = 1): Promise<QuotaState> {
  const window = quotaWindow(record.quotaPeriod, now)
  if (units !== 1) return consumeUnits(vdb, record, window, units)
  const fast = sqliteOutsideTransaction(vdb)
  let row: { used: number | string } | undefined
  if (fast) {
    row = runShape(fast, COUNT_REQUEST.bind('sqlite', { keyId: record.keyId, start: window.start, limit: record.quotaLimit })) as typeof row
  } else {
    row = await vdb.db.insertInto(USAGE)
      .values({ key_id: record.keyId, period_start: window.start, used: 1 })
      .onConflict((oc) => oc.columns(['key_id', 'period_start'])
        .doUpdateSet({ used: sql`${sql.ref(`${USAGE}.used`)} + 1` })
        .where(`${USAGE}.used`, '<', record.quotaLimit))
      .returning('used')
      .executeTakeFirst() as typeof row
  }
  if (!row) return Object.freeze({ ...window, limit: record.quotaLimit, remaining: 0, allowed: false })
  return Object.freeze({ ...window, limit: record.quotaLimit, remaining: Math.max(0, record.quotaLimit - Number(row.used)), allowed: true })
}

/**
 * The records of live keys a connection has seen, by key hash (never by the key's text), most
 * recently used last, at most `capacity` of them. A record's fields never change but `revoked_at`,
 * which `countLiveKey` reads in the statement that counts: an entry is a shortcut to the key's id,
 * limit and period, never a verdict, so a key revoked by any connection or process is refused on its
 * next request.
 */
export class LiveKeys {
  readonly #records = new Map<string, ApiKeyRecord>()
  constructor(readonly capacity = 1024) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`LiveKeys: capacity must be a positive whole number, got ${String(capacity)}`)
  }

  get size(): number {
    return this.#records.size
  }

  get(hash: string): ApiKeyRecord | undefined {
    const record = this.#records.get(hash)
    if (record !== undefined) {
      this.#records.delete(hash)
      this.#records.set(hash, record)
    }
    return record
  }

  /** Remembers a live key's record; a revoked one is not kept. */
  remember(hash: string, record: ApiKeyRecord): void {
    if (record.revokedAt !== null) return
    this.#records.delete(hash)
    this.#records.set(hash, record)
    if (this.#records.size > this.capacity) this.#records.delete(this.#records.keys().next().value!)
  }

  forget(hash: string): void {
    this.#records.delete(hash)
  }
}

/**
 * Counts one request of a key `keys` remembers, on SQLite outside a transaction: one statement that
 * counts only while the key is not revoked and its quota not used up, so the key's row is not read
 * on its own first. Undefined when it cannot say: the key is not remembered, the statement counted
 * nothing (revoked, over quota, or gone: the entry is dropped, and the caller's full check gives
 * the reason without counting twice, since nothing was written), or the connection is in a
 * transaction or not SQLite.
 */
export function countLiveKey(vdb: VentureDb, keys: LiveKeys, hash: string, now = new Date()): LiveCount | undefined {
  const fast = sqliteOutsideTransaction(vdb)
  return fast && countRemembered(fast, keys, hash, now)
}

/** A counted request of a remembered live key: its record and its quota state after the count. */
export interface LiveCount {
  readonly record: ApiKeyRecord
  readonly quota: QuotaState
}

/** `countLiveKey`'s statement, on a connection in any state (the batch's own transaction). */
function countRemembered(sqlite: BetterSqlite3.Database, keys: LiveKeys, hash: string, now: Date): LiveCount | undefined {
  const record = keys.get(hash)
  if (!record) return undefined
  const window = quotaWindow(record.quotaPeriod, now)
  const row = runShape(sqlite, COUNT_LIVE_KEY.bind('sqlite', { keyId: record.keyId, start: window.start, limit: record.quotaLimit })) as { used: number } | undefined
  if (!row) {
    keys.forget(hash)
    return undefined
  }
  return { record, quota: Object.freeze({ ...window, limit: record.quotaLimit, remaining: Math.max(0, record.quotaLimit - Number(row.used)), allowed: true }) }
}

/**
 * `countLiveKey` for the counts asked for within one turn of the event loop, committed together:
 * one transaction (one write lock, one commit, one write to the WAL) for all of them instead of one
 * each. Each count is still the one conditional statement, run in order under the write lock, so
 * quotas stay exact across connections and processes; a request is answered only once its count
 * is committed. At most `maxBatch` counts go into one transaction, so the lock and the event loop
 * are held for a bounded time.
 *
 * The transaction begins IMMEDIATE: with the connection's busy timeout at 0 (the caller's thread,
 * execute/pool/caller-lane.ts), a write lock held elsewhere fails the whole batch at once with
 * SQLITE_BUSY and nothing counted, and every count of it rejects with that error (the caller lane
 * sends each to a worker). A connection found inside another transaction at that moment answers
 * undefined for all (the caller's full check then waits for that transaction).
 */
export class BatchedLiveCounts {
  #pending: { hash: string; now: Date; resolve(count: LiveCount | undefined): void; reject(error: unknown): void }[] = []
  #scheduled = false
  readonly #batches = { batches: 0, counts: 0 }

  constructor(private readonly sqlite: BetterSqlite3.Database, private readonly keys: LiveKeys, readonly maxBatch = 128) {
    if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError(`BatchedLiveCounts: maxBatch must be a positive whole number, got ${String(maxBatch)}`)
  }

  /** Transactions committed and the counts answered in them (for tests and stats). */
  get stats(): { readonly batches: number; readonly counts: number } {
    return { ...this.#batches }
  }

  /** As `countLiveKey`, answered once the turn's batch is committed (undefined at once for a key not remembered). */
  count(hash: string, now: Date): Promise<LiveCount | undefined> {
    if (this.keys.get(hash) === undefined) return Promise.resolve(undefined)
    return new Promise((resolve, reject) => {
      this.#pending.push({ hash, now, resolve, reject })
      if (this.#pending.length >= this.maxBatch) this.#flush()
      else if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(() => this.#flush())
      }
    })
  }

  /**
   * Commits the counts waiting for their turn's batch now: before the connection closes, so that a
   * count asked for in the closing turn is answered instead of failing on a closed connection.
   */
  drain(): void {
    if (this.#pending.length > 0) this.#flush()
  }

  #flush(): void {
    this.#scheduled = false
    const batch = this.#pending.splice(0)
    if (batch.length === 0) return
    if (this.sqlite.inTransaction) {
      for (const item of batch) item.resolve(undefined)
      return
    }
    let counts: (LiveCount | undefined)[]
    try {
      counts = this.sqlite.transaction(() => batch.map((item) => countRemembered(this.sqlite, this.keys, item.hash, item.now))).immediate()
    } catch (error) {
      for (const item of batch) item.reject(error)
      return
    }
    this.#batches.batches++
    this.#batches.counts += batch.length
    batch.forEach((item, i) => item.resolve(counts[i]))
  }
}

/**
 * Counts `units` requests at once (an export's reservation, http/routes/export.ts), all or none: one
 * atomic statement that adds them only while they fit in the quota. More units than the whole
 * quota never fit, and are refused without a statement.
 */
async function consumeUnits(vdb: VentureDb, record: ApiKeyRecord, window: QuotaWindow, units: number): Promise<QuotaState> {
  if (!Number.isSafeInteger(units) || units < 0) throw new RangeError(`consumeQuota: units must be a whole number from 0, got ${String(units)}`)
  const refused = async (): Promise<QuotaState> => ({ ...(await quotaStatus(vdb, record, new Date(window.start * 1000))), allowed: false })
  if (units > record.quotaLimit) return refused()
  const row = await vdb.db.insertInto(USAGE)
    .values({ key_id: record.keyId, period_start: window.start, used: units })
    .onConflict((oc) => oc.columns(['key_id', 'period_start'])
      .doUpdateSet({ used: sql`${sql.ref(`${USAGE}.used`)} + ${units}` })
      .where(sql`${sql.ref(`${USAGE}.used`)} + ${units}`, '<=', record.quotaLimit))
    .returning('used')
    .executeTakeFirst() as { used: number | string } | undefined
  if (!row) return refused()
  return Object.freeze({ ...window, limit: record.quotaLimit, remaining: Math.max(0, record.quotaLimit - Number(row.used)), allowed: true })
}

/** The key's state in its current period without counting a request (GET /ratelimit/usage). */
export async function quotaStatus(vdb: VentureDb, record: ApiKeyRecord, now = new Date()): Promise<QuotaState> {
  const window = quotaWindow(record.quotaPeriod, now)
  const fast = sqliteOutsideTransaction(vdb)
  const row = fast
    ? runShape(fast, USED_IN_PERIOD.bind('sqlite', { keyId: record.keyId, start: window.start })) as { used: number | string } | undefined
    : await vdb.db.selectFrom(USAGE).select('used').where('key_id', '=', record.keyId).where('period_start', '=', window.start)
      .executeTakeFirst() as { used: number | string } | undefined
  const used = Number(row?.used ?? 0)
  return Object.freeze({ ...window, limit: record.quotaLimit, remaining: Math.max(0, record.quotaLimit - used), allowed: used < record.quotaLimit })
}

//// The SQLite fast path ////
//
// Every request runs the key check and the count: through Kysely (building, compiling, its
// connection lock and promises) they cost ~0.15 ms of a worker's time per request, several times
// the statements themselves. On SQLite they run as prepared statements of the same SQL, compiled
// once by Kysely from the same builders (query shapes), when the connection is not inside a
// transaction: each statement then runs alone and commits by itself, exactly as Kysely would run
// it. Inside a transaction (another call's read snapshot on an inline engine), the Kysely path
// waits for that transaction to end instead of joining it.

const KEY_BY_HASH = queryShape<{ hash: string }, KeyRow>('api key by hash', (db, _d, p) =>
  db.selectFrom(KEYS).select(KEY_COLUMNS).where('key_hash', '=', p.hash))
const COUNT_REQUEST = queryShape<{ keyId: number; start: number; limit: number }, { used: number }>('count a request', (db, _d, p) =>
  db.insertInto(USAGE)
    .values({ key_id: p.keyId, period_start: p.start, used: 1 })
    .onConflict((oc) => oc.columns(['key_id', 'period_start'])
      .doUpdateSet({ used: sql`${sql.ref(`${USAGE}.used`)} + 1` })
      .where(`${USAGE}.used`, '<', p.limit))
    .returning('used'))
// COUNT_REQUEST for a key that is not revoked: the row to insert comes from the key's own row, so
// a revoked (or deleted) key inserts and updates nothing. The WHERE also keeps SQLite's parser from
// reading ON CONFLICT as a join's ON.
const COUNT_LIVE_KEY = queryShape<{ keyId: number; start: number; limit: number }, { used: number }>('count a request of a live key', (db, _d, p) =>
  db.insertInto(USAGE)
    .columns(['key_id', 'period_start', 'used'])
    .expression(db.selectFrom(KEYS).select((eb) => ['key_id', eb.val(p.start).as('period_start'), eb.lit(1).as('used')])
      .where('key_id', '=', p.keyId).where('revoked_at', 'is', null))
    .onConflict((oc) => oc.columns(['key_id', 'period_start'])
      .doUpdateSet({ used: sql`${sql.ref(`${USAGE}.used`)} + 1` })
      .where(`${USAGE}.used`, '<', p.limit))
    .returning('used'))
const USED_IN_PERIOD = queryShape<{ keyId: number; start: number }, { used: number }>('quota used in a period', (db, _d, p) =>
  db.selectFrom(USAGE).select('used').where('key_id', '=', p.keyId).where('period_start', '=', p.start))

/** The first row of a bound shape, through the connection's statement cache. */
function runShape(sqlite: BetterSqlite3.Database, bound: BoundQuery): unknown {
  return prepared(sqlite, bound.sql).get(...bound.parameters)
}

function sqliteOutsideTransaction(vdb: VentureDb): BetterSqlite3.Database | undefined {
  return vdb.dialect === 'sqlite' && !vdb.sqlite.inTransaction ? vdb.sqlite : undefined
}
