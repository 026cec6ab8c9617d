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
 * keeps the timers and interrupts the connection when one fires.
 */
export interface Watchdog {
  arm(slot: number, token: number, ms: number): void
  disarm(token: number): void
  close(): Promise<void>
}

/** Plain JavaScript (no TypeScript loader needed): it only keeps timers and calls the extension. */
const WATCHDOG_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.betterSqlite3)
const control = new Database(':memory:')
control.loadExtension(workerData.extension)
const interrupt = control.prepare('select vql_interrupt(?, ?)').pluck()
const timers = new Map()
parentPort.on('message', (m) => {
  if (m.type === 'arm') {
    timers.set(m.token, setTimeout(() => { timers.delete(m.token); interrupt.get(m.slot, m.token) }, m.ms))
  } else if (m.type === 'disarm') {
    clearTimeout(timers.get(m.token))
    timers.delete(m.token)
  }
})
`

export function createWatchdog(extension = interruptExtension()): Watchdog | undefined {
  if (!extension) return undefined
  const require = createRequire(import.meta.url)
  const worker = new Worker(WATCHDOG_SOURCE, { eval: true, workerData: { extension, betterSqlite3: require.resolve('better-sqlite3') } })
  // It must never keep a process alive that has nothing else to do.
  worker.unref()
  return Object.freeze({
    arm: (slot: number, token: number, ms: number) => worker.postMessage({ type: 'arm', slot, token, ms }),
    disarm: (token: number) => worker.postMessage({ type: 'disarm', token }),
    close: async () => void (await worker.terminate()),
  })
}
