/**
 * Similar companies (spec 4.5) at the record level: the plain-text form of descriptions, and the
 * invariants that must hold however small the search budgets are (the HTTP test compares the
 * default budgets with a brute-force reference).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { descriptionWords, inAscendingOrder, mix, plainText, rankByJaccard, SharedWeights, similarCompanies } from '../../src/records/similar.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, type SqliteVentureDb } from '../../src/store/open.js'

describe('plainText (description_plain_text)', () => {
  it.each([
    ['<p>Hello <b>world</b></p>', 'Hello world'],
    ['Line<br/>break', 'Line break'],
    ['Fish &amp; chips &lt;3 &#169; &#x41;', 'Fish & chips <3 © A'],
    ['**Bold** and _italic_ and `code`', 'Bold and italic and code'],
    ['See [our site](https://x.example) ![logo](l.png)', 'See our site logo'],
    ['# Heading\n- item one\n> quoted', 'Heading item one quoted'],
    ['snake_case_name stays', 'snake_case_name stays'],
    ['<script>alert(1)</script>Safe', 'Safe'],
    ['plain text', 'plain text'],
  ])('%j → %j', (input, expected) => expect(plainText(input)).toBe(expected))

  it('takes the same words from plain prose without the markup rules as with them', () => {
    // Prose over characters none of the "anywhere" rules act on, but with line starts the line
    // rules do act on (headings, bullets, numbered items): the fast path must give what the rules
    // give. A trailing `&amp;` sends the same text through the rules (it decodes to `&`, no word
    // and no white space, so no line rule starts or stops matching because of it).
    const piece = fc.constantFrom('alpha', 'Beta', 'gamma2024', '2024.', '12. ', '- ', '+ ', '# ', '## ', '   ', '\n', '\n  ', ' ', '.', ',', '-', '+', '#', '1', 'état', 'über', '!', '(x)', ':', ';', '"', "'")
    const prose = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''))
    let lineRules = 0
    fc.assert(fc.property(prose, (text) => {
      if (/^\s{0,3}(#|[-+]\s|\d+\.\s)/m.test(text)) lineRules++
      expect([...descriptionWords(text)]).toEqual([...descriptionWords(`${text}&amp;`)])
    }), { numRuns: 2000 })
    // The generator reaches the line rules often (numbers and bullets at line starts).
    expect(lineRules).toBeGreaterThan(200)
    expect([...descriptionWords('Intro\n2024. went well\n- item')]).toEqual(['intro', 'went', 'well', 'item'])
  })

  it('keeps content words only for the overlap', () => {
    expect([...descriptionWords('The <b>Robots</b> for the farming, and robots!')]).toEqual(['robots', 'farming'])
    expect(descriptionWords(null).size).toBe(0)
  })
})

describe('SharedWeights (the sums of shared tag weight)', () => {
  /** Ascending distinct ids from a seeded generator, one in 7 beyond 32 bits unless `small`. */
  const postings = (seed: number, count: number, spread: number, small = false) => {
    const ids = new Set<number>()
    while (ids.size < count) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      ids.add(!small && seed % 7 === 0 ? 2 ** 40 + (seed % 3_000) : seed % spread)
    }
    return [...ids].sort((a, b) => a - b)
  }

  it('sums like a Map, tag after tag, with ids ascending, past its expected size and for ids beyond 32 bits', () => {
    const table = new SharedWeights(4)
    const reference = new Map<number, number>()
    // Overlapping tags (ids below 20,000), one spread wide, and ids beyond 32 bits in each; 42 is the company itself.
    // The second tag's ids all fit 32 bits, so it is given as an Int32Array.
    const tags = [postings(7, 9_000, 20_000), postings(11, 15_000, 20_000, true), postings(13, 400, 1_000_000), postings(17, 12_000, 20_000)]
    expect(tags.some((owners) => owners.includes(42))).toBe(true)
    expect(tags.filter((owners) => owners.every((id) => id < 2 ** 31)).length).toBe(1)
    tags.forEach((owners, i) => {
      const weight = 0.7 + i / 3
      // As read: an Int32Array where every id fits one, else plain numbers.
      table.addPostings(owners.every((id) => id < 2 ** 31) ? Int32Array.from(owners) : owners, weight, 42)
      for (const id of owners) if (id !== 42) reference.set(id, (reference.get(id) ?? 0) + weight)
    })
    expect(reference.size).toBeGreaterThan(20_000)
    const ascending = [...reference.keys()].sort((a, b) => a - b)
    expect(table.size).toBe(reference.size)
    expect(table.ids()).toEqual(ascending)
    // The same additions in the same order: equal to the last bit.
    expect(Array.from({ length: table.size }, (_, i) => table.sumAt(i))).toEqual(ascending.map((id) => reference.get(id)))
    const { ids, sums } = table.entries()
    expect(Array.from(ids)).toEqual(ascending)
    expect(sums[0]).toBe(reference.get(ascending[0]!))
  })

  it('takes postings put in order (inAscendingOrder) and adds an id given twice twice, as separate additions would', () => {
    const inOrder = [1, 3, 9]
    expect(inAscendingOrder(inOrder)).toBe(inOrder)
    expect(Array.from(inAscendingOrder([9, 1, 9, 3]))).toEqual([1, 3, 9, 9])
    const table = new SharedWeights(16)
    table.addPostings(inAscendingOrder([5, 3, 9]), 1.25, -1)
    table.addPostings(inAscendingOrder([9, 1, 9, 3]), 0.5, 3)
    expect(table.ids()).toEqual([1, 3, 5, 9])
    expect(Array.from(table.entries().sums)).toEqual([0.5, 1.25, 1.25, 1.25 + 0.5 + 0.5])
  })
})

