/**
 * The similarity index on PostgreSQL: an update after an import's kind of change recomputes only
 * what it changed, and gives what a full build gives (test/support/similar-update.ts; the same on
 * SQLite in test/records/similar-index.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildSimilarIndex } from '../../src/records/similar-index-build.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { PostgresVentureDb } from '../../src/store/open.js'
import { expectUpdateEqualsFullBuild } from '../support/similar-update.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let target: PostgresVentureDb
let ids: number[]

beforeAll(async () => {
  schema = await testSchema('similar_update')
  const source = await createFixtureDatabase({ companies: 300 })
  ids = source.sqlite.prepare('select id from companies where id in (select company_id from company_keywords) order by id').pluck().all() as number[]
  target = await schema.open()
  await copyToPostgres(source, target)
  await source.close()
}, 120_000)
afterAll(async () => {
  await schema?.drop()
})

describe('the similarity index on PostgreSQL', () => {
  it('updates only what an import changed, and the result is what a full build gives', async () => {
    await expectUpdateEqualsFullBuild(target, ids.slice(20), { jobs: 2 })
  }, 60_000)

  it('serialises builds running at once: the index ends of the weights stored last', async () => {
    const builds = await Promise.all([buildSimilarIndex(target, { reweigh: true }), buildSimilarIndex(target, { reweigh: true })])
    for (const b of builds) expect(b).toMatchObject({ reweighed: true })
    expect(await buildSimilarIndex(target)).toMatchObject({ computed: 0, reweighed: false })
  }, 60_000)
})
