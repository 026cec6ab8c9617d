/**
 * @module Where operations run (`operations.ts`): a backend takes an operation by name with its
 * arguments and a time budget, and answers a promise. Two kinds, same answers:
 *
 * - `pool` (`pool/pool.ts`): a SQLite file, in worker threads with a connection each. The caller's
 *   event loop only posts messages; budgets interrupt the statement.
 * - `inline` (here): the caller's own connection: an in-memory SQLite database, an open handle
 *   given to the engine, or PostgreSQL (whose driver is asynchronous anyway). A SQLite statement
 *   then runs on the caller's thread; a watchdog thread interrupts it at its deadline.
 *
 * Over budget, a call fails with `QueryTimeoutError`; cancelled by the caller's `AbortSignal`, with
 * `QueryCancelledError`. Both carry the issue (`query_timeout`, `query_cancelled`) the engine's
 * Result-returning methods answer with.
 */
import { issue, type Issue } from '../errors/issue.js'
import {
  ANONYMOUS_TENANT, DEFAULT_TENANT_ALLOWANCE_MS, DEFAULT_TENANT_BACKLOG, defaultTenantConcurrency, FairQueue,
  type FairnessOptions, type TenantBusyError,
} from './fair-queue.js'
import type { DeferredKeyCheck } from './key-check.js'
import type { Operations } from './operations.js'
import type { Interruptible, Watchdog } from './pool/interrupt.js'

export interface CallOptions {
  /**
   * Milliseconds the call may take, waiting for a free worker included. Default: the engine's
   * `timeoutMs`. 0 or Infinity: no budget.
   */
  readonly timeoutMs?: number
  /** Stops the call when aborted (for example when the HTTP client went away). */
  readonly signal?: AbortSignal | undefined
  /**
   * A key check to run first, in the same call (`key-check.ts`): the first call made with it
   * carries it, and runs its operation only if the key passes; else it fails with `KeyRefusedError`.
   */
  readonly keyCheck?: DeferredKeyCheck | undefined
  /**
   * Who the call is for (an API key's id, a user, an organisation): an opaque string. Heavy calls
   * are scheduled fairly across tenants, each with a cap on calls running, a bounded backlog and a
   * worker-time allowance (`fair-queue.ts`; grammar-docs/guides/fairness.md). Calls without one
   * share one anonymous tenant, which is not limited.
   */
  readonly tenant?: string | undefined
}

/** A call as a backend receives it: the budget resolved against the engine's default. */
export interface BackendCall {
  readonly timeoutMs: number
  readonly signal?: AbortSignal | undefined
  /** May use the pool's reserved worker: an index lookup of a bounded number of rows. */
  readonly light: boolean
  /**
   * Bounded to milliseconds (every light call, and search): may be posted to a busy worker behind
   * another such call (the pool's pipelining). Default: `light`.
   */
  readonly short?: boolean
  /** `CallOptions.tenant`. */
  readonly tenant?: string | undefined
}

export interface Backend<Ops extends OperationTable = Operations> {
  readonly kind: 'pool' | 'inline'
  /** Threads that run operations (0 inline). */
  readonly workers: number
  /** Whether a statement over its budget is interrupted (true) or only abandoned (false). */
  readonly interruptible: boolean
  call<K extends keyof Ops & string>(op: K, args: Parameters<Ops[K]>, call: BackendCall): Promise<Awaited<ReturnType<Ops[K]>>>
  /** The refusal (`TenantBusyError`) a heavy call of this tenant would get now, if any; absent where calls are not scheduled. */
  refusal?(tenant: string | undefined): TenantBusyError | undefined
  /** Refuses new calls, lets running ones end for up to `graceMs` then stops them, and releases threads. */
  close(graceMs?: number): Promise<void>
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OperationTable = Record<string, (...args: any[]) => unknown>

/** A call that ran past its time budget; it has been stopped. */
export class QueryTimeoutError extends Error {
  override readonly name = 'QueryTimeoutError'
  readonly issue: Issue
  constructor(readonly budgetMs: number, readonly waited: 'queued' | 'running' | 'starting') {
    const what = waited === 'queued'
      ? `waited ${budgetMs} ms for a free worker (every worker was busy with other queries) and was not started`
      : waited === 'starting'
        ? `waited ${budgetMs} ms for the engine's worker threads to start and was not started (await engine.ready() before the first call)`
        : `ran past its time budget of ${budgetMs} ms and was stopped`
    const message = `The query ${what}. Narrow it: add a selective condition (an id, a slug, a domain, a country or stage), `
      + 'use fewer `foreign` or `or` branches, or ask for an earlier page; or retry later, or with a larger budget (`timeoutMs`).'
    super(message)
    this.issue = issue({ code: 'query_timeout', path: '', message, expected: `at most ${budgetMs} ms`, got: waited === 'running' ? 'still running at the deadline' : 'still queued at the deadline' })
  }
}

/** A call whose caller aborted it (its `AbortSignal`); it has been stopped. */
export class QueryCancelledError extends Error {
  override readonly name = 'QueryCancelledError'
  readonly issue: Issue
  constructor() {
    const message = 'The query was cancelled by its caller before it finished.'
    super(message)
    this.issue = issue({ code: 'query_cancelled', path: '', message })
  }
}

/** A call made after `close()`. */
export class EngineClosedError extends Error {
  override readonly name = 'EngineClosedError'
  readonly code = 'ENGINE_CLOSED'
  constructor() {
    super('The engine is closed: no more queries run on it.')
  }
}

/** Whether a budget is set: 0 and Infinity mean none. */
export const hasBudget = (ms: number): boolean => Number.isFinite(ms) && ms > 0

/**
 * A statement stopped for its time: SQLite's interrupt, or PostgreSQL's query_canceled (57014: its
 * statement_timeout, or a cancel sent for the call).
 */
export const isInterrupted = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_INTERRUPT' || code === '57014'
}

