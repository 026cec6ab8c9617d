/**
 * @module A thread answering for the similarity index's build (similar/threads.ts): the model and
 * the answers are in shared memory; it takes ranges of the model's order and says how many
 * companies each gave.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { SimilarityModel, type ModelParts } from './lsh.js'
import { answerRange, type AnswerSlots } from './threads.js'

const port = parentPort
if (!port) throw new Error('records/similar/worker.ts runs as a worker thread of the similarity index build')
const { parts, slot, out } = workerData as { parts: ModelParts; slot: Int32Array; out: AnswerSlots }
const model = new SimilarityModel({ parts })
port.on('message', ({ from, to }: { from: number; to: number }) => {
  port.postMessage({ done: answerRange(model, slot, out, from, to) })
})
port.postMessage({ ready: true })
