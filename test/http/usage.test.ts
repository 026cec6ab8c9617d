/**
 * GET /ratelimit/usage (spec 4.16, 2.15): a bare array of integer usage records that agrees with
 * the X-Quota-* headers and with the counter in the database, and that does not count against the
 * quota itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiKeyRecord } from '../../src/store/api-keys.js'
import { usageResponseSchema } from '../../src/http/schemas/usage.js'
import { createHarness, HARNESS_NOW, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness() })
afterAll(async () => { await h.close() })

const NOW_S = Math.floor(HARNESS_NOW.getTime() / 1000)

const newKey = (quota: number, period: string) => h.newKey(quota, { period })
const usedInDb = (record: ApiKeyRecord) => h.quotaUsed(record.keyId)

async function usage(key: string) {
  const res = await h.get('/ratelimit/usage', { key })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = usageResponseSchema.parse(await res.json())
  expect(body).toHaveLength(1)
  return { res, record: body[0]! }
}

describe('GET /ratelimit/usage', () => {
  it('answers a bare array of integers that agree with the X-Quota-* headers', async () => {
    const { key } = await newKey(40, 'hour')
    const { res, record } = await usage(key)
    const hourStart = NOW_S - (NOW_S % 3600)
    expect(record).toEqual({ quota_limit: 40, quota_remaining: 40, quota_reset: hourStart + 3600, quota_period: hourStart })
    expect(res.headers.get('x-quota-limit')).toBe('40')
    expect(res.headers.get('x-quota-remaining')).toBe('40')
    expect(res.headers.get('x-quota-reset')).toBe(String(hourStart + 3600))
  })

  it('does not count: N calls leave remaining unchanged, a counted call decrements it by one', async () => {
    const { key, record } = await newKey(10, 'day')
    for (let i = 0; i < 7; i++) expect((await usage(key)).record.quota_remaining).toBe(10)
    expect(await usedInDb(record)).toBe(0)
    expect((await h.get('/queries/AAAAAAAAAAAAAAAAAAAAAA', { key })).status).toBe(404) // any counted request
    expect(await usedInDb(record)).toBe(1)
    for (let i = 0; i < 3; i++) expect((await usage(key)).record.quota_remaining).toBe(9)
    // With a trailing slash too (it is the same endpoint).
    const slash = await h.get('/ratelimit/usage/', { key })
    expect(slash.status).toBe(200)
    expect(usageResponseSchema.parse(await slash.json())[0]!.quota_remaining).toBe(9)
    expect(await usedInDb(record)).toBe(1)
  })

  it('still answers when the quota is used up (remaining 0), while counted requests get 429', async () => {
    const { key } = await newKey(2, 'day')
    await h.get('/queries/AAAAAAAAAAAAAAAAAAAAAA', { key })
    await h.get('/queries/AAAAAAAAAAAAAAAAAAAAAA', { key })
    expect((await h.get('/queries/AAAAAAAAAAAAAAAAAAAAAA', { key })).status).toBe(429)
    const { res, record } = await usage(key)
    expect(record.quota_remaining).toBe(0)
    expect(res.headers.get('x-quota-remaining')).toBe('0')
  })

  it('shows a calendar-month period from its first second to the next month\'s', async () => {
    const { key } = await newKey(1000, 'month')
    const { record } = await usage(key)
    expect(record.quota_period).toBe(Date.UTC(2026, 5, 1) / 1000)
    expect(record.quota_reset).toBe(Date.UTC(2026, 6, 1) / 1000)
  })

  it('is per key: another key\'s use does not show', async () => {
    const a = await newKey(5, 'day')
    const b = await newKey(5, 'day')
    await h.get('/queries/AAAAAAAAAAAAAAAAAAAAAA', { key: a.key })
    expect((await usage(a.key)).record.quota_remaining).toBe(4)
    expect((await usage(b.key)).record.quota_remaining).toBe(5)
  })

  it('needs a key like every other endpoint (403)', async () => {
    expect((await h.get('/ratelimit/usage', { key: null })).status).toBe(403)
  })

  const hostile = ['?key=x&key=y', '?page=-1', "?quota=' or 1=1", `?x=${'a'.repeat(10_000)}`, '?%E0%A4%A=1', '?a[]=1&a=%00']
  it.each(hostile)('ignores query parameters it does not take (%s) and answers 200', async (qs) => {
    // The key as a Bearer token, which wins over a `key` parameter.
    const res = await h.get(`/ratelimit/usage${qs}`, { bearer: true })
    expect(res.status).toBe(200)
    usageResponseSchema.parse(await res.json())
  })
})
