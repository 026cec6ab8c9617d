/**
 * @module A pool worker: its own connection to the SQLite file, the operations table over it, and
 * one call at a time. Before each call it arms its slot with the call's token, so the pool can
 * interrupt exactly that call (`interrupt.ts`), then skips the call if the pool has given up on it.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openDatabase } from '../../store/open.js'
import { pathToFileURL } from 'node:url'
import type { OperationTable } from '../backend.js'
import { createOperations } from '../operations.js'
import { makeInterruptible } from './interrupt.js'
import { backgroundGate, type BackgroundGate } from '../background.js'
import { givenUpOf, isGivenUp, serializeError, type FromWorker, type ToWorker, type WorkerSetup } from './protocol.js'

const port = parentPort
if (!port) throw new Error('execute/pool/worker.ts runs as a worker thread of the pool')
const { setup, givenUp: givenUpBuffer } = workerData as { setup: WorkerSetup; givenUp?: SharedArrayBuffer }
// Absent when a test starts this script by hand: nothing is ever given up then.
const givenUp = givenUpBuffer ? givenUpOf(givenUpBuffer) : undefined
const post = (message: FromWorker) => port.postMessage(message)

try {
  const vdb = openDatabase(setup.file, {
    readonly: setup.readonly,
    migrate: false,
    ...(setup.busyTimeoutMs !== undefined ? { busyTimeoutMs: setup.busyTimeoutMs } : {}),
    ...(setup.mmapBytes !== undefined ? { mmapBytes: setup.mmapBytes } : {}),
  })
  const interruptible = setup.extension === undefined ? undefined : makeInterruptible(vdb.sqlite, setup.extension)
  const create = setup.operationsModule === undefined
    ? createOperations
    : ((await import(toUrl(setup.operationsModule))) as { createOperations: (...a: Parameters<typeof createOperations>) => OperationTable }).createOperations
  const ops: OperationTable = create(vdb, setup.limits, setup.paging)
  // The background reads run between calls only, with the slot armed by no call's token (background.ts).
  const gate = backgroundGate(vdb.db)
  if (interruptible) gate.disarm = () => interruptible.arm(0)
  // The cost prediction's statistics and the facet columns, read right after the connection opens
  // so that no call pays for them (execute/statistics.ts, execute/facet-columns.ts; a few seconds
  // at 1,000,000 companies on a cold cache).
  await ops.backgroundReads?.()
  port.on('message', (message: ToWorker) => void run(ops, message, interruptible?.arm, gate))
  post({ type: 'ready', slot: interruptible?.slot })
} catch (error) {
  post({ type: 'failed', error: serializeError(error) })
  port.close()
}

function toUrl(module: string): string {
  return /^[a-z]+:/i.test(module) ? module : pathToFileURL(module).href
}

async function run(ops: OperationTable, message: ToWorker, arm: ((token: number) => void) | undefined, gate: BackgroundGate): Promise<void> {
  gate.begin()
  try {
    arm?.(message.token)
    // Read after arming, as the pool marks a call before it interrupts it: a call given up on before
    // this point is skipped here (pool.ts, giveUp).
    if (givenUp && isGivenUp(givenUp, message.seq, message.token)) {
      post({ type: 'result', token: message.token, ok: false, error: { name: 'QueryCancelledError', message: 'given up on before it started' } })
      return
    }
    const operation = ops[message.op]
    if (!operation) throw new Error(`execute/pool: no operation named ${message.op}`)
    const value = await operation(...message.args)
    post({ type: 'result', token: message.token, ok: true, value })
  } catch (error) {
    post({ type: 'result', token: message.token, ok: false, error: serializeError(error) })
  } finally {
    gate.end()
  }
}
