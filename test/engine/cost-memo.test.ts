/**
 * The cost prediction is kept per checked query and data version (execute/pipeline.ts, `costOf`):
 * a repeated request is predicted from what the pipeline read once, and a change of the data
 * (a new data version, as every import makes) is predicted on the new row counts and selectivities.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, type SqliteVentureDb } from '../../src/store/open.js'

let vdb: SqliteVentureDb
let engine: Engine
beforeEach(async () => {
  vdb = await createFixtureDatabase({ companies: 150 })
  engine = createEngine({ database: vdb })
  await engine.ready()
})
afterEach(async () => {
  await engine.close()
  vdb.sqlite.close()
})

const REQUEST = { dataset: 'companies', filter: { and: [{ country: 'USA' }, { foreign: { dataset: 'investors', filter: { type: 'vc' } } }] } }

async function cost(request: unknown = REQUEST) {
  const listed = await engine.list(request)
  if (!listed.ok) throw new Error(JSON.stringify(listed.issues))
  return listed.value.cost
}

/** Rows changed behind the engine's back, as another process's import would change them. */
function removeCompanies(keep: number): void {
  vdb.sqlite.pragma('foreign_keys = off')
  for (const table of ['investments', 'funding_investors', 'fundings']) {
    const column = table === 'funding_investors' ? undefined : 'company_id'
    if (column) vdb.sqlite.prepare(`delete from ${table} where ${column} > ?`).run(keep)
  }
  vdb.sqlite.prepare('delete from companies where id > ?').run(keep)
}

describe('the cost memo', () => {
  it('answers a repeated request with the same prediction, read once per data version', async () => {
    const first = await cost()
    expect(first.rows).toBe(150)
    removeCompanies(60)
    // Same data version: the statistics read at it still stand (every change of rows bumps it).
    expect(await cost()).toEqual(first)
  })

  it('predicts on the new row counts and selectivities after the data version changes', async () => {
    const before = await cost()
    const usa = await cost({ dataset: 'companies', filter: { country: 'USA' } })
    removeCompanies(60)
    vdb.sqlite.prepare("update companies set country = 'USA'").run()
    bumpDataVersionSync(vdb.sqlite)
    // Read in the background at the new version (meanwhile a request is predicted by the worst case).
    await engine.ready()
    const after = await cost()
    expect(after.rows).toBe(60)
    expect(after.units).toBe(before.units)
    // Every company is in the USA now: the condition no longer narrows the scan its index drives.
    const usaAfter = await cost({ dataset: 'companies', filter: { country: 'USA' } })
    expect(usaAfter.rows).toBe(60)
    expect(usaAfter.ms).toBeGreaterThanOrEqual(usa.ms)
  })
})
