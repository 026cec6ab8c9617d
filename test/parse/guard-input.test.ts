/**
 * `guardInput`: the walk over any input before it is copied to a worker or read by recursive code.
 * Its bounds sit exactly where the limits say, its issues name the limit and the point where it was
 * crossed, it refuses what JSON cannot hold, and the deepest request the language admits passes.
 */
import { describe, expect, test } from 'vitest'
import { DEFAULT_LIMITS, inputBounds, resolveLimits } from '../../src/check/limits.js'
import { guardInput } from '../../src/parse/guard.js'
import { parseQuery } from '../../src/parse/index.js'

const nestArrays = (levels: number, inner: unknown = 1): unknown => {
  let value = inner
  for (let i = 0; i < levels; i++) value = [value]
  return value
}
const issuesOf = (r: ReturnType<typeof guardInput>) => (r.ok ? [] : r.issues.map((i) => [i.code, i.path]))

describe('guardInput', () => {
  test('nesting: exactly maxInputDepth levels pass, one more is limit_exceeded at the level that crossed it', () => {
    const limits = DEFAULT_LIMITS
    expect(limits.maxInputDepth).toBe(64)
    expect(guardInput(nestArrays(64), limits).ok).toBe(true)
    const refused = guardInput({ x: nestArrays(64) }, limits, 'The request')
    expect(issuesOf(refused)).toEqual([['limit_exceeded', `/x${'/0'.repeat(63)}`]])
    if (refused.ok) return
    expect(refused.issues[0]).toMatchObject({
      message: 'The request nests arrays and objects deeper than 64 levels; the limit (maxInputDepth) is 64.',
      expected: 'at most 64 levels', got: 'more than 64',
    })
  })

  test('20,000 levels (the 40 KB body) and 1,000,000 levels are refused after 64, without recursion', () => {
    const body = JSON.parse(`{"dataset":"companies","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`) as unknown
    expect(issuesOf(guardInput(body, DEFAULT_LIMITS))).toEqual([['limit_exceeded', `/x${'/0'.repeat(63)}`]])
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < 1_000_000; i++) deep = { a: deep }
    expect(issuesOf(guardInput(deep, DEFAULT_LIMITS))[0]?.[0]).toBe('limit_exceeded')
  })

  test('the deepest request maxDepth admits passes; it needs 2 x maxDepth + 2 levels', () => {
    let filter: unknown = { employees: { in: [1, 2] } }
    for (let level = 1; level < DEFAULT_LIMITS.maxDepth; level++) filter = level % 2 === 0 ? { and: [filter] } : { foreign: { dataset: 'companies', filter } }
    const request = { dataset: 'companies', filter }
    const levels = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(levels)) : 0)
    expect(levels(request)).toBe(2 * DEFAULT_LIMITS.maxDepth + 2)
    expect(guardInput(request, DEFAULT_LIMITS).ok).toBe(true)
    expect(parseQuery(request).ok).toBe(true)
  })

  test('maxInputDepth grows with a raised maxDepth unless set', () => {
    expect(resolveLimits({ maxDepth: 40 }).maxInputDepth).toBe(2 * 40 + 2 + 38)
    expect(resolveLimits({ maxDepth: 3 }).maxInputDepth).toBe(64)
    expect(resolveLimits({ maxDepth: 40, maxInputDepth: 10 }).maxInputDepth).toBe(10)
  })

  test('values and characters: at most what a body of maxBodyBytes can encode', () => {
    const limits = resolveLimits({ maxBodyBytes: 1000 })
    expect(inputBounds(limits)).toEqual({ maxValues: 500, maxStringChars: 1000 })
    // [0,0,...,0] with 499 zeros is 999 bytes and 500 values; one more zero needs 1,001 bytes.
    const fits = Array.from({ length: 499 }, () => 0)
    expect(JSON.stringify(fits).length).toBe(999)
    expect(guardInput(fits, limits).ok).toBe(true)
    expect(issuesOf(guardInput([...fits, 0], limits))).toEqual([['limit_exceeded', '']])
    expect(issuesOf(guardInput({ a: [...fits] }, limits))).toEqual([['limit_exceeded', '/a']])
    // Strings and keys together: 998 + 2 characters pass, 3 more do not.
    expect(guardInput({ ab: 'x'.repeat(998) }, limits).ok).toBe(true)
    const long = guardInput({ ab: 'x'.repeat(998), cd: 1 }, limits)
    expect(issuesOf(long)).toEqual([['limit_exceeded', '/cd']])
    if (!long.ok) expect(long.issues[0]?.message).toMatch(/more than 1000 characters of strings and keys, more than a body of maxBodyBytes \(1000 bytes\) can hold/)
    // A sparse array of 2^32 - 1 slots is refused by its length, before anything is allocated.
    expect(issuesOf(guardInput({ a: new Array(2 ** 32 - 1) }, DEFAULT_LIMITS))).toEqual([['limit_exceeded', '/a']])
  })

  test('what JSON cannot hold is invalid_type at its path; __proto__ keys are unknown_key', () => {
    class Filter {}
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic['self'] = { back: cyclic }
    const input = {
      f: () => 1, s: Symbol('x'), b: 1n, d: new Date(0), m: new Map(), c: new Filter(), p: new Proxy({}, {}),
      cyclic, ok: [1, 'x', null, true, { fine: undefined }],
      get boom(): unknown { throw new Error('boom') },
    }
    expect(issuesOf(guardInput(input, DEFAULT_LIMITS))).toEqual([
      ['invalid_type', '/f'], ['invalid_type', '/s'], ['invalid_type', '/b'], ['invalid_type', '/d'], ['invalid_type', '/m'],
      ['invalid_type', '/c'], ['invalid_type', '/p'], ['invalid_type', '/cyclic/self/back'], ['invalid_type', '/boom'],
    ])
    expect(issuesOf(guardInput(JSON.parse('{"a":{"__proto__":{"x":1}}}'), DEFAULT_LIMITS))).toEqual([['unknown_key', '/a/__proto__']])
    // The same object twice side by side is no cycle.
    const shared = { x: 1 }
    expect(guardInput({ a: shared, b: [shared] }, DEFAULT_LIMITS).ok).toBe(true)
  })

  test('answers a copy: plain objects and arrays, a getter read once', () => {
    let reads = 0
    const input = { dataset: 'companies', get filter() { reads++; return { stage: 'a' } }, sort: [{ name: 'asc' }] }
    const guarded = guardInput(input, DEFAULT_LIMITS)
    expect(guarded).toEqual({ ok: true, value: { dataset: 'companies', filter: { stage: 'a' }, sort: [{ name: 'asc' }] } })
    expect(reads).toBe(1)
    if (!guarded.ok) return
    expect(Object.getOwnPropertyDescriptor(guarded.value, 'filter')).toHaveProperty('value')
    expect(guarded.value).not.toBe(input)
  })
})
