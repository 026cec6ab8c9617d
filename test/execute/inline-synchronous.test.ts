/**
 * The inline backend on a SQLite handle (`synchronous`): its operations never wait on the event
 * loop, so it sets no deadline timer per call; the watchdog's interrupt alone keeps the budget, and
 * an abort while a call runs still answers `query_cancelled`. A backend without the flag still
 * races its calls against a timer of their budget.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { createEngine, QueryTimeoutError } from '../../src/engine.js'
import { inlineBackend, type BackendCall } from '../../src/execute/backend.js'
import { createWatchdog, interruptExtension, makeInterruptible } from '../../src/execute/pool/interrupt.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { createOperations } from '../support/test-operations.js'

/** Far more than any test waits for: a statement that only an interrupt ends. */
const FOREVER = 1e13
const budget = (timeoutMs: number): BackendCall => ({ timeoutMs, light: false })

let dir: string
let file: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-inline-sync-'))
  file = join(dir, 'fixture.db')
  const vdb = await createFixtureDatabase({ file })
  await vdb.close()
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Every `setTimeout` made while `work` runs, by the delay it asked for, and how many `setImmediate`. */
async function timersDuring<T>(work: () => Promise<T>): Promise<{ value: T; delays: number[]; immediates: number }> {
  const timeouts = vi.spyOn(globalThis, 'setTimeout')
  const immediates = vi.spyOn(globalThis, 'setImmediate')
  try {
    const value = await work()
    return { value, delays: timeouts.mock.calls.map((c) => Number(c[1])), immediates: immediates.mock.calls.length }
  } finally {
    timeouts.mockRestore()
    immediates.mockRestore()
  }
}

describe('the inline SQLite engine', () => {
  it('sets no deadline timer for a call with a budget, and answers the same', async () => {
    const vdb = openDatabase(file) as SqliteVentureDb
    const engine = createEngine({ database: vdb, timeoutMs: 30_000 })
    try {
      expect(engine.execution).toMatchObject({ kind: 'inline', timeoutMs: 30_000 })
      const request = { dataset: 'companies', filter: { country: 'USA' } }
      const expected = Number(vdb.sqlite.prepare("select count(*) from companies where country = 'USA'").pluck().get())
      expect(expected).toBeGreaterThan(0)
      // The cost statistics are read in the background (turns of the event loop) until then.
      await engine.ready()
      const { value, delays, immediates } = await timersDuring(() => engine.count(request))
      expect(value).toEqual({ ok: true, value: expected })
      // Nothing waits on the event loop: no timer (the budget's would be a 30,000 ms one), no immediate.
      expect(delays).toEqual([])
      expect(immediates).toBe(0)
    } finally {
      await engine.close()
      await vdb.close()
    }
  })

  it('answers query_cancelled when the signal is aborted while the call runs, and the next call normally', async () => {
    const vdb = openDatabase(file) as SqliteVentureDb
    const engine = createEngine({ database: vdb, timeoutMs: 30_000 })
    try {
      const request = { dataset: 'companies', filter: { country: 'USA' } }
      const controller = new AbortController()
      const answer = engine.count(request, { signal: controller.signal })
      // The call has started (its first statement ran); the abort comes from the caller before it settles.
      controller.abort()
      const cancelled = await answer
      expect(cancelled.ok).toBe(false)
      expect(!cancelled.ok && cancelled.issues[0]).toMatchObject({ code: 'query_cancelled' })
      expect((await engine.count(request, { signal: new AbortController().signal })).ok).toBe(true)
    } finally {
      await engine.close()
      await vdb.close()
    }
  })
})

describe.runIf(interruptExtension() !== undefined)('a synchronous inline backend', () => {
  it('still stops a statement at its deadline: the watchdog interrupts it', async () => {
    const vdb = openDatabase(file) as SqliteVentureDb
    const interruptible = makeInterruptible(vdb.sqlite)
    const backend = inlineBackend(createOperations(vdb, DEFAULT_LIMITS), { interruptible, watchdog: createWatchdog(), synchronous: true })
    try {
      const started = performance.now()
      const error = await backend.call('countTo', [FOREVER], budget(200)).then(() => undefined, (e: unknown) => e)
      const ms = performance.now() - started
      expect(error).toBeInstanceOf(QueryTimeoutError)
      expect((error as QueryTimeoutError).issue).toMatchObject({ code: 'query_timeout', expected: 'at most 200 ms' })
      expect(ms).toBeGreaterThanOrEqual(195)
      expect(ms).toBeLessThan(2_000)
      // The connection is free again for the next call.
      expect(await backend.call('countTo', [10], budget(200))).toBe(10)
    } finally {
      await backend.close()
      await vdb.close()
    }
  })
})

describe('an inline backend without the flag', () => {
  it('sets a timer of the budget for each call', async () => {
    const vdb = openDatabase(file) as SqliteVentureDb
    const backend = inlineBackend(createOperations(vdb, DEFAULT_LIMITS))
    try {
      const { value, delays } = await timersDuring(() => backend.call('countTo', [10], budget(200)))
      expect(value).toBe(10)
      expect(delays).toContain(200)
    } finally {
      await backend.close()
      await vdb.close()
    }
  })
})
