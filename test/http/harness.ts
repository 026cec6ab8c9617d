/**
 * The HTTP test harness: the seeded fixture database, an engine and an app on it, a full key and a
 * trial key, and a fixed clock. Tests call the fetch handler directly (no sockets), as Hono's own
 * tests do.
 *
 * Backends: with VENTUREQL_TEST_BACKEND=postgres (the `http-on-postgres` project of
 * vitest.config.ts runs the HTTP suite so), the fixture is copied into a fresh PostgreSQL schema and
 * the app serves that; `vdb` stays the SQLite fixture the tests compute expected values from, and
 * `served` is the database the app answers from (keys go there). `mutate` changes both alike.
 *
 * @example
 * const h = await createHarness()
 * const res = await h.get('/companies?stage=a|b')          // with the full key (?key=)
 * const trial = await h.get('/companies?page=2', { key: h.trialKey })
 * await h.close()
 */
import { createEngine, type Engine, type FairnessOptions } from '../../src/engine.js'
import { createApp, type VentureApp } from '../../src/http/app.js'
import type { AppOptions } from '../../src/http/context.js'
import { createApiKey, type ApiKeyRecord } from '../../src/store/api-keys.js'
import { CompiledQuery } from 'kysely'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb, VentureDb } from '../../src/store/open.js'
import { testSchema } from '../postgres/support.js'

/** Which backend the app serves from in this run of the suite. */
export const TEST_BACKEND: 'sqlite' | 'postgres' = process.env.VENTUREQL_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite'

/** The harness clock: every date phrase and quota period is computed against this instant. */
export const HARNESS_NOW = new Date('2026-06-15T12:00:00Z')
export const BASE = 'https://api.test'

export interface CallOptions {
  /** The key to send; default the full key; `null` sends none. */
  readonly key?: string | null
  /** Send the key as `Authorization: Bearer` instead of `?key=`. */
  readonly bearer?: boolean
  readonly init?: RequestInit
}

export interface Harness {
  /** The SQLite fixture: expected values are computed from it. */
  readonly vdb: SqliteVentureDb
  /** The database the app serves (the fixture itself, or its PostgreSQL copy): create keys here. */
  readonly served: VentureDb
  readonly backend: 'sqlite' | 'postgres'
  /** Runs one statement (SQLite syntax, `?` parameters) on the fixture and on the served copy. */
  mutate(statement: string, ...parameters: unknown[]): Promise<void>
  /**
   * The first column of the first row of one statement (`?` parameters) on the served database:
   * for what the app itself wrote (quota counters, stored queries), which only the served copy has.
   * Numbers come back as numbers on both backends (PostgreSQL returns bigint sums as text).
   */
  servedValue(statement: string, ...parameters: unknown[]): Promise<unknown>
  readonly engine: Engine
  readonly app: VentureApp
  readonly fullKey: string
  readonly trialKey: string
  /** A new key on the served database (default: full, per day). */
  newKey(quota: number, options?: { readonly plan?: 'full' | 'trial'; readonly period?: string }): Promise<{ key: string; record: ApiKeyRecord }>
  /** Requests counted against the key so far, every period summed (the served database's quota_usage). */
  quotaUsed(keyId: number): Promise<number>
  /** A request to `path` (which may carry a query string) with the full key unless told otherwise. */
  request(path: string, options?: CallOptions): Promise<Response>
  get(path: string, options?: CallOptions): Promise<Response>
  /** GET, expect 200, and return the parsed JSON body. */
  json<T = any>(path: string, options?: CallOptions): Promise<T>
  close(): Promise<void>
}

export interface HarnessOptions {
  readonly companies?: number
  /** The SQLite database to serve (copied to PostgreSQL on that backend); default the fixture of `companies` companies. */
  readonly database?: () => Promise<SqliteVentureDb>
  readonly app?: AppOptions
  /** Quota of the two keys (default 1,000,000 per day, so tests never hit it by accident). */
  readonly quota?: number
  /** The engine's per-key limits (default: no allowance, a backlog no test reaches). */
  readonly fairness?: FairnessOptions
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const vdb = options.database ? await options.database() : await createFixtureDatabase({ companies: options.companies ?? 400 })
  const schema = TEST_BACKEND === 'postgres' ? await testSchema('http') : undefined
  let served: VentureDb = vdb
  if (schema) {
    served = await schema.open()
    await copyToPostgres(vdb, served)
  }
  // One key sends every request of a test file, and a loaded machine makes its calls slow: the
  // per-key worker-time allowance and backlog (fairness.md) would answer some of them 429. They are
  // tested on their own (test/execute/pool-fairness.test.ts, test/http/fairness.test.ts).
  const engine = createEngine({ database: served, fairness: options.fairness ?? { tenantAllowanceMs: 0, tenantBacklog: 100_000 } })
  // As `serve` does: the cost prediction's statistics are read before the first request.
  await engine.ready()
  const quota = options.quota ?? 1_000_000
  const full = await createApiKey(served, { plan: 'full', quota, period: 'day' }, HARNESS_NOW)
  const trial = await createApiKey(served, { plan: 'trial', quota, period: 'day' }, HARNESS_NOW)
  if (!full.ok || !trial.ok) throw new Error('harness: could not create keys')
  const fullKey = full.value.key
  const trialKey = trial.value.key
  const app = createApp(engine, { clock: () => HARNESS_NOW, ...options.app })

  async function request(path: string, call: CallOptions = {}): Promise<Response> {
    const key = call.key === undefined ? fullKey : call.key
    const url = new URL(path, BASE)
    const headers = new Headers(call.init?.headers)
    if (key !== null) {
      if (call.bearer) headers.set('authorization', `Bearer ${key}`)
      else {
        // Appended by hand so the path's own query string reaches the server exactly as written.
        const sep = url.search === '' ? '?' : '&'
        return app.fetch(new Request(`${BASE}${path}${sep}key=${encodeURIComponent(key)}`, { ...call.init, headers }))
      }
    }
    return app.fetch(new Request(`${BASE}${path}`, { ...call.init, headers }))
  }

  async function servedValue(statement: string, ...parameters: unknown[]): Promise<unknown> {
    let n = 0
    const text = served.dialect === 'postgres' ? statement.replace(/\?/g, () => `$${++n}`) : statement
    const { rows } = await served.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, parameters))
    const value = rows[0] === undefined ? undefined : Object.values(rows[0])[0]
    return typeof value === 'string' && /^-?\d+$/.test(value) && served.dialect === 'postgres' ? Number(value) : value
  }

  return {
    vdb, served, backend: TEST_BACKEND, engine, app,
    async mutate(statement, ...parameters) {
      vdb.sqlite.prepare(statement).run(...parameters)
      if (served !== vdb) {
        let n = 0
        await served.db.executeQuery(CompiledQuery.raw(statement.replace(/\?/g, () => `$${++n}`), parameters))
      }
    },
    servedValue,
    fullKey,
    trialKey,
    async newKey(quota, keyOptions = {}) {
      const made = await createApiKey(served, { plan: keyOptions.plan ?? 'full', quota, period: keyOptions.period ?? 'day' }, HARNESS_NOW)
      if (!made.ok) throw new Error('harness: could not create a key')
      return made.value
    },
    async quotaUsed(keyId) {
      return Number(await servedValue('select coalesce(sum(used), 0) from quota_usage where key_id = ?', keyId))
    },
    request,
    get: (path, call) => request(path, call),
    async json(path, call) {
      const res = await request(path, call)
      const text = await res.text()
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`)
      return JSON.parse(text)
    },
    async close() {
      await engine.close()
      await schema?.drop()
      await vdb.close()
    },
  }
}
