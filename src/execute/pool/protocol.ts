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
