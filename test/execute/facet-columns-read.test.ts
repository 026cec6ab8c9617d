/**
 * The facet columns (execute/facet-columns.ts) are read in the background, never on a request's
 * path (execute/pipeline.ts, `readColumnsInBackground`): a facets request that finds them missing
 * for its data version (after the connection opens, after a new version, or for a field not asked
 * for before) is counted by the `GROUP BY`s and answers before any column statement runs; the
 * columns are read afterwards, yielding between statements, and later requests are counted over
 * them, with the same answers. `Engine.ready()` reads the preloaded fields inline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveLimits } from '../../src/check/limits.js'
import { createEngine } from '../../src/engine.js'
import { facetColumnState, MAX_DISTINCT, PRELOADED_FACET_FIELDS } from '../../src/execute/facet-columns.js'
import { forgetRememberedFacets } from '../../src/execute/facets.js'
import { createPipeline, type FacetsResult, type Pipeline } from '../../src/execute/pipeline.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, dataVersionSync, type SqliteVentureDb } from '../../src/store/open.js'

const REQUEST = { dataset: 'companies', filter: { country: 'USA', employees: { gte: 5 } } }
const FIELDS = ['stage', 'industries', 'country']

let vdb: SqliteVentureDb
beforeAll(async () => {
  vdb = await createFixtureDatabase({ companies: 300 })
})
afterAll(() => vdb.sqlite.close())

const version = () => dataVersionSync(vdb.sqlite)
const state = () => facetColumnState(vdb.db, version())

async function facets(pipeline: Pipeline, fields = FIELDS, request: object = REQUEST): Promise<FacetsResult> {
  // Facets are remembered per query and version: forgotten, so that every call counts them.
  forgetRememberedFacets(vdb.db)
  const result = await pipeline.facets(request, fields, { limit: 100 })
  if (!result.ok) throw new Error(JSON.stringify(result.issues))
  return result.value
}

/** The facets counted by one `GROUP BY` per field, straight from SQL, in the result's shape. */
function byGroupBy(fields: readonly string[]): Record<string, Record<string, number>> {
  const where = "c.country = 'USA' and c.employees >= 5"
  const out: Record<string, Record<string, number>> = {}
  for (const f of fields) {
    const rows = (f === 'industries'
      ? vdb.sqlite.prepare(`select ci.value as v, count(*) as n from companies c join company_industries ci on ci.company_id = c.id where ${where} group by ci.value`).all()
      : vdb.sqlite.prepare(`select c.${f} as v, count(*) as n from companies c where ${where} and c.${f} is not null group by c.${f}`).all()) as { v: string; n: number }[]
    out[f] = Object.fromEntries(rows.map((r) => [String(r.v), r.n]))
  }
  return out
}

const countsOf = (r: FacetsResult) => Object.fromEntries(Object.entries(r.facets).map(([f, facet]) => [f, Object.fromEntries(facet.values.map((v) => [v.value, v.count]))]))

