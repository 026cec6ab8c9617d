/**
 * The inline backend's watchdog (src/execute/pool/interrupt.ts): deadlines in shared memory, watched
 * by a thread that interrupts a statement running past its deadline, never one that was disarmed,
 * and that keeps working when more calls are armed at once than it has entries.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { createWatchdog, makeInterruptible, WATCHDOG_TICK_MS, type Interruptible, type Watchdog } from '../../src/execute/pool/interrupt.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { createOperations } from '../support/test-operations.js'

let dir: string
let vdb: SqliteVentureDb
let interruptible: Interruptible
let watchdog: Watchdog
let countTo: (n: number) => number
let rowsPerMs: number

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-watchdog-'))
  const file = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file })).close()
  vdb = openDatabase(file)
  interruptible = makeInterruptible(vdb.sqlite)!
  expect(interruptible).toBeDefined()
  watchdog = createWatchdog()!
  countTo = createOperations(vdb, DEFAULT_LIMITS).countTo
  const started = performance.now()
  countTo(2_000_000)
  rowsPerMs = 2_000_000 / (performance.now() - started)
})

afterAll(async () => {
  await watchdog.close()
  await vdb.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs a statement of about `ms` milliseconds (unless interrupted): its duration and whether it was stopped. */
function run(ms: number): { ms: number; interrupted: boolean } {
  const started = performance.now()
  try {
    countTo(Math.round(ms * rowsPerMs))
    return { ms: performance.now() - started, interrupted: false }
  } catch (error) {
    expect(String(error)).toMatch(/interrupt/i)
    return { ms: performance.now() - started, interrupted: true }
  }
}

let token = 1

/** A new call armed on the connection and with the watchdog (deadline `ms`), running a long statement. */
function guardedRun(ms: number): { ms: number; interrupted: boolean } {
  const t = token++
  interruptible.arm(t)
  watchdog.arm(interruptible.slot, t, ms)
  try {
    return run(5_000)
  } finally {
    watchdog.disarm(t)
  }
}

describe('the inline watchdog', () => {
  it('interrupts a statement at its deadline, within a few ticks', () => {
    const r = guardedRun(100)
    expect(r.interrupted).toBe(true)
    expect(r.ms).toBeGreaterThanOrEqual(95)
    expect(r.ms).toBeLessThan(100 + 20 * WATCHDOG_TICK_MS + 200)
  })

  it('never interrupts a call after it was disarmed, nor a later call on the same connection', async () => {
    const t = token++
    interruptible.arm(t)
    watchdog.arm(interruptible.slot, t, 20)
    watchdog.disarm(t)
    // The same token still armed on the connection: only the watchdog's entry is gone.
    expect(run(150).interrupted).toBe(false)
    const next = token++
    interruptible.arm(next)
    watchdog.arm(interruptible.slot, next, 10_000)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(run(100).interrupted).toBe(false)
    watchdog.disarm(next)
  })

  it('takes more armed calls than it has entries, and still interrupts once entries are free again', () => {
    const many = Array.from({ length: 300 }, () => token++)
    for (const t of many) watchdog.arm(interruptible.slot, t, 60_000)
    for (const t of many) watchdog.disarm(t)
    expect(guardedRun(50).interrupted).toBe(true)
  })
})
