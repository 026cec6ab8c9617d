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

/** `seq`: the worker's post number (its entry in `GivenUp`). */
export type ToWorker = { readonly type: 'call'; readonly token: number; readonly seq: number; readonly op: string; readonly args: readonly unknown[] }

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
 * The calls of a worker that the pool gave up on (deadline or abort), in memory shared with the
 * thread: one entry per post number modulo the entries, which hold the given-up call's token. A
 * worker holds at most `entries` calls at once (its running call and the pipelined ones), posted
 * with consecutive numbers, so each has an entry of its own, and an entry is reused only by a call
 * posted after its previous one was answered. The thread reads its call's entry before it starts
 * the call and skips it when the entry holds the call's token: a message read after the pool gave up
 * is not run. A stale entry never matches, as tokens are never reused.
 */
export interface GivenUp {
  readonly buffer: SharedArrayBuffer
  readonly slots: BigInt64Array
}

export function createGivenUp(entries: number): GivenUp {
  return givenUpOf(new SharedArrayBuffer(8 * entries))
}

/** The thread's view of the pool's `GivenUp`, from its buffer. */
export function givenUpOf(buffer: SharedArrayBuffer): GivenUp {
  return { buffer, slots: new BigInt64Array(buffer) }
}

export function markGivenUp(givenUp: GivenUp, seq: number, token: number): void {
  Atomics.store(givenUp.slots, seq % givenUp.slots.length, BigInt(token))
}

export function isGivenUp(givenUp: GivenUp, seq: number, token: number): boolean {
  return Atomics.load(givenUp.slots, seq % givenUp.slots.length) === BigInt(token)
}
