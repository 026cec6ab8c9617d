/**
 * @module The similarity model built in shared memory and the answers computed in worker threads
 * (records/similar/lsh.ts, threads.ts): the same model and answers as in this thread, the
 * candidate relation symmetric under `minHits` (an update equals a full build under the banding
 * of 200,000 sets and more), and a failed computation ending the wait and leaving nothing attached
 * to the caller's signal.
 */
import { getEventListeners } from 'node:events'
import { afterAll, describe, expect, it } from 'vitest'
import { buildSimilarIndex } from '../../src/records/similar-index-build.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { expectUpdateEqualsFullBuild } from '../support/similar-update.js'
import { SimilarityModel, type SimilarityInput } from '../../src/records/similar/lsh.js'
import { computeAnswers } from '../../src/records/similar/threads.js'

/** `n` companies with 2-6 of `tagCount` tags and 0-5 of 200 words, from a fixed seed. */
function input(n: number, tagCount = 40): SimilarityInput {
  let seed = 12345
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
  const tagStart = [0]
  const tags: number[] = []
  const wordStart = [0]
  const words: number[] = []
  for (let i = 0; i < n; i++) {
    const own = new Set<number>()
    const count = 2 + Math.floor(next() * 5)
    while (own.size < count) own.add(Math.floor(next() * tagCount))
    tags.push(...[...own].sort((a, b) => a - b))
    tagStart.push(tags.length)
    const mine = new Set<number>()
    const wordCount = Math.floor(next() * 6)
    while (mine.size < wordCount) mine.add(Math.floor(next() * 200))
    words.push(...[...mine].sort((a, b) => a - b))
    wordStart.push(words.length)
  }
  return {
    ids: Float64Array.from({ length: n }, (_, i) => i + 1),
    tagStart: Uint32Array.from(tagStart),
    tags: Uint32Array.from(tags),
    wordStart: Uint32Array.from(wordStart),
    words: Uint32Array.from(words),
    weights: Float64Array.from({ length: tagCount }, (_, t) => 1 + (t % 7) / 3),
    tagHashes: Uint32Array.from({ length: tagCount }, (_, t) => Math.imul(t + 1, 0x9e3779b1) >>> 0),
  }
}

describe('the similarity model in shared memory', () => {
  it('has as many sets and buckets as the model in this thread, none for no companies', () => {
    for (const n of [0, 1, 50]) {
      const alone = new SimilarityModel(input(n))
      const shared = new SimilarityModel(input(n), undefined, { shared: true })
      expect({ sets: shared.sets, buckets: shared.buckets, setOf: shared.setOf.length, members: shared.members.length })
        .toEqual({ sets: alone.sets, buckets: alone.buckets, setOf: alone.setOf.length, members: alone.members.length })
    }
  })

  it('with minHits 2: a set is a candidate of another exactly when that one is its own', () => {
    const model = new SimilarityModel(input(600), { bands: 80, rows: 3, minHits: 2 })
    const of = (s: number) => {
      const found = model.candidates(s)
      return new Set(Array.from({ length: found.length }, (_, i) => found.setAt(i)))
    }
    const all = Array.from({ length: model.sets }, (_, s) => of(s))
    let pairs = 0
    for (let s = 0; s < model.sets; s++) {
      for (const t of all[s]!) {
        expect(all[t]!.has(s)).toBe(true)
        pairs++
      }
    }
    expect(pairs).toBeGreaterThan(model.sets)
  })
})

describe('the 64-byte set records', () => {
  it('score as the tag lists do: the same answers with more tags than a record holds (no records)', async () => {
    const small = input(600)
    // The same companies, with 400 tags known (unused ones added): past the 320 a record's mask holds.
    const wide: SimilarityInput = {
      ...small,
      weights: Float64Array.from({ length: 400 }, (_, t) => small.weights[t] ?? 1),
      tagHashes: Uint32Array.from({ length: 400 }, (_, t) => small.tagHashes[t] ?? t),
    }
    const withRecords = new SimilarityModel(small)
    const without = new SimilarityModel(wide)
    expect(withRecords.parts.setRecords).toBeDefined()
    expect(without.parts.setRecords).toBeUndefined()
    const n = small.ids.length
    const slot = Int32Array.from({ length: n }, (_, c) => c)
    const a = await computeAnswers(withRecords, slot, n, 20)
    const b = await computeAnswers(without, slot, n, 20)
    expect(Array.from(a.counts)).toEqual(Array.from(b.counts))
    expect(Array.from(a.at)).toEqual(Array.from(b.at))
    expect(Array.from(a.scores)).toEqual(Array.from(b.scores))
    // And the exhaustive answer's first 20 hold the model's where it found them.
    for (let c = 0; c < n; c += 37) {
      const exact = new Map(withRecords.exhaustiveNeighbours(c, 20))
      for (let i = 0; i < a.counts[c]!; i++) {
        const id = small.ids[a.at[c * 20 + i]!]!
        if (exact.has(id)) expect(exact.get(id)).toBe(a.scores[c * 20 + i])
      }
    }
  })
})

