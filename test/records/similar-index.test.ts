/**
 * @module The similarity index (records/similar-index*.ts): built, it answers exactly what the
 * search answers at the defaults with the totals built; it is served only at the data version it
 * was built for and only for calls at the defaults; builds resume, follow the data version, split
 * into shards and stop on a signal. Also `partOf`, the in-memory part of a tag's postings that the
 * build uses in place of two statements, against those statements' meaning.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildSimilarIndex } from '../../src/records/similar-index-build.js'
import { decodeNeighbours, similarIndexCoverage } from '../../src/records/similar-index.js'
import { completeTagTotals, keepEveryPosting, partOf, similarCompanies, type SimilarityOptions } from '../../src/records/similar.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, dataVersionSync, openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const COMPANIES = 300
const ids = Array.from({ length: COMPANIES }, (_, i) => i + 1)
/** What the index holds: the search at the defaults, with the tag totals built. */
const SEARCHED: SimilarityOptions = { index: false, totalsBuildMs: Number.POSITIVE_INFINITY }

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
    const first = await buildSimilarIndex(vdb, { batchSize: 64, onProgress: ({ done, total }) => { progress.push(done); expect(total).toBe(COMPANIES) } })
    expect(first).toMatchObject({ companies: COMPANIES, computed: COMPANIES, current: 0, restarts: 0, dataVersion: dataVersionSync(vdb.sqlite) })
    expect(progress).toEqual([64, 128, 192, 256, 300])
    const rows = rowsOf(vdb)
    expect(rows.map((r) => r.company_id)).toEqual(ids)
    expect(new Set(rows.map((r) => r.data_version))).toEqual(new Set([first.dataVersion]))
    expect(await buildSimilarIndex(vdb)).toMatchObject({ companies: COMPANIES, computed: 0, current: COMPANIES, restarts: 0 })
  })

  it('answers what the search answers, for every company, at every limit up to 20', async () => {
    let nonEmpty = 0
    let full = 0
    for (const id of ids) {
      const searched = await similarCompanies(vdb, id, SEARCHED)
      expect(await similarCompanies(vdb, id), `company ${id}`).toStrictEqual(searched)
      for (const limit of [1, 5, 19]) {
        expect(await similarCompanies(vdb, id, { limit }), `company ${id}, limit ${limit}`).toStrictEqual(await similarCompanies(vdb, id, { ...SEARCHED, limit }))
      }
      if (searched.length > 0) nonEmpty++
      if (searched.length === 20) full++
    }
    // Not a comparison of empty lists: most companies have 20 answers.
    expect(nonEmpty).toBeGreaterThan(250)
    expect(full).toBeGreaterThan(200)
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
      const searched = await similarCompanies(vdb, id, SEARCHED)
      expect(searched.map((r) => r.id)).not.toEqual([42, 7])
      for (const options of [{ index: false }, { postingsBudget: 50_000 }, { candidateCap: 200 }, { ranking: 'jaccard' as const }, { probe: 'bitmap' as const }, { totalsBuildMs: 250 }, { limit: 21 }]) {
        expect((await similarCompanies(vdb, id, options)).slice(0, 2).map((r) => r.id), JSON.stringify(options)).not.toEqual([42, 7])
      }
      // A row that is not an answer is not served either: not [id, score] pairs, a score outside
      // (0, 1], worse before better, equal scores not by id, an id twice, the company itself, more than 20.
      const tooMany = JSON.stringify(Array.from({ length: 21 }, (_, i) => [100 + i, 0.5]))
      for (const bad of ['not json', '{"a":1}', '[[1]]', '[[1.5, 0.2]]', '[["7", 0.2]]', '[[7, null]]', '[[7, 0]]', '[[7, 1.5]]', '[[7, -0.1]]',
        '[[7, 0.2], [8, 0.3]]', '[[8, 0.2], [7, 0.2]]', '[[7, 0.3], [7, 0.2]]', `[[${id}, 0.3]]`, tooMany]) {
        plant(vdb, id, bad)
        expect(await similarCompanies(vdb, id), bad).toStrictEqual(searched)
      }
      expect(decodeNeighbours('[]', id)).toEqual([])
      expect(decodeNeighbours('[[7, 0.3], [8, 0.3], [9, 0.1]]', id)).toEqual([[7, 0.3], [8, 0.3], [9, 0.1]])
    } finally {
      plant(vdb, id, saved.neighbours, saved.data_version)
    }
  })

  it('is not served once the data version moves, and the next build computes every company again', async () => {
    const id = 17
    plant(vdb, id, JSON.stringify([[42, 0.5]]))
    expect((await similarCompanies(vdb, id)).map((r) => r.id)).toEqual([42])
    const version = bumpDataVersionSync(vdb.sqlite)
    // The search first, its totals built for the new version: then the default call searches alike.
    const searched = await similarCompanies(vdb, id, SEARCHED)
    expect(await similarCompanies(vdb, id)).toStrictEqual(searched)
    const rebuilt = await buildSimilarIndex(vdb)
    expect(rebuilt).toMatchObject({ dataVersion: version, computed: COMPANIES, current: 0, ranking: 'jaccard' })
    expect(new Set(rowsOf(vdb).map((r) => r.data_version))).toEqual(new Set([version]))
    expect(await similarCompanies(vdb, id)).toStrictEqual(searched)
    // A row of a newer version (another build, after an import this one has not seen) is never written over.
    plant(vdb, 23, '[[42, 0.5]]', version + 5)
    await buildSimilarIndex(vdb)
    expect(rowsOf(vdb).find((r) => r.company_id === 23)).toEqual({ company_id: 23, data_version: version + 5, neighbours: '[[42, 0.5]]' })
    vdb.sqlite.prepare('delete from similar_companies where company_id = 23').run()
  })

  it('starts over at the new version when the data moves during the build', async () => {
    bumpDataVersionSync(vdb.sqlite)
    let bumped = false
    const summary = await buildSimilarIndex(vdb, {
      batchSize: 100,
      onProgress: () => {
        if (!bumped) { bumped = true; bumpDataVersionSync(vdb.sqlite) }
      },
    })
    const version = dataVersionSync(vdb.sqlite)
    expect(summary).toMatchObject({ restarts: 1, dataVersion: version, computed: COMPANIES, current: 0 })
    expect(new Set(rowsOf(vdb).map((r) => r.data_version))).toEqual(new Set([version]))
  })
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
      expect(await buildSimilarIndex(fresh)).toMatchObject({ computed: 120, ranking: 'jaccard' })
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

