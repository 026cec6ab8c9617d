/**
 * Type tests of `fields` in the typed API: the records narrow to the picked fields and the primary
 * key (checked by `tsc --noEmit -p .`: each `@ts-expect-error` fails the build when the line below
 * it compiles). The `it` blocks run the same calls on a fixture, so the types are those of the
 * records the engine really returns.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { createEngine, typedEngine, type CompanyRecord, type InvestorRecord, type TypedEngine } from '../../src/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

let db: TypedEngine
beforeAll(async () => { db = typedEngine(createEngine({ database: await createFixtureDatabase({ companies: 120 }) })) })
afterAll(async () => { await db.close() })

describe('typed fields', () => {
  it('query narrows the records to the picked fields and the primary key', async () => {
    const r = await db.query({ dataset: 'companies', filter: { employees: { gte: 1 } }, fields: ['name', 'stage'] })
    if (!r.ok) throw new Error(JSON.stringify(r.issues))
    const first = r.value.results[0]!
    expectTypeOf(first).toEqualTypeOf<Pick<CompanyRecord, 'id' | 'name' | 'stage'>>()
    // @ts-expect-error: `country` was not picked
    void first.country
    expect(Object.keys(first).sort()).toEqual(['id', 'name', 'stage'])
  })

  it('an investor keeps investor_id; without fields the whole record', async () => {
    const r = await db.list({ dataset: 'investor', fields: ['name'] as const, per_page: 2 })
    if (!r.ok) throw new Error(JSON.stringify(r.issues))
    expectTypeOf(r.value.results[0]!).toEqualTypeOf<Pick<InvestorRecord, 'investor_id' | 'name'>>()
    expect(Object.keys(r.value.results[0]!).sort()).toEqual(['investor_id', 'name'])
    const whole = await db.list({ dataset: 'companies', per_page: 1 })
    if (whole.ok) expectTypeOf(whole.value.results[0]!).toEqualTypeOf<CompanyRecord>()
  })

  it('page picks per call; an unknown name does not compile', async () => {
    const stored = await db.store({ dataset: 'companies' })
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const page = await db.page(stored.value.query_id, { page: 1, fields: ['website'] })
    if (!page.ok) throw new Error(JSON.stringify(page.issues))
    expectTypeOf(page.value.results[0]!).toEqualTypeOf<Pick<CompanyRecord, 'id' | 'website'>>()
    // @ts-expect-error: `name` was not picked on this page
    void page.value.results[0]!.name
    // @ts-expect-error: no such field
    void db.query({ dataset: 'companies', fields: ['nmae'] })
  })
})