describe('computeAnswers in threads', () => {
  it('rejects when the progress callback throws, and leaves no listener on the signal', async () => {
    const model = new SimilarityModel(input(600), undefined, { shared: true })
    expect(model.sets).toBeGreaterThan(128)
    const n = model.input.ids.length
    const slot = new Int32Array(new SharedArrayBuffer(4 * n))
    for (let c = 0; c < n; c++) slot[c] = c
    const signal = new AbortController().signal
    await expect(computeAnswers(model, slot, n, 20, {
      jobs: 2,
      signal,
      onProgress: () => { throw new Error('stop') },
    })).rejects.toThrow('stop')
    expect(getEventListeners(signal, 'abort')).toHaveLength(0)
    // And the same answers in threads as here.
    const here = await computeAnswers(model, slot, n, 20, { jobs: 1, signal })
    const threaded = await computeAnswers(model, slot, n, 20, { jobs: 2, signal })
    expect(Array.from(threaded.counts)).toEqual(Array.from(here.counts))
    expect(Array.from(threaded.at)).toEqual(Array.from(here.at))
    expect(Array.from(threaded.scores)).toEqual(Array.from(here.scores))
    expect(getEventListeners(signal, 'abort')).toHaveLength(0)
  }, 60_000)
})

describe('computeAnswers in threads, a thread that throws', () => {
  it('rejects with its error (the wait ends), as in this thread', async () => {
    const model = new SimilarityModel(input(600), undefined, { shared: true })
    const n = model.input.ids.length
    const slot = new Int32Array(new SharedArrayBuffer(4 * n))
    for (let c = 0; c < n; c++) slot[c] = c
    // A limit above what an answer holds (100): neighboursInto throws in each thread.
    await expect(computeAnswers(model, slot, n, 150, { jobs: 1 })).rejects.toThrow(/limit 150/)
    await expect(computeAnswers(model, slot, n, 150, { jobs: 2 })).rejects.toThrow(/limit 150/)
  }, 60_000)
})

describe('buildSimilarIndex under the banding kept with minHits 2', () => {
  const COMPANIES = 300
  const ids = Array.from({ length: COMPANIES }, (_, i) => i + 1)
  let close = () => {}
  afterAll(() => close())

  it('updates as a full build does (in threads or not), and keeps minHits with the weights', async () => {
    const vdb = await createFixtureDatabase({ companies: COMPANIES })
    close = () => vdb.sqlite.close()
    await buildSimilarIndex(vdb, { full: true })
    const state = () => JSON.parse((vdb.sqlite.prepare("select value from similar_companies_state where name = 'weights'").get() as { value: string }).value) as Record<string, unknown>
    const banding = { bands: 80, rows: 3, minHits: 2 }
    vdb.sqlite.prepare("update similar_companies_state set value = ? where name = 'weights'").run(JSON.stringify({ ...state(), ...banding }))
    await expectUpdateEqualsFullBuild(vdb, ids.slice(20), { jobs: 2 })
    expect(state()).toMatchObject(banding)
    // Weights stored without minHits are read as 1 (the banding before it was kept).
    const { minHits: _, ...old } = state()
    vdb.sqlite.prepare("update similar_companies_state set value = ? where name = 'weights'").run(JSON.stringify({ ...old, bands: 40, rows: 3 }))
    expect(await buildSimilarIndex(vdb, { full: true })).toMatchObject({ reweighed: false })
    expect(state()).toMatchObject({ bands: 40, rows: 3, minHits: 1 })
  }, 60_000)
})
