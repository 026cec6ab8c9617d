/**
 * The background reads of a connection (the cost statistics and the facet columns, execute/pipeline.ts)
 * run their statements only while no call is in flight on it, and with its interrupt slot armed
 * by no call (execute/background.ts): a call that leaves the event loop sees no background
 * statement meanwhile, and the interrupt for a timed-out call stops that call's statement, never a
 * background read (the worker is not replaced and its columns are read).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS, resolveLimits } from '../../src/check/limits.js'
import { QueryTimeoutError } from '../../src/engine.js'
import { backgroundGate } from '../../src/execute/background.js'
import { facetColumnState } from '../../src/execute/facet-columns.js'
import { createPipeline } from '../../src/execute/pipeline.js'
import { createInterrupter, interruptExtension, makeInterruptible } from '../../src/execute/pool/interrupt.js'
import { createWorkerPool, type WorkerPool } from '../../src/execute/pool/pool.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, dataVersionSync, openDatabase } from '../../src/store/open.js'
import type { TestOperations } from '../support/test-operations.js'

const OPERATIONS_MODULE = new URL('../support/test-operations.ts', import.meta.url).href
const FIELDS = ['stage', 'country', 'industries', 'business_models', 'keywords', 'play_categories', 'ios_store_categories']
const turns = async (n: number) => { for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve)) }

describe('background reads on one connection', () => {
  it('run no statement while a call is in flight, and run once it ends', async () => {
    const vdb = await createFixtureDatabase({ companies: 300 })
    try {
      const pipeline = createPipeline(vdb, resolveLimits({}))
      await pipeline.backgroundReads()
      bumpDataVersionSync(vdb.sqlite)
      const state = () => facetColumnState(vdb.db, dataVersionSync(vdb.sqlite))
      const reads = state().reads
      const gate = backgroundGate(vdb.db)
      gate.begin()
      let settled = false
      const reading = pipeline.backgroundReads().then(() => { settled = true })
      await turns(50)
      await new Promise((resolve) => setTimeout(resolve, 50))
      // Neither the statistics nor any column were read while the call was in flight.
      expect(settled).toBe(false)
      expect(state().reads).toBe(reads)
      gate.end()
      await reading
      expect(state().reads).toBeGreaterThan(reads)
      expect(state().held.companies).toEqual(['country', 'industries', 'stage'])
    } finally {
      vdb.sqlite.close()
    }
  })

  it.runIf(interruptExtension() !== undefined)('run with the slot disarmed: an interrupt naming the last call matches nothing', async () => {
    const vdb = await createFixtureDatabase({ companies: 300 })
    const interrupter = createInterrupter()!
    try {
      const interruptible = makeInterruptible(vdb.sqlite)!
      const gate = backgroundGate(vdb.db)
      gate.disarm = () => interruptible.arm(0)
      // A call armed the slot with its token and ended.
      interruptible.arm(41)
      gate.begin()
      gate.end()
      expect(interrupter.interrupt(interruptible.slot, 41)).toBe(true)
      await gate.turn()
      expect(interrupter.interrupt(interruptible.slot, 41)).toBe(false)
    } finally {
      interrupter.close()
      vdb.sqlite.close()
    }
  })
})

describe('background reads on a worker', () => {
  let dir: string
  let file: string
  let pool: WorkerPool<TestOperations>
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vql-background-'))
    file = join(dir, 'fixture.db')
    const vdb = await createFixtureDatabase({ file, companies: 2_000 })
    await vdb.close()
    pool = createWorkerPool<TestOperations>({ file, limits: DEFAULT_LIMITS, operationsModule: OPERATIONS_MODULE, size: 1, reserve: 0, graceMs: 200 })
    await pool.whenReady()
  })
  afterAll(async () => {
    await pool?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const heavy = (timeoutMs = 0) => ({ timeoutMs, light: false })
  const bump = async () => {
    const writer = openDatabase(file)
    try {
      bumpDataVersionSync(writer.sqlite)
    } finally {
      await writer.close()
    }
  }

  it('a call waiting on a timer sees no column statement; its interrupt stops its own statement; the columns are read after it', async () => {
    await bump()
    // A facets request at the new version wants these columns: their reads start in the background.
    const asked = await pool.call('facets', [{ dataset: 'companies' }, FIELDS, { limit: 10 }], heavy())
    expect(asked.ok).toBe(true)
    const during = await pool.call('waitThenCount', [200, 0], heavy())
    expect(during).toBe(0)
    // Times out in its statement after waiting: interrupted, and the worker stays.
    await expect(pool.call('waitThenCount', [100, 1e13], heavy(300))).rejects.toBeInstanceOf(QueryTimeoutError)
    expect(pool.stats()).toMatchObject({ replaced: 0 })
    for (let i = 0; i < 100; i++) {
      const { held } = await pool.call('columnState', [], heavy())
      if (FIELDS.every((f) => held.companies?.includes(f))) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect((await pool.call('columnState', [], heavy())).held.companies).toEqual([...FIELDS].sort())
  })
})
