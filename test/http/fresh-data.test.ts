/**
 * Date phrases of GET /companies on generated data (issue 11, item 8), through the fetch handler on
 * both backends. Generated data is dated from the day it is generated, so on a freshly generated
 * database (`generateInto` without `asOf`, as `serve` and `demo` build the demo database) the recent
 * phrases match companies, as they would on live data; the same holds for data generated as of a
 * far day and served on that day. Data dated from a fixed past day (the test fixture) matches none
 * of them years later, which is what the demo database did before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { companyListSchema } from '../../src/http/schemas/listings.js'
import { generateInto } from '../../src/store/generate/build.js'
import { FIXTURE_AS_OF } from '../../src/store/generate/fixture.js'
import { openDatabase } from '../../src/store/open.js'
import { createHarness, type Harness } from './harness.js'

const RECENT = ['last_funding_date=raised in past 3 months', 'est_founding_date=within 1 year', 'last_funding_date=raised+in+past+6+months', 'est_founding_date=within 3 months|within 1 year']

async function total(h: Harness, query: string): Promise<number> {
  return companyListSchema.parse(await h.json(query === '' ? '/companies' : `/companies?${query}`)).meta.total_record_count
}

describe.each([
  // The demo database's own call: no asOf, so the generator's today.
  { name: 'generated today (as the demo database), served today', asOf: undefined, now: () => new Date() },
  { name: 'generated as of 2031-03-15, served that day', asOf: '2031-03-15', now: () => new Date('2031-03-15T10:00:00Z') },
])('$name', ({ asOf, now }) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness({
      database: async () => {
        const vdb = openDatabase(':memory:')
        generateInto(vdb, { companies: 1000, seed: 1, ...(asOf !== undefined ? { asOf } : {}) })
        return vdb
      },
      app: { clock: now },
    })
  })
  afterAll(async () => { await h.close() })

  test.each(RECENT)('%s matches some companies, not all', async (query) => {
    const n = await total(h, query)
    expect(n).toBeGreaterThan(0)
    expect(n).toBeLessThan(await total(h, ''))
  })
})

describe('the fixture stays dated from its fixed day', () => {
  let h: Harness
  beforeAll(async () => { h = await createHarness({ app: { clock: () => new Date() } }) })
  afterAll(async () => { await h.close() })

  test(`data dated ${FIXTURE_AS_OF} matches no recent phrase today (why generated data follows the calendar)`, async () => {
    expect(new Date().toISOString().slice(0, 10) > '2025-01-01').toBe(true)
    for (const query of RECENT) expect(await total(h, query), query).toBe(0)
  })
})
