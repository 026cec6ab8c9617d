/**
 * @module API keys and quota counters (spec sections 5 and 8), on the database so that every
 * server process sharing the file sees the same keys and counts, and a restart resets nothing.
 *
 * Keys are random (192 bits), so a plain SHA-256 is the right hash: there is nothing to guess that
 * a slow password hash would protect, and lookups stay one indexed equality. The key text is
 * returned once by `createApiKey` and never stored or logged.
 *
 * `consumeQuota` is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE used < limit RETURNING` statement:
 * SQLite runs it under its write lock, so N concurrent requests against R remaining requests get
 * exactly R successes, in one process or several.
 */
import { createHash, randomBytes } from 'node:crypto'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import type { SqliteVentureDb } from './open.js'
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
  key_id: number; key_prefix: string; plan: Plan; quota_limit: number; quota_period: string
  label: string | null; created_at: string; revoked_at: string | null
}

const toRecord = (r: KeyRow): ApiKeyRecord => Object.freeze({
  keyId: r.key_id, prefix: r.key_prefix, plan: r.plan, quotaLimit: r.quota_limit, quotaPeriod: r.quota_period,
  label: r.label, createdAt: r.created_at, revokedAt: r.revoked_at,
})

const KEY_COLUMNS = 'key_id, key_prefix, plan, quota_limit, quota_period, label, created_at, revoked_at'

/** Creates a key and returns its text (shown once) with its record. */
export function createApiKey(vdb: SqliteVentureDb, spec: NewKey, now = new Date()): Result<{ key: string; record: ApiKeyRecord }> {
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
  const row = vdb.sqlite.prepare(
    `insert into ${API_KEY_TABLES.keys} (key_hash, key_prefix, plan, quota_limit, quota_period, label, created_at) values (?, ?, ?, ?, ?, ?, ?) returning ${KEY_COLUMNS}`,
  ).get(hashApiKey(key), key.slice(0, SHOWN_PREFIX_LENGTH), spec.plan, spec.quota, period.value, spec.label ?? null, now.toISOString()) as KeyRow
  return ok({ key, record: toRecord(row) })
}

export function listApiKeys(vdb: SqliteVentureDb): ApiKeyRecord[] {
  return (vdb.sqlite.prepare(`select ${KEY_COLUMNS} from ${API_KEY_TABLES.keys} order by key_id`).all() as KeyRow[]).map(toRecord)
}

/** Revokes by key id, by the shown prefix, or by the key itself. Returns the records revoked. */
export function revokeApiKey(vdb: SqliteVentureDb, which: string, now = new Date()): ApiKeyRecord[] {
  const stamp = now.toISOString()
  const rows = (/^[0-9]+$/.test(which)
    ? vdb.sqlite.prepare(`update ${API_KEY_TABLES.keys} set revoked_at = ? where key_id = ? and revoked_at is null returning ${KEY_COLUMNS}`).all(stamp, Number(which))
    : which.length > SHOWN_PREFIX_LENGTH
      ? vdb.sqlite.prepare(`update ${API_KEY_TABLES.keys} set revoked_at = ? where key_hash = ? and revoked_at is null returning ${KEY_COLUMNS}`).all(stamp, hashApiKey(which))
      : vdb.sqlite.prepare(`update ${API_KEY_TABLES.keys} set revoked_at = ? where key_prefix = ? and revoked_at is null returning ${KEY_COLUMNS}`).all(stamp, which)) as KeyRow[]
  return rows.map(toRecord)
}

/** The record of a key's text, revoked or not; undefined for a key that never existed. */
export function findApiKey(vdb: SqliteVentureDb, key: string): ApiKeyRecord | undefined {
  if (key.length === 0 || key.length > 200) return undefined
  const row = vdb.sqlite.prepare(`select ${KEY_COLUMNS} from ${API_KEY_TABLES.keys} where key_hash = ?`).get(hashApiKey(key)) as KeyRow | undefined
  return row ? toRecord(row) : undefined
}

/** Counts one request against the key's current period, unless the quota is used up. */
export function consumeQuota(vdb: SqliteVentureDb, record: ApiKeyRecord, now = new Date()): QuotaState {
  const window = quotaWindow(record.quotaPeriod, now)
  const row = vdb.sqlite.prepare(
    `insert into ${API_KEY_TABLES.usage} (key_id, period_start, used) values (?, ?, 1)
     on conflict (key_id, period_start) do update set used = used + 1 where used < ?
     returning used`,
  ).get(record.keyId, window.start, record.quotaLimit) as { used: number } | undefined
  if (!row) return Object.freeze({ ...window, limit: record.quotaLimit, remaining: 0, allowed: false })
  return Object.freeze({ ...window, limit: record.quotaLimit, remaining: Math.max(0, record.quotaLimit - row.used), allowed: true })
}

/** The key's state in its current period without counting a request (GET /ratelimit/usage). */
export function quotaStatus(vdb: SqliteVentureDb, record: ApiKeyRecord, now = new Date()): QuotaState {
  const window = quotaWindow(record.quotaPeriod, now)
  const row = vdb.sqlite.prepare(`select used from ${API_KEY_TABLES.usage} where key_id = ? and period_start = ?`).get(record.keyId, window.start) as { used: number } | undefined
  const used = row?.used ?? 0
  return Object.freeze({ ...window, limit: record.quotaLimit, remaining: Math.max(0, record.quotaLimit - used), allowed: used < record.quotaLimit })
}
