/**
 * @module Fair scheduling of heavy calls across tenants (API keys, or a host's owners): the one
 * scheduler behind the worker pool's general workers (`pool/pool.ts`) and the inline backend's
 * gate on PostgreSQL (`backend.ts`). Guide: grammar-docs/guides/fairness.md.
 *
 * - Each tenant has its own queue. The next call to run comes from the tenant with the fewest
 *   calls running; among equals, from the one whose last call started longest ago (a tenant that
 *   never ran goes first). So a tenant's first call never waits behind another tenant's backlog:
 *   it overtakes every tenant that has a call running, and, among those with none, the ones served
 *   most recently. Within a tenant, calls run in arrival order.
 * - `cap`: a tenant runs at most this many calls at once; its further calls wait in its own queue
 *   (within their budget) and delay nobody else.
 * - `backlog`: at most this many calls of a tenant wait beyond its cap (`cap + backlog` calls of
 *   it, running or waiting); one more is refused at once (`TenantBusyError`, reason `backlog`;
 *   HTTP 429).
 * - `allowanceMs`: worker time a tenant may use in any 60 s (the time its calls held a worker or a
 *   slot, never their wait). A tenant at or over it has its next calls refused at once
 *   (`TenantBusyError`, reason `allowance`) until enough of its last minute has passed.
 * - Calls without a tenant share one anonymous tenant: ordered with the others, but neither
 *   capped, bounded nor metered (they are the host's own calls, which the host bounds itself).
 *
 * Costs: a pick looks at every tenant with a call waiting (a few, normally); the ledger keeps one
 * entry per finished call of the last minute.
 */
import { issue, type Issue } from '../errors/issue.js'

/** Limits of one tenant's heavy calls (`EngineOptions.fairness`; `serve --tenant-*`). */
export interface FairnessOptions {
  /**
   * Heavy calls one tenant runs at once. Default: half the general workers (or PostgreSQL heavy
   * slots), at least 1 (`defaultTenantConcurrency`).
   */
  readonly tenantConcurrency?: number
  /** Calls of one tenant that may wait beyond its `tenantConcurrency`; more are refused (429). Default 64. */
  readonly tenantBacklog?: number
  /**
   * Milliseconds of worker time one tenant may use per minute (sliding). Default 30,000; 0 or
   * Infinity: no allowance.
   */
  readonly tenantAllowanceMs?: number
}

/**
 * Default backlog: enough for a client that sends a few dozen listings or searches at once (each a
 * few ms), while a client that piles up more is told to back off instead of holding memory and
 * sockets for calls that would mostly time out in its queue anyway.
 */
export const DEFAULT_TENANT_BACKLOG = 64
/**
 * Default allowance: half a worker's minute. A tenant still gets hundreds of ordinary requests a
 * minute (listings and searches take milliseconds), but at most three calls that use a 10 s budget
 * whole; GitHub meters its GraphQL clients' CPU time per minute the same way.
 */
export const DEFAULT_TENANT_ALLOWANCE_MS = 30_000
/** The allowance's window. */
export const ALLOWANCE_WINDOW_MS = 60_000

/**
 * Default cap: half the slots, at least one. With two general workers (`serve` on 2 cores) one
 * tenant then holds at most one, and the other is always free for the other tenants within one
 * call's time; with one slot only the order protects the others. A single busy tenant uses half the
 * pool: `--tenant-concurrency` raises it where tenants trust each other.
 */
export const defaultTenantConcurrency = (slots: number): number => Math.max(1, Math.floor(slots / 2))

/** The tenant of calls made without one. */
export const ANONYMOUS_TENANT = Symbol('anonymous tenant')
export type TenantKey = string | typeof ANONYMOUS_TENANT

/** A heavy call refused at once: its tenant's backlog is full, or its worker-time allowance is used up. */
export class TenantBusyError extends Error {
  override readonly name = 'TenantBusyError'
  readonly issue: Issue
  constructor(readonly reason: 'backlog' | 'allowance', readonly retryAfterSeconds: number, limit: number) {
    const message = reason === 'backlog'
      ? `Too many of this caller's queries are waiting (at most ${limit} may wait beside those running); retry in ${retryAfterSeconds} s, or send fewer at once.`
      : `This caller used its allowance of ${limit} ms of query time per minute; retry in ${retryAfterSeconds} s, or narrow the queries (a selective condition, fewer \`foreign\` or \`or\` branches).`
    super(message)
    this.issue = issue({
      code: 'tenant_busy', path: '', message,
      expected: reason === 'backlog' ? `at most ${limit} queries waiting` : `at most ${limit} ms of query time per minute`,
      got: reason === 'backlog' ? 'one more' : 'the allowance used up',
    })
    RETRY_AFTER.set(this.issue, retryAfterSeconds)
  }
}

