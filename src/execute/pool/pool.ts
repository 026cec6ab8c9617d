/**
 * @module The worker pool: operations on a SQLite file run in worker threads, each with its own
 * connection (WAL: readers never wait for the writer), so the caller's event loop only posts
 * messages and never waits for SQLite.
 *
 * - `size` workers run any operation; `reserve` more take only light ones (`LIGHT_OPERATIONS`: key
 *   checks, detail lookups by id), so cheap requests keep flowing while every general worker is
 *   busy with slow counts. (An engine answers light calls on its own thread, `caller-lane.ts`; they
 *   come here only when that connection found the write lock taken.)
 * - A worker runs one call at a time. Light calls wait in their own first-come, first-served lane;
 *   the others (heavy calls) wait per tenant and are served in a fair order, each tenant with a cap
 *   on calls running, a bounded backlog and a worker-time allowance (`../fair-queue.ts`). When no
 *   worker is idle, a short call (a light one, or a search) may be posted to a worker behind its
 *   running short call (`PIPELINE_DEPTH`), which saves the thread a wake-up; it still starts only
 *   when the call before it has answered. The reserved workers take only light calls, pipelined or not.
 * - A call's budget counts from the call: a call still queued at its deadline fails unrun, also
 *   while the threads are still starting (the limit is the caller's; `whenReady`, `engine.ready()`,
 *   is what waits for them first).
 * - Over budget (or aborted), the caller is answered at once. The statement is interrupted through
 *   the `vql_interrupt` extension (`interrupt.ts`); a worker that does not answer within a grace
 *   period (JavaScript work, or no extension) is terminated and replaced, so a runaway call never
 *   holds a worker for good.
 * - Writes (quota counts, stored queries, caches) go through each worker's connection: SQLite's
 *   write lock serialises them, and the quota count is one atomic statement, exact across workers
 *   and processes.
 * - A worker that dies is replaced; its call fails with the error.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { Limits } from '../../check/limits.js'
import type { PagingPolicy } from '../cursor.js'
import {
  EngineClosedError, hasBudget, isInterrupted, QueryCancelledError, QueryTimeoutError,
  type Backend, type BackendCall, type OperationTable,
} from '../backend.js'
import type { Operations } from '../operations.js'
import {
  ANONYMOUS_TENANT, DEFAULT_TENANT_ALLOWANCE_MS, DEFAULT_TENANT_BACKLOG, defaultTenantConcurrency, FairQueue,
  type FairnessOptions, type TenantBusyError, type TenantKey,
} from '../fair-queue.js'
import { createInterrupter, interruptExtension, type Interrupter } from './interrupt.js'
import {
  createGivenUp, markGivenUp, serializeError, type FromWorker, type GivenUp, type SerializedError, type ToWorker, type WorkerSetup,
} from './protocol.js'
import { workerScript } from './script.js'

export interface PoolOptions {
  /** The SQLite file (migrations already applied by the caller's own connection). */
  readonly file: string
  /** Workers that run any operation. Default: the number of cores. */
  readonly size?: number
  /** Extra workers that run only light operations. Default 1. */
  readonly reserve?: number
  readonly readonly?: boolean
  readonly limits: Limits
  /** How paging by id remembers sort keys (execute/cursor.ts). */
  readonly paging?: Partial<PagingPolicy>
  /** How long a write waits for another connection's write lock before failing (SQLITE_BUSY: 503). */
  readonly busyTimeoutMs?: number
  readonly mmapBytes?: number
  /** Milliseconds a worker gets to answer after its call was interrupted before it is terminated. */
  readonly graceMs?: number
  /**
   * Interrupt statements over budget with the extension (default: when it was built). false ends
   * the worker instead, as happens without the extension.
   */
  readonly interrupt?: boolean
  /** Milliseconds `close()` lets running calls finish before stopping them (default 5,000). */
  readonly closeGraceMs?: number
  /**
   * A module (URL or absolute path) whose `createOperations(vdb, limits)` builds the workers'
   * operations table instead of `operations.ts`: an application's own operations, or a test's.
   */
  readonly operationsModule?: string
  /** Per-tenant limits of heavy calls (`../fair-queue.ts`); the cap's default is half of `size`. */
  readonly fairness?: FairnessOptions
  /** Milliseconds for the worker-time ledger (default `performance.now`): tests move time by hand. */
  readonly clock?: () => number
}

