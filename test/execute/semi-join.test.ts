/**
 * `foreign any` pinned by an identifying field compiles to a semi-join (`key IN (SELECT ...)`)
 * instead of a correlated EXISTS (compile/relations.ts). The same filter with a branch that matches
 * nothing (`pk < 0`) `or`-ed in is not recognised as pinned and stays EXISTS, so comparing the two
 * executes both forms on the fixture: same rows, same order, and the same null-safe complement, for
 * every investor slug, investor id list and company website the fixture has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

let vdb: SqliteVentureDb
let engine: Engine
beforeAll(async () => {
  vdb = await createFixtureDatabase({ companies: 300 })
  engine = createEngine({ database: vdb })
})
afterAll(async () => {
  await engine.close()
  await vdb.close()
})

async function ids(dataset: string, filter: unknown): Promise<unknown[]> {
  const pk = dataset === 'investors' ? 'investor_id' : 'id'
  const out: unknown[] = []
  for (let page = 1; ; page++) {
    const r = await engine.list({ dataset, filter, per_page: 50, page })
    if (!r.ok) throw new Error(JSON.stringify(r.issues))
    out.push(...r.value.results.map((x) => x[pk]))
    if (page >= r.value.meta.total_pages) return out
  }
}

async function sameAsExists(dataset: string, target: string, pinned: Record<string, unknown>) {
  const pk = (ds: string) => (ds === 'investors' ? 'investor_id' : 'id')
  const semi = { foreign: { dataset: target, filter: pinned } }
  const exists = { foreign: { dataset: target, filter: { or: [pinned, { [pk(target)]: { lt: 0 } }] } } }
  const explained = await engine.explain({ dataset, filter: semi })
  if (!explained.ok) throw new Error(JSON.stringify(explained.issues))
  expect(explained.value.sql).toMatch(/ in \(select /)
  expect(explained.value.sql).not.toMatch(/exists/)
  const unpinned = await engine.explain({ dataset, filter: exists })
  if (!unpinned.ok) throw new Error(JSON.stringify(unpinned.issues))
  expect(unpinned.value.sql).toMatch(/exists \(select/)
  const a = await ids(dataset, semi)
  expect(a).toEqual(await ids(dataset, exists))
  const notA = await ids(dataset, { not: semi })
  expect(notA).toEqual(await ids(dataset, { not: exists }))
  const all = vdb.sqlite.prepare(`select count(*) as n from ${dataset}`).get() as { n: number }
  expect(a.length + notA.length).toBe(all.n)
  return a.length
}

describe('semi-join form of foreign any', () => {
  it('companies by investor slug: same rows as EXISTS, for every investor', async () => {
    const slugs = vdb.sqlite.prepare('select svc_slug from investors order by id').pluck().all() as string[]
    expect(slugs.length).toBeGreaterThan(5)
    let nonEmpty = 0
    for (const slug of slugs) if ((await sameAsExists('companies', 'investors', { svc_slug: slug })) > 0) nonEmpty++
    // The comparison means something only if many slugs select some companies.
    expect(nonEmpty).toBeGreaterThan(slugs.length / 2)
  })

  it('fundings by investor ids and slugs (link relation answered from the link rows)', async () => {
    const investorIds = vdb.sqlite.prepare('select id from investors order by id limit 6').pluck().all() as number[]
    expect(await sameAsExists('fundings', 'investors', { investor_id: { in: investorIds.slice(0, 3) } })).toBeGreaterThan(0)
    const slugs = vdb.sqlite.prepare('select svc_slug from investors order by id limit 4').pluck().all() as string[]
    expect(await sameAsExists('fundings', 'investors', { and: [{ svc_slug: { in: slugs } }, { type: 'vc' }] })).toBeGreaterThanOrEqual(0)
  })

  it('fundings by company website (direct relation, three-valued column under not)', async () => {
    const websites = vdb.sqlite.prepare('select website from companies where website is not null order by id limit 20').pluck().all() as string[]
    let matched = 0
    for (const website of websites) matched += await sameAsExists('fundings', 'companies', { website })
    expect(matched).toBeGreaterThan(0)
  })
})