const RETRY_AFTER = new WeakMap<Issue, number>()
/**
 * Seconds to wait before retrying, for a `tenant_busy` issue (HTTP's Retry-After): recorded for the
 * issue, or read back from its message for a copy (a route may restate an issue's path).
 */
export const retryAfterOf = (refusal: Issue): number | undefined => {
  const recorded = RETRY_AFTER.get(refusal)
  if (recorded !== undefined) return recorded
  const said = /retry in (\d+) s\b/.exec(refusal.message)
  return said ? Number(said[1]) : undefined
}

interface Tenant<T> {
  readonly waiting: T[]
  running: number
  /** Order of its last start (0: never), for ties between tenants running as many calls. */
  lastStart: number
  /** Finished calls of the last minute: when each ended and how long it held its worker, oldest first. */
  readonly ledger: { readonly at: number; readonly ms: number }[]
  used: number
}

export interface FairQueueOptions {
  readonly cap: number
  readonly backlog: number
  /** 0 or Infinity: none. */
  readonly allowanceMs: number
  /** Milliseconds (monotonic): `performance.now` unless a test's clock. */
  readonly now?: () => number
}

export class FairQueue<T> {
  readonly cap: number
  readonly backlog: number
  readonly allowanceMs: number
  readonly #now: () => number
  readonly #tenants = new Map<TenantKey, Tenant<T>>()
  #starts = 0
  #waiting = 0
  #sweptAt = 0

  constructor(options: FairQueueOptions) {
    this.cap = wholeAtLeast('tenantConcurrency', options.cap, 1)
    this.backlog = wholeAtLeast('tenantBacklog', options.backlog, 0)
    if (!(options.allowanceMs >= 0)) throw new RangeError(`tenantAllowanceMs must be 0 (none), a positive number of milliseconds or Infinity, got ${String(options.allowanceMs)}`)
    this.allowanceMs = Number.isFinite(options.allowanceMs) && options.allowanceMs > 0 ? options.allowanceMs : 0
    this.#now = options.now ?? (() => performance.now())
  }

  /** Calls waiting, all tenants. */
  get size(): number {
    return this.#waiting
  }