export interface InlineOptions {
  /** The connection, when it can be interrupted, and the watchdog that does it: SQLite only. */
  readonly interruptible?: Interruptible | undefined
  readonly watchdog?: Watchdog | undefined
  /** Runs a call so that its statements can be cancelled at its deadline: PostgreSQL (`pg_cancel_backend`). */
  readonly cancellable?: <T>(work: () => Promise<T>) => { readonly result: Promise<T>; cancel(): Promise<void> }
  /**
   * The operations never wait on the event loop (the engine's operations on a SQLite handle from
   * `openDatabase`: better-sqlite3 runs every statement to its end inside the call, and the awaits
   * between statements are promise jobs, never timers or I/O). A deadline timer could then only fire
   * after the call has settled, so none is set: the watchdog's interrupt is what stops a statement
   * at its deadline. (A synchronous operation even runs before the timer would be set:
   * `withDeadline(run(), ...)` evaluates `run()` first.) An abort can still come while the call
   * runs, from a promise job of the caller's: the call then answers `QueryCancelledError` when it
   * settles, as the other backends do. The timer, its promise and its clearing cost about 7 µs a
   * call in a warm loop, a large share of a count with a cached total (the suite's repeated-page row, `npm run bench`).
   */
  readonly synchronous?: boolean
  readonly close?: () => Promise<void>
  /**
   * At most `slots` operations that are neither in `light` nor called as light run at once; the
   * others wait, their budget counting from the call (PostgreSQL: a pool of connections would
   * otherwise run every request's statements at once, and a database on a few cores thrashes; light
   * lookups never wait). Waiting calls are served fairly across tenants, with `fairness`'s limits
   * (`fair-queue.ts`; the cap's default is half of `slots`).
   */
  readonly heavyLimit?: {
    readonly slots: number
    readonly light: ReadonlySet<string>
    readonly fairness?: FairnessOptions | undefined
    /** Milliseconds for the worker-time ledger (default `performance.now`): tests move time by hand. */
    readonly clock?: (() => number) | undefined
  }
}

/** A gate of `slots` places for heavy calls, handed out in the fair order of `fair-queue.ts`. */
function createGate(slots: number, fairness: FairnessOptions | undefined, clock: () => number) {
  let active = 0
  const fair = new FairQueue<() => void>({
    cap: fairness?.tenantConcurrency ?? defaultTenantConcurrency(slots),
    backlog: fairness?.tenantBacklog ?? DEFAULT_TENANT_BACKLOG,
    allowanceMs: fairness?.tenantAllowanceMs ?? DEFAULT_TENANT_ALLOWANCE_MS,
    now: clock,
  })
  const pump = () => {
    for (let next = active < slots ? fair.take() : undefined; next; next = active < slots ? fair.take() : undefined) {
      active++
      next.item()
    }
  }
  const leave = (tenant: string | typeof ANONYMOUS_TENANT, heldMs: number) => {
    active--
    fair.finish(tenant, heldMs)
    pump()
  }
  return {
    /**
     * Waits for a place (`entered`); throws `TenantBusyError` at once when the tenant may not wait.
     * `cancel` gives up waiting (it then never resolves), or gives back a place taken meanwhile.
     */
    enter(tenant: string | typeof ANONYMOUS_TENANT): { readonly entered: Promise<void>; cancel(): void } {
      let took = false
      let wake!: () => void
      const entered = new Promise<void>((resolve) => { wake = () => { took = true; resolve() } })
      fair.push(tenant, wake)
      pump()
      return {
        entered,
        cancel: () => {
          if (!fair.remove(tenant, wake) && took) leave(tenant, 0)
        },
      }
    },
    leave,
    refusal: (tenant: string | undefined) => fair.refusal(tenant ?? ANONYMOUS_TENANT),
  }
}

/**
 * Runs operations on the caller's connection. SQLite statements block the caller's thread for
 * their duration (use the pool for a file); the watchdog interrupts them at the deadline.
 * PostgreSQL calls are asynchronous: the budget stops waiting for them at the deadline.
 */
