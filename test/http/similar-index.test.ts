/**
 * GET /companies/:id/similar with the similarity index built on the served database (SQLite, or its
 * PostgreSQL copy in the `http-on-postgres` project): answers of the same form and mostly the same
 * companies as before it was built (LSH finds the candidates; test/records/similar-index.test.ts), an
 * indexed answer is what the endpoint serves while it is of the current data version, and the
 * search answers again once the data version moves.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { similarCompaniesSchema } from '../../src/http/schemas/company.js'
import { buildSimilarIndex } from '../../src/records/similar-index-build.js'
import { similarCompanies } from '../../src/records/similar.js'
import { bumpDataVersion, dataVersion } from '../../src/store/open.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness({ companies: 200 }) })
afterAll(async () => { await h.close() })

const similarOf = async (id: number) => similarCompaniesSchema.parse(await h.json(`/companies/${id}/similar`))

async function plant(id: number, neighbours: string): Promise<void> {
  const version = await dataVersion(h.served)
  await sql`insert into similar_companies (company_id, data_version, neighbours) values (${id}, ${version}, ${neighbours})
    on conflict (company_id) do update set data_version = excluded.data_version, neighbours = excluded.neighbours`.execute(h.served.db)
}

describe('GET /companies/:id/similar with the similarity index', () => {
  const ids = Array.from({ length: 40 }, (_, i) => 1 + 5 * i)

  it('answers in the same form as before the index was built, with most of the same companies', async () => {
    // The served connection's tag totals built first, as the exact search has them.
    await similarCompanies(h.served, 1, { index: false, totalsBuildMs: Number.POSITIVE_INFINITY })
    const before = new Map<number, Awaited<ReturnType<typeof similarOf>>>()
    for (const id of ids) before.set(id, await similarOf(id))
    const summary = await buildSimilarIndex(h.served)
    expect(summary).toMatchObject({ companies: 200, computed: 200, current: 0 })
    let nonEmpty = 0
    let same = 0
    let all = 0
    for (const id of ids) {
      const after = await similarOf(id)
      const earlier = new Map(before.get(id)!.map((r) => [r.id, r]))
      // A company in both answers is the same on the wire but for its probability (relative to each answer's best).
      for (const r of after) {
        if (!earlier.has(r.id)) continue
        same++
        expect({ ...r, probability: 0 }, `company ${id}, ${r.id}`).toStrictEqual({ ...earlier.get(r.id)!, probability: 0 })
      }
      all += earlier.size
      if (after.length > 0) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(30)
    expect(same / all).toBeGreaterThan(0.9)
  })

  it('serves the indexed answer while it is of the current data version, then the search again', async () => {
    await plant(6, JSON.stringify([[8, 0.5], [9, 0.25]]))
    const served = await similarOf(6)
    expect(served.map((r) => [r.id, r.probability])).toEqual([[8, 1], [9, 0.5]])
    const name = h.vdb.sqlite.prepare('select name from companies where id = 8').pluck().get()
    expect(served[0]!.company_name).toBe(name)
    await bumpDataVersion(h.served)
    const searched = await similarOf(6)
    expect(searched.map((r) => r.id)).not.toEqual([8, 9])
    expect(searched.length).toBeGreaterThan(2)
  })
})
