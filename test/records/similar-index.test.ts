/**
 * @module The similarity index (records/similar-index*.ts): built, it answers with the exact scores
 * of the search and most of its answer; it is served only at the data version it was built for and
 * only for calls at the defaults; an update after an import recomputes only what the import
 * changed and gives what a full build gives; builds follow the data version and stop on a signal.
 * Also `partOf`, the in-memory part of a tag's postings that the search uses in place of two
 * statements, against those statements' meaning.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildSimilarIndex } from '../../src/records/similar-index-build.js'
import { decodeNeighbours, similarIndexCoverage } from '../../src/records/similar-index.js'
import { completeTagTotals, keepEveryPosting, partOf, similarCompanies, type SimilarityOptions } from '../../src/records/similar.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, dataVersionSync, openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { expectUpdateEqualsFullBuild } from '../support/similar-update.js'
import { recordSession } from '../../src/records/session.js'
import { currentWeights, loadModelInput } from '../../src/records/similar/load.js'
import { bandingFor, SimilarityModel, tagHash } from '../../src/records/similar/lsh.js'
import { keyOf, TAG_TABLES } from '../../src/records/similar/statements.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const COMPANIES = 300
const ids = Array.from({ length: COMPANIES }, (_, i) => i + 1)
/** What the index holds: the search at the defaults, with the tag totals built. */
const SEARCHED: SimilarityOptions = { index: false, totalsBuildMs: Number.POSITIVE_INFINITY }
/** The exact answer: nothing budgeted (bench/support/similar.ts). */
const EXHAUSTIVE: SimilarityOptions = { ...SEARCHED, postingsBudget: Number.MAX_SAFE_INTEGER, probeBudget: Number.MAX_SAFE_INTEGER, candidateCap: Number.MAX_SAFE_INTEGER }

const rowsOf = (vdb: SqliteVentureDb) =>
  vdb.sqlite.prepare('select company_id, data_version, neighbours from similar_companies order by company_id').all() as { company_id: number; data_version: number; neighbours: string }[]
const plant = (vdb: SqliteVentureDb, id: number, neighbours: string, version = dataVersionSync(vdb.sqlite)) =>
  vdb.sqlite.prepare('insert into similar_companies (company_id, data_version, neighbours) values (?, ?, ?) on conflict (company_id) do update set data_version = excluded.data_version, neighbours = excluded.neighbours')
    .run(id, version, neighbours)

