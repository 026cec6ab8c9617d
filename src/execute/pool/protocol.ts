/**
 * @module The messages between the pool (caller's thread) and a worker. Everything in them is
 * structured-clone safe: requests are JSON-like, results are plain records and `Result`s.
 */
import type { Limits } from '../../check/limits.js'
import type { PagingPolicy } from '../cursor.js'

/** What a worker needs to open its connection (`workerData.setup`). */
export interface WorkerSetup {
  readonly file: string
  readonly readonly: boolean
  readonly limits: Limits
  readonly paging: Partial<PagingPolicy>
  readonly busyTimeoutMs: number | undefined
  readonly mmapBytes: number | undefined
  /** The interrupt extension to load, when it was built. */
  readonly extension: string | undefined
  /** A module whose `createOperations` replaces the default table (PoolOptions.operationsModule). */
  readonly operationsModule: string | undefined
}

export type ToWorker = { readonly type: 'call'; readonly token: number; readonly op: string; readonly args: readonly unknown[] }

export interface SerializedError {
  readonly name: string
  readonly message: string
  readonly code?: string | undefined
  readonly stack?: string | undefined
}

export type FromWorker =
  | { readonly type: 'ready'; readonly slot: number | undefined }
  | { readonly type: 'failed'; readonly error: SerializedError }
  | { readonly type: 'result'; readonly token: number; readonly ok: true; readonly value: unknown }
  | { readonly type: 'result'; readonly token: number; readonly ok: false; readonly error: SerializedError }

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return { name: error.name, message: error.message, code: typeof code === 'string' ? code : undefined, stack: error.stack }
  }
  return { name: 'Error', message: String(error) }
}

/**
 * The tokens of a worker's calls that the pool gave up on (deadline or abort), in memory shared
 * with the thread: a ring of the last few, enough for its running call and every pipelined one
 * (while a given-up call is still on its way to the thread, at most that many others can be given
 * up, so its entry is never overwritten before the thread has read it). The thread reads it before
 * it starts a call and skips one found there: a message read after the pool gave up is not run.
 */
export interface GivenUp {
  readonly buffer: SharedArrayBuffer
  /** Entry 0 counts the marks written; the ring follows. */
  readonly slots: BigInt64Array
}

export function createGivenUp(entries: number, buffer = new SharedArrayBuffer(8 * (entries + 1))): GivenUp {
  return { buffer, slots: new BigInt64Array(buffer) }
}

export function markGivenUp(givenUp: GivenUp, token: number): void {
  const ring = givenUp.slots.length - 1
  const written = Atomics.add(givenUp.slots, 0, 1n)
  Atomics.store(givenUp.slots, 1 + Number(written % BigInt(ring)), BigInt(token))
}

export function isGivenUp(givenUp: GivenUp, token: number): boolean {
  const wanted = BigInt(token)
  for (let i = 1; i < givenUp.slots.length; i++) if (Atomics.load(givenUp.slots, i) === wanted) return true
  return false
}