describe('rankByJaccard (the best candidates by tag Jaccard, a bounded heap)', () => {
  /**
   * Candidates with few distinct scores, so that many tie at the heap's root: the heap must keep
   * what sorting every candidate by (score, hash key, id) keeps, whatever it passes over unread.
   */
  it('keeps exactly the best by score, then hash key, then id, with many ties at the root', () => {
    const ids = 3_000
    const totals = new Float64Array(ids)
    const floors = new Uint8Array(ids)
    // Totals from a few tag sets: ids with the same residue share their tags, so their scores tie.
    // Weights in quarters: every total is its own floor, so the floor's bound is the score itself
    // and a tie at the root must still be decided by the hash key, not passed over.
    const weightOf = [1.25, 2.5, 0.75, 3.5, 2]
    for (let id = 0; id < ids; id++) {
      for (let t = 0; t < weightOf.length; t++) if ((id >> t) % 2 === 1 || id % (t + 2) === 0) totals[id] = totals[id]! + weightOf[t]!
      floors[id] = Math.min(255, Math.floor(totals[id]! * 4))
    }
    const companyId = 7
    const shared = new SharedWeights(ids)
    const tagsOfCompany = [0, 1, 3]
    for (const t of tagsOfCompany) {
      const owners = Array.from({ length: ids }, (_, id) => id).filter((id) => (id >> t) % 2 === 1 || id % (t + 2) === 0)
      shared.addPostings(Int32Array.from(owners), weightOf[t]!, companyId)
    }
    const kept = { version: 1, df: new Map<string, number>(), totals, floors }
    const { ids: entries, sums } = shared.entries()
    const reference = Array.from(entries, (id, i) => {
      const union = totals[companyId]! + totals[id]! - sums[i]!
      return { id, score: union > 0 ? Math.min(1, sums[i]! / union) : 0, key: mix(companyId, id) }
    }).sort((a, b) => b.score - a.score || a.key - b.key || a.id - b.id)
    let tiedAtTheRoot = 0
    for (const cap of [1, 5, 20, 200]) {
      const { candidates, tagScores } = rankByJaccard(shared, kept, cap, companyId)
      const best = reference.slice(0, cap)
      expect([...candidates].sort((a, b) => a - b), `cap ${cap}`).toEqual(best.map((r) => r.id).sort((a, b) => a - b))
      for (const r of best) expect(tagScores.get(r.id)).toBe(r.score)
      tiedAtTheRoot += reference.filter((r) => r.score === best.at(-1)!.score).length - best.filter((r) => r.score === best.at(-1)!.score).length
    }
    // The cases are not trivial: companies left out with the root's very score, by their hash key.
    expect(tiedAtTheRoot).toBeGreaterThan(100)
  })
})