describe('buildSimilarIndex: shards, a stop, and what it refuses', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: COMPANIES }) })
  afterAll(async () => { await vdb.close() })

  it('builds one shard at a time, each its own companies, together all of them; the coverage a server reports follows', async () => {
    expect(await similarIndexCoverage(vdb)).toBe('none')
    // Shard 2 of 3 holds neither id 1 nor id 300; shard 0 holds 300.
    for (const [index, coverage] of [[2, 'none'], [0, 'partial']] as const) {
      const summary = await buildSimilarIndex(vdb, { shard: { index, count: 3 } })
      expect(summary).toMatchObject({ companies: 100, computed: 100, current: 0 })
      expect(await similarIndexCoverage(vdb), `after shard ${index}`).toBe(coverage)
    }
    expect(rowsOf(vdb).every((r) => r.company_id % 3 !== 1)).toBe(true)
    expect(rowsOf(vdb)).toHaveLength(200)
    // The whole index completes what the shards left.
    expect(await buildSimilarIndex(vdb)).toMatchObject({ companies: COMPANIES, computed: 100, current: 200 })
    expect(await similarIndexCoverage(vdb)).toBe('current')
    // One company in the middle without its row: not complete (its first and last company are).
    const saved = rowsOf(vdb).find((r) => r.company_id === 150)!
    vdb.sqlite.prepare('delete from similar_companies where company_id = 150').run()
    expect(await similarIndexCoverage(vdb)).toBe('partial')
    plant(vdb, 150, saved.neighbours, saved.data_version)
    expect(await similarIndexCoverage(vdb)).toBe('current')
  })

  it('stops on its signal between companies; what was written stays and the next build goes on from it', async () => {
    bumpDataVersionSync(vdb.sqlite)
    expect(await similarIndexCoverage(vdb)).toBe('none')
    const controller = new AbortController()
    await expect(buildSimilarIndex(vdb, { batchSize: 50, onProgress: () => controller.abort(new Error('enough')), signal: controller.signal })).rejects.toThrow('enough')
    const version = dataVersionSync(vdb.sqlite)
    expect(rowsOf(vdb).filter((r) => r.data_version === version)).toHaveLength(50)
    expect(await buildSimilarIndex(vdb)).toMatchObject({ computed: COMPANIES - 50, current: 50 })
  })

  it('refuses a shard or batch size that is not one, and a database open read-only', async () => {
    for (const shard of [{ index: 3, count: 3 }, { index: -1, count: 2 }, { index: 0, count: 0 }, { index: 0.5, count: 2 }]) {
      await expect(buildSimilarIndex(vdb, { shard }), JSON.stringify(shard)).rejects.toThrow(/shard must be \{ index, count \} with 0 <= index < count/)
    }
    for (const batchSize of [0, 10_001, 1.5]) {
      await expect(buildSimilarIndex(vdb, { batchSize }), String(batchSize)).rejects.toThrow(`batchSize must be a whole number from 1 to 10000 (got ${batchSize})`)
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
