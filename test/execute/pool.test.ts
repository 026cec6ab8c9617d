/**
 * The worker pool (src/execute/pool/): the caller's event loop stays free while a statement runs,
 * budgets and signals stop the statement itself, light lookups pass slow queries, and a worker that
 * dies or hangs is replaced. The statements whose cost the tests control come from
 * test/support/test-operations.ts (PoolOptions.operationsModule); `engine` tests use real queries.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { createEngine, EngineClosedError, QueryCancelledError, QueryTimeoutError } from '../../src/engine.js'
import { inlineBackend, type BackendCall } from '../../src/execute/backend.js'
import { createWatchdog, interruptExtension, makeInterruptible } from '../../src/execute/pool/interrupt.js'
import { createWorkerPool, PIPELINE_DEPTH, type PoolOptions, type WorkerPool } from '../../src/execute/pool/pool.js'
import { createApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase } from '../../src/store/open.js'
import { createOperations, type TestOperations } from '../support/test-operations.js'

const OPERATIONS_MODULE = new URL('../support/test-operations.ts', import.meta.url).href
/** Far more than any test waits for: a statement that only an interrupt ends. */
const FOREVER = 1e13

let dir: string
let file: string
const pools: WorkerPool<TestOperations>[] = []
/** Rows `countTo` counts per millisecond on this machine, measured once. */
let rowsPerMs: number

function pool(options: Partial<PoolOptions> = {}): WorkerPool<TestOperations> {
  const p = createWorkerPool<TestOperations>({ file, limits: DEFAULT_LIMITS, operationsModule: OPERATIONS_MODULE, size: 1, reserve: 0, ...options })
  pools.push(p)
  return p
}

const heavy = (timeoutMs = 0, signal?: AbortSignal): BackendCall => ({ timeoutMs, signal, light: false })
const light = (timeoutMs = 0): BackendCall => ({ timeoutMs, light: true })
/** Bounded but not light (search): pipelined on general workers, never on the reserved one. */
const short = (timeoutMs = 0): BackendCall => ({ timeoutMs, light: false, short: true })

async function timed<T>(work: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now()
  try {
    const value = await work
    return { ms: performance.now() - started, value }
  } catch (error) {
    return { ms: performance.now() - started, error }
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-pool-'))
  file = join(dir, 'fixture.db')
  const vdb = await createFixtureDatabase({ file })
  const calibrate = createOperations(vdb, DEFAULT_LIMITS)
  const started = performance.now()
  calibrate.countTo(3_000_000)
  rowsPerMs = 3_000_000 / (performance.now() - started)
  await vdb.close()
})

afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()))
  rmSync(dir, { recursive: true, force: true })
})

describe('the caller\'s event loop', () => {
  it('stays below 20 ms of delay at p99 while a 2-second statement runs in a worker, and not inline', async () => {
    const p = pool()
    await p.call('companyExists', [1], heavy()) // started and warm

    // A statement that runs until its 2-second budget stops it.
    const delay = monitorEventLoopDelay({ resolution: 1 })
    delay.enable()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const pooled = await timed(p.call('countTo', [FOREVER], heavy(2000)))
    delay.disable()
    expect(pooled.error).toBeInstanceOf(QueryTimeoutError)
    expect(pooled.ms).toBeGreaterThanOrEqual(1990)
    const pooledP99 = delay.percentile(99) / 1e6

    // The same statement on the caller's thread (stopped by the watchdog): the measure shows the stall.
    const vdb = openDatabase(file)
    const interruptible = makeInterruptible(vdb.sqlite)
    const inline = inlineBackend(createOperations(vdb, DEFAULT_LIMITS), { interruptible, watchdog: createWatchdog() })
    const stalled = monitorEventLoopDelay({ resolution: 1 })
    stalled.enable()
    // The monitor samples from the next turn of the loop on: let it start before blocking the loop.
    await new Promise((resolve) => setTimeout(resolve, 20))
    const blocked = await timed(inline.call('countTo', [FOREVER], heavy(2000)))
    await new Promise((resolve) => setTimeout(resolve, 5))
    stalled.disable()
    await inline.close()
    await vdb.close()
    expect(blocked.error).toBeInstanceOf(QueryTimeoutError)

    expect(pooledP99, `pool p99 ${pooledP99.toFixed(1)} ms`).toBeLessThan(20)
    expect(stalled.max / 1e6).toBeGreaterThan(1900)
  })
})

