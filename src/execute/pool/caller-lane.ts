/**
 * @module Light calls on the caller's thread: the pool's `LIGHT_OPERATIONS` (key checks with their
 * quota count, detail lookups by id, a key check carried by such a lookup) run on a connection of
 * the caller's own, instead of as a message to a worker. Each of them is a handful of index lookups
 * of a bounded number of rows (0.05-0.3 ms); a round trip to a worker cost the caller's thread more
 * than that (posting the message, waking the thread, cloning both ways, the answer's event) and
 * the request a wait for a thread the OS may not schedule at once on a loaded machine. Everything
 * else (listings, counts, search, similar companies, exports) still goes to the workers, so each
 * request makes at most one worker round trip, and a request made of light calls none.
 *
 * The event loop never waits here for anything unbounded:
 * - only light operations run here, never a scan, a count or a search;
 * - the connection's busy timeout is 0: a quota count that finds the state file's write lock taken
 *   (an import, another process counting) fails at once with SQLITE_BUSY, nothing written, and the
 *   call goes to a worker, whose connection waits for the lock (`writeWaitMs`) off this thread;
 * - reads never wait in WAL mode.
 * The quota count is the same atomic statement whichever connection runs it, so quotas stay exact
 * across this connection, the workers and other processes. Here, the counts of a key the connection
 * has seen (`LiveKeys`: one statement that also refuses a revoked key) asked for within one turn of
 * the event loop commit in one transaction (`BatchedLiveCounts`, at most 128): one write lock and one
 * WAL write per turn instead of one per request; a batch that finds the lock taken goes to the
 * workers whole, nothing counted. Light calls skip the fair queue on the
 * workers too (their own lane): the per-tenant limits of heavy calls are unchanged.
 *
 * `bench/http-ratio.ts` measures what this saves over sockets; grammar-docs/guides/performance.md
 * records the figures.
 */
import type { Limits } from '../../check/limits.js'
import { openDatabase, type SqliteVentureDb } from '../../store/open.js'
import { EngineClosedError, QueryCancelledError, type BackendCall, type OperationTable } from '../backend.js'
import type { PagingPolicy } from '../cursor.js'
import { admits, type Guarded, type KeyCheckRequest } from '../key-check.js'
import { createOperations, type Operations } from '../operations.js'
import type { PoolStats, WorkerPool } from './pool.js'

export interface CallerLaneOptions {
  readonly file: string
  readonly readonly: boolean
  readonly limits: Limits
  readonly paging?: Partial<PagingPolicy>
  readonly mmapBytes?: number | undefined
}

export interface CallerLaneStats extends PoolStats {
  /** Light calls answered on the caller's thread. */
  readonly onCallerThread: number
  /** Light calls sent to a worker after the caller's connection found the write lock taken. */
  readonly lockedOut: number
}

export type PoolWithCallerLane = WorkerPool<Operations> & { stats(): CallerLaneStats }

/** SQLite's answer when a write lock is taken and the connection may not wait (busy timeout 0). */
const isLockedOut = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
}

/** `pool`, with its light calls answered on a connection of the caller's thread (see the module). */
export function withCallerLane(pool: WorkerPool<Operations>, options: CallerLaneOptions): PoolWithCallerLane {
  let vdb: SqliteVentureDb | undefined = openDatabase(options.file, {
    readonly: options.readonly,
    migrate: false,
    busyTimeoutMs: 0,
    ...(options.mmapBytes !== undefined ? { mmapBytes: options.mmapBytes } : {}),
  })
  // Many requests' key checks arrive here in one turn of the event loop: their counts commit together.
  const ops = createOperations(vdb, options.limits, options.paging ?? {}, { batchCounts: true })
  const counters = { onCallerThread: 0, lockedOut: 0 }
  let closing = false

  /** One operation here, or on a worker when the write lock is taken (nothing was written then). */
  async function here(op: string, args: readonly unknown[], call: BackendCall): Promise<unknown> {
    const operation = (ops as OperationTable)[op]
    if (!operation) throw new Error(`execute/pool: no operation named ${op}`)
    try {
      return await operation(...args)
    } catch (error) {
      if (!isLockedOut(error)) throw error
      counters.lockedOut++
      return pool.call(op as keyof Operations & string, args as never, call)
    }
  }

  /** As `operations.authorized`: the operation runs only when the key passes; each half may go to a worker when locked out. */
  async function authorized(check: KeyCheckRequest, op: string, args: readonly unknown[], call: BackendCall): Promise<Guarded<unknown>> {
    if (!Object.hasOwn(ops, op) || op === 'authorize' || op === 'authorized') throw new TypeError(`authorized: ${op} is not an operation a key check can guard`)
    let authorization: Awaited<ReturnType<Operations['authorize']>>
    try {
      authorization = await ops.authorize(check.key, check.nowMs, check.count, check.withDataVersion)
    } catch (error) {
      if (!isLockedOut(error)) throw error
      // Not counted here (the count is one statement, and it failed): the worker counts once.
      counters.lockedOut++
      return pool.call('authorized', [check, op, args] as never, call) as Promise<Guarded<unknown>>
    }
    if (!admits(authorization, check.count)) return { authorization, ran: false }
    return { authorization, ran: true, value: await here(op, args, call) }
  }

  return Object.freeze({
    ...pool,
    stats: (): CallerLaneStats => ({ ...pool.stats(), ...counters }),
    call<K extends keyof Operations & string>(op: K, args: Parameters<Operations[K]>, call: BackendCall): Promise<Awaited<ReturnType<Operations[K]>>> {
      if (!call.light || vdb === undefined) return pool.call(op, args, call)
      if (closing) return Promise.reject(new EngineClosedError())
      if (call.signal?.aborted) return Promise.reject(new QueryCancelledError())
      counters.onCallerThread++
      const answer = op === 'authorized'
        ? authorized(...(args as unknown as [KeyCheckRequest, string, readonly unknown[]]), call)
        : here(op, args, call)
      return answer as Promise<Awaited<ReturnType<Operations[K]>>>
    },
    async close(graceMs?: number) {
      closing = true
      try {
        await pool.close(graceMs)
      } finally {
        const open = vdb
        vdb = undefined
        // Light calls run to their end within one turn of the event loop but for a batched count,
        // committed at the next: committed now, as the connection closes in this turn.
        ops.drainCounts()
        await open?.close()
      }
    },
  })
}
