/**
 * @module Stopping a SQLite statement that ran over its time budget, from another thread.
 *
 * better-sqlite3 exposes neither `sqlite3_interrupt()` nor a progress handler, and ending a worker
 * thread does not stop a statement either: the thread only ends once the statement returns to
 * JavaScript. So the package builds a small SQLite extension at install (`native/interrupt.c`,
 * `scripts/build-native.mjs`): every connection that loads it gets a slot in a process-wide table,
 * and any other connection in the process can interrupt it by slot and call token. Without a C
 * compiler the extension is missing and budgets fall back to ending the worker thread (the caller
 * still gets its answer at the deadline; the statement runs on to its end in the background).
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import Database from 'better-sqlite3'
import type BetterSqlite3 from 'better-sqlite3'

const SUFFIX = process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so'

/** The directory of this package (holding package.json), from a module inside src/ or dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'ventureql') return dir
      } catch {
        // an unreadable manifest is not ours; keep looking upwards
      }
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error('ventureql: cannot find the package root (package.json) above ' + fileURLToPath(import.meta.url))
    dir = parent
  }
}

let extensionPath: string | null | undefined

/** The built extension's path, or undefined when it was not built (no C compiler at install). */
export function interruptExtension(): string | undefined {
  if (extensionPath === undefined) {
    const file = join(packageRoot(), 'native', 'build', `vql_interrupt.${SUFFIX}`)
    extensionPath = existsSync(file) ? file : null
  }
  return extensionPath ?? undefined
}

/** A connection that can be interrupted: its slot, and `arm` before each call it runs. */
export interface Interruptible {
  readonly slot: number
  /** Marks the call with this token as the one running on the connection now (tokens are never 0). */
  arm(token: number): void
}

/** Loads the extension into `sqlite`; undefined when it is not available. */
export function makeInterruptible(sqlite: BetterSqlite3.Database, extension = interruptExtension()): Interruptible | undefined {
  if (!extension) return undefined
  sqlite.loadExtension(extension)
  const slot = sqlite.prepare('select vql_slot()').pluck().get() as number
  const arm = sqlite.prepare('select vql_arm(?)').pluck()
  return Object.freeze({ slot, arm: (token: number) => void arm.get(token) })
}

/** Interrupts other connections of this process; used by the pool on the caller's thread. */
export interface Interrupter {
  /** True when the slot was running the call with this token (and is now being stopped). */
  interrupt(slot: number, token: number): boolean
  close(): void
}

export function createInterrupter(extension = interruptExtension()): Interrupter | undefined {
  if (!extension) return undefined
  const control = new Database(':memory:')
  control.loadExtension(extension)
  const statement = control.prepare('select vql_interrupt(?, ?)').pluck()
  return Object.freeze({
    interrupt: (slot: number, token: number) => statement.get(slot, token) === 1,
    close: () => control.close(),
  })
}

/**
 * Deadlines for statements that run on the caller's own thread (the inline backend): that thread
 * is blocked while its statement runs, so the timer has to fire elsewhere. A small worker thread
 * watches the deadlines and interrupts the connection when one passes.
 *
 * The deadlines are in memory shared with that thread, not sent as messages: arming and disarming
 * are a few stores, where two messages per call (each a serialisation, a wake-up of the thread and
 * a turn of its event loop) cost the caller's thread ~0.05 ms, a third of a company detail. The
 * thread sleeps (Atomics.wait) while nothing is armed and is woken by the call that arms the first
 * deadline; while something is armed it looks every `WATCHDOG_TICK_MS`, so a deadline is met
 * within that much.
 */
export interface Watchdog {
  arm(slot: number, token: number, ms: number): void
  disarm(token: number): void
  close(): Promise<void>
}

/** Deadlines watched at once; a call beyond them (that many concurrent calls) is not interrupted, though its caller is still answered at the deadline. */
const WATCHDOG_ENTRIES = 256
/** How often the watchdog looks at the armed deadlines. */
export const WATCHDOG_TICK_MS = 5