describe('time budgets', () => {
  it('interrupt the statement: the call answers query_timeout at its deadline and the same worker takes the next call', async () => {
    const p = pool()
    await p.call('companyExists', [1], heavy())
    const over = await timed(p.call('countTo', [FOREVER], heavy(200)))
    expect(over.error).toBeInstanceOf(QueryTimeoutError)
    expect((over.error as QueryTimeoutError).issue).toMatchObject({ code: 'query_timeout', path: '', expected: 'at most 200 ms' })
    expect((over.error as QueryTimeoutError).waited).toBe('running')
    expect(over.ms).toBeGreaterThanOrEqual(195)
    expect(over.ms).toBeLessThan(1000)
    // Stopped, not abandoned: the one worker answers the next call at once and was never replaced.
    const next = await timed(p.call('companyExists', [1], heavy()))
    expect(next.value).toBe(true)
    expect(next.ms).toBeLessThan(1000)
    expect(p.stats()).toMatchObject({ started: 1, replaced: 0, timedOut: 1 })
  })

  it('count from the call on a fresh pool: a call whose limit ends while the threads start answers at its deadline, before they are ready', async () => {
    const p = pool()
    const events: string[] = []
    const ready = p.whenReady().then(() => events.push('workers ready'))
    const first = p.call('companyExists', [1], heavy(20)).then(
      () => events.push('answered'),
      (error: unknown) => events.push(error instanceof QueryTimeoutError ? `query_timeout (${error.waited})` : String(error)),
    )
    await Promise.all([ready, first])
    // Starting a thread (a module graph, a connection) takes far longer than 20 ms.
    expect(events).toEqual(['query_timeout (starting)', 'workers ready'])
    // Once ready, the same limit is plenty for the same call.
    expect(await p.call('companyExists', [1], heavy(2_000))).toBe(true)
  })

  it('engine.ready() resolves once the workers have started, and a first call then keeps a short limit', async () => {
    const engine = createEngine({ database: file, workers: 1 })
    try {
      await engine.ready()
      expect(engine.stats().pool).toMatchObject({ kind: 'workers', busy: 0 })
      const r = await engine.count({ dataset: 'companies', filter: {} }, { timeoutMs: 2_000 })
      expect(r.ok).toBe(true)
    } finally {
      await engine.close()
    }
  })

  it.runIf(interruptExtension() !== undefined)('have the interrupt extension on this machine (built by npm install)', () => {
    expect(pool().interruptible).toBe(true)
  })

  it('end the worker when interrupting is off (no extension): answered at the deadline, a new worker takes over', async () => {
    const p = pool({ interrupt: false })
    expect(p.interruptible).toBe(false)
    await p.call('companyExists', [1], heavy())
    const over = await timed(p.call('countTo', [Math.round(rowsPerMs * 1500)], heavy(150)))
    expect(over.error).toBeInstanceOf(QueryTimeoutError)
    expect(over.ms).toBeLessThan(1000)
    expect(await p.call('companyExists', [1], heavy())).toBe(true)
    expect(p.stats()).toMatchObject({ started: 2, replaced: 1 })
  })

  it('end a worker stuck in JavaScript after the grace period', async () => {
    const p = pool({ graceMs: 200 })
    await p.call('companyExists', [1], heavy())
    const over = await timed(p.call('spinJs', [10_000], heavy(100)))
    expect(over.error).toBeInstanceOf(QueryTimeoutError)
    expect(over.ms).toBeLessThan(1000)
    const next = await timed(p.call('companyExists', [1], heavy()))
    expect(next.value).toBe(true)
    expect(next.ms).toBeLessThan(8000) // a fresh worker starts (TypeScript sources under tsx: slow)
    expect(p.stats().replaced).toBe(1)
  })

  it('count queueing: a call that never got a worker fails as queued, without running', async () => {
    const p = pool()
    await p.whenReady()
    const blocker = new AbortController()
    const running = p.call('countTo', [FOREVER], heavy(0, blocker.signal)).catch((e: unknown) => e)
    while (p.stats().busy < 1) await new Promise((r) => setTimeout(r, 10))
    const queued = await timed(p.call('companyExists', [1], heavy(150)))
    expect(queued.error).toBeInstanceOf(QueryTimeoutError)
    expect((queued.error as QueryTimeoutError).waited).toBe('queued')
    expect((queued.error as QueryTimeoutError).issue.got).toBe('still queued at the deadline')
    blocker.abort()
    expect(await running).toBeInstanceOf(QueryCancelledError)
  })
})

