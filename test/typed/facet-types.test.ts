/**
 * Type tests of typed facets (src/typed/facets.ts), checked by `tsc --noEmit -p .`: facet names
 * are the catalog's facetable fields of the request's dataset, the result has exactly those keys,
 * and an enum facet's values are the enum's. The `it` block runs the same call on the fixture.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { createEngine, typedEngine, type FacetField, type TypedEngine, type TypedFacet } from '../../src/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

describe('facet names and results are typed per dataset', () => {
  it('facetable fields per dataset', () => {
    expectTypeOf<FacetField<'companies'>>().toEqualTypeOf<
      'stage' | 'last_funding_date' | 'country' | 'added_date' | 'est_founding_date'
      | 'industries' | 'business_models' | 'keywords' | 'play_categories' | 'ios_store_categories'
    >()
    expectTypeOf<FacetField<'funding'>>().toEqualTypeOf<'series' | 'rounds_funding_date' | 'country' | 'created_on'>()
    expectTypeOf<FacetField<'investors'>>().toEqualTypeOf<'type' | 'country' | 'est_most_recent_fund_date' | 'most_recent_deal' | 'industries'>()
  })

  let db: TypedEngine
  let close: () => Promise<void>
  beforeAll(async () => {
    const vdb = await createFixtureDatabase()
    db = typedEngine(createEngine({ database: vdb }))
    close = async () => { await db.close(); await vdb.close() }
  })
  afterAll(async () => close?.())

  it('the result has the named facets, typed by field', async () => {
    const r = await db.facets({ dataset: 'companies', filter: { employees: { gte: 5 } } }, ['stage', 'industries'], { limit: 5 })
    if (!r.ok) throw new Error(JSON.stringify(r.issues))
    expectTypeOf(r.value.facets.stage).toEqualTypeOf<TypedFacet<'Unknown' | 'No Known Funding' | 'Pre Series A' | 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'h' | 'i' | 'Late' | 'Exited'>>()
    expectTypeOf(r.value.facets.industries.values[0]!.value).toEqualTypeOf<string>()
    // @ts-expect-error country was not asked for
    void r.value.facets.country
    expect(r.value.facets.stage.values.length).toBe(5)
    expect(Object.keys(r.value.facets)).toEqual(['stage', 'industries'])
    // @ts-expect-error name cannot be faceted
    const refused = await db.facets({ dataset: 'companies' }, ['name'])
    expect(refused.ok).toBe(false)
    // @ts-expect-error series is a fundings field
    void db.facets({ dataset: 'companies' }, ['series'])
  })
})