/**
 * Plain JavaScript (no TypeScript loader needed). Shared layout: `entries` holds [token, slot,
 * deadline (epoch ms)] per entry as BigInt64 (token 0: free); `control[0]` counts the armed entries
 * (the thread waits on it while it is 0), `control[1]` is 1 once the watchdog should stop. Only the
 * owning thread writes entries, publishing the token last; the watchdog reads the token again after
 * the rest and skips the entry if it changed meanwhile. The extension interrupts only a slot still
 * running that token, so a late interrupt can never stop another call.
 */
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads')
const Database = require(workerData.betterSqlite3)
const control = new Database(':memory:')
control.loadExtension(workerData.extension)
const interrupt = control.prepare('select vql_interrupt(?, ?)').pluck()
const entries = new BigInt64Array(workerData.entries)
const ctl = new Int32Array(workerData.control)
const n = entries.length / 3
for (;;) {
  if (Atomics.load(ctl, 1) === 1) break
  if (Atomics.load(ctl, 0) === 0) { Atomics.wait(ctl, 0, 0); continue }
  const now = BigInt(Date.now())
  for (let i = 0; i < n; i++) {
    const token = Atomics.load(entries, 3 * i)
    if (token === 0n) continue
    const slot = Atomics.load(entries, 3 * i + 1)
    const deadline = Atomics.load(entries, 3 * i + 2)
    if (now >= deadline && Atomics.load(entries, 3 * i) === token) interrupt.get(Number(slot), token)
  }
  Atomics.wait(ctl, 1, 0, workerData.tickMs)
}
`

export function createWatchdog(extension = interruptExtension()): Watchdog | undefined {
  if (!extension) return undefined
  const require = createRequire(import.meta.url)
  const entries = new BigInt64Array(new SharedArrayBuffer(WATCHDOG_ENTRIES * 3 * 8))
  const control = new Int32Array(new SharedArrayBuffer(2 * 4))
  const worker = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { extension, betterSqlite3: require.resolve('better-sqlite3'), entries: entries.buffer, control: control.buffer, tickMs: WATCHDOG_TICK_MS },
  })
  // It must never keep a process alive that has nothing else to do.
  worker.unref()
  /** Entry of each armed token (the caller's thread is the only writer). */
  const armed = new Map<number, number>()
  let searchFrom = 0
  return Object.freeze({
    arm(slot: number, token: number, ms: number) {
      let entry = -1
      for (let k = 0; k < WATCHDOG_ENTRIES; k++) {
        const i = (searchFrom + k) % WATCHDOG_ENTRIES
        if (Atomics.load(entries, 3 * i) === 0n) {
          entry = i
          break
        }
      }
      // More calls at once than entries: this one runs without a deadline of its own; it is not
      // interrupted, and the inline SQLite backend sets no timer either (backend.ts, `synchronous`).
      // The extension interrupts a connection only for its most recently armed token, so of calls
      // interleaved on one connection (each awaiting between statements) only the latest is
      // guarded. A pool worker's calls never interleave: each arrives as a message, read only after
      // the call before has settled (its operations never wait on the event loop, backend.ts).
      if (entry < 0) return
      searchFrom = (entry + 1) % WATCHDOG_ENTRIES
      Atomics.store(entries, 3 * entry + 1, BigInt(slot))
      Atomics.store(entries, 3 * entry + 2, BigInt(Date.now() + Math.max(0, Math.ceil(ms))))
      Atomics.store(entries, 3 * entry, BigInt(token))
      armed.set(token, entry)
      if (Atomics.add(control, 0, 1) === 0) Atomics.notify(control, 0)
    },
    disarm(token: number) {
      const entry = armed.get(token)
      if (entry === undefined) return
      armed.delete(token)
      Atomics.store(entries, 3 * entry, 0n)
      Atomics.sub(control, 0, 1)
    },
    close: async () => {
      Atomics.store(control, 1, 1)
      Atomics.notify(control, 0)
      Atomics.notify(control, 1)
      await worker.terminate()
    },
  })
}
