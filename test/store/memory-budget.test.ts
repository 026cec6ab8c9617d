/**
 * The memory budget: half of it is shared out as the data file's mapped size of every connection
 * the engine opens (its own, each worker's and the light worker's), and each of them applies it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { createEngine } from '../../src/engine.js'
import { createWorkerPool } from '../../src/execute/pool/pool.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { DEFAULT_MEMORY_BUDGET_BYTES, planMemory } from '../../src/store/memory-budget.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import type { TestOperations } from '../support/test-operations.js'

const MiB = 1024 * 1024
let dir: string
let file: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-memory-'))
  file = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file })).close()
}, 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('planMemory', () => {
  it('shares half the budget among the connections, in whole pages', () => {
    expect(planMemory(DEFAULT_MEMORY_BUDGET_BYTES, 4)).toEqual({ budgetBytes: 1024 * MiB, connections: 4, mmapBytesPerConnection: 128 * MiB })
    expect(planMemory(100 * MiB, 3).mmapBytesPerConnection % 4096).toBe(0)
    expect(planMemory(100 * MiB, 3).mmapBytesPerConnection * 3).toBeLessThanOrEqual(50 * MiB)
  })

  it('refuses a budget below 64 MiB or not a number, saying what it got', () => {
    expect(() => planMemory(10 * MiB, 1)).toThrow(/at least 67108864 \(64 MiB\), got 10485760/)
    expect(() => planMemory(Number.NaN, 1)).toThrow(/got NaN/)
  })
})

describe('an engine over a file', () => {
  it('maps its share on its own connection and on every worker connection', async () => {
    const engine = createEngine({ database: file, workers: 2, memoryBudget: 64 * MiB })
    try {
      // Its own, the caller's-thread lane (execute/pool/caller-lane.ts), two general workers and the light one.
      const share = Math.floor(32 * MiB / 5 / 4096) * 4096
      expect(engine.execution.memory).toEqual({ budgetBytes: 64 * MiB, connections: 5, mmapBytesPerConnection: share })
      expect((engine.database as SqliteVentureDb).sqlite.pragma('mmap_size', { simple: true })).toBe(share)
    } finally {
      await engine.close()
    }
    // The pool applies what it is given (the engine passes the plan's share: src/engine.ts chooseBackend).
    const pool = createWorkerPool<TestOperations>({
      file, limits: DEFAULT_LIMITS, size: 1, reserve: 0, mmapBytes: 8 * MiB,
      operationsModule: new URL('../support/test-operations.ts', import.meta.url).href,
    })
    try {
      expect(await pool.call('mmapSize', [], { timeoutMs: 0, light: false })).toBe(8 * MiB)
    } finally {
      await pool.close(0)
    }
  })

  it('defaults to 1 GiB, and an open handle keeps its own mapping', async () => {
    const engine = createEngine({ database: file, workers: 1 })
    try {
      expect(engine.execution.memory).toEqual({ budgetBytes: DEFAULT_MEMORY_BUDGET_BYTES, connections: 4, mmapBytesPerConnection: Math.floor(512 * MiB / 4 / 4096) * 4096 })
    } finally {
      await engine.close()
    }
    const vdb = openDatabase(file, { mmapBytes: 2 * MiB })
    const inline = createEngine({ database: vdb, memoryBudget: 64 * MiB })
    expect(inline.execution.memory?.connections).toBe(1)
    expect(vdb.sqlite.pragma('mmap_size', { simple: true })).toBe(2 * MiB)
    await inline.close()
    await vdb.close()
  })

  it('refuses a budget below the minimum at creation', () => {
    expect(() => createEngine({ database: file, memoryBudget: MiB })).toThrow(RangeError)
  })
})