describe('buildSimilarIndex', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: COMPANIES }) })
  afterAll(async () => { await vdb.close() })

  it('computes every company once, and a second build finds nothing to do', async () => {
    const progress: number[] = []
    const first = await buildSimilarIndex(vdb, { onProgress: ({ done, total }) => { progress.push(done); expect(total).toBe(COMPANIES) } })
    expect(first).toMatchObject({ companies: COMPANIES, computed: COMPANIES, current: 0, deleted: 0, restarts: 0, reweighed: true, dataVersion: dataVersionSync(vdb.sqlite) })
    expect(progress.at(-1)).toBe(COMPANIES)
    const rows = rowsOf(vdb)
    expect(rows.map((r) => r.company_id)).toEqual(ids)
    expect(new Set(rows.map((r) => r.data_version))).toEqual(new Set([first.dataVersion]))
    expect(await buildSimilarIndex(vdb)).toMatchObject({ companies: COMPANIES, computed: 0, current: COMPANIES, restarts: 0, reweighed: false })
  })

  it('answers with the exact scores of the search, finding most of its answer, at every limit up to 20', async () => {
    let nonEmpty = 0
    let found = 0
    let expected = 0
    for (const id of ids) {
      const searched = await similarCompanies(vdb, id, EXHAUSTIVE)
      const indexed = await similarCompanies(vdb, id)
      const scores = new Map(searched.map((r) => [r.id, r.score]))
      for (const r of indexed) {
        // The same score where both hold a company (summed in another order: to the last bits).
        if (scores.has(r.id)) expect(r.score, `company ${id}, ${r.id}`).toBeCloseTo(scores.get(r.id)!, 12)
        expect(r.id).not.toBe(id)
      }
      // Best first, equal scores by id, as the search orders them.
      expect(indexed.map((r) => r.id)).toEqual([...indexed].sort((a, b) => b.score - a.score || a.id - b.id).map((r) => r.id))
      found += indexed.filter((r) => scores.has(r.id)).length
      expected += searched.length
      for (const limit of [1, 5, 19]) expect(await similarCompanies(vdb, id, { limit }), `company ${id}, limit ${limit}`).toStrictEqual(indexed.slice(0, limit).map((r, i) => (i === 0 ? { ...r, probability: 1 } : { ...r, probability: expect.any(Number) })))
      if (indexed.length > 0) nonEmpty++
    }
    // Not a comparison of empty lists, and LSH finds most of the exhaustive answer.
    expect(nonEmpty).toBeGreaterThan(250)
    expect(found / expected).toBeGreaterThan(0.9)
  })

  it('is what answers: a row planted at the current version is served, with the records read now', async () => {
    const id = 17
    const saved = rowsOf(vdb).find((r) => r.company_id === id)!
    try {
      plant(vdb, id, JSON.stringify([[42, 0.5], [7, 0.25], [999_999, 0.2]]))
      const served = await similarCompanies(vdb, id)
      // 999,999 has no record: left out, as the search leaves out tags of a deleted company.
      expect(served.map((r) => [r.id, r.score, r.probability])).toEqual([[42, 0.5, 1], [7, 0.25, 0.5]])
      expect(served[0]!.name).toBe(vdb.sqlite.prepare('select name from companies where id = 42').pluck().get())
      expect((await similarCompanies(vdb, id, { limit: 1 })).map((r) => r.id)).toEqual([42])
      // Not served: the search asked for, a budget or ranking set, more than the index holds.
      for (const options of [{ index: false }, { postingsBudget: 50_000 }, { candidateCap: 200 }, { ranking: 'jaccard' as const }, { probe: 'bitmap' as const }, { totalsBuildMs: 250 }, { limit: 21 }]) {
        expect((await similarCompanies(vdb, id, options)).slice(0, 2).map((r) => r.id), JSON.stringify(options)).not.toEqual([42, 7])
      }
      // A row that is not an answer is not served either.
      for (const text of ['[[42, 0.5], [42, 0.4]]', '[[17, 0.5]]', '[[42, 1.5]]', '[[7, 0.25], [42, 0.5]]', 'not json']) {
        plant(vdb, id, text)
        expect((await similarCompanies(vdb, id)).map((r) => r.id), text).not.toEqual([42, 7])
        expect(decodeNeighbours(text, id), text).toBeUndefined()
      }
    } finally {
      plant(vdb, id, saved.neighbours, saved.data_version)
    }
  })

  it('is not served once the data version moves; the next build only takes the new version when nothing changed', async () => {
    const id = 17
    const before = rowsOf(vdb)
    const version = bumpDataVersionSync(vdb.sqlite)
    const searched = await similarCompanies(vdb, id, SEARCHED)
    expect(await similarCompanies(vdb, id)).toStrictEqual(searched)
    expect(await buildSimilarIndex(vdb)).toMatchObject({ dataVersion: version, computed: 0, current: COMPANIES })
    expect(rowsOf(vdb)).toEqual(before.map((r) => ({ ...r, data_version: version })))
    expect(await similarIndexCoverage(vdb)).toBe('current')
  })

  it('updates only what an import changed, and the result is what a full build gives (SQLite)', async () => {
    await expectUpdateEqualsFullBuild(vdb, ids.slice(20))
  })

  it('gives the same rows with its answers computed in worker threads, and an update in this thread equals a full build in threads', async () => {
    await buildSimilarIndex(vdb, { full: true })
    const alone = rowsOf(vdb)
    vdb.sqlite.exec('delete from similar_companies')
    const threaded = await buildSimilarIndex(vdb, { full: true, jobs: 3 })
    expect(threaded).toMatchObject({ computed: COMPANIES, reweighed: false })
    expect(rowsOf(vdb)).toEqual(alone)
    await expectUpdateEqualsFullBuild(vdb, ids.slice(40), { jobs: 2 })
  }, 60_000)

  it('takes new weights when asked, or when the companies have moved by more than a tenth, and then recomputes every company', async () => {
    expect(await buildSimilarIndex(vdb, { reweigh: true })).toMatchObject({ reweighed: true, computed: COMPANIES })
    vdb.sqlite.exec(`insert into companies (id, name) select id + 10000, name from companies where id <= ${COMPANIES / 5}`)
    bumpDataVersionSync(vdb.sqlite)
    const moved = await buildSimilarIndex(vdb)
    expect(moved).toMatchObject({ reweighed: true, computed: moved.companies })
    vdb.sqlite.exec('delete from companies where id > 10000')
    bumpDataVersionSync(vdb.sqlite)
  })

  it('keeps the banding taken with the weights until new weights are taken', async () => {
    const taken = await buildSimilarIndex(vdb, { reweigh: true })
    const state = () => JSON.parse((vdb.sqlite.prepare("select value from similar_companies_state where name = 'weights'").get() as { value: string }).value) as { bands: number; rows: number }
    expect(state()).toMatchObject(bandingFor(taken.sets))
    // Another banding under the same weights: builds with those weights use it, not the one for the sets now.
    const other = { bands: 7, rows: 2 }
    vdb.sqlite.prepare("update similar_companies_state set value = ? where name = 'weights'").run(JSON.stringify({ ...state(), ...other }))
    const s = recordSession(vdb)
    const { input } = await loadModelInput(s, await currentWeights(s), 'test')
    const kept = await buildSimilarIndex(vdb, { full: true })
    expect(kept).toMatchObject({ reweighed: false, buckets: new SimilarityModel(input, other).buckets })
    expect(kept.buckets).not.toBe(taken.buckets)
    expect(state()).toMatchObject(other)
    expect(await buildSimilarIndex(vdb, { reweigh: true })).toMatchObject({ reweighed: true, buckets: taken.buckets })
    expect(state()).toMatchObject(bandingFor(taken.sets))
  })

  it('starts over when another build stores other weights meanwhile, whether computing or writing', async () => {
    await buildSimilarIndex(vdb, { reweigh: true })
    // What another build's first transaction does: other weights, under another epoch.
    const otherWeights = () => {
      const row = vdb.sqlite.prepare("select value from similar_companies_state where name = 'weights'").get() as { value: string }
      vdb.sqlite.prepare("update similar_companies_state set value = ? where name = 'weights'").run(JSON.stringify({ ...JSON.parse(row.value), epoch: `other ${Math.random()}` }))
    }
    for (const phase of ['compute', 'write'] as const) {
      let done = false
      const summary = await buildSimilarIndex(vdb, {
        reweigh: true,
        commitEvery: 50,
        onProgress: (p) => {
          if (p.phase === phase && !done) { done = true; otherWeights() }
        },
      })
      expect(summary, phase).toMatchObject({ restarts: 1, reweighed: true, computed: COMPANIES })
      // Every row is of the weights stored last: an update finds nothing to do.
      expect(await buildSimilarIndex(vdb), phase).toMatchObject({ computed: 0, reweighed: false })
    }
  })

  it('starts over at the new version when the data moves during the build, and writes nothing when stopped', async () => {
    bumpDataVersionSync(vdb.sqlite)
    let bumped = false
    const summary = await buildSimilarIndex(vdb, {
      full: true,
      onProgress: () => {
        if (!bumped) { bumped = true; bumpDataVersionSync(vdb.sqlite) }
      },
    })
    const version = dataVersionSync(vdb.sqlite)
    expect(summary).toMatchObject({ restarts: 1, dataVersion: version, computed: summary.companies, current: 0 })
    expect(new Set(rowsOf(vdb).map((r) => r.data_version))).toEqual(new Set([version]))

    bumpDataVersionSync(vdb.sqlite)
    const controller = new AbortController()
    await expect(buildSimilarIndex(vdb, { full: true, onProgress: () => controller.abort(new Error('enough')), signal: controller.signal })).rejects.toThrow('enough')
    expect(new Set(rowsOf(vdb).map((r) => r.data_version))).toEqual(new Set([version]))
    expect(await similarIndexCoverage(vdb)).toBe('none')
  })

  it('refuses a batch size that is not one, and a database open read-only', async () => {
    for (const batchSize of [0, 5_001, 1.5]) {
      await expect(buildSimilarIndex(vdb, { batchSize }), String(batchSize)).rejects.toThrow(`batchSize must be a whole number from 1 to 5000 (got ${batchSize})`)
    }
    const dir = mkdtempSync(join(tmpdir(), 'vq-similar-index-'))
    try {
      const file = join(dir, 'fixture.db')
      await (await createFixtureDatabase({ companies: 20, file })).close()
      const readonly = openDatabase(file, { readonly: true })
      try {
        await expect(buildSimilarIndex(readonly)).rejects.toThrow(/read-only/)
      } finally {
        await readonly.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('loadModelInput (similar/load.ts)', () => {
  it('reads every company a page at a time by id, whatever the ids (sparse, negative)', async () => {
    const vdb = await createFixtureDatabase({ companies: 50 })
    try {
      const s = recordSession(vdb)
      const weights = await currentWeights(s)
      const before = await loadModelInput(s, weights, 'test')
      const tagsOf = (input: typeof before.input, c: number) => Array.from(input.tags.subarray(input.tagStart[c]!, input.tagStart[c + 1]!))
      // Companies 1, 2 and 3 take ids far apart, with their tags: -5, 2^40 + 3 and 10^12 (below 2^40).
      const moves: [number, number][] = [[1, -5], [2, 2 ** 40 + 3], [3, 1e12]]
      vdb.sqlite.pragma('foreign_keys = OFF')
      for (const [from, to] of moves) {
        vdb.sqlite.prepare('update companies set id = ? where id = ?').run(to, from)
        for (const table of ['company_keywords', 'company_industries', 'company_business_models']) vdb.sqlite.prepare(`update ${table} set company_id = ? where company_id = ?`).run(to, from)
      }
      const after = await loadModelInput(s, weights, 'test')
      expect(Array.from(after.input.ids)).toEqual([-5, ...Array.from({ length: 47 }, (_, i) => i + 4), 1e12, 2 ** 40 + 3])
      for (const [from, to] of moves) {
        const b = before.input.ids.indexOf(from)
        const a = after.input.ids.indexOf(to)
        expect(tagsOf(after.input, a)).toEqual(tagsOf(before.input, b))
        expect(after.fingerprints[a]).toBe(before.fingerprints[b])
      }
      for (const pageSize of [1, 7, 49, 50, 51]) expect(await loadModelInput(s, weights, 'test', { pageSize })).toEqual(after)
      await expect(loadModelInput(s, weights, 'test', { pageSize: 0 })).rejects.toThrow('pageSize')

      // Tag ids follow SQLite's order of the values (UTF-8 bytes), where UTF-16 order differs:
      // U+FF21 (EF BC A1) before U+1F600 (F0 9F 98 80), whose UTF-16 starts with a surrogate, 0xD83D.
      const values = ['\uFF21', '\u{1F600}']
      for (const value of values) vdb.sqlite.prepare('insert into company_keywords (company_id, value) values (4, ?)').run(value)
      const sqlOrder = vdb.sqlite.prepare('select value from company_keywords where value in (?, ?) order by value').pluck().all(...values) as string[]
      expect(sqlOrder).toEqual(values)
      const field = TAG_TABLES.findIndex((t) => t.table === 'company_keywords')
      const { input } = await loadModelInput(s, weights, 'test')
      const idOf = (value: string) => Array.from(input.tagHashes).indexOf(tagHash(keyOf(field, value)))
      expect(idOf(values[0]!)).toBeGreaterThanOrEqual(0)
      expect(idOf(values[0]!)).toBeLessThan(idOf(values[1]!))
    } finally {
      await vdb.close()
    }
  })
})

describe('SimilarityModel (similar/lsh.ts) against every set scored', () => {
  it('holds at least 0.9 of the exact 20 on average, with their exact scores, on the fixture', async () => {
    const vdb = await createFixtureDatabase({ companies: 2000 })
    try {
      const s = recordSession(vdb)
      const { input } = await loadModelInput(s, await currentWeights(s), 'test')
      const model = new SimilarityModel(input)
      let overlap = 0
      let nonEmpty = 0
      for (let c = 0; c < input.ids.length; c++) {
        const exact = model.exhaustiveNeighbours(c, 20)
        const found = model.neighbours(c, 20, model.candidates(model.setOf[c]!))
        const scores = new Map(exact.map(([id, score]) => [id, score]))
        for (const [id, score] of found) if (scores.has(id)) expect(score, `company ${input.ids[c]}, ${id}`).toBe(scores.get(id))
        if (exact.length > 0) {
          nonEmpty++
          overlap += found.filter(([id]) => scores.has(id)).length / exact.length
        } else {
          overlap += found.length === 0 ? 1 : 0
        }
      }
      expect(nonEmpty).toBeGreaterThan(1900)
      expect(overlap / input.ids.length).toBeGreaterThanOrEqual(0.9)
    } finally {
      await vdb.close()
    }
  }, 60_000)

  it('is the search where it scores every set: the exhaustive answer of the model is the search with nothing budgeted', async () => {
    const vdb = await createFixtureDatabase({ companies: COMPANIES })
    try {
      const s = recordSession(vdb)
      const { input } = await loadModelInput(s, await currentWeights(s), 'test')
      const model = new SimilarityModel(input)
      for (let c = 0; c < input.ids.length; c += 13) {
        const searched = await similarCompanies(vdb, input.ids[c]!, EXHAUSTIVE)
        const exact = model.exhaustiveNeighbours(c, 20)
        expect(exact.map(([id]) => id), `company ${input.ids[c]}`).toEqual(searched.map((r) => r.id))
        exact.forEach(([, score], i) => expect(score).toBeCloseTo(searched[i]!.score, 12))
      }
    } finally {
      await vdb.close()
    }
  }, 60_000)
})

describe('buildSimilarIndex: the tag totals, a database from before the index', () => {
  it('completes the tag totals even when another call has a slice of them under way (what each build pass does first)', async () => {
    const fresh = await createFixtureDatabase({ companies: 120 })
    try {
      // Started in the same tick: the first call builds a slice (0 ms: one tag), and the second
      // finds it under way. `totalsBuildMs: Infinity` alone would wait for that slice and give up.
      const slice = similarCompanies(fresh, 5, { totalsBuildMs: 0, index: false })
      const complete = completeTagTotals(fresh)
      await slice
      expect(await complete).toBe(true)
      // Complete: a call with no time to build them ranks by Jaccard, as the fully built search does.
      for (let id = 1; id <= 120; id += 3) {
        expect(await similarCompanies(fresh, id, { totalsBuildMs: 0, index: false }), `company ${id}`).toStrictEqual(await similarCompanies(fresh, id, SEARCHED))
      }
      expect(await buildSimilarIndex(fresh)).toMatchObject({ computed: 120 })
    } finally {
      await fresh.close()
    }
  })

  it('searches on a database opened read-only that has no index table (migrated before it existed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vq-similar-index-'))
    try {
      const file = join(dir, 'old.db')
      const old = await createFixtureDatabase({ companies: 60, file })
      old.sqlite.exec("drop table similar_companies; delete from kysely_migration where name = '014-similar-companies'")
      await old.close()
      const readonly = openDatabase(file, { readonly: true })
      try {
        const answer = await similarCompanies(readonly, 3)
        expect(answer.length).toBeGreaterThan(0)
        expect(await similarIndexCoverage(readonly)).toBe('none')
        expect(answer).toStrictEqual(await similarCompanies(readonly, 3, { index: false }))
      } finally {
        await readonly.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('keepEveryPosting and partOf', () => {
  /** What POSTINGS_FROM then POSTINGS_BEFORE read, spelled out: ids >= pivot ascending up to limit, then the lowest below it. */
  const statements = (ids: readonly number[], pivot: number, limit: number) => {
    const from = ids.filter((id) => id >= pivot).slice(0, limit)
    const before = from.length < limit ? ids.filter((id) => id < pivot).slice(0, limit - from.length) : []
    return [...before, ...from]
  }

  it('takes the part the two statements read', () => {
    const sortedIds = fc.uniqueArray(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }).map((l) => l.sort((a, b) => a - b))
    let wrapped = 0
    fc.assert(fc.property(sortedIds, fc.integer({ min: -10, max: 5_010 }), fc.integer({ min: 0, max: 320 }), (ids, pivot, limit) => {
      const expected = statements(ids, pivot, limit)
      if (expected.length > 0 && expected[0]! < pivot && expected.some((id) => id >= pivot)) wrapped++
      expect(Array.from(partOf(Int32Array.from(ids), pivot, limit))).toEqual(expected)
    }), { numRuns: 500 })
    // The generator reaches the wrap-around, not only parts from the pivot up.
    expect(wrapped).toBeGreaterThan(20)
  })

  it('gives the same answers as reading the parts in SQL, with budgets that read the rarest tag in part', async () => {
    const kept = await createFixtureDatabase({ companies: COMPANIES })
    const plain = await createFixtureDatabase({ companies: COMPANIES })
    try {
      const release = keepEveryPosting(kept)
      // A rarest tag with more postings than the budget is read in part: count the companies that have one.
      const rarest = plain.sqlite.prepare(`select min(n) from (
        select company_id, count(*) over (partition by value) n from company_industries
        union all select company_id, count(*) over (partition by value) from company_business_models
        union all select company_id, count(*) over (partition by value) from company_keywords) where company_id = ?`).pluck()
      let inPart = 0
      for (const options of [{ postingsBudget: 3 }, { postingsBudget: 8, candidateCap: 10 }, {}]) {
        for (const id of ids.filter((i) => i % 3 === 0)) {
          const expected = await similarCompanies(plain, id, { ...options, index: false, totalsBuildMs: Number.POSITIVE_INFINITY })
          expect(await similarCompanies(kept, id, { ...options, index: false, totalsBuildMs: Number.POSITIVE_INFINITY }), `${id} ${JSON.stringify(options)}`).toStrictEqual(expected)
          const least = rarest.get(id) as number | null
          if (least !== null && options.postingsBudget !== undefined && least > options.postingsBudget) inPart++
        }
      }
      expect(inPart).toBeGreaterThan(50)
      release()
      expect(await similarCompanies(kept, 3, { postingsBudget: 3, index: false })).toStrictEqual(await similarCompanies(plain, 3, { postingsBudget: 3, index: false }))
    } finally {
      await kept.close()
      await plain.close()
    }
  })
})
