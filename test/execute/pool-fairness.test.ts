/**
 * Fair scheduling across tenants in the worker pool and in the inline backend's gate (PostgreSQL's):
 * with the workers held by one tenant's calls, another tenant's call runs next; the per-tenant cap;
 * the bounded backlog; the worker-time allowance. Order-based: calls block in their worker until
 * the test releases them (`hold` in test/support/test-operations.ts), and the order they start in is
 * read from a shared log; the allowance's clock is the test's.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { inlineBackend, QueryTimeoutError, type BackendCall } from '../../src/execute/backend.js'
import { TenantBusyError } from '../../src/execute/fair-queue.js'
import { createWorkerPool, type PoolOptions, type WorkerPool } from '../../src/execute/pool/pool.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { HELD_RELEASE_BASE, type TestOperations } from '../support/test-operations.js'

const OPERATIONS_MODULE = new URL('../support/test-operations.ts', import.meta.url).href

let dir: string
let file: string
const pools: WorkerPool<TestOperations>[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-fair-'))
  file = join(dir, 'fixture.db')
  const vdb = await createFixtureDatabase({ file })
  await vdb.close()
}, 120_000)

afterAll(async () => {
  await Promise.all(pools.map((p) => p.close(0)))
  rmSync(dir, { recursive: true, force: true })
})

function pool(options: Partial<PoolOptions>): WorkerPool<TestOperations> {
  const p = createWorkerPool<TestOperations>({ file, limits: DEFAULT_LIMITS, operationsModule: OPERATIONS_MODULE, reserve: 0, ...options })
  pools.push(p)
  return p
}

const heavy = (tenant?: string, timeoutMs = 0): BackendCall => ({ timeoutMs, light: false, ...(tenant === undefined ? {} : { tenant }) })

/** Calls that hold their worker until released, and the order they started in. */
class HeldCalls {
  readonly log = new SharedArrayBuffer(4 * (HELD_RELEASE_BASE + 256))
  readonly cells = new Int32Array(this.log)
  #next = 1
  readonly names = new Map<number, string>()

  call(p: WorkerPool<TestOperations>, name: string, tenant?: string, timeoutMs = 0): Promise<number> {
    const id = this.#next++
    this.names.set(id, name)
    return p.call('hold', [this.log, id], heavy(tenant, timeoutMs))
  }

  /** Names of the calls started so far, in order. */
  started(): string[] {
    return Array.from({ length: Atomics.load(this.cells, 0) }, (_, i) => this.names.get(Atomics.load(this.cells, 1 + i))!)
  }

  /** Waits until `n` calls have started (polls the log: an order, not a duration, is what is checked). */
  async untilStarted(n: number): Promise<string[]> {
    // A start bumps the count before it writes its id: wait for the ids too.
    const logged = (): boolean => Atomics.load(this.cells, 0) >= n && Array.from({ length: n }, (_, i) => Atomics.load(this.cells, 1 + i)).every((id) => id !== 0)
    while (!logged()) await new Promise((r) => setTimeout(r, 5))
    return this.started()
  }

  release(name: string): void {
    const id = [...this.names].find(([, n]) => n === name)![0]
    Atomics.store(this.cells, HELD_RELEASE_BASE + id, 1)
    Atomics.notify(this.cells, HELD_RELEASE_BASE + id)
  }

  releaseAll(): void {
    for (const name of this.names.values()) this.release(name)
  }
}

const refusalOf = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e)