  /** The refusal a new call of this tenant would get now, if any (a check without queueing). */
  refusal(tenant: TenantKey): TenantBusyError | undefined {
    if (tenant === ANONYMOUS_TENANT) return undefined
    const t = this.#tenants.get(tenant)
    if (t === undefined) return undefined
    if (t.waiting.length + t.running >= this.cap + this.backlog) {
      return new TenantBusyError('backlog', 1, this.backlog)
    }
    if (this.allowanceMs > 0) {
      const now = this.#now()
      this.#expire(t, now)
      if (t.used >= this.allowanceMs) return new TenantBusyError('allowance', this.#secondsUntilUnder(t, now), this.allowanceMs)
    }
    return undefined
  }

  /** Queues a call; throws `TenantBusyError` when its tenant may not queue one now. */
  push(tenant: TenantKey, item: T): void {
    const refused = this.refusal(tenant)
    if (refused) throw refused
    this.#sweep()
    this.#tenant(tenant).waiting.push(item)
    this.#waiting++
  }

  /** Takes a waiting call out (given up on before it started); false if it was not waiting. */
  remove(tenant: TenantKey, item: T): boolean {
    const t = this.#tenants.get(tenant)
    const at = t === undefined ? -1 : t.waiting.indexOf(item)
    if (at < 0) return false
    t!.waiting.splice(at, 1)
    this.#waiting--
    this.#forgetIfIdle(tenant, t!)
    return true
  }

  /** The call that should run next, and its tenant, without taking it; undefined when every waiting tenant is at its cap. */
  peek(): { readonly tenant: TenantKey; readonly item: T } | undefined {
    let best: TenantKey | undefined
    let bestState: Tenant<T> | undefined
    for (const [key, t] of this.#tenants) {
      if (t.waiting.length === 0) continue
      if (key !== ANONYMOUS_TENANT && t.running >= this.cap) continue
      if (bestState === undefined || t.running < bestState.running || (t.running === bestState.running && t.lastStart < bestState.lastStart)) {
        best = key
        bestState = t
      }
    }
    return bestState === undefined ? undefined : { tenant: best!, item: bestState.waiting[0]! }
  }

  /** Takes the call `peek()` answers and counts it running for its tenant. */
  take(): { readonly tenant: TenantKey; readonly item: T } | undefined {
    const next = this.peek()
    if (next === undefined) return undefined
    const t = this.#tenants.get(next.tenant)!
    t.waiting.shift()
    this.#waiting--
    t.running++
    t.lastStart = ++this.#starts
    return next
  }

  /** A taken call went back to waiting (its worker died before it started): first in its tenant's line again. */
  requeue(tenant: TenantKey, item: T): void {
    const t = this.#tenant(tenant)
    t.running = Math.max(0, t.running - 1)
    t.waiting.unshift(item)
    this.#waiting++
  }

  /** A taken call ended after holding its worker or slot `heldMs` milliseconds (0: it never started). */
  finish(tenant: TenantKey, heldMs: number): void {
    const t = this.#tenants.get(tenant)
    if (t === undefined) return
    t.running = Math.max(0, t.running - 1)
    if (tenant !== ANONYMOUS_TENANT && this.allowanceMs > 0 && heldMs > 0) {
      const now = this.#now()
      t.ledger.push({ at: now, ms: heldMs })
      t.used += heldMs
      this.#expire(t, now)
    }
    this.#forgetIfIdle(tenant, t)
  }

  /** Every waiting call, left in place. */
  items(): T[] {
    return [...this.#tenants.values()].flatMap((t) => t.waiting)
  }

  /** Every waiting call, taken out (the pool is closing, or could not start). */
  drain(): T[] {
    const all: T[] = []
    for (const [key, t] of this.#tenants) {
      all.push(...t.waiting.splice(0))
      this.#forgetIfIdle(key, t)
    }
    this.#waiting = 0
    return all
  }

  /** Tenants known (waiting, running, or with worker time in the last minute): for tests. */
  get tenants(): number {
    return this.#tenants.size
  }

  #tenant(key: TenantKey): Tenant<T> {
    let t = this.#tenants.get(key)
    if (t === undefined) {
      t = { waiting: [], running: 0, lastStart: 0, ledger: [], used: 0 }
      this.#tenants.set(key, t)
    }
    return t
  }

  /** Once a minute, forgets every tenant that has been idle for a minute (one never touched again would stay). */
  #sweep(): void {
    const now = this.#now()
    if (now - this.#sweptAt < ALLOWANCE_WINDOW_MS) return
    this.#sweptAt = now
    for (const [key, t] of this.#tenants) this.#forgetIfIdle(key, t)
  }

  #expire(t: Tenant<T>, now: number): void {
    while (t.ledger.length > 0 && t.ledger[0]!.at <= now - ALLOWANCE_WINDOW_MS) t.used -= t.ledger.shift()!.ms
  }

  /** Whole seconds until enough of the tenant's last minute has passed for it to be under its allowance. */
  #secondsUntilUnder(t: Tenant<T>, now: number): number {
    let used = t.used
    for (const entry of t.ledger) {
      used -= entry.ms
      if (used < this.allowanceMs) return Math.max(1, Math.ceil((entry.at + ALLOWANCE_WINDOW_MS - now) / 1000))
    }
    return Math.ceil(ALLOWANCE_WINDOW_MS / 1000)
  }

  /**
   * A tenant with nothing waiting or running and no worker time left in its window is forgotten:
   * the map holds only tenants of the last minute, whatever number of keys call. Its `lastStart`
   * goes with it, which only ever moves it ahead of others.
   */
  #forgetIfIdle(key: TenantKey, t: Tenant<T>): void {
    if (t.waiting.length > 0 || t.running > 0) return
    if (t.ledger.length > 0) {
      this.#expire(t, this.#now())
      if (t.ledger.length > 0) return
    }
    this.#tenants.delete(key)
  }
}

function wholeAtLeast(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be a whole number, at least ${min}, got ${String(value)}`)
  return value
}
