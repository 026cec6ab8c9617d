/**
 * @module The answers of the similarity index's build (similar-index-build.ts), computed in this
 * thread or in worker threads that share the model.
 *
 * - The answers are computed set by set in the model's order (the members of a set share its
 *   candidates, and consecutive sets most of theirs) and stored by slot: the build numbers the
 *   companies to compute, and each answer's place is fixed before any is computed, so the result
 *   does not depend on which thread computed what, nor in which order.
 * - With `jobs` above 1, the model is in shared memory (`SimilarityModel` built `shared`) and
 *   `jobs` worker threads (similar/worker.ts) take ranges of the order as they finish the last
 *   one: the cost a set varies, so ranges handed out in turn keep both busy to the end. The
 *   answers are written in shared memory too; nothing but the ranges and counts is posted.
 * - Each thread costs its own scratch (about 17 bytes a tag set: 14 MB at a million companies)
 *   and a V8 heap; the model is read by all of them in place.
 */
import { Worker } from 'node:worker_threads'
import { scriptBeside } from '../../execute/pool/script.js'
import type { ModelParts, SimilarityModel } from './lsh.js'

/** The answers by slot: `counts[k]` companies at `at[k * limit ..]` (company indexes) with `scores[k * limit ..]`. */
export interface AnswerSlots {
  readonly limit: number
  readonly counts: Uint8Array
  readonly at: Uint32Array
  readonly scores: Float64Array
}

export interface ComputeOptions {
  /** Threads computing (default 1: this one). */
  readonly jobs?: number
  /** After each range of sets: companies computed so far. */
  readonly onProgress?: (done: number) => void
  readonly signal?: AbortSignal
}

/** Sets a range holds at most, and at least (a range is a message each way between threads). */
const MAX_RANGE = 2_048
const MIN_RANGE = 64

/** Room for `total` answers of at most `limit` companies, in shared memory when `shared`. */
export function answerSlots(total: number, limit: number, shared: boolean): AnswerSlots {
  if (limit > 255) throw new RangeError(`similar: limit ${limit} above 255`)
  const make = <T>(kind: { new (n: number): T; new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, n: number): T =>
    shared ? new kind(new SharedArrayBuffer(Math.max(1, n) * kind.BYTES_PER_ELEMENT)) : new kind(n)
  return { limit, counts: make(Uint8Array, total), at: make(Uint32Array, total * limit), scores: make(Float64Array, total * limit) }
}

/**
 * The answers of the companies with a slot (`slot[c] >= 0`) among the members of the sets at
 * `model.order[from .. to)`, written at their slots. Returns how many were computed.
 */
export function answerRange(model: SimilarityModel, slot: Int32Array, out: AnswerSlots, from: number, to: number): number {
  const { limit, counts, at, scores } = out
  let done = 0
  for (let o = from; o < to; o++) {
    const set = model.order[o]!
    let found: ReturnType<SimilarityModel['candidates']> | undefined
    for (let m = model.memberStart[set]!; m < model.memberStart[set + 1]!; m++) {
      const c = model.members[m]!
      const k = slot[c]!
      if (k < 0) continue
      found ??= model.candidates(set)
      model.neighboursInto(c, limit, found)
      const answer = model.answer
      counts[k] = answer.count
      at.set(answer.at.subarray(0, answer.count), k * limit)
      scores.set(answer.scores.subarray(0, answer.count), k * limit)
      done++
    }
  }
  return done
}

/**
 * The answers of the companies with a slot, `total` of them (slots 0 .. total - 1), at most
 * `limit` each. With `jobs` above 1 the model must have been built `shared`.
 */
export async function computeAnswers(model: SimilarityModel, slot: Int32Array, total: number, limit: number, options: ComputeOptions = {}): Promise<AnswerSlots> {
  const jobs = options.jobs ?? 1
  const sets = model.sets
  const range = Math.max(MIN_RANGE, Math.min(MAX_RANGE, Math.ceil(sets / (Math.max(1, jobs) * 16))))
  const ranges = Math.ceil(sets / range)
  const threads = Math.min(jobs, ranges)
  if (threads <= 1 || total === 0) {
    const out = answerSlots(total, limit, false)
    let done = 0
    for (let from = 0; from < sets; from += range) {
      options.signal?.throwIfAborted()
      done += answerRange(model, slot, out, from, Math.min(sets, from + range))
      options.onProgress?.(done)
    }
    return out
  }
  if (!(slot.buffer instanceof SharedArrayBuffer) || !(model.parts.bucketSets.buffer instanceof SharedArrayBuffer)) {
    throw new Error('similar: answers in threads need the model and the slots in shared memory')
  }
  const out = answerSlots(total, limit, true)
  await inThreads(model.parts, slot, out, sets, range, threads, options)
  return out
}

async function inThreads(parts: ModelParts, slot: Int32Array, out: AnswerSlots, sets: number, range: number, threads: number, options: ComputeOptions): Promise<void> {
  const script = scriptBeside(import.meta.url, './worker.ts', './similar-worker.js')
  const workers: Worker[] = []
  let next = 0
  let done = 0
  let running = 0
  // Removed whatever ends the wait: a signal outliving the build would otherwise keep this
  // closure, and through it the model's shared memory, for as long as it lives.
  let onAbort: (() => void) | undefined
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false
      const fail = (error: unknown) => {
        if (failed) return
        failed = true
        reject(error)
      }
      onAbort = () => fail(options.signal!.reason)
      if (options.signal?.aborted) return onAbort()
      options.signal?.addEventListener('abort', onAbort, { once: true })
      const give = (worker: Worker) => {
        if (failed) return
        if (next >= sets) {
          if (--running === 0) resolve()
          return
        }
        const from = next
        next = Math.min(sets, next + range)
        worker.postMessage({ from, to: next })
      }
      for (let i = 0; i < threads; i++) {
        const worker = new Worker(script.filename, { ...script.options, workerData: { ...script.workerData, parts, slot, out } })
        workers.push(worker)
        running++
        worker.on('message', (message: { ready?: true; done?: number }) => {
          if (message.done !== undefined) {
            done += message.done
            try {
              options.onProgress?.(done)
            } catch (error) {
              return fail(error)
            }
          }
          give(worker)
        })
        worker.on('error', fail)
        worker.on('exit', (code) => {
          if (next < sets || running > 0) fail(new Error(`similar: an answering thread exited (code ${code}) before the answers were done`))
        })
      }
    })
  } finally {
    if (onAbort) options.signal?.removeEventListener('abort', onAbort)
    await Promise.all(workers.map((w) => {
      w.removeAllListeners('exit')
      return w.terminate()
    }))
  }
}
