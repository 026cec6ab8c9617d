/**
 * @module The worker pool: operations on a SQLite file run in worker threads, each with its own
 * connection (WAL: readers never wait for the writer), so the caller's event loop only posts
 * messages and never waits for SQLite.
 *
 * - `size` workers run any operation; `reserve` more take only light ones (`LIGHT_OPERATIONS`: key
 *   checks, detail lookups by id), so cheap requests keep flowing while every general worker is
 *   busy with slow counts.
 * - A worker runs one call at a time; calls wait in one FIFO queue. When no worker is idle, a short
 *   call (a light one, or a search) may be posted to a worker behind its running short call
 *   (`PIPELINE_DEPTH`), which saves the thread a wake-up; it still starts only when the call before
 *   it has answered. The reserved workers take only light calls, pipelined or not.
 * - A call's budget counts from when it is queued (or, while the pool is still starting, from when
 *   its first worker is ready: starting threads is not the query's cost): a call still queued at its
 *   deadline fails unrun.
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
  const queue: PendingCall[] = []
  let nextToken = 1
  let closing = false
  let startupError: SerializedError | undefined
  /** Until a first worker is ready, budgets wait (calls queued meanwhile start their clocks then). */
  let warm = false
  let respawnTimer: ReturnType<typeof setTimeout> | undefined
  const drained: (() => void)[] = []
  const counters = { started: 0, replaced: 0, timedOut: 0, cancelled: 0 }
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
    for (const call of queue.splice(0)) settle(call, () => call.reject(revive(error)))
    retire(worker, undefined, true)
  }

  function onMessage(worker: PoolWorker, message: FromWorker): void {
    if (message.type === 'ready') {
      worker.slot = message.slot
      worker.state = 'idle'
      startedOne()
      startupError = undefined
      if (!warm) {
        warm = true
        for (const call of queue) startClock(call)
      }
      dispatch()
      return
    }
    if (message.type === 'failed') return failedStart(worker, message.error)
    const call = worker.call
    worker.call = worker.next.shift()
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
    const next = worker.next.splice(0).filter((c) => !c.settled)
    worker.call = undefined
    if (call && !call.settled) settle(call, () => call.reject(error ?? new Error('a query worker stopped')))
    // Pipelined calls never started: they go back to the front of the queue for another worker.
    for (const c of next) c.worker = undefined
    queue.unshift(...next)
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
   * Gives queued calls to idle workers, oldest call first; light calls use reserved workers first.
   * With no idle worker, a short call is pipelined behind a running short call (a light one only on
   * a reserved worker). Not on a general worker while an older heavy call waits: a stream of short
   * calls would otherwise keep that worker busy for good and starve the heavy one.
   */
  function dispatch(): void {
    let heavyWaiting = false
    for (let i = 0; i < queue.length;) {
      const call = queue[i]!
      const worker = idleWorkerFor(call, heavyWaiting)
      if (!worker) {
        if (!call.short) heavyWaiting = true
        i++
        continue
      }
      queue.splice(i, 1)
      run(worker, call)
    }
    if (closing && queue.length === 0 && [...workers].every((w) => w.call === undefined)) for (const done of drained.splice(0)) done()
  }

  function idleWorkerFor(call: PendingCall, heavyWaiting: boolean): PoolWorker | undefined {
    let general: PoolWorker | undefined
    let behindShort: PoolWorker | undefined
    for (const w of workers) {
      if (call.short && w.state === 'busy' && w.call?.short && w.next.length < PIPELINE_DEPTH && (w.reserved ? call.light : !heavyWaiting)) {
        if (behindShort === undefined || w.next.length < behindShort.next.length) behindShort = w
      }
      if (w.state !== 'idle') continue
      if (w.reserved) {
        if (call.light) return w
      } else general ??= w
    }
    return general ?? behindShort
  }

  function run(worker: PoolWorker, call: PendingCall): void {
    if (worker.call === undefined) worker.call = call
    else worker.next.push(call)
    worker.state = 'busy'
    call.worker = worker
    call.seq = worker.posted++
    const message: ToWorker = { type: 'call', token: call.token, seq: call.seq, op: call.op, args: call.args }
    worker.thread.postMessage(message)
  }

  function startClock(call: PendingCall): void {
    if (!hasBudget(call.budgetMs) || call.timer) return
    // A pipelined call is in its worker's hands but has not started: it waited, like a queued one.
    call.timer = setTimeout(() => giveUp(call, new QueryTimeoutError(call.budgetMs, call.worker?.call === call ? 'running' : 'queued')), call.budgetMs)
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
   * search); `bench/abandoned-requests.ts` measures it.
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
      return { workers: workers.size, busy, pipelined, queued: queue.length, ...counters }
    },
    call<K extends keyof Ops & string>(op: K, args: Parameters<Ops[K]>, options: BackendCall): Promise<Awaited<ReturnType<Ops[K]>>> {
      if (closing) return Promise.reject(new EngineClosedError())
      if (options.signal?.aborted) return Promise.reject(new QueryCancelledError())
      if (startupError) return Promise.reject(revive(startupError))
      return new Promise<Awaited<ReturnType<Ops[K]>>>((resolve, reject) => {
        const call: PendingCall = {
          op, args, light: options.light, short: options.short ?? options.light, token: nextToken++, budgetMs: options.timeoutMs,
          resolve: resolve as (value: unknown) => void, reject, settled: false, signal: options.signal,
        }
        if (warm) startClock(call)
        if (options.signal) {
          call.onAbort = () => giveUp(call, new QueryCancelledError())
          options.signal.addEventListener('abort', call.onAbort, { once: true })
        }
        queue.push(call)
        dispatch()
      })
    },
    whenReady: () => (starting === 0 ? Promise.resolve() : new Promise<void>((done) => onReady.push(done))),
    async close(closeGraceMs = options.closeGraceMs ?? CLOSE_GRACE_MS) {
      if (closing) return
      closing = true
      if (respawnTimer) clearTimeout(respawnTimer)
      for (const call of queue.splice(0)) settle(call, () => call.reject(new EngineClosedError()))
      // Running calls get a grace period to finish, then are stopped like calls over budget.
      if ([...workers].some((w) => w.call !== undefined)) {
        const stop = setTimeout(() => {
          for (const w of workers) for (const call of w.call ? [w.call, ...w.next] : []) giveUp(call, new EngineClosedError())
        }, closeGraceMs)
        await new Promise<void>((done) => drained.push(done))
        clearTimeout(stop)
      }
      await Promise.all([...workers].map(async (w) => {
        w.state = 'gone'
        await w.thread.terminate()
      }))
      workers.clear()
      interrupter?.close()
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