describe('cancellation', () => {
  it('an aborted signal stops the statement and answers query_cancelled', async () => {
    const p = pool()
    await p.call('companyExists', [1], heavy())
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const cancelled = await timed(p.call('countTo', [FOREVER], heavy(0, controller.signal)))
    expect(cancelled.error).toBeInstanceOf(QueryCancelledError)
    expect((cancelled.error as QueryCancelledError).issue.code).toBe('query_cancelled')
    expect(cancelled.ms).toBeLessThan(1000)
    expect(await p.call('companyExists', [1], heavy())).toBe(true)
    expect(p.stats()).toMatchObject({ replaced: 0, cancelled: 1 })
  })

  it('an already aborted signal never starts the call', async () => {
    const p = pool()
    await expect(p.call('companyExists', [1], heavy(0, AbortSignal.abort()))).rejects.toBeInstanceOf(QueryCancelledError)
  })

  it('a call aborted while its message is on the way to the worker is skipped there, and the worker is kept', async () => {
    // The abort comes right after the post, before the thread has armed the call: the interrupt
    // finds nothing to stop. The worker used to be terminated and replaced for it (a client closing
    // its connection cost a thread); now it reads the mark and skips the call.
    const p = pool()
    await p.whenReady()
    // About 50 ms of counting: bounded, so that in the rare case where the thread has armed the
    // call a moment before the abort (the interrupt then finds no statement yet and is dropped),
    // the call still answers well within the grace period.
    const bounded = Math.ceil(rowsPerMs * 50)
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController()
      const call = p.call('countTo', [bounded], heavy(0, controller.signal))
      controller.abort()
      await expect(call).rejects.toBeInstanceOf(QueryCancelledError)
      const next = await timed(p.call('companyExists', [1], heavy()))
      expect(next.value).toBe(true)
      expect(next.ms).toBeLessThan(1000)
    }
    expect(p.stats()).toMatchObject({ started: 1, replaced: 0, cancelled: 20 })
  })

  it('a pipelined call aborted before it starts is skipped, not run (the calls behind it do not wait for it)', async () => {
    const p = pool()
    await p.whenReady()
    const first = p.call('spinJs', [150], light())
    const controller = new AbortController()
    const abandoned = p.call('spinJs', [5_000], { ...light(), signal: controller.signal })
    const after = p.call('companyExists', [1], light())
    expect(p.stats()).toMatchObject({ busy: 1, pipelined: 2 })
    controller.abort()
    await expect(abandoned).rejects.toBeInstanceOf(QueryCancelledError)
    // The call ahead of it is answered, not failed with its worker.
    await expect(first).resolves.toBeTypeOf('number')
    // Run, the abandoned call would hold the worker for 5 s.
    const answered = await timed(after)
    expect(answered.value).toBe(true)
    expect(answered.ms).toBeLessThan(1_500)
    expect(p.stats()).toMatchObject({ started: 1, replaced: 0, cancelled: 1 })
  })
})

describe('scheduling', () => {
  it('light lookups use the reserved worker while every general worker runs a slow statement', async () => {
    const p = pool({ size: 1, reserve: 1 })
    await p.whenReady()
    const slow = new AbortController()
    const running = p.call('countTo', [FOREVER], heavy(0, slow.signal)).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 50))
    const lookups = await timed(Promise.all(Array.from({ length: 20 }, (_, i) => p.call('companyExists', [i + 1], light()))))
    expect(lookups.value).toHaveLength(20)
    expect(lookups.ms).toBeLessThan(1000)
    // A heavy call does not take the reserved worker: it waits (and here times out) behind the slow one.
    const second = await timed(p.call('count', [{ dataset: 'companies', filter: {} }], heavy(200)))
    expect((second.error as QueryTimeoutError).waited).toBe('queued')
    slow.abort()
    await running
  })

  it('runs statements on several workers at once', async () => {
    const p = pool({ size: 2 })
    await p.whenReady()
    const stop = new AbortController()
    const both = Promise.all([1, 2].map(() => p.call('countTo', [FOREVER], heavy(0, stop.signal)).catch((e: unknown) => e)))
    await new Promise((r) => setTimeout(r, 100))
    expect(p.stats()).toMatchObject({ busy: 2, queued: 0 })
    stop.abort()
    expect(await both).toEqual([expect.any(QueryCancelledError), expect.any(QueryCancelledError)])
  })
})

