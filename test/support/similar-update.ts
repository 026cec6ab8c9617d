/**
 * @module The update of the similarity index against a build over every company, on either backend:
 * an import's kind of change (tags replaced, a description rewritten, a company added, one
 * deleted), the data version moved, the index updated, then every company recomputed with the same
 * weights; the rows must be the same. Used by test/records/similar-index.test.ts (SQLite) and
 * test/postgres/records.test.ts.
 */
import { expect } from 'vitest'
import { buildSimilarIndex } from '../../src/records/similar-index-build.js'
import { bumpDataVersion, type VentureDb } from '../../src/store/open.js'

type Row = { company_id: number; neighbours: string }
const answers = async (vdb: VentureDb): Promise<Row[]> =>
  ((await vdb.db.selectFrom('similar_companies').select(['company_id', 'neighbours']).orderBy('company_id').execute()) as { company_id: number | string; neighbours: string }[])
    .map((r) => ({ company_id: Number(r.company_id), neighbours: r.neighbours }))

/**
 * Changes `ids` (at least 8 companies with tags), updates the index, and compares it with a full
 * build. `jobs`: the threads of the full build compared with (the updates run in this thread).
 */
export async function expectUpdateEqualsFullBuild(vdb: VentureDb, ids: readonly number[], { jobs = 1 }: { jobs?: number } = {}): Promise<void> {
  const first = await buildSimilarIndex(vdb, { full: true })
  expect(first.computed).toBe(first.companies)
  const before = new Map((await answers(vdb)).map((r) => [r.company_id, r.neighbours]))
  const [retagged, described, deleted, copied] = [ids[1]!, ids[3]!, ids[5]!, ids[7]!]
  const db = vdb.db
  // Tags replaced: the company takes another's keywords and industries.
  for (const table of ['company_keywords', 'company_industries']) {
    await db.deleteFrom(table).where('company_id', '=', retagged).execute()
    const theirs = await db.selectFrom(table).select('value').where('company_id', '=', copied).execute() as { value: string }[]
    if (theirs.length > 0) await db.insertInto(table).values(theirs.map((r) => ({ company_id: retagged, value: r.value }))).execute()
  }
  await db.updateTable('companies').set({ description: 'Payments infrastructure for marketplaces and lending platforms' }).where('id', '=', described).execute()
  // A company deleted, with its tags.
  for (const table of ['company_keywords', 'company_industries', 'company_business_models']) await db.deleteFrom(table).where('company_id', '=', deleted).execute()
  await db.deleteFrom('companies').where('id', '=', deleted).execute()
  // A company added: a copy of another's tags and description.
  const maxId = Number((await db.selectFrom('companies').select((eb) => eb.fn.max('id').as('m')).executeTakeFirstOrThrow() as { m: number | string }).m)
  const added = maxId + 1
  const source = await db.selectFrom('companies').select('description').where('id', '=', copied).executeTakeFirstOrThrow() as { description: string | null }
  await db.insertInto('companies').values({ id: added, name: 'Added Co', description: source.description }).execute()
  for (const table of ['company_keywords', 'company_industries', 'company_business_models']) {
    const theirs = await db.selectFrom(table).select('value').where('company_id', '=', copied).execute() as { value: string }[]
    if (theirs.length > 0) await db.insertInto(table).values(theirs.map((r) => ({ company_id: added, value: r.value }))).execute()
  }
  await bumpDataVersion(vdb)

  const update = await buildSimilarIndex(vdb)
  expect(update.reweighed).toBe(false)
  expect(update.deleted).toBe(1)
  // The changed companies and some others, not every company.
  expect(update.computed).toBeGreaterThanOrEqual(3)
  expect(update.computed).toBeLessThan(update.companies)
  const updated = await answers(vdb)
  expect(updated.map((r) => r.company_id)).not.toContain(deleted)
  expect(updated.map((r) => r.company_id)).toContain(added)
  // The change reached companies it did not touch: not a comparison of the same rows as before.
  const moved = updated.filter((r) => ![retagged, described, added].includes(r.company_id) && before.get(r.company_id) !== r.neighbours)
  expect(moved.length).toBeGreaterThan(0)

  const full = await buildSimilarIndex(vdb, { full: true, jobs })
  expect(full).toMatchObject({ reweighed: false, computed: full.companies, dataVersion: update.dataVersion })
  expect(await answers(vdb)).toEqual(updated)
  // And an update with nothing changed computes nothing.
  await bumpDataVersion(vdb)
  expect(await buildSimilarIndex(vdb)).toMatchObject({ computed: 0, current: full.companies, deleted: 0 })

  // An update stopped during its writes keeps the rows it wrote, and the next one completes it.
  const [retaggedAgain, theirsAgain] = [ids[9]!, ids[11]!]
  await db.deleteFrom('company_keywords').where('company_id', '=', retaggedAgain).execute()
  const keywords = await db.selectFrom('company_keywords').select('value').where('company_id', '=', theirsAgain).execute() as { value: string }[]
  if (keywords.length > 0) await db.insertInto('company_keywords').values(keywords.map((r) => ({ company_id: retaggedAgain, value: r.value }))).execute()
  const version = await bumpDataVersion(vdb)
  const controller = new AbortController()
  let written = 0
  await expect(buildSimilarIndex(vdb, {
    commitEvery: 1,
    signal: controller.signal,
    onProgress: (p) => {
      if (p.phase === 'write') {
        written = p.done
        controller.abort(new Error('stopped while writing'))
      }
    },
  })).rejects.toThrow('stopped while writing')
  expect(written).toBe(1)
  const kept = await vdb.db.selectFrom('similar_companies').select('company_id').where('data_version', '=', version).execute()
  expect(kept).toHaveLength(1)
  const completed = await buildSimilarIndex(vdb)
  expect(completed).toMatchObject({ dataVersion: version, reweighed: false })
  expect(completed.computed).toBeGreaterThanOrEqual(1)
  const resumed = await answers(vdb)
  const again = await buildSimilarIndex(vdb, { full: true })
  expect(again).toMatchObject({ reweighed: false, computed: again.companies, dataVersion: version })
  expect(await answers(vdb)).toEqual(resumed)

  // A tag no build has seen, sorting before every other, given to one company; then taken from it,
  // its only holder. The other tags' draws and the banding must not move with them: an update keeps
  // the answers of the companies it does not recompute.
  const newTagged = ids[13]!
  await db.insertInto('company_keywords').values({ company_id: newTagged, value: '!!! sorts first' }).execute()
  await expectUpdateIsFullBuild(vdb, jobs)
  await db.deleteFrom('company_keywords').where('company_id', '=', newTagged).where('value', '=', '!!! sorts first').execute()
  await expectUpdateIsFullBuild(vdb, jobs)
}

/** Moves the data version, updates the index (with the kept weights), and compares it with a full build. */
async function expectUpdateIsFullBuild(vdb: VentureDb, jobs: number): Promise<void> {
  const version = await bumpDataVersion(vdb)
  const update = await buildSimilarIndex(vdb)
  expect(update).toMatchObject({ dataVersion: version, reweighed: false })
  expect(update.computed).toBeGreaterThanOrEqual(1)
  expect(update.computed).toBeLessThan(update.companies)
  const updated = await answers(vdb)
  const full = await buildSimilarIndex(vdb, { full: true, jobs })
  expect(full).toMatchObject({ reweighed: false, computed: full.companies, dataVersion: version })
  expect(await answers(vdb)).toEqual(updated)
}