describe('similarCompanies', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 300 }) })
  afterAll(async () => { await vdb.close() })

  const tagsOf = (id: number) => new Set(vdb.sqlite.prepare(`select 'i' || value from company_industries where company_id = @id
    union all select 'b' || value from company_business_models where company_id = @id
    union all select 'k' || value from company_keywords where company_id = @id`).pluck().all({ id }) as string[])

  it.each([
    { postingsBudget: 1, candidateCap: 3, probeBudget: 0 },
    { postingsBudget: 10, candidateCap: 30, probeBudget: 50 },
    { postingsBudget: 25_000, candidateCap: 500 },
    // What the benchmark's exhaustive search passes: no bound at all.
    { postingsBudget: Number.MAX_SAFE_INTEGER, probeBudget: Number.MAX_SAFE_INTEGER, candidateCap: 50_000 },
  ])('with budgets %j: never itself, always a shared tag, best first, probability 1 then lower', async (options) => {
    let nonEmpty = 0
    for (let id = 1; id <= 300; id += 7) {
      const result = await similarCompanies(vdb, id, options)
      expect(result.length).toBeLessThanOrEqual(20)
      const mine = tagsOf(id)
      if (mine.size === 0) { expect(result).toEqual([]); continue }
      if (result.length > 0) nonEmpty++
      result.forEach((r, i) => {
        expect(r.id).not.toBe(id)
        expect([...tagsOf(r.id)].some((t) => mine.has(t))).toBe(true)
        expect(r.probability).toBeGreaterThan(0)
        expect(r.probability).toBeLessThanOrEqual(1)
        if (i === 0) expect(r.probability).toBe(1)
        else expect(r.score < result[i - 1]!.score || (r.score === result[i - 1]!.score && r.id > result[i - 1]!.id)).toBe(true)
      })
      expect(await similarCompanies(vdb, id, options)).toEqual(result)
    }
    expect(nonEmpty).toBeGreaterThan(30)
  })

  it('is empty for an unknown company', async () => {
    expect(await similarCompanies(vdb, 999_999)).toEqual([])
  })
})

describe('similarCompanies: probability 1 is the best and its equals only', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 2000 }) })
  afterAll(async () => { await vdb.close() })
  const signature = (id: number) => JSON.stringify([
    vdb.sqlite.prepare(`select 'i' || value from company_industries where company_id = @id
      union all select 'b' || value from company_business_models where company_id = @id
      union all select 'k' || value from company_keywords where company_id = @id order by 1`).pluck().all({ id }),
    [...descriptionWords(vdb.sqlite.prepare('select description from companies where id = ?').pluck().get(id) as string | null)].sort(),
  ])

  it('gives a company that ties with the best, or rounds up to it, less than 1 unless its tags and words are the same', async () => {
    let ties = 0
    let nearTies = 0
    for (let id = 1; id <= 600; id++) {
      const result = await similarCompanies(vdb, id)
      if (result.length < 2) continue
      const [best, ...rest] = result
      expect(best!.probability).toBe(1)
      for (const r of rest) {
        if (r.score === best!.score) ties++
        else if (Math.round((r.score / best!.score) * 10_000) === 10_000) nearTies++
        if (r.probability === 1) expect(signature(r.id)).toBe(signature(best!.id))
        else expect(r.probability).toBeLessThanOrEqual(0.9999)
      }
    }
    // Both causes occur in the fixture: exact ties (the same overlap, other words) and ratios that round to 1.
    expect(ties).toBeGreaterThan(3)
    expect(nearTies).toBeGreaterThan(0)
  })

  it('gives 1 to a company identical to the best in every scored field', async () => {
    let target = 0
    let best = 0
    for (let id = 1; id <= 600 && target === 0; id++) {
      const result = await similarCompanies(vdb, id)
      if (result.length >= 2 && result[1]!.score === result[0]!.score) [target, best] = [id, result[0]!.id]
    }
    expect(target).toBeGreaterThan(0)
    const twin = 1_000_000
    const columns = (vdb.sqlite.prepare('select name from pragma_table_info(?)').pluck().all('companies') as string[]).filter((c) => c !== 'id')
    vdb.sqlite.prepare(`insert into companies (id, ${columns.join(', ')}) select ${twin}, ${columns.join(', ')} from companies where id = ?`).run(best)
    for (const table of ['company_industries', 'company_business_models', 'company_keywords']) {
      const rest = (vdb.sqlite.prepare('select name from pragma_table_info(?)').pluck().all(table) as string[]).filter((c) => c !== 'company_id')
      vdb.sqlite.prepare(`insert into ${table} (company_id, ${rest.join(', ')}) select ${twin}, ${rest.join(', ')} from ${table} where company_id = ?`).run(best)
    }
    bumpDataVersionSync(vdb.sqlite)
    const result = await similarCompanies(vdb, target)
    expect(signature(twin)).toBe(signature(best))
    expect(result.filter((r) => r.probability === 1).map((r) => r.id).sort((a, b) => a - b)).toEqual([best, twin])
    expect(result.filter((r) => r.score === result[0]!.score && r.probability < 1).length).toBeGreaterThan(0)
  })
})