describe('pipelining light calls', () => {
  it('posts light calls behind a running light call when no worker is idle, and answers each its own result', async () => {
    const p = pool()
    await p.whenReady()
    const first = p.call('spinJs', [150], light())
    const behind = [1, 2, 999_999].map((id) => p.call('companyExists', [id], light()))
    // At most PIPELINE_DEPTH wait in the worker; the rest wait in the pool's queue.
    expect(p.stats()).toMatchObject({ busy: 1, pipelined: Math.min(3, PIPELINE_DEPTH), queued: 3 - Math.min(3, PIPELINE_DEPTH) })
    expect(await first).toBeGreaterThan(0)
    expect(await Promise.all(behind)).toEqual([true, true, false])
    expect(p.stats()).toMatchObject({ busy: 0, pipelined: 0, queued: 0, started: 1 })
  })

  it('pipelines a short call (search) behind a short one on a general worker, never on the reserved worker', async () => {
    const p = pool({ size: 1, reserve: 1 })
    await p.whenReady()
    const first = p.call('spinJs', [150], short())
    const second = p.call('companyExists', [1], short())
    expect(p.stats()).toMatchObject({ busy: 1, pipelined: 1, queued: 0 })
    // The reserved worker still takes a light call at once.
    const lookup = p.call('companyExists', [2], light())
    expect(p.stats()).toMatchObject({ busy: 2, pipelined: 1, queued: 0 })
    expect(await lookup).toBe(true)
    // Nor is a short call pipelined behind the reserved worker's light call: it waits behind the
    // general worker's calls (150 ms), not the reserved one's (600 ms).
    const order: string[] = []
    const reservedBusy = p.call('spinJs', [600], light()).then(() => order.push('reserved'))
    const third = p.call('companyExists', [3], short()).then((found) => { order.push('third'); return found })
    expect(p.stats().pipelined).toBe(2)
    expect(await Promise.all([first, second, third])).toEqual([expect.any(Number), true, true])
    await reservedBusy
    expect(order).toEqual(['third', 'reserved'])
  })

  it('never pipelines a heavy call, nor a light call behind a heavy one', async () => {
    const p = pool()
    await p.whenReady()
    const stop = new AbortController()
    const slowLight = p.call('spinJs', [150], light())
    const heavyBehind = p.call('companyExists', [1], heavy())
    expect(p.stats()).toMatchObject({ pipelined: 0, queued: 1 })
    expect(await slowLight).toBeGreaterThan(0)
    expect(await heavyBehind).toBe(true)
    const running = p.call('countTo', [FOREVER], heavy(0, stop.signal)).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 20))
    const lightBehind = p.call('companyExists', [1], light())
    expect(p.stats()).toMatchObject({ pipelined: 0, queued: 1 })
    stop.abort()
    expect(await running).toBeInstanceOf(QueryCancelledError)
    expect(await lightBehind).toBe(true)
  })

  it('does not pipeline behind a general worker while an older heavy call waits (no starvation)', async () => {
    const p = pool()
    await p.whenReady()
    const order: string[] = []
    const note = <T>(name: string, work: Promise<T>) => work.then((value) => { order.push(name); return value })
    const first = note('light 0', p.call('spinJs', [150], light()))
    const heavyCall = note('heavy', p.call('companyExists', [1], heavy()))
    const later = [1, 2, 3].map((i) => note(`light ${i}`, p.call('companyExists', [i], light())))
    expect(p.stats()).toMatchObject({ pipelined: 0, queued: 4 })
    await Promise.all([first, heavyCall, ...later])
    expect(order.slice(0, 2)).toEqual(['light 0', 'heavy'])
  })

  it('a pipelined call over its budget answers at its deadline as queued, not after the call before it', async () => {
    const p = pool()
    await p.whenReady()
    const first = p.call('spinJs', [600], light())
    const late = await timed(p.call('companyExists', [1], light(100)))
    expect(late.error).toBeInstanceOf(QueryTimeoutError)
    expect((late.error as QueryTimeoutError).waited).toBe('queued')
    expect(late.ms).toBeLessThan(500)
    expect(await first).toBeGreaterThan(0)
    // The worker ran the abandoned lookup and dropped its answer; the next call gets its own.
    expect(await p.call('companyExists', [2], light())).toBe(true)
  })

  it('calls pipelined behind a call whose worker dies run on its replacement', async () => {
    const p = pool()
    await p.whenReady()
    const dying = p.call('crash', [], light())
    const behind = [1, 999_999].map((id) => p.call('companyExists', [id], light()))
    expect(p.stats().pipelined).toBeGreaterThan(0)
    await expect(dying).rejects.toThrow(/exited/)
    expect(await Promise.all(behind)).toEqual([true, false])
    expect(p.stats()).toMatchObject({ started: 2, replaced: 1 })
  })

  it('calls pipelined behind a call stuck in JavaScript run on the replacement after the grace period', async () => {
    const p = pool({ graceMs: 200 })
    await p.whenReady()
    const stuck = timed(p.call('spinJs', [10_000], light(100)))
    const behind = timed(p.call('companyExists', [1], light()))
    expect((await stuck).error).toBeInstanceOf(QueryTimeoutError)
    const answered = await behind
    expect(answered.value).toBe(true)
    expect(answered.ms).toBeLessThan(8000) // a fresh worker starts (TypeScript sources under tsx: slow)
    expect(p.stats()).toMatchObject({ replaced: 1 })
  })
})

