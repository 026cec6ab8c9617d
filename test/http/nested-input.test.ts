/**
 * A body the guard refuses (nested past maxInputDepth) is still a request like any other 400: the
 * key is checked first (a bad key is 403, not 400) and the request is counted against the quota
 * exactly once. And a deferred key check given to an engine call that the guard refuses is not
 * carried by it: it runs on its own when asked, and counts, as the middleware asks for it when no
 * call carried it (auth.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
})
afterAll(async () => {
  await h.close()
})

const deepBody = `{"dataset":"companies","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`
const post = (body: string, key: string | null) => h.request('/queries', { key, init: { method: 'POST', body, headers: { 'content-type': 'application/json' } } })

describe('a deep body over HTTP', () => {
  it('is authenticated first: no key or a bad key is 403', async () => {
    expect((await post(deepBody, null)).status).toBe(403)
    expect((await post(deepBody, 'vql_not-a-key-AAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(403)
  })

  it('is a 400 limit_exceeded counted once, like any other 400', async () => {
    const { key, record } = await h.newKey(100)
    const deep = await post(deepBody, key)
    expect(deep.status).toBe(400)
    expect(deep.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    const problem = (await deep.json()) as { issues: { code: string; message: string }[] }
    expect(problem.issues).toHaveLength(1)
    expect(problem.issues[0]).toMatchObject({ code: 'limit_exceeded', expected: 'at most 64 levels' })
    expect(deep.headers.get('x-quota-remaining')).toBe('99')
    expect(await h.quotaUsed(record.keyId)).toBe(1)
    const other = await post(JSON.stringify({ dataset: 'nope' }), key)
    expect(other.status).toBe(400)
    expect(other.headers.get('x-quota-remaining')).toBe('98')
    expect(await h.quotaUsed(record.keyId)).toBe(2)
  })

  it('the same body form-encoded (filter as JSON text) gets the same issue', async () => {
    const filter = `{"and":${'['.repeat(20_000)}${']'.repeat(20_000)}}`
    const res = await h.request('/queries', { init: { method: 'POST', body: `dataset=companies&filter=${encodeURIComponent(filter)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } } })
    expect(res.status).toBe(400)
    const problem = (await res.json()) as { issues: { code: string; path: string }[] }
    expect(problem.issues[0]).toMatchObject({ code: 'limit_exceeded', path: `/filter/and${'/0'.repeat(62)}` })
  })
})

describe('a deferred key check and a refused call', () => {
  it('is not carried by the refused call: it runs on its own, and counts', async () => {
    const { key, record } = await h.newKey(100)
    const check = h.engine.access.defer(key, HARNESS_NOW, true)
    const deep = JSON.parse(deepBody) as unknown
    const listed = await h.engine.list(deep, { keyCheck: check })
    expect(listed.ok).toBe(false)
    if (!listed.ok) expect(listed.issues[0]?.code).toBe('limit_exceeded')
    expect(check.carried).toBe(false)
    expect(await h.quotaUsed(record.keyId)).toBe(0)
    const outcome = await check.outcome()
    expect(outcome.ok && outcome.quota.remaining).toBe(99)
    expect(await h.quotaUsed(record.keyId)).toBe(1)
  })
})
