/**
 * The prepared-request memo (execute/prepared-memo.ts): least recently used out, bounded by entries
 * and by key bytes, no key for what is not JSON or too large; through the engine, a repeated
 * request reuses its checked query and plan, and an invalid one is answered afresh.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { memoKey, PreparedMemo } from '../../src/execute/prepared-memo.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

describe('PreparedMemo', () => {
  it('drops the least recently used entry past maxEntries; get makes an entry recent', () => {
    const memo = new PreparedMemo<number>({ maxEntries: 2, maxKeyBytes: 1000 })
    memo.set('a', 1)
    memo.set('b', 2)
    expect(memo.get('a')).toBe(1)
    memo.set('c', 3)
    expect(memo.get('b')).toBeUndefined()
    expect(memo.get('a')).toBe(1)
    expect(memo.get('c')).toBe(3)
    expect(memo.size).toBe(2)
  })

  it('drops entries until the keys fit maxKeyBytes', () => {
    const memo = new PreparedMemo<number>({ maxEntries: 100, maxKeyBytes: 10 })
    memo.set('aaaa', 1)
    memo.set('bbbb', 2)
    memo.set('cccc', 3)
    expect(memo.get('aaaa')).toBeUndefined()
    expect(memo.size).toBe(2)
  })

  it('has no key for what JSON cannot spell or for a request over an eighth of the budget', () => {
    expect(memoKey({ n: 1n })).toBeUndefined()
    expect(memoKey(undefined)).toBeUndefined()
    expect(memoKey({ a: 1 })).toBe('{"a":1}')
    expect(memoKey({ a: 'x'.repeat(200) }, { maxEntries: 10, maxKeyBytes: 800 })).toBeUndefined()
  })
})

describe('through the engine', async () => {
  const vdb = await createFixtureDatabase({ companies: 200 })
  const engine = createEngine({ database: vdb, workers: 0 })
  afterAll(() => engine.close())
  const request = { dataset: 'companies', filter: { country: 'USA' }, sort: [{ svc_score: 'desc' }] }

  it('answers a repeated request the same, from the memo', async () => {
    const first = await engine.explain(request)
    const again = await engine.explain(JSON.parse(JSON.stringify(request)))
    expect(first.ok && again.ok).toBe(true)
    expect(again).toEqual(first)
    const count = await engine.count(request)
    const direct = vdb.sqlite.prepare(`select count(*) from companies where country = 'USA'`).pluck().get()
    expect(count).toEqual({ ok: true, value: direct })
  })

  it('answers an invalid request afresh each time, with its issues', async () => {
    const bad = { dataset: 'companies', filter: { contry: 'USA' } }
    const first = await engine.count(bad)
    const again = await engine.count(bad)
    expect(first.ok).toBe(false)
    expect(again).toEqual(first)
    expect(JSON.stringify(first)).toContain('country')
  })
})