describe('similarCompanies: probing common tags by bitmap', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 300 }) })
  afterAll(async () => { await vdb.close() })
  // A small postings budget leaves the common tags unread, so every candidate is probed for them.
  const probing = { postingsBudget: 10, candidateCap: 5 }
  const ids = Array.from({ length: 43 }, (_, i) => 1 + 7 * i)

  it('finds what the probe in SQL finds, and the probes change the ranking', async () => {
    let changedByProbing = 0
    for (const id of ids) {
      const byBitmap = await similarCompanies(vdb, id, probing)
      expect(byBitmap).toEqual(await similarCompanies(vdb, id, { ...probing, probe: 'sql' }))
      // Without probes the ranking falls back to shared weight too: both sides rank by it here, so
      // what differs is the probes alone.
      const shared = { ...probing, ranking: 'shared' as const }
      if (JSON.stringify(await similarCompanies(vdb, id, shared)) !== JSON.stringify(await similarCompanies(vdb, id, { ...shared, probeBudget: 0 }))) changedByProbing++
    }
    expect(changedByProbing).toBeGreaterThan(5)
  })

  it('probes in SQL a tag whose ids do not fit a bitmap, with the same answers', async () => {
    const common = vdb.sqlite.prepare('select value from company_business_models group by value order by count(*) desc limit 1').pluck().get() as string
    // A row far beyond any bitmap (imported data may carry such ids); it is no company, so it is never a result.
    vdb.sqlite.prepare('insert into company_business_models (company_id, value) values (?, ?)').run(2 ** 40, common)
    bumpDataVersionSync(vdb.sqlite)
    let results = 0
    for (const id of ids) {
      const byBitmap = await similarCompanies(vdb, id, probing)
      expect(byBitmap).toEqual(await similarCompanies(vdb, id, { ...probing, probe: 'sql' }))
      results += byBitmap.length
    }
    expect(results).toBeGreaterThan(100)
  })

  it('follows a new data version: a tag given to more companies is probed anew', async () => {
    const common = vdb.sqlite.prepare('select value from company_industries group by value order by count(*) desc limit 1').pluck().get() as string
    for (const id of ids) await similarCompanies(vdb, id, probing)
    const without = vdb.sqlite.prepare('select id from companies where id not in (select company_id from company_industries where value = ?) order by id limit 40').pluck().all(common) as number[]
    expect(without.length).toBe(40)
    const insert = vdb.sqlite.prepare('insert into company_industries (company_id, value) values (?, ?)')
    for (const id of without) insert.run(id, common)
    bumpDataVersionSync(vdb.sqlite)
    let differs = 0
    for (const id of ids) {
      const byBitmap = await similarCompanies(vdb, id, probing)
      expect(byBitmap).toEqual(await similarCompanies(vdb, id, { ...probing, probe: 'sql' }))
      if (byBitmap.some((r) => without.includes(r.id))) differs++
    }
    expect(differs).toBeGreaterThan(0)
  })
})

