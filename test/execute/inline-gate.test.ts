/**
 * The inline backend's gate for heavy operations (used on PostgreSQL): at most `slots` of them run
 * at once, in arrival order; light operations never wait; a call still waiting at its deadline is
 * `query_timeout` ("queued") and never starts; a call that got in has what is left of its budget.
 */
import { describe, expect, it } from 'vitest'
import { inlineBackend, QueryTimeoutError } from '../../src/execute/backend.js'

const NO_BUDGET = { timeoutMs: 0, light: false }

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => { resolve = r })
  return { promise, resolve }
}

describe('inlineBackend heavyLimit', () => {
  it('runs at most `slots` heavy calls at once, in order; light calls pass; a call queued past its deadline never starts', async () => {
    const started: string[] = []
    const release = new Map<string, () => void>()
    const ops = {
      heavy: async (name: string) => {
        started.push(name)
        const d = deferred()
        release.set(name, d.resolve)
        await d.promise
        return name
      },
      light: async (name: string) => { started.push(name); return name },
      other: async (name: string) => { started.push(name); return name },
    }
    const backend = inlineBackend(ops, { heavyLimit: { slots: 2, light: new Set(['light']) } })
    const a = backend.call('heavy', ['a'], NO_BUDGET)
    const b = backend.call('heavy', ['b'], NO_BUDGET)
    const c = backend.call('heavy', ['c'], NO_BUDGET)
    const late = backend.call('heavy', ['late'], { timeoutMs: 30, light: false })
    const d = backend.call('heavy', ['d'], NO_BUDGET)
    await new Promise((r) => setTimeout(r, 5))
    expect(started).toEqual(['a', 'b'])
    // A light call is not behind the heavy ones.
    expect(await backend.call('light', ['x'], { timeoutMs: 0, light: true })).toBe('x')
    // Nor is one called as light under another name (a lookup carrying its key check runs as `authorized`).
    expect(await backend.call('other', ['y'], { timeoutMs: 0, light: true })).toBe('y')
    // `late` waits past its budget: refused as queued, and it never starts.
    const refused = await late.then(() => undefined, (e: unknown) => e)
    expect(refused).toBeInstanceOf(QueryTimeoutError)
    expect((refused as QueryTimeoutError).waited).toBe('queued')
    expect((refused as QueryTimeoutError).issue.code).toBe('query_timeout')
    release.get('a')!()
    expect(await a).toBe('a')
    await new Promise((r) => setTimeout(r, 5))
    expect(started).toEqual(['a', 'b', 'x', 'y', 'c'])
    release.get('b')!()
    release.get('c')!()
    await new Promise((r) => setTimeout(r, 5))
    expect(started).toEqual(['a', 'b', 'x', 'y', 'c', 'd'])
    release.get('d')!()
    expect(await Promise.all([b, c, d])).toEqual(['b', 'c', 'd'])
    expect(started).not.toContain('late')
    await backend.close()
  })

  it('without a limit every call starts at once', async () => {
    let running = 0
    let peak = 0
    const ops = { heavy: async () => { running++; peak = Math.max(peak, running); await new Promise((r) => setTimeout(r, 10)); running-- } }
    const backend = inlineBackend(ops)
    await Promise.all(Array.from({ length: 6 }, () => backend.call('heavy', [], NO_BUDGET)))
    expect(peak).toBe(6)
    const gated = inlineBackend(ops, { heavyLimit: { slots: 3, light: new Set() } })
    peak = 0
    await Promise.all(Array.from({ length: 6 }, () => gated.call('heavy', [], NO_BUDGET)))
    expect(peak).toBe(3)
  })
})