describe('facet columns are read off the request path', () => {
  it('the first request after open runs no column statement, answers by GROUP BY, and the columns are read after it', async () => {
    const fresh = await createFixtureDatabase({ companies: 300 })
    try {
      const other = createPipeline(fresh, resolveLimits({}))
      const before = facetColumnState(fresh.db, dataVersionSync(fresh.sqlite))
      const first = await other.facets(REQUEST, FIELDS, { limit: 100 })
      const after = facetColumnState(fresh.db, dataVersionSync(fresh.sqlite))
      expect(first.ok).toBe(true)
      expect(after.reads).toBe(before.reads)
      expect(after.held).toEqual({})
      await other.backgroundReads()
      const read = facetColumnState(fresh.db, dataVersionSync(fresh.sqlite))
      expect(read.reads).toBeGreaterThan(after.reads)
      // The fields asked for, those of the filter's conditions and the preloaded ones are held.
      expect(read.held.companies).toEqual(expect.arrayContaining([...FIELDS, 'employees', ...PRELOADED_FACET_FIELDS.companies!]))
    } finally {
      fresh.sqlite.close()
    }
  })

  it('answers equal the GROUP BYs before and after the columns are read, and the read ones are used without a statement', async () => {
    const pipeline = createPipeline(vdb, resolveLimits({}))
    const bySql = await facets(pipeline)
    expect(countsOf(bySql)).toEqual(byGroupBy(FIELDS))
    await pipeline.backgroundReads()
    const reads = state().reads
    expect(state().held.companies).toEqual(expect.arrayContaining(FIELDS))
    const inMemory = await facets(pipeline)
    expect(state().reads).toBe(reads)
    expect(inMemory).toEqual(bySql)
  })

  it('after a new data version the first request runs no column statement, counts the new data, and the columns are read again', async () => {
    const pipeline = createPipeline(vdb, resolveLimits({}))
    await facets(pipeline)
    await pipeline.backgroundReads()
    const old = await facets(pipeline)
    vdb.sqlite.prepare(`insert into companies (id, name, country, stage, employees) values (999999, 'Late Co', 'USA', 'seed', 50)`).run()
    try {
      bumpDataVersionSync(vdb.sqlite)
      const reads = state().reads
      const first = await facets(pipeline)
      expect(state().reads).toBe(reads)
      expect(state().held).toEqual({})
      expect(first.total).toBe(old.total + 1)
      expect(first.facets.stage!.values.find((v) => v.value === 'seed')?.count).toBe((old.facets.stage!.values.find((v) => v.value === 'seed')?.count ?? 0) + 1)
      expect(countsOf(first)).toEqual(byGroupBy(FIELDS))
      await pipeline.backgroundReads()
      expect(state().reads).toBeGreaterThan(reads)
      expect(state().held.companies).toEqual(expect.arrayContaining(FIELDS))
      expect(await facets(pipeline)).toEqual(first)
    } finally {
      vdb.sqlite.prepare('delete from companies where id = 999999').run()
      bumpDataVersionSync(vdb.sqlite)
    }
  })

  it('a field asked for that is not preloaded is answered in SQL, then read in the background', async () => {
    const pipeline = createPipeline(vdb, resolveLimits({}))
    await pipeline.backgroundReads()
    expect(PRELOADED_FACET_FIELDS.companies).not.toContain('business_models')
    expect(state().held.companies ?? []).not.toContain('business_models')
    const reads = state().reads
    const bySql = await facets(pipeline, ['business_models'])
    expect(state().reads).toBe(reads)
    await pipeline.backgroundReads()
    expect(state().held.companies).toContain('business_models')
    expect(await facets(pipeline, ['business_models'])).toEqual(bySql)
  })

  it('two pipelines reading the same connection\'s columns at once keep every column', async () => {
    const fresh = await createFixtureDatabase({ companies: 300 })
    try {
      const a = createPipeline(fresh, resolveLimits({}))
      const b = createPipeline(fresh, resolveLimits({}))
      await Promise.all([a.backgroundReads(), b.backgroundReads(), a.backgroundReads()])
      const v = dataVersionSync(fresh.sqlite)
      expect(facetColumnState(fresh.db, v).held.companies).toEqual([...PRELOADED_FACET_FIELDS.companies!].sort())
      const reads = facetColumnState(fresh.db, v).reads
      const answer = await b.facets({ dataset: 'companies' }, ['stage', 'industries'], { limit: 100 })
      expect(answer.ok).toBe(true)
      expect(facetColumnState(fresh.db, v).reads).toBe(reads)
    } finally {
      fresh.sqlite.close()
    }
  })

  it('engine.ready() reads the preloaded fields inline, and the first request then reads none', async () => {
    const fresh = await createFixtureDatabase({ companies: 300 })
    const engine = createEngine({ database: fresh, workers: 0 })
    try {
      await engine.ready()
      const v = dataVersionSync(fresh.sqlite)
      const ready = facetColumnState(fresh.db, v)
      for (const [dataset, fields] of Object.entries(PRELOADED_FACET_FIELDS)) expect(ready.held[dataset]).toEqual(expect.arrayContaining([...fields]))
      const result = await engine.facets({ dataset: 'companies' }, ['stage', 'country'])
      expect(result.ok).toBe(true)
      expect(facetColumnState(fresh.db, v).reads).toBe(ready.reads)
    } finally {
      await engine.close()
      fresh.sqlite.close()
    }
  })

  it('a field with too many values to hold is not read again at a later data version when asked for again', async () => {
    const fresh = await createFixtureDatabase({ companies: 300 })
    try {
      // More distinct names than a column holds (MAX_DISTINCT).
      fresh.sqlite.prepare(`with recursive n(i) as (select 1 union all select i + 1 from n where i <= ?) insert into companies (id, name) select 1000000 + i, 'Many ' || i from n`).run(MAX_DISTINCT + 1)
      bumpDataVersionSync(fresh.sqlite)
      const pipeline = createPipeline(fresh, resolveLimits({}))
      const st = () => facetColumnState(fresh.db, dataVersionSync(fresh.sqlite))
      const ask = async () => {
        forgetRememberedFacets(fresh.db)
        // A filter on a field wants its column, as a facet on it does.
        const r = await pipeline.facets({ dataset: 'companies', filter: { name: 'Many 7' } }, ['stage'], { limit: 5 })
        expect(r.ok ? r.value.total : r.issues).toBe(1)
      }
      await pipeline.backgroundReads()
      await ask()
      const before = st().reads
      await pipeline.backgroundReads()
      // The name column was tried once, and is not held.
      expect(st().reads).toBe(before + 1)
      expect(st().held.companies).not.toContain('name')
      bumpDataVersionSync(fresh.sqlite)
      await pipeline.backgroundReads()
      const atNewVersion = st().reads
      await ask()
      await pipeline.backgroundReads()
      expect(st().reads).toBe(atNewVersion)
      expect(st().held.companies).toEqual([...PRELOADED_FACET_FIELDS.companies!].sort())
    } finally {
      fresh.sqlite.close()
    }
  })
})