describe('failures', () => {
  it('a worker that dies fails its call and is replaced', async () => {
    const p = pool()
    await p.call('companyExists', [1], heavy())
    await expect(p.call('crash', [], heavy())).rejects.toThrow(/exited/)
    expect(await p.call('companyExists', [1], heavy())).toBe(true)
    expect(p.stats()).toMatchObject({ started: 2, replaced: 1 })
  })

  it('a database that cannot be opened fails the calls with the reason', async () => {
    const p = pool({ file: join(dir, 'missing.db'), readonly: true })
    await expect(p.call('companyExists', [1], heavy())).rejects.toThrow(/unable to open|does not exist|SQLITE_CANTOPEN/i)
  })

  it('close() refuses queued and new calls and lets the running one finish', async () => {
    const p = pool()
    await p.call('companyExists', [1], heavy())
    const short = Math.round(rowsPerMs * 300)
    const running = p.call('countTo', [short], heavy())
    const queued = p.call('companyExists', [1], heavy()).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 20))
    const closing = p.close()
    expect(await queued).toBeInstanceOf(EngineClosedError)
    await expect(p.call('companyExists', [1], heavy())).rejects.toBeInstanceOf(EngineClosedError)
    expect(await running).toBe(short)
    await closing
    expect(p.stats().workers).toBe(0)
  })

  it('close(grace) interrupts what still runs after the grace, without the grace of a silent worker, and returns one promise to every caller', async () => {
    // A long worker grace: a close that waited for it, or for the statements, would not end first.
    const p = pool({ size: 2, graceMs: 60_000 })
    await p.whenReady()
    const running = [p.call('countTo', [FOREVER], heavy()), p.call('countTo', [FOREVER], heavy())].map((c) => c.catch((e: unknown) => e))
    while (p.stats().busy < 2) await new Promise((r) => setTimeout(r, 10))
    const closing = p.close(100)
    expect(p.close(100)).toBe(closing)
    const later = new Promise<'still running'>((r) => setTimeout(() => r('still running'), 20_000))
    expect(await Promise.race([closing.then(() => 'closed' as const), later])).toBe('closed')
    for (const outcome of await Promise.all(running)) expect(outcome).toBeInstanceOf(EngineClosedError)
    expect(p.stats()).toMatchObject({ workers: 0, replaced: 0 })
  })
})