/** A snapshot of the pool, for tests and metrics. */
export interface PoolStats {
  readonly workers: number
  readonly busy: number
  readonly queued: number
  /** Workers started since the pool was created (replacements included). */
  readonly started: number
  /** Workers terminated because they did not answer after their call was given up on, or died. */
  readonly replaced: number
  /** Short calls posted to a busy worker behind its running short call, not started yet (`PIPELINE_DEPTH`). */
  readonly pipelined: number
  /** Calls posted to a worker thread (each one message there and its answer back). */
  readonly posted: number
  /** Calls given up on at their deadline or by their signal. */
  readonly timedOut: number
  readonly cancelled: number
}

export type WorkerPool<Ops extends OperationTable = Operations> = Backend<Ops> & {
  readonly size: number
  readonly reserve: number
  stats(): PoolStats
  /** Resolves once every worker of the first start is ready (or failed to start). */
  whenReady(): Promise<void>
}

/** How long `close()` lets running calls finish before it stops them. */
export const CLOSE_GRACE_MS = 5_000

/** Workers for the default pool: one per core the process may use. */
export const defaultPoolSize = (): number => Math.max(1, availableParallelism())

interface PendingCall {
  readonly op: string
  readonly args: readonly unknown[]
  readonly light: boolean
  /** May be pipelined (`BackendCall.short`). */
  readonly short: boolean
  readonly token: number
  readonly tenant: TenantKey
  /** Taken from the fair queue (a heavy call): counted running for its tenant until it settles. */
  taken?: boolean
  /** When it became its worker's running call (`clock`): its held time is counted from then. */
  startedAt?: number
  /** Its post number on its worker (`GivenUp`), once posted. */
  seq?: number
  readonly budgetMs: number
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
  settled: boolean
  worker?: PoolWorker
  timer?: ReturnType<typeof setTimeout>
  onAbort?: () => void
  signal?: AbortSignal | undefined
}

interface PoolWorker {
  readonly thread: Worker
  /** Takes only light operations. */
  readonly reserved: boolean
  state: 'starting' | 'idle' | 'busy' | 'gone'
  slot: number | undefined
  call: PendingCall | undefined
  /**
   * Short calls already posted to the thread behind a running short `call` (pipelined), oldest
   * first; none has started. The worker runs its messages in order, so each becomes `call` in turn.
   */
  readonly next: PendingCall[]
  /** Set when its call was given up on: terminate unless it answers by then. */
  graceTimer?: ReturnType<typeof setTimeout>
  /** Its calls given up on, shared with the thread (`protocol.ts`, `GivenUp`): it skips them. */
  readonly givenUp: GivenUp
  /** Calls posted to it so far (the next call's post number). */
  posted: number
}

const DEFAULT_GRACE_MS = 1_000
/**
 * Short calls (`BackendCall.short`: light lookups and search) a busy worker may hold behind its
 * running short call. Posting them at once saves the worker a sleep and a wake-up per call (and the
 * caller's thread a context switch), about halving thread switches per request under a load of
 * detail lookups (`bench/serve-switches.ts` counts them). Short calls are bounded, so one waits at most a few of
 * them longer than it would have in the queue.
 */
export const PIPELINE_DEPTH = 3
/** After a worker failed to start, wait this long before starting another (a missing file stays missing). */
const RESPAWN_DELAY_MS = 1_000

