/**
 * `est_founding_date` with several phrases (issue 11, item 10), through the fetch handler on both
 * backends: joined by `|` (or repeated, or with `[]`) and OR-ed, as clients of the original service
 * send them, against the fixture's rows; an unknown phrase among several is named by its position,
 * with what is accepted and what was sent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { monthsBefore } from '../../src/parse/list-params.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { companyListSchema } from '../../src/http/schemas/listings.js'
import { createHarness, type Harness } from './harness.js'

describe('est_founding_date takes several phrases, OR-ed', () => {
  /** As test/http/companies.test.ts: a few days before the fixture's latest dates. */
  const DATA_NOW = new Date('2024-06-20T08:00:00Z')
  let h: Harness
  beforeAll(async () => { h = await createHarness({ app: { clock: () => DATA_NOW } }) })
  afterAll(async () => { await h.close() })

  /** Company ids founded within any of the windows (months before DATA_NOW), straight from the fixture. */
  const foundedWithin = (...months: number[]): number[] => h.vdb.sqlite.prepare(
    `select id from companies where ${months.map(() => 'est_founding_date >= ?').join(' or ')} order by id`,
  ).pluck().all(...months.map((m) => monthsBefore(DATA_NOW, m))) as number[]

  async function ids(query: string): Promise<number[]> {
    const out: number[] = []
    for (let page = 1; ; page++) {
      const body = companyListSchema.parse(await h.json(`/companies?${query}&per_page=50&page=${page}`))
      out.push(...body.companies.map((c) => Number(c.id)))
      if (page >= body.meta.total_pages) break
    }
    return out.sort((a, b) => a - b)
  }

  test.each([
    ['pipe-joined', 'est_founding_date=within 1 year|within 3 years', [12, 36]],
    ['pipe as %7C, any case, + for spaces', 'est_founding_date=Within+2+Years%7Cwithin+6+months', [24, 6]],
    ['repeated', 'est_founding_date=within 9 months&est_founding_date=within 5 years', [9, 60]],
    ['with []', 'est_founding_date[]=within 2 years&est_founding_date[]=within 10 years', [24, 120]],
    ['three, one of them twice', 'est_founding_date=within 3 months|within 1 year|within 1 year', [3, 12]],
    ['one phrase, as before', 'est_founding_date=within 2 years', [24]],
  ] as const)('%s: the companies of any of the windows', async (_name, query, months) => {
    const expected = foundedWithin(...months)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(400)
    expect(await ids(query)).toEqual(expected)
  })

  test('combined with other parameters, the phrases OR among themselves and AND with the rest', async () => {
    const expected = (h.vdb.sqlite.prepare(`select id from companies where (est_founding_date >= ? or est_founding_date >= ?) and stage in ('a', 'b', 'Pre Series A') order by id`)
      .pluck().all(monthsBefore(DATA_NOW, 24), monthsBefore(DATA_NOW, 60)) as number[])
    expect(expected.length).toBeGreaterThan(0)
    expect(await ids('stage=a|b|Pre Series A&est_founding_date=within 2 years|within 5 years')).toEqual(expected)
  })

  test('an unknown phrase among several: one issue per bad phrase, naming its position, with what is accepted and what was sent', async () => {
    const res = await h.get('/companies?est_founding_date=within 1 year|within 4 years|within a while')
    expect(res.status).toBe(400)
    const body = problemSchema.parse(await res.json())
    expect(body.issues).toHaveLength(2)
    const [second, third] = body.issues!
    expect(second).toMatchObject({ code: 'invalid_value', path: '/est_founding_date', got: '"within 4 years"', expected: expect.stringMatching(/^one of: within 3 months, .*within 10 years$/) })
    expect(second!.message).toMatch(/^Parameter `est_founding_date` phrase 2 of 3, "within 4 years", is not one it knows; it takes one of: within 3 months, .* or several joined by \| \(any of them\)/)
    expect(second!.suggestions).toContain('within 5 years')
    expect(third).toMatchObject({ path: '/est_founding_date', got: '"within a while"' })
    expect(third!.message).toContain('phrase 3 of 3, "within a while"')
  })

  test('sent empty it is absent, as every list parameter is; a list of nothing is an empty list', async () => {
    const empty = await h.get('/companies?est_founding_date=')
    expect(empty.status).toBe(200)
    const all = await h.get('/companies')
    expect(((await empty.json()) as { meta: unknown }).meta).toEqual(((await all.json()) as { meta: unknown }).meta)
    const res = await h.get('/companies?est_founding_date=|')
    expect(res.status).toBe(400)
    expect(problemSchema.parse(await res.json()).issues?.[0]).toMatchObject({ code: 'empty_list', path: '/est_founding_date' })
  })
})