describe('createEngine on a file', () => {
  it('answers exactly as the same engine on the caller\'s thread', async () => {
    const pooled = createEngine({ database: file, workers: 2 })
    const inlineDb = openDatabase(file)
    const inline = createEngine({ database: inlineDb, workers: 0 })
    expect(pooled.execution).toMatchObject({ kind: 'pool', workers: 3 })
    expect(inline.execution).toMatchObject({ kind: 'inline', workers: 0 })
    try {
      const key = await createApiKey(inlineDb, { plan: 'full', quota: 10, period: 'day' })
      if (!key.ok) throw new Error('key')
      const request = { dataset: 'companies', filter: { stage: { in: ['a', 'b'] } }, sort: [{ employees: 'desc' }], per_page: 7 }
      const queried = await pooled.query(request)
      expect(queried).toEqual(await inline.query(request))
      if (!queried.ok) throw new Error('query failed')
      expect(queried.value.results.length).toBe(7)
      const id = queried.value.query_id
      expect(await pooled.page(id, { page: 3, per_page: 7 })).toEqual(await inline.page(id, { page: 3, per_page: 7 }))
      expect(await pooled.list({ dataset: 'fundings', filter: { amount: { gte: 1_000_000 } } })).toEqual(await inline.list({ dataset: 'fundings', filter: { amount: { gte: 1_000_000 } } }))
      expect(await pooled.count({ dataset: 'investors', filter: { portfolio_size: { gte: 2 } } })).toEqual(await inline.count({ dataset: 'investors', filter: { portfolio_size: { gte: 2 } } }))
      expect(await pooled.explain(request)).toEqual(await inline.explain(request))
      expect(await pooled.query({ dataset: 'nope' })).toEqual(await inline.query({ dataset: 'nope' }))
      for (const id of [1, 17, 250]) {
        expect(await pooled.records.companyDetail(id)).toEqual(await inline.records.companyDetail(id))
        expect(await pooled.records.similarCompanies(id)).toEqual(await inline.records.similarCompanies(id))
        expect(await pooled.records.companyStories(id)).toEqual(await inline.records.companyStories(id))
      }
      expect(await pooled.records.companyStories(999_999)).toBeUndefined()
      expect(await pooled.records.investorDetail(3)).toEqual(await inline.records.investorDetail(3))
      expect(await pooled.records.investorPortfolio(3, { page: 1, perPage: 5 })).toEqual(await inline.records.investorPortfolio(3, { page: 1, perPage: 5 }))
      const search = { term: 'a', objectTypes: ['company', 'investor'] as const, limit: 10 }
      expect(await pooled.records.search(search)).toEqual(await inline.records.search(search))
      const now = new Date()
      expect(await pooled.access.authorize(key.value.key, now, false)).toEqual(await inline.access.authorize(key.value.key, now, false))
      expect(await pooled.access.authorize('vql_not-a-key', now, true)).toEqual({ ok: false, reason: 'unknown' })
    } finally {
      await pooled.close()
      await inline.close()
      await inlineDb.close()
    }
  })

  it('an engine call over its budget answers the query_timeout issue instead of throwing', async () => {
    const engine = createEngine({ database: file, workers: 1 })
    try {
      expect(await engine.count({ dataset: 'companies', filter: {} })).toEqual({ ok: true, value: 400 }) // warm
      // 400 distinct first counts on one worker, 100 ms allowed each: the queue outlasts the later ones' budget.
      const results = await Promise.all(Array.from({ length: 400 }, (_, i) =>
        engine.count({ dataset: 'companies', filter: { description: { contains: `x${i}` } } }, { timeoutMs: 100 })))
      const timedOut = results.filter((r) => !r.ok)
      expect(timedOut.length).toBeGreaterThan(0)
      expect(results.some((r) => r.ok)).toBe(true)
      for (const r of timedOut) if (!r.ok) expect(r.issues).toEqual([expect.objectContaining({ code: 'query_timeout', path: '', expected: 'at most 100 ms' })])
      await expect(engine.records.companyDetail(1, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(QueryCancelledError)
      const cancelled = await engine.query({ dataset: 'companies', filter: {} }, { signal: AbortSignal.abort() })
      expect(cancelled.ok ? [] : cancelled.issues.map((i) => i.code)).toEqual(['query_cancelled'])
    } finally {
      await engine.close()
    }
  })
})