export function createWorkerPool<Ops extends OperationTable = Operations>(options: PoolOptions): WorkerPool<Ops> {
  const size = Math.max(1, Math.floor(options.size ?? defaultPoolSize()))
  const reserve = Math.max(0, Math.floor(options.reserve ?? 1))
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS
  const extension = options.interrupt === false ? undefined : interruptExtension()
  const interrupter: Interrupter | undefined = extension === undefined ? undefined : createInterrupter(extension)
  const setup: WorkerSetup = {
    file: options.file,
    readonly: options.readonly ?? false,
    limits: options.limits,
    paging: options.paging ?? {},
    busyTimeoutMs: options.busyTimeoutMs,
    mmapBytes: options.mmapBytes,
    extension,
    operationsModule: options.operationsModule,
  }
  const workers = new Set<PoolWorker>()
  /** Light calls, oldest first. */
  const queue: PendingCall[] = []
  /** Heavy calls whose worker ended, still counted for their tenant until a replacement is ready. */
  const orphans: PendingCall[] = []
  const clock = options.clock ?? (() => performance.now())
  const fair = new FairQueue<PendingCall>({
    cap: options.fairness?.tenantConcurrency ?? defaultTenantConcurrency(size),
    backlog: options.fairness?.tenantBacklog ?? DEFAULT_TENANT_BACKLOG,
    allowanceMs: options.fairness?.tenantAllowanceMs ?? DEFAULT_TENANT_ALLOWANCE_MS,
    now: clock,
  })
  /** Every waiting call, both lanes. */
  const waiting = (): PendingCall[] => [...queue, ...fair.items()]
  let nextToken = 1
  let closing = false
  let closed: Promise<void> | undefined
  let startupError: SerializedError | undefined
  /** Whether a worker has been ready since the pool was created: a call timed out before says so. */
  let warm = false
  let respawnTimer: ReturnType<typeof setTimeout> | undefined
  const drained: (() => void)[] = []
  const counters = { started: 0, replaced: 0, posted: 0, timedOut: 0, cancelled: 0 }
  let starting = 0
  const onReady: (() => void)[] = []
  const startedOne = () => {
    if (--starting === 0) for (const done of onReady.splice(0)) done()
  }

  function spawn(reserved: boolean): void {
    const script = workerScript()
    // One entry per call a worker can hold: its running call and the pipelined ones.
    const givenUp = createGivenUp(PIPELINE_DEPTH + 1)
    const thread = new Worker(script.filename, { ...script.options, workerData: { ...script.workerData, setup, givenUp: givenUp.buffer } })
    const worker: PoolWorker = { thread, reserved, state: 'starting', slot: undefined, call: undefined, next: [], givenUp, posted: 0 }
    workers.add(worker)
    counters.started++
    starting++
    thread.on('message', (message: FromWorker) => onMessage(worker, message))
    // Before 'ready' an error is a failed start (bad file, missing build): back off before the next.
    thread.on('error', (error) => (worker.state === 'starting' ? failedStart(worker, serializeError(error)) : retire(worker, error)))
    thread.on('exit', (code) => {
      const error = new Error(`a query worker exited (code ${code})`)
      if (worker.state === 'starting') failedStart(worker, serializeError(error))
      else retire(worker, error)
    })
  }

  /** A worker that could not start: every queued call would fail the same way, so they fail now. */
  function failedStart(worker: PoolWorker, error: SerializedError): void {
    if (worker.state === 'starting') startedOne()
    startupError = error
    for (const orphan of orphans.splice(0)) release(orphan)
    for (const call of [...queue.splice(0), ...fair.drain()]) settle(call, () => call.reject(revive(error)))
    retire(worker, undefined, true)
  }

  function onMessage(worker: PoolWorker, message: FromWorker): void {
    if (message.type === 'ready') {
      const orphan = orphans.shift()
      if (orphan) release(orphan)
      worker.slot = message.slot
      worker.state = 'idle'
      startedOne()
      startupError = undefined
      warm = true
      dispatch()
      return
    }
    if (message.type === 'failed') return failedStart(worker, message.error)
    const call = worker.call
    if (call) release(call)
    worker.call = worker.next.shift()
    if (worker.call) worker.call.startedAt = clock()
    clearGrace(worker)
    if (worker.state === 'busy' && worker.call === undefined) worker.state = 'idle'
    if (call && !call.settled) {
      settle(call, () => {
        if (message.ok) call.resolve(message.value)
        else if (isInterrupted(message.error)) call.reject(new QueryTimeoutError(call.budgetMs, 'running'))
        else call.reject(revive(message.error))
      })
    }
    dispatch()
  }

  /** A worker that ended (or is being ended): its call fails, and a replacement starts. */
  function retire(worker: PoolWorker, error: unknown, startupFailed = false): void {
    if (worker.state === 'gone') return
    if (!startupFailed) counters.replaced++
    worker.state = 'gone'
    workers.delete(worker)
    clearGrace(worker)
    const call = worker.call
    // A heavy call whose worker ends keeps its tenant's place until the replacement is ready:
    // starting a worker takes a while (seconds under tsx on a busy machine), and meanwhile the
    // tenant must not take one of the workers left to the others.
    if (call?.taken && !startupFailed && !closing) orphans.push(call)
    else if (call) release(call)
    const pipelined = worker.next.splice(0)
    for (const c of pipelined) if (c.settled) release(c)
    const next = pipelined.filter((c) => !c.settled)
    worker.call = undefined
    if (call && !call.settled) settle(call, () => call.reject(error ?? new Error('a query worker stopped')))
    // Pipelined calls never started: they go back to the front of their lane for another worker.
    for (const c of next) c.worker = undefined
    queue.unshift(...next.filter((c) => !c.taken))
    for (const c of next.filter((c) => c.taken).reverse()) {
      c.taken = false
      fair.requeue(c.tenant, c)
    }
    void worker.thread.terminate()
    if (closing) return dispatch()
    if (startupFailed) {
      respawnTimer ??= setTimeout(() => {
        respawnTimer = undefined
        refill()
      }, RESPAWN_DELAY_MS)
      respawnTimer.unref()
    } else refill()
    dispatch()
  }

  /** Starts workers until the general and reserved counts are complete again. */
  function refill(): void {
    if (closing) return
    let general = 0
    let reserved = 0
    for (const w of workers) w.reserved ? reserved++ : general++
    for (; general < size; general++) spawn(false)
    for (; reserved < reserve; reserved++) spawn(true)
  }

  /**
   * Gives waiting calls to workers. Heavy calls come from the fair queue, in its order, to idle
   * general workers; light calls, oldest first, to the reserved workers first and else to a general
   * worker the heavy calls left idle. With no idle worker, a short call is pipelined behind a
   * running short call (a light one only on a reserved worker); on a general worker only while no
   * heavy call could start (the fair queue's next call is short itself, or every waiting tenant is at
   * its cap): a stream of short calls would otherwise keep that worker busy for good and starve
   * the heavy ones.
   */
  function dispatch(): void {
    // Light calls on idle reserved workers.
    for (let worker = idleWorker(true); worker && queue.length > 0; worker = idleWorker(true)) run(worker, queue.shift()!)
    // Idle general workers: the older of the next heavy call and the oldest light one.
    for (let worker = idleWorker(false); worker; worker = idleWorker(false)) {
      const heavy = fair.peek()
      const light = queue[0]
      if (heavy === undefined && light === undefined) break
      if (heavy !== undefined && (light === undefined || heavy.item.token < light.token)) runHeavy(worker)
      else run(worker, queue.shift()!)
    }
    // No idle worker left for them: short calls behind running short ones, without passing a heavy call that could start.
    for (let next = fair.peek(); next?.item.short;) {
      const worker = behindShort(false)
      if (!worker) break
      runHeavy(worker)
      next = fair.peek()
    }
    const heavyCouldStart = fair.peek() !== undefined
    for (let i = 0; i < queue.length;) {
      const call = queue[i]!
      const worker = call.short ? behindShort(true, !heavyCouldStart) : undefined
      if (worker) run(worker, queue.splice(i, 1)[0]!)
      else i++
    }
    if (closing && queue.length === 0 && fair.size === 0 && [...workers].every((w) => w.call === undefined)) for (const done of drained.splice(0)) done()
  }

  /**
   * A heavy call left its worker (answered, or its worker ended): its tenant has one call fewer
   * running, and the time it held the worker goes to the tenant's allowance. Counted from the
   * worker, not from the caller's answer: a call given up on at its deadline holds its worker until
   * the interrupt lands, and its tenant must not start another meanwhile.
   */
  function release(call: PendingCall): void {
    if (!call.taken) return
    call.taken = false
    fair.finish(call.tenant, call.startedAt === undefined ? 0 : clock() - call.startedAt)
  }

  function runHeavy(worker: PoolWorker): void {
    const { item } = fair.take()!
    item.taken = true
    run(worker, item)
  }

  function idleWorker(reserved: boolean): PoolWorker | undefined {
    for (const w of workers) if (w.reserved === reserved && w.state === 'idle') return w
    return undefined
  }

  /**
   * The busy worker running a short call with the fewest calls pipelined behind it and room for one
   * more: among the reserved workers (`reserved`), the general ones (`general`), or both.
   */
  function behindShort(reserved: boolean, general = !reserved): PoolWorker | undefined {
    let best: PoolWorker | undefined
    for (const w of workers) {
      if (!(w.reserved ? reserved : general) || w.state !== 'busy' || !w.call?.short || w.next.length >= PIPELINE_DEPTH) continue
      if (best === undefined || w.next.length < best.next.length) best = w
    }
    return best
  }

  function run(worker: PoolWorker, call: PendingCall): void {
    if (worker.call === undefined) {
      worker.call = call
      call.startedAt = clock()
    } else worker.next.push(call)
    worker.state = 'busy'
    call.worker = worker
    call.seq = worker.posted++
    const message: ToWorker = { type: 'call', token: call.token, seq: call.seq, op: call.op, args: call.args }
    try {
      worker.thread.postMessage(message)
      counters.posted++
    } catch (error) {
      // The structured clone refused the arguments (too deep: a RangeError; a function: a
      // DataCloneError). The engine guards its callers' input before this (`guardInput`); for any
      // other caller the call fails alone, and its worker is as it was, not held by a call never sent.
      worker.posted--
      if (worker.call === call) worker.call = undefined
      else worker.next.pop()
      if (worker.call === undefined) worker.state = 'idle'
      call.worker = undefined
      settle(call, () => call.reject(error))
    }
  }

  function startClock(call: PendingCall): void {
    if (!hasBudget(call.budgetMs) || call.timer) return
    // A pipelined call is in its worker's hands but has not started: it waited, like a queued one.
    call.timer = setTimeout(() => giveUp(call, new QueryTimeoutError(call.budgetMs, call.worker?.call === call ? 'running' : warm ? 'queued' : 'starting')), call.budgetMs)
  }

  /** Answers the caller once; clears the call's timer and abort listener. */
  function settle(call: PendingCall, answer: () => void): void {
    if (call.settled) return
    call.settled = true
    if (call.timer) clearTimeout(call.timer)
    if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort)
    answer()
  }

  /**
   * Gives up on a call (deadline or abort): answer now, stop its statement, reclaim its worker.
   *
   * A call in a worker's hands is marked given up first, in memory the thread reads before it starts
   * a call: one posted but not started yet (its message on the way, or pipelined) is then skipped.
   * Before, such a call could not be interrupted (its token was not armed yet) and its worker was
   * terminated and replaced: a client that closed its connection cost a thread, a new connection
   * and cold caches. Clients abandon requests all the time (a type-ahead cancels the previous
   * search).
   */
  function giveUp(call: PendingCall, error: Error): void {
    if (call.settled) return
    if (error instanceof QueryTimeoutError) counters.timedOut++
    else counters.cancelled++
    const worker = call.worker
    settle(call, () => call.reject(error))
    if (!worker) {
      const at = queue.indexOf(call)
      if (at >= 0) queue.splice(at, 1)
      else fair.remove(call.tenant, call)
      return
    }
    markGivenUp(worker.givenUp, call.seq!, call.token)
    // Pipelined: the worker skips it when it comes to it.
    if (worker.call !== call) return
    // Without the extension a running statement cannot be stopped: the thread is ended.
    if (worker.slot === undefined || !interrupter) return retire(worker, undefined)
    // Not started: skipped (marked above; the thread reads the mark after arming the call). Running
    // a statement: it stops at its next row. Armed but between statements or in JavaScript (similar
    // companies' scoring), or armed and past the mark's check a moment before the pool marked it:
    // SQLite drops an interrupt that finds no statement running, so the call runs on. A worker that
    // stays silent for the grace period is ended.
    interrupter.interrupt(worker.slot, call.token)
    worker.graceTimer = setTimeout(() => retire(worker, undefined), graceMs)
    worker.graceTimer.unref()
  }

  function clearGrace(worker: PoolWorker): void {
    if (worker.graceTimer) clearTimeout(worker.graceTimer)
    worker.graceTimer = undefined
  }

  /**
   * Running calls get `closeGraceMs` to finish; then each is given up on as at its deadline (its
   * statement interrupted; a worker that stays silent for `graceMs` ended) and every thread is
   * ended. `close` so takes `closeGraceMs`, plus the moment a statement takes to notice its
   * interrupt, plus ending the threads (tenths of a second; scripts/shutdown-deadline.ts measures
   * the whole shutdown of `serve`).
   */
  async function closeNow(closeGraceMs: number): Promise<void> {
    closing = true
    if (respawnTimer) clearTimeout(respawnTimer)
    for (const call of [...queue.splice(0), ...fair.drain()]) settle(call, () => call.reject(new EngineClosedError()))
    if ([...workers].some((w) => w.call !== undefined)) {
      let stop: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        new Promise<void>((done) => drained.push(done)),
        new Promise<void>((done) => { stop = setTimeout(done, closeGraceMs) }),
      ])
      clearTimeout(stop)
    }
    const threads = [...workers]
    for (const w of threads) for (const call of w.call ? [w.call, ...w.next] : []) giveUp(call, new EngineClosedError())
    // Ending a thread while its statement returns crashes the process (the native module cannot
    // build its result in a terminating thread): wait for the interrupted calls to answer, which
    // takes milliseconds, or for `giveUp`'s grace to end a silent worker.
    if ([...workers].some((w) => w.call !== undefined)) await new Promise<void>((done) => drained.push(done))
    await Promise.all(threads.map(async (w) => {
      clearGrace(w)
      w.state = 'gone'
      await w.thread.terminate()
    }))
    workers.clear()
    interrupter?.close()
  }

  refill()

  return Object.freeze({
    kind: 'pool' as const,
    workers: size + reserve,
    size,
    reserve,
    interruptible: interrupter !== undefined,
    stats: (): PoolStats => {
      let busy = 0
      let pipelined = 0
      for (const w of workers) {
        if (w.call) busy++
        pipelined += w.next.length
      }
      return { workers: workers.size, busy, pipelined, queued: queue.length + fair.size, ...counters }
    },
    call<K extends keyof Ops & string>(op: K, args: Parameters<Ops[K]>, options: BackendCall): Promise<Awaited<ReturnType<Ops[K]>>> {
      if (closing) return Promise.reject(new EngineClosedError())
      if (options.signal?.aborted) return Promise.reject(new QueryCancelledError())
      if (startupError) return Promise.reject(revive(startupError))
      return new Promise<Awaited<ReturnType<Ops[K]>>>((resolve, reject) => {
        const call: PendingCall = {
          op, args, light: options.light, short: options.short ?? options.light, token: nextToken++, budgetMs: options.timeoutMs,
          tenant: options.tenant ?? ANONYMOUS_TENANT,
          resolve: resolve as (value: unknown) => void, reject, settled: false, signal: options.signal,
        }
        if (call.light) queue.push(call)
        else {
          try {
            fair.push(call.tenant, call)
          } catch (error) {
            // Refused at once (its tenant's backlog or allowance): it delays nobody and never starts.
            reject(error as TenantBusyError)
            return
          }
        }
        startClock(call)
        if (options.signal) {
          call.onAbort = () => giveUp(call, new QueryCancelledError())
          options.signal.addEventListener('abort', call.onAbort, { once: true })
        }
        dispatch()
      })
    },
    refusal: (tenant: string | undefined) => fair.refusal(tenant ?? ANONYMOUS_TENANT),
    whenReady: () => (starting === 0 ? Promise.resolve() : new Promise<void>((done) => onReady.push(done))),
    close(closeGraceMs = options.closeGraceMs ?? CLOSE_GRACE_MS) {
      return (closed ??= closeNow(closeGraceMs))
    },
  })
}

/** An error from a worker, rebuilt on this side with its name and code (SQLITE_BUSY and the like decide 503s). */
function revive(serialized: SerializedError): Error {
  const error = new Error(serialized.message)
  error.name = serialized.name
  if (serialized.code !== undefined) (error as Error & { code?: string }).code = serialized.code
  if (serialized.stack) error.stack = serialized.stack
  return error
}