describe('worker pool: fair order across tenants', () => {
  it("with every worker held by one tenant's calls, another tenant's call runs next, before that tenant's backlog", async () => {
    // The cap at the pool's size: tenant A may hold both workers.
    const p = pool({ size: 2, fairness: { tenantConcurrency: 2 } })
    const held = new HeldCalls()
    const a = ['a1', 'a2', 'a3', 'a4'].map((name) => held.call(p, name, 'A'))
    // a1 and a2 go to the two idle workers at once, so either may log its start first.
    const firstTwo = (names: string[]): string[] => [...names.slice(0, 2)].sort().concat(names.slice(2))
    expect(firstTwo(await held.untilStarted(2))).toEqual(['a1', 'a2'])
    const b = held.call(p, 'b1', 'B')
    held.release('a1')
    expect(await a[0]).toBe(1)
    expect(firstTwo(await held.untilStarted(3))).toEqual(['a1', 'a2', 'b1'])
    held.release('a2')
    expect(firstTwo(await held.untilStarted(4))).toEqual(['a1', 'a2', 'b1', 'a3'])
    held.releaseAll()
    await Promise.all([...a, b])
    expect(firstTwo(held.started())).toEqual(['a1', 'a2', 'b1', 'a3', 'a4'])
  })

  it('a tenant runs at most its cap of calls at once (default: half the general workers); the free worker takes another tenant', async () => {
    const p = pool({ size: 2 })
    const held = new HeldCalls()
    const a = ['a1', 'a2', 'a3'].map((name) => held.call(p, name, 'A'))
    expect(await held.untilStarted(1)).toEqual(['a1'])
    const b = held.call(p, 'b1', 'B')
    expect(await held.untilStarted(2)).toEqual(['a1', 'b1'])
    // a2 waits though a worker frees: A is at its cap of 1 while a1 runs.
    held.release('b1')
    await b
    expect(p.stats()).toMatchObject({ busy: 1, queued: 2 })
    held.release('a1')
    expect(await held.untilStarted(3)).toEqual(['a1', 'b1', 'a2'])
    held.releaseAll()
    await Promise.all(a)
  })

  it("refuses a call beyond the tenant's backlog at once (TenantBusyError), and only that tenant's", async () => {
    const p = pool({ size: 1, fairness: { tenantConcurrency: 1, tenantBacklog: 1 } })
    const held = new HeldCalls()
    const a1 = held.call(p, 'a1', 'A')
    await held.untilStarted(1)
    const a2 = held.call(p, 'a2', 'A')
    const refused = await refusalOf(held.call(p, 'a3', 'A'))
    expect(refused).toBeInstanceOf(TenantBusyError)
    expect((refused as TenantBusyError).reason).toBe('backlog')
    expect(p.refusal!('A')).toBeInstanceOf(TenantBusyError)
    expect(p.refusal!('B')).toBeUndefined()
    const b1 = held.call(p, 'b1', 'B')
    held.releaseAll()
    await Promise.all([a1, a2, b1])
    // a3 never ran.
    expect(held.started()).toEqual(['a1', 'b1', 'a2'])
  })

  it('a queued call of a capped tenant still fails unrun at its deadline (query_timeout, queued)', async () => {
    const p = pool({ size: 2, fairness: { tenantConcurrency: 1 } })
    const held = new HeldCalls()
    const a1 = held.call(p, 'a1', 'A')
    await held.untilStarted(1)
    const late = await refusalOf(held.call(p, 'a2', 'A', 50))
    expect(late).toBeInstanceOf(QueryTimeoutError)
    expect((late as QueryTimeoutError).waited).toBe('queued')
    held.releaseAll()
    await a1
    expect(held.started()).toEqual(['a1'])
  })

  it("a tenant whose call's worker was ended keeps its place until the replacement is ready: the worker left goes to another tenant", async () => {
    const p = pool({ size: 2, graceMs: 100, fairness: { tenantConcurrency: 1 } })
    await p.whenReady()
    const held = new HeldCalls()
    // A's call spins in JavaScript past its budget: answered at its deadline, its worker ended after the grace period.
    expect(await refusalOf(p.call('spinJs', [60_000], heavy('A', 50)))).toBeInstanceOf(QueryTimeoutError)
    const a2 = held.call(p, 'a2', 'A')
    while (p.stats().replaced < 1) await new Promise((r) => setTimeout(r, 5))
    // The replacement is starting; the other worker is idle, but A still counts one call running.
    expect(held.started()).toEqual([])
    const b1 = held.call(p, 'b1', 'B')
    expect(await held.untilStarted(1)).toEqual(['b1'])
    await p.whenReady()
    expect(await held.untilStarted(2)).toEqual(['b1', 'a2'])
    held.releaseAll()
    await Promise.all([a2, b1])
  })

  it("refuses a tenant's heavy calls once they held workers for its allowance in the last minute; its light calls and other tenants pass", async () => {
    let now = 0
    const p = pool({ size: 2, reserve: 1, clock: () => now, fairness: { tenantAllowanceMs: 30_000 } })
    const held = new HeldCalls()
    const a1 = held.call(p, 'a1', 'A')
    await held.untilStarted(1)
    // a1 holds its worker for 40 s of the pool's clock.
    now += 40_000
    held.release('a1')
    await a1
    const refused = await refusalOf(held.call(p, 'a2', 'A'))
    expect(refused).toBeInstanceOf(TenantBusyError)
    expect((refused as TenantBusyError).reason).toBe('allowance')
    // 60 s after a1 ended.
    expect((refused as TenantBusyError).retryAfterSeconds).toBe(60)
    expect(await p.call('companyExists', [1], { timeoutMs: 0, light: true, tenant: 'A' })).toBe(true)
    const b1 = held.call(p, 'b1', 'B')
    held.release('b1')
    expect(await b1).toBeGreaterThan(0)
    now += 60_000
    const a3 = held.call(p, 'a3', 'A')
    held.release('a3')
    await a3
    expect(held.started()).toEqual(['a1', 'b1', 'a3'])
  })
})

