/**
 * What one message to a worker thread and its answer cost on this machine (`node
 * bench/worker-round-trip.mjs`): 20,000 round trips of a message shaped like the pool's call
 * (src/execute/pool/protocol.ts) to a worker that answers at once, one at a time, so the worker is
 * asleep each time a message arrives, as a pool worker between calls is; then 20,000 posts without
 * waiting (the worker awake). Prints microseconds per round trip and the process's user and system
 * CPU for the round trips: the system time is the waking of the threads.
 */
import { isMainThread, parentPort, Worker } from 'node:worker_threads'

if (isMainThread) {
  const worker = new Worker(new URL(import.meta.url))
  const N = 20_000
  let answered = 0
  const before = process.cpuUsage()
  const started = performance.now()
  await new Promise((resolve) => {
    worker.on('message', () => {
      if (++answered === N) resolve()
      else worker.postMessage({ type: 'call', token: answered, op: 'companyDetail', args: [12345] })
    })
    worker.postMessage({ type: 'call', token: 0, op: 'companyDetail', args: [12345] })
  })
  const perTrip = ((performance.now() - started) / N) * 1000
  const cpu = process.cpuUsage(before)
  const postStarted = performance.now()
  for (let i = 0; i < N; i++) worker.postMessage({ type: 'call', token: i, op: 'noop', args: [i] })
  const perPost = ((performance.now() - postStarted) / N) * 1000
  console.log(`round trip: ${perTrip.toFixed(1)} µs; CPU for ${N} round trips: user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms`)
  console.log(`post to an awake worker, no answer: ${perPost.toFixed(1)} µs`)
  await worker.terminate()
} else {
  parentPort.on('message', (m) => {
    if (m.op !== 'noop') parentPort.postMessage({ type: 'result', token: m.token, ok: true, value: { id: 12345 } })
  })
}