describe('similarCompanies: ranking candidates by their weighted Jaccard (kept tag totals)', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 600 }) })
  afterAll(async () => { await vdb.close() })
  const ids = Array.from({ length: 60 }, (_, i) => 3 + 10 * i)
  /** The exact answer: every posting read, every candidate scored in full. */
  const exhaustive = { postingsBudget: Number.MAX_SAFE_INTEGER, probeBudget: Number.MAX_SAFE_INTEGER, candidateCap: 50_000, totalsBuildMs: Number.POSITIVE_INFINITY }
  const overlap = (found: readonly { id: number }[], exact: readonly { id: number }[]) => found.filter((f) => exact.some((e) => e.id === f.id)).length

  it('gives the exact answer with every posting read, as the ranking by shared weight does', async () => {
    let compared = 0
    for (const id of ids) {
      const byJaccard = await similarCompanies(vdb, id, { ...exhaustive, ranking: 'jaccard' })
      const byShared = await similarCompanies(vdb, id, { ...exhaustive, ranking: 'shared' })
      // The tag part is summed in another order (W_A + W_B − I against the union's tags): the same
      // companies in the same order, scores equal to rounding.
      expect(byJaccard.map((r) => r.id), `company ${id}`).toEqual(byShared.map((r) => r.id))
      byJaccard.forEach((r, i) => expect(r.score).toBeCloseTo(byShared[i]!.score, 12))
      compared += byJaccard.length
    }
    expect(compared).toBeGreaterThan(500)
  })

  it('finds more of the exact answer than the ranking by shared weight on the same small budgets', async () => {
    // As many candidates as answers: what is found then depends on the ranking alone.
    const small = { postingsBudget: 200, candidateCap: 20 }
    let jaccardFound = 0
    let sharedFound = 0
    for (const id of ids) {
      const exact = await similarCompanies(vdb, id, exhaustive)
      jaccardFound += overlap(await similarCompanies(vdb, id, { ...small, ranking: 'jaccard' }), exact)
      sharedFound += overlap(await similarCompanies(vdb, id, { ...small, ranking: 'shared' }), exact)
    }
    // 980 against 719 of 1,200 when written.
    expect(jaccardFound).toBeGreaterThan(sharedFound * 1.2)
  })

  it('keeps the best candidates when the cap is the limit: the same scores as the exact answer for companies without a description', async () => {
    // Without a description the score is the tag Jaccard alone, so the capped heap must hold the
    // exact 20 best (equal scores may be other companies: the heap takes ties by a hash).
    const bare = vdb.sqlite.prepare("select id from companies where (description is null or description = '') and id in (select company_id from company_industries) order by id limit 20").pluck().all() as number[]
    expect(bare.length).toBeGreaterThan(5)
    let compared = 0
    for (const id of bare) {
      const capped = await similarCompanies(vdb, id, { postingsBudget: Number.MAX_SAFE_INTEGER, candidateCap: 20, ranking: 'jaccard', totalsBuildMs: Number.POSITIVE_INFINITY })
      const exact = await similarCompanies(vdb, id, exhaustive)
      expect(capped.map((r) => r.score), `company ${id}`).toEqual(exact.map((r) => r.score))
      compared += capped.length
    }
    expect(compared).toBeGreaterThan(100)
  })

  it('follows a new data version: a company given many tags is weighed anew', async () => {
    const target = ids[5]!
    const before = await similarCompanies(vdb, target)
    // The best match gets every tag of every field: its total grows, so its Jaccard falls.
    const best = before[0]!.id
    for (const table of ['company_industries', 'company_business_models', 'company_keywords']) {
      vdb.sqlite.prepare(`insert or ignore into ${table} (company_id, value) select ?, value from ${table} group by value`).run(best)
    }
    bumpDataVersionSync(vdb.sqlite)
    // Built in full at once: the answer is by the new totals, not by shared weight while they build.
    const after = await similarCompanies(vdb, target, { totalsBuildMs: Number.POSITIVE_INFINITY })
    expect(after).not.toEqual(before)
    expect(after.findIndex((r) => r.id === best)).not.toBe(0)
    const exact = await similarCompanies(vdb, target, { ...exhaustive, ranking: 'shared' })
    expect(after.map((r) => r.id)).toEqual(exact.map((r) => r.id))
  })

  it('ranks by shared weight where ids are sparse (the totals are indexed by id), with the same answers as asking for it', async () => {
    // Within a bitmap's reach, but 8 bytes per id up to 5,000,000 for 601 companies.
    vdb.sqlite.prepare("insert into companies (id, name) values (5000000, 'Sparse Id Co')").run()
    bumpDataVersionSync(vdb.sqlite)
    let results = 0
    let differsFromShared = 0
    for (const id of ids.slice(0, 20)) {
      const automatic = await similarCompanies(vdb, id, { postingsBudget: 60, candidateCap: 25, totalsBuildMs: Number.POSITIVE_INFINITY })
      expect(automatic).toEqual(await similarCompanies(vdb, id, { postingsBudget: 60, candidateCap: 25, ranking: 'shared' }))
      results += automatic.length
    }
    expect(results).toBeGreaterThan(100)
    vdb.sqlite.prepare('delete from companies where id = 5000000').run()
    bumpDataVersionSync(vdb.sqlite)
    // Dense again: the same calls rank by Jaccard, which differs for some of them.
    for (const id of ids.slice(0, 20)) {
      const automatic = await similarCompanies(vdb, id, { postingsBudget: 60, candidateCap: 25, totalsBuildMs: Number.POSITIVE_INFINITY })
      if (JSON.stringify(automatic) !== JSON.stringify(await similarCompanies(vdb, id, { postingsBudget: 60, candidateCap: 25, ranking: 'shared' }))) differsFromShared++
    }
    expect(differsFromShared).toBeGreaterThan(0)
  })

  it('ranks by shared weight where ids do not fit the totals, with the same answers as asking for it', async () => {
    vdb.sqlite.prepare("insert into companies (id, name) values (40000000, 'Far Id Co')").run()
    bumpDataVersionSync(vdb.sqlite)
    let results = 0
    for (const id of ids.slice(0, 20)) {
      const automatic = await similarCompanies(vdb, id, { postingsBudget: 60, candidateCap: 25 })
      expect(automatic).toEqual(await similarCompanies(vdb, id, { postingsBudget: 60, candidateCap: 25, ranking: 'shared' }))
      results += automatic.length
    }
    expect(results).toBeGreaterThan(100)
  })
})