describe('inline backend (PostgreSQL) gate: fair order across tenants', () => {
  function heldOps() {
    const started: string[] = []
    const release = new Map<string, () => void>()
    const ops = {
      heavy: async (name: string) => {
        started.push(name)
        await new Promise<void>((resolve) => release.set(name, resolve))
        return name
      },
    }
    const until = async (n: number) => {
      while (started.length < n) await new Promise((r) => setTimeout(r, 1))
      return [...started]
    }
    return { ops, started, release, until }
  }

  it("with every slot held by one tenant's calls, another tenant's call runs next", async () => {
    const { ops, started, release, until } = heldOps()
    const backend = inlineBackend(ops, { heavyLimit: { slots: 2, light: new Set(), fairness: { tenantConcurrency: 2 } } })
    const a = ['a1', 'a2', 'a3', 'a4'].map((name) => backend.call('heavy', [name], heavy('A')))
    expect(await until(2)).toEqual(['a1', 'a2'])
    const b = backend.call('heavy', ['b1'], heavy('B'))
    release.get('a1')!()
    expect(await until(3)).toEqual(['a1', 'a2', 'b1'])
    for (const name of ['a2', 'b1', 'a3', 'a4']) {
      while (!release.has(name)) await new Promise((r) => setTimeout(r, 1))
      release.get(name)!()
    }
    await Promise.all([...a, b])
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4'])
  })

  it('caps a tenant, bounds its backlog, and meters its slot time', async () => {
    const { ops, release, until } = heldOps()
    let now = 0
    const backend = inlineBackend(ops, { heavyLimit: { slots: 2, light: new Set(), clock: () => now, fairness: { tenantBacklog: 1, tenantAllowanceMs: 30_000 } } })
    const a1 = backend.call('heavy', ['a1'], heavy('A'))
    const a2 = backend.call('heavy', ['a2'], heavy('A'))
    const refused = await refusalOf(backend.call('heavy', ['a3'], heavy('A')))
    expect((refused as TenantBusyError).reason).toBe('backlog')
    const b1 = backend.call('heavy', ['b1'], heavy('B'))
    // Cap 1 (half of 2 slots): a2 waits, b1 takes the other slot.
    expect(await until(2)).toEqual(['a1', 'b1'])
    now += 40_000
    release.get('a1')!()
    expect(await until(3)).toEqual(['a1', 'b1', 'a2'])
    release.get('a2')!()
    release.get('b1')!()
    await Promise.all([a1, a2, b1])
    const over = await refusalOf(backend.call('heavy', ['a4'], heavy('A')))
    expect((over as TenantBusyError).reason).toBe('allowance')
    // b1 held its slot through the same 40 s: B is over too; a tenant that used nothing is not.
    expect(backend.refusal!('B')?.reason).toBe('allowance')
    expect(backend.refusal!('C')).toBeUndefined()
  })
})
