/**
 * The inline backend on a SQLite handle (`synchronous`): its operations never wait on the event
 * loop, so it sets no deadline timer per call; the watchdog's interrupt alone keeps the budget.
 * An asynchronous inline backend (PostgreSQL's kind) still races its calls against a timer.
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

/** Every `setTimeout` made while `work` runs, by the delay it asked for. */
async function timersDuring<T>(work: () => Promise<T>): Promise<{ value: T; delays: number[] }> {
  const spy = vi.spyOn(globalThis, 'setTimeout')
  try {
    const value = await work()
    return { value, delays: spy.mock.calls.map((c) => Number(c[1])) }
  } finally {
    spy.mockRestore()
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
      const { value, delays } = await timersDuring(() => engine.count(request))
      expect(value).toEqual({ ok: true, value: expected })
      // The budget's timer would be a 30,000 ms one.
      expect(delays).not.toContain(30_000)
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

  it('an asynchronous one (the default) sets a timer of the budget for the same call', async () => {
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
