/**
 * The derivation that runs after a load (store/materialise.ts) runs while the loader has dropped
 * the secondary indexes (store/indexes.ts). A statement that probes another table once per row
 * then scans that table once per row: loading becomes quadratic. That happened once (the "0 when
 * no round exists" update took 14 minutes at 100,000 companies), so every statement's plan is
 * checked here, with the indexes dropped as a load drops them, for a correlated subquery that scans.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { deferIndexes } from '../../src/store/indexes.js'
import { materialiseSteps } from '../../src/store/materialise.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })

interface PlanRow { readonly id: number; readonly parent: number; readonly detail: string }

/**
 * The plan lines that read a whole table inside a correlated subquery (run once per outer row): a
 * scan, or an automatic index, which SQLite builds again on every run of the subquery.
 */
function scansPerRow(vdb: SqliteVentureDb, statement: string, params: readonly unknown[] = []): string[] {
  const rows = vdb.sqlite.prepare(`explain query plan ${statement}`).all(...params) as PlanRow[]
  const byId = new Map(rows.map((r) => [r.id, r]))
  const insideCorrelated = (row: PlanRow): boolean => {
    for (let p = byId.get(row.parent); p; p = byId.get(p.parent)) if (/^CORRELATED/.test(p.detail)) return true
    return false
  }
  return rows.filter((r) => (/^SCAN /.test(r.detail) || / AUTOMATIC /.test(r.detail)) && insideCorrelated(r)).map((r) => r.detail)
}

async function loadingState(): Promise<SqliteVentureDb> {
  const vdb = await createFixtureDatabase()
  open.push(vdb)
  expect(deferIndexes(vdb.sqlite)).toBeGreaterThan(10)
  // The loader's temporary table of funding slugs, which the first step reads.
  vdb.sqlite.exec('create temp table if not exists pending_funding_slugs (funding_id integer not null, slug text not null)')
  return vdb
}

describe('the derivation after a load, with the indexes dropped', () => {
  test('the check sees a per-row probe (the statement that once made generating quadratic)', async () => {
    const vdb = await loadingState()
    const old = 'update companies set total_funding = 0 where total_funding is null and not exists (select 1 from fundings e where e.company_id = companies.id)'
    expect(scansPerRow(vdb, old)).toEqual([expect.stringMatching(/^SEARCH e USING AUTOMATIC/)])
  })

  test('no statement scans a table once per row, and every statement runs', async () => {
    const vdb = await loadingState()
    const steps = materialiseSteps('sqlite')
    let checked = 0
    let next = steps.next()
    while (!next.done) {
      const s = next.value
      let answer: unknown
      if ('exec' in s) {
        expect({ statement: s.exec, scans: scansPerRow(vdb, s.exec, s.params) }).toEqual({ statement: s.exec, scans: [] })
        vdb.sqlite.prepare(s.exec).run(...(s.params ?? []))
        checked++
      } else if ('value' in s) answer = vdb.sqlite.prepare(s.value).pluck().get()
      next = steps.next(answer)
    }
    expect(checked).toBeGreaterThan(8)
  })
})