export function inlineBackend<Ops extends OperationTable>(ops: Ops, options: InlineOptions = {}): Backend<Ops> {
  const { interruptible, watchdog, cancellable, heavyLimit, synchronous = false } = options
  const gate = heavyLimit ? createGate(Math.max(1, Math.floor(heavyLimit.slots)), heavyLimit.fairness, heavyLimit.clock ?? (() => performance.now())) : undefined
  let nextToken = 1
  let closed = false
  /** Calls whose statements can be cancelled (PostgreSQL) and have not settled: what `close` stops after its grace. */
  const cancellableRunning = new Set<{ readonly result: Promise<unknown>; cancel(): Promise<void> }>()
  return Object.freeze({
    kind: 'inline' as const,
    workers: 0,
    interruptible: (interruptible !== undefined && watchdog !== undefined) || cancellable !== undefined,
    ...(gate ? { refusal: gate.refusal } : {}),
    async call<K extends keyof Ops & string>(op: K, args: Parameters<Ops[K]>, call: BackendCall): Promise<Awaited<ReturnType<Ops[K]>>> {
      if (closed) throw new EngineClosedError()
      if (call.signal?.aborted) throw new QueryCancelledError()
      let budget = hasBudget(call.timeoutMs) ? call.timeoutMs : undefined
      // By the call's own flag too: a light lookup carrying its key check runs as `authorized`.
      const gated = gate !== undefined && !call.light && !heavyLimit!.light.has(op)
      const tenant = call.tenant ?? ANONYMOUS_TENANT
      let enteredAt = 0
      if (gated) {
        const queuedAt = performance.now()
        const place = gate.enter(tenant)
        try {
          await withDeadline(place.entered, budget, call.signal, 'queued')
        } catch (error) {
          place.cancel()
          throw error
        }
        // The wait counts against the budget: the call has what is left of it.
        if (budget !== undefined) budget = Math.max(1, budget - (performance.now() - queuedAt))
        enteredAt = heavyLimit!.clock?.() ?? performance.now()
      }
      try {
        return await run(op, args, call, budget)
      } finally {
        if (gated) gate.leave(tenant, (heavyLimit!.clock?.() ?? performance.now()) - enteredAt)
      }
    },
    async close(graceMs = 5_000) {
      closed = true
      // A connection is returned to its pool only when its statement ends: without the cancel, a
      // statement still running would hold the close up until it finished.
      if (cancellableRunning.size > 0) {
        let stop: ReturnType<typeof setTimeout> | undefined
        await Promise.race([
          Promise.allSettled([...cancellableRunning].map((c) => c.result)),
          new Promise<void>((done) => { stop = setTimeout(done, graceMs) }),
        ])
        clearTimeout(stop)
        await Promise.all([...cancellableRunning].map((c) => c.cancel().catch(() => {})))
      }
      await watchdog?.close()
      await options.close?.()
    },
  })

  async function run<K extends keyof Ops & string>(op: K, args: Parameters<Ops[K]>, call: BackendCall, budget: number | undefined): Promise<Awaited<ReturnType<Ops[K]>>> {
      const token = nextToken++
      const guarded = budget !== undefined && interruptible && watchdog
      if (guarded) {
        interruptible.arm(token)
        watchdog.arm(interruptible.slot, token, budget)
      }
      const started = performance.now()
      try {
        const run = () => Promise.resolve(ops[op]!(...args)) as Promise<Awaited<ReturnType<Ops[K]>>>
        if (synchronous) return await settledUnlessAborted(run(), call.signal)
        if (!cancellable) return await (budget === undefined && !call.signal ? run() : withDeadline(run(), budget, call.signal))
        const running = cancellable(run)
        const { result, cancel } = running
        cancellableRunning.add(running)
        void result.then(() => cancellableRunning.delete(running), () => cancellableRunning.delete(running))
        try {
          return await withDeadline(result, budget, call.signal)
        } catch (error) {
          // Given up on (deadline, abort): stop its statements on the server too.
          if (error instanceof QueryTimeoutError || error instanceof QueryCancelledError) void cancel()
          throw error
        }
      } catch (error) {
        if (isInterrupted(error)) throw new QueryTimeoutError(budget ?? Math.round(performance.now() - started), 'running')
        throw error
      } finally {
        if (guarded) watchdog.disarm(token)
      }
  }
}

/**
 * A synchronous backend's call (`InlineOptions.synchronous`): its answer, or `QueryCancelledError`
 * when the signal was aborted while it ran. Such an abort comes from the caller's own promise jobs
 * between two of the call's statements; it cannot stop the call, so it is answered when the call settles.
 */
async function settledUnlessAborted<T>(running: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  let value: T
  try {
    value = await running
  } catch (error) {
    if (signal?.aborted) throw new QueryCancelledError()
    throw error
  }
  if (signal?.aborted) throw new QueryCancelledError()
  return value
}

/** Settles with `running`, or fails at the deadline or on abort (the asynchronous driver's case). */
function withDeadline<T>(running: Promise<T>, ms: number | undefined, signal: AbortSignal | undefined, phase: 'queued' | 'running' = 'running'): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = ms === undefined ? undefined : setTimeout(() => reject(new QueryTimeoutError(ms, phase)), ms)
    const onAbort = () => reject(new QueryCancelledError())
    signal?.addEventListener('abort', onAbort, { once: true })
    running.then(resolve, reject).finally(() => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    })
  })
}