describe('similarCompanies: the kept totals are built a slice per call', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 300 }) })
  afterAll(async () => { await vdb.close() })

  it('ranks by shared weight until the last tag is summed, one tag a call when the slice is empty, then by Jaccard', async () => {
    const tags = ['company_industries', 'company_business_models', 'company_keywords']
      .map((table) => vdb.sqlite.prepare(`select count(distinct value) from ${table}`).pluck().get() as number)
      .reduce((a, b) => a + b, 0)
    expect(tags).toBeGreaterThan(20)
    const small = { postingsBudget: 40, candidateCap: 20 }
    const ids = Array.from({ length: 30 }, (_, i) => 1 + 10 * i)
    const byShared = new Map<number, unknown>()
    const byJaccard = new Map<number, unknown>()
    let differ = 0
    for (const id of ids) {
      byShared.set(id, await similarCompanies(vdb, id, { ...small, ranking: 'shared' }))
      // Built in full on another connection: what the same call answers once the totals are there.
      const other = await createFixtureDatabase({ companies: 300 })
      byJaccard.set(id, await similarCompanies(other, id, small))
      await other.close()
      if (JSON.stringify(byShared.get(id)) !== JSON.stringify(byJaccard.get(id))) differ++
    }
    expect(differ).toBeGreaterThan(5)
    for (let call = 1; call < tags; call++) {
      const id = ids[call % ids.length]!
      expect(await similarCompanies(vdb, id, { ...small, totalsBuildMs: 0 }), `call ${call}`).toEqual(byShared.get(id))
    }
    // The call that sums the last tag answers with the totals, and so does every call after it.
    for (const id of ids) expect(await similarCompanies(vdb, id, { ...small, totalsBuildMs: 0 })).toEqual(byJaccard.get(id))
  })
})
