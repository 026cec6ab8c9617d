/**
 * The scheduler of heavy calls (src/execute/fair-queue.ts): fair order across tenants, the per-tenant
 * cap, the bounded backlog and the worker-time allowance, all by order and a hand-moved clock.
 */
import { describe, expect, it } from 'vitest'
import { ALLOWANCE_WINDOW_MS, ANONYMOUS_TENANT, defaultTenantConcurrency, FairQueue, retryAfterOf, TenantBusyError } from '../../src/execute/fair-queue.js'

function queue(options: Partial<{ cap: number; backlog: number; allowanceMs: number }> = {}) {
  let now = 1_000_000
  const q = new FairQueue<string>({ cap: 100, backlog: 100, allowanceMs: 0, ...options, now: () => now })
  return { q, advance: (ms: number) => { now += ms } }
}

/** Takes calls until none can start, answering their names in order. */
const takeAll = (q: FairQueue<string>): string[] => {
  const taken: string[] = []
  for (let next = q.take(); next; next = q.take()) taken.push(next.item)
  return taken
}

describe('FairQueue order', () => {
  it("serves another tenant's first call before the first tenant's backlog", () => {
    const { q } = queue()
    for (const name of ['a1', 'a2', 'a3', 'a4']) q.push('A', name)
    // Two workers: A's first two start.
    expect([q.take()!.item, q.take()!.item]).toEqual(['a1', 'a2'])
    q.push('B', 'b1')
    // A worker frees: B's first call goes next, ahead of a3 and a4 that arrived before it.
    q.finish('A', 5)
    expect(q.take()!.item).toBe('b1')
    q.finish('A', 5)
    expect(q.take()!.item).toBe('a3')
  })

  it('alternates between tenants with equal calls running (round robin), each in its own arrival order', () => {
    const { q } = queue()
    for (const name of ['a1', 'a2', 'a3']) q.push('A', name)
    for (const name of ['b1', 'b2', 'b3']) q.push('B', name)
    q.push('C', 'c1')
    const order: string[] = []
    // One worker: each call finishes before the next starts.
    for (let next = q.take(); next; next = q.take()) {
      order.push(next.item)
      q.finish(next.tenant, 1)
    }
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'b3'])
  })

  it('calls without a tenant share one anonymous tenant, served fairly with the others', () => {
    const { q } = queue({ cap: 1 })
    for (const name of ['x1', 'x2', 'x3']) q.push(ANONYMOUS_TENANT, name)
    q.push('A', 'a1')
    // The anonymous tenant is not capped: x1 and x2 run at once with a1 between them.
    expect(takeAll(q)).toEqual(['x1', 'a1', 'x2', 'x3'])
  })
})

describe('FairQueue cap and backlog', () => {
  it('runs at most `cap` calls of a tenant; its others wait without holding up other tenants', () => {
    const { q } = queue({ cap: 2 })
    for (const name of ['a1', 'a2', 'a3', 'a4']) q.push('A', name)
    q.push('B', 'b1')
    expect(takeAll(q)).toEqual(['a1', 'b1', 'a2'])
    expect(q.peek()).toBeUndefined()
    expect(q.size).toBe(2)
    q.finish('A', 1)
    expect(takeAll(q)).toEqual(['a3'])
  })

  it('refuses a call beyond cap + backlog at once, and takes one again when a call ends', () => {
    const { q } = queue({ cap: 1, backlog: 2 })
    q.push('A', 'a1')
    expect(q.take()!.item).toBe('a1')
    q.push('A', 'a2')
    q.push('A', 'a3')
    const refused = (() => { try { q.push('A', 'a4') } catch (e) { return e } })()
    expect(refused).toBeInstanceOf(TenantBusyError)
    expect((refused as TenantBusyError).reason).toBe('backlog')
    expect((refused as TenantBusyError).issue.code).toBe('tenant_busy')
    expect(retryAfterOf((refused as TenantBusyError).issue)).toBeGreaterThanOrEqual(1)
    // Another tenant is not affected.
    q.push('B', 'b1')
    q.finish('A', 1)
    q.push('A', 'a4')
    expect(takeAll(q)).toEqual(['b1', 'a2'])
  })

  it('never refuses the anonymous tenant', () => {
    const { q } = queue({ cap: 1, backlog: 0, allowanceMs: 10 })
    for (let i = 0; i < 50; i++) q.push(ANONYMOUS_TENANT, `x${i}`)
    expect(q.size).toBe(50)
  })

  it('the default cap is half the slots, at least one', () => {
    expect([1, 2, 3, 4, 8].map(defaultTenantConcurrency)).toEqual([1, 1, 1, 2, 4])
  })

  it('rejects limits that are not whole numbers, naming the option', () => {
    expect(() => new FairQueue({ cap: 0, backlog: 1, allowanceMs: 0 })).toThrow(/tenantConcurrency must be a whole number, at least 1, got 0/)
    expect(() => new FairQueue({ cap: 1, backlog: 1.5, allowanceMs: 0 })).toThrow(/tenantBacklog/)
    expect(() => new FairQueue({ cap: 1, backlog: 1, allowanceMs: -1 })).toThrow(/tenantAllowanceMs/)
  })
})

describe('FairQueue allowance', () => {
  it('refuses a tenant whose calls held workers for its allowance in the last minute, until enough of it has passed', () => {
    const { q, advance } = queue({ allowanceMs: 30_000 })
    q.push('A', 'a1')
    q.take()
    q.finish('A', 20_000)
    advance(10_000)
    q.push('A', 'a2')
    q.take()
    q.finish('A', 15_000)
    // 35 s used in the last minute: refused, with the seconds until the first 20 s leave the window.
    const refused = q.refusal('A')
    expect(refused).toBeInstanceOf(TenantBusyError)
    expect(refused!.reason).toBe('allowance')
    expect(refused!.retryAfterSeconds).toBe(50)
    expect(() => q.push('A', 'a3')).toThrow(TenantBusyError)
    // Another tenant is not affected; nor the anonymous one.
    expect(q.refusal('B')).toBeUndefined()
    expect(q.refusal(ANONYMOUS_TENANT)).toBeUndefined()
    advance(49_000)
    expect(q.refusal('A')?.retryAfterSeconds).toBe(1)
    advance(1_000)
    expect(q.refusal('A')).toBeUndefined()
    q.push('A', 'a3')
  })

  it('counts only time a call held its worker, not calls that never started', () => {
    const { q } = queue({ allowanceMs: 1_000 })
    for (let i = 0; i < 10; i++) {
      q.push('A', `a${i}`)
      q.take()
      q.finish('A', 0)
    }
    expect(q.refusal('A')).toBeUndefined()
  })

  it('0 or Infinity turns it off', () => {
    for (const allowanceMs of [0, Infinity]) {
      const { q } = queue({ allowanceMs })
      q.push('A', 'a')
      q.take()
      q.finish('A', 10 * ALLOWANCE_WINDOW_MS)
      expect(q.refusal('A')).toBeUndefined()
    }
  })

  it('forgets tenants once they are idle and their minute has passed', () => {
    const { q, advance } = queue({ allowanceMs: 30_000 })
    for (let i = 0; i < 100; i++) {
      q.push(`T${i}`, 'x')
      q.take()
      q.finish(`T${i}`, 10)
    }
    expect(q.tenants).toBe(100)
    advance(ALLOWANCE_WINDOW_MS + 1)
    q.push('fresh', 'y')
    expect(q.tenants).toBe(1)
  })
})
