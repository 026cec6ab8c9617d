/**
 * The engine end to end on the fixture database: the spec's example query, the envelope of spec
 * 2.14, stored queries (idempotent, content-addressed, outdated), paging by id, cached totals per
 * data version, explain and count, and user input that never throws.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bumpDataVersion, openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

let vdb: SqliteVentureDb
let engine: Engine

beforeAll(async () => {
  vdb = await createFixtureDatabase()
  // Every total written to query_totals, whatever counting cost, so tests can read and plant them
  // (the default keeps totals counted in under 1 ms in memory: 'totals cheaper to count than to write').
  engine = createEngine({ database: vdb, limits: { maxPerPage: 1000 }, paging: { persistTotalsFromMs: 0 } })
})
afterAll(async () => {
  await engine.close()
  await vdb.close()
})

type Row = Record<string, unknown>
const all = (sql: string, ...params: unknown[]) => vdb.sqlite.prepare(sql).all(...params) as Row[]

function unwrap<T>(r: { ok: true; value: T } | { ok: false; issues: readonly unknown[] }): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.issues)}`)
  return r.value
}

describe('engine', () => {
  it('answers the spec example (investors through the industries of companies)', async () => {
    const request = {
      dataset: 'investor',
      filter: { and: [{ portfolio_size: { gte: 30 } }, { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech'] } } } }] },
      per_page: 50,
    }
    const env = unwrap(await engine.query(request))

    // Independently: plain JS over the raw tables.
    const fintech = new Set(all(`select company_id from company_industries where value = 'Fintech'`).map((r) => r.company_id))
    const expected = all('select id, portfolio_size from investors')
      .filter((inv) => inv.portfolio_size !== null && Number(inv.portfolio_size) >= 30)
      .filter((inv) => all('select company_id from investments where investor_id = ?', inv.id).some((l) => fintech.has(l.company_id)))
    expect(expected.length).toBeGreaterThan(1)
    expect(expected.length).toBeLessThan(all('select id from investors').length)

    expect(env.meta).toEqual({ total_record_count: expected.length, total_pages: 1, current_page: 1, per_page: 50 })
    expect(new Set(env.results.map((r) => r.investor_id))).toEqual(new Set(expected.map((r) => r.id)))
    // Default investor sort: portfolio_size desc.
    const sizes = env.results.map((r) => r.portfolio_size as number)
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a))
    expect(env.results.every((r) => r.resource_type === 'investor')).toBe(true)
    expect(env.query).toEqual({
      query_id: env.query_id,
      dataset: 'investors',
      filter: { and: [{ foreign: { dataset: 'companies', filter: { industries: { has_any: ['Fintech'] } }, match: 'any' } }, { portfolio_size: { gte: 30 } }] },
      sort: [{ portfolio_size: 'desc' }],
      query_version: 2001,
    })
    expect(env.query_id).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it('serialises records in the wire forms of the catalog', async () => {
    const env = unwrap(await engine.query({ dataset: 'companies', filter: { svc_score: { is_null: false } }, per_page: 5 }))
    const first = env.results[0]!
    expect(typeof first.id).toBe('string')
    expect(typeof first.svc_score).toBe('string')
    expect(typeof first.total_funding === 'number' || first.total_funding === null).toBe(true)
    expect(typeof first.has_mobile).toBe('boolean')
    expect(Array.isArray(first.industries)).toBe(true)
    const raw = all('select svc_score from companies where id = ?', Number(first.id))[0]!
    expect(first.svc_score).toBe(String(raw.svc_score))
  })

  it('returns issues, not exceptions, for a bad request', async () => {
    const r = await engine.query({ dataset: 'investor', filter: { portfolio_sise: 3 } })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.issues[0]).toMatchObject({ code: 'unknown_field', path: '/filter/portfolio_sise', suggestions: ['portfolio_size'] })
  })

  it('never throws on arbitrary input', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.anything(), async (request, other) => {
        for (const r of [await engine.query(request), await engine.store(request), await engine.explain(request), await engine.count(request)]) {
          expect(typeof r.ok).toBe('boolean')
        }
        const paged = await engine.page(request, { page: other as never, per_page: other as never })
        expect(typeof paged.ok).toBe('boolean')
      }),
      { numRuns: 150, seed: 42 },
    )
  })
})

describe('stored queries', () => {
  it('stores idempotently under a content-addressed id', async () => {
    const request = { dataset: 'companies', filter: { country: 'USA', employees: { gte: 50 } } }
    const a = unwrap(await engine.store(request))
    const b = unwrap(await engine.store(request))
    expect(b.query_id).toBe(a.query_id)
    expect(all('select count(*) n from stored_queries where query_id = ?', a.query_id)[0]!.n).toBe(1)
    expect(a.query_version).toBe(2001)
  })

  it('gives the same id to permutations: key order, and/or child order, list order, duplicates', async () => {
    const conditions = [
      { stage: { in: ['a', 'b', 'c'] } },
      { employees: { gte: 10 } },
      { or: [{ country: 'USA' }, { industries: { has_any: ['Fintech', 'Software'] } }] },
      { name: { contains: 'a' } },
    ]
    const base = unwrap(await engine.store({ dataset: 'companies', filter: { and: conditions }, sort: [{ employees: 'desc' }] })).query_id
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(conditions, { minLength: 4, maxLength: 4 }),
        fc.shuffledSubarray(['a', 'b', 'c', 'b'], { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        async (shuffled, stages, flipOr, flipKeys) => {
          const permuted = shuffled.map((cnd) => {
            if ('stage' in cnd) return { stage: { in: stages } }
            if ('or' in cnd && flipOr) return { or: [{ industries: { has_any: ['Software', 'Fintech', 'Fintech'] } }, { country: 'USA' }] }
            return cnd
          })
          const request = flipKeys
            ? { sort: [{ employees: 'desc' }], filter: { and: permuted }, dataset: 'company' }
            : { dataset: 'companies', filter: { and: permuted }, sort: [{ employees: 'desc' }] }
          expect(unwrap(await engine.store(request)).query_id).toBe(base)
        },
      ),
      { numRuns: 40, seed: 3 },
    )
    // A different query gets a different id.
    const other = unwrap(await engine.store({ dataset: 'companies', filter: { and: conditions }, sort: [{ employees: 'asc' }] })).query_id
    expect(other).not.toBe(base)
  })

  it('pages by id, and a page past the end is empty with correct meta', async () => {
    const env = unwrap(await engine.query({ dataset: 'companies', filter: { employees: { gte: 10 } }, per_page: 7 }))
    const total = env.meta.total_record_count
    expect(total).toBeGreaterThan(14)
    const page2 = unwrap(await engine.page(env.query_id, { page: 2, per_page: 7 }))
    expect(page2.results).toHaveLength(7)
    expect(page2.query.query_version).toBe(2001)
    const beyond = unwrap(await engine.page(env.query_id, { page: 10_000, per_page: 7 }))
    expect(beyond.results).toEqual([])
    expect(beyond.meta).toEqual({ total_record_count: total, total_pages: Math.ceil(total / 7), current_page: 10_000, per_page: 7 })
  })

  it('pages at the per_page the query last ran or was stored with when the call gives none (rows 6-10 after per_page 5)', async () => {
    const request = { dataset: 'companies', filter: { employees: { gte: 3 } }, sort: [{ employees: 'desc' }] }
    const all20 = unwrap(await engine.query({ ...request, per_page: 20 })).results
    const first = unwrap(await engine.query({ ...request, per_page: 5 }))
    expect(first.results).toEqual(all20.slice(0, 5))
    const second = unwrap(await engine.page(first.query_id, { page: 2 }))
    expect(second.meta.per_page).toBe(5)
    expect(second.results).toEqual(all20.slice(5, 10))
    expect(unwrap(await engine.pageWithoutTotal(first.query_id, { page: 3 })).results).toEqual(all20.slice(10, 15))
    // A per_page given wins; the query run again with another size moves its own.
    expect(unwrap(await engine.page(first.query_id, { page: 2, per_page: 3 })).results).toEqual(all20.slice(3, 6))
    unwrap(await engine.query({ ...request, per_page: 4 }))
    expect(unwrap(await engine.page(first.query_id, { page: 2 })).results).toEqual(all20.slice(4, 8))
    // store() remembers the per_page of its request too; a query never run here pages at the default.
    const stored = unwrap(await engine.store({ ...request, sort: [{ employees: 'asc' }], per_page: 6 }))
    expect(unwrap(await engine.page(stored.query_id, { page: 1 })).meta.per_page).toBe(6)
    const elsewhere = createEngine({ database: vdb })
    try {
      expect(unwrap(await elsewhere.page(first.query_id, { page: 2 })).meta.per_page).toBe(elsewhere.limits.defaultPerPage)
    } finally {
      await elsewhere.close()
    }
  })

  it('walking every page by id returns each matching row once, in the unpaged order', async () => {
    const requests = [
      { dataset: 'companies', filter: { employees: { gte: 5 } }, sort: [{ svc_score: 'desc' }, { stage: 'asc' }] },
      { dataset: 'companies', filter: { or: [{ country: 'USA' }, { total_funding: { is_null: true } }] }, sort: [{ last_funding_date: 'asc' }, { momentum_score: 'desc' }] },
      { dataset: 'fundings', filter: { amount: { gte: 1 } }, sort: [{ series: 'desc' }, { rounds_funding_date: 'asc' }] },
      { dataset: 'investors', filter: {}, sort: [{ type: 'asc' }, { avg_deal_size: 'desc' }] },
    ]
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...requests), fc.integer({ min: 1, max: 60 }), async (request, perPage) => {
        const unpaged = unwrap(await engine.query({ ...request, per_page: 1000 }))
        const total = unpaged.meta.total_record_count
        expect(unpaged.results.length).toBe(Math.min(total, 1000))
        const pk = request.dataset === 'investors' ? 'investor_id' : 'id'
        const ids: unknown[] = []
        for (let page = 1; page <= unpaged.meta.total_pages * Math.ceil(1000 / perPage) + 1; page++) {
          const env = unwrap(await engine.page(unpaged.query_id, { page, per_page: perPage }))
          expect(env.meta.total_record_count).toBe(total)
          if (env.results.length === 0) break
          ids.push(...env.results.map((r) => r[pk]))
        }
        expect(ids).toEqual(unpaged.results.map((r) => r[pk]))
      }),
      { numRuns: 16, seed: 11 },
    )
  })

  it('answers unknown_query for an unknown id and invalid_page for bad paging', async () => {
    const r = await engine.page('nope', { page: 1, per_page: 10 })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.issues[0]?.code).toBe('unknown_query')
    // Not an id's characters at all (NUL, spaces, quotes): refused before any SQL, the same issue.
    for (const odd of ['a\u0000b', "x' or 1=1--", 'with space', '']) {
      const refused = await engine.page(odd, { page: 1, per_page: 10 })
      expect(!refused.ok && refused.issues.map((i) => i.code)).toEqual(['unknown_query'])
    }
    const stored = unwrap(await engine.store({ dataset: 'companies' }))
    const bad = await engine.page(stored.query_id, { page: 0, per_page: 10 })
    expect(!bad.ok && bad.issues.map((i) => [i.code, i.path])).toEqual([['invalid_page', '/page']])
    const tooBig = await engine.page(stored.query_id, { page: 1, per_page: 5000 })
    expect(!tooBig.ok && tooBig.issues.map((i) => [i.code, i.path])).toEqual([['limit_exceeded', '/per_page']])
  })

  it('pages a stored query whose canonical form is deeper than the request (ne spelled as not)', async () => {
    // 12 levels of and/or (the default maxDepth) ending in `ne`: accepted when posted; the canonical
    // form spells `ne` as `not(eq)`, one level deeper, and must still page by id.
    const limited = createEngine({ database: vdb })
    let filter: Record<string, unknown> = { country: { ne: 'USA' } }
    for (let level = 0; level < limited.limits.maxDepth - 1; level++) {
      filter = { [level % 2 === 0 ? 'and' : 'or']: [filter, { employees: { gte: 0 } }] }
    }
    const posted = unwrap(await limited.query({ dataset: 'companies', filter, per_page: 5 }))
    const paged = unwrap(await limited.page(posted.query_id, { page: 1, per_page: 5 }))
    expect(paged.meta.total_record_count).toBe(posted.meta.total_record_count)
    expect(paged.results).toEqual(posted.results)
    // Also at the node limit: an `or` of `ne` conditions doubles in node count.
    const wide = { or: Array.from({ length: limited.limits.maxNodes - 1 }, (_, i) => ({ employees: { ne: i } })) }
    const wideStored = unwrap(await limited.store({ dataset: 'companies', filter: wide }))
    expect(unwrap(await limited.page(wideStored.query_id, { page: 1, per_page: 5 })).meta.total_record_count).toBeGreaterThan(0)
  })

  it('accepts page and per_page as digit strings, as they arrive from a URL', async () => {
    const stored = unwrap(await engine.store({ dataset: 'companies', filter: { country: 'USA' } }))
    const fromNumbers = unwrap(await engine.page(stored.query_id, { page: 2, per_page: 7 }))
    const fromStrings = unwrap(await engine.page(stored.query_id, { page: '2', per_page: '7' }))
    expect(fromStrings).toEqual(fromNumbers)
    const bad = await engine.page(stored.query_id, { page: '2x' })
    expect(!bad.ok && bad.issues.map((i) => [i.code, i.path])).toEqual([['invalid_page', '/page']])
  })

  it('answers query_outdated for another query_version or a filter that no longer checks', async () => {
    const insert = vdb.sqlite.prepare(`insert into stored_queries (query_id, query_version, dataset, canonical, created_at) values (?, ?, ?, ?, '2020-01-01 00:00:00')`)
    insert.run('old-version', 999, 'companies', JSON.stringify({ dataset: 'companies', filter: { employees: { gte: 1 } }, sort: [] }))
    insert.run('gone-field', 2001, 'companies', JSON.stringify({ dataset: 'companies', filter: { headcount: { gte: 1 } }, sort: [] }))
    const a = await engine.page('old-version')
    expect(!a.ok && a.issues[0]).toMatchObject({ code: 'query_outdated', got: 'query_version 999' })
    const b = await engine.page('gone-field')
    expect(!b.ok && b.issues.map((i) => i.code)).toEqual(['query_outdated', 'unknown_field'])
  })

  it('caches totals per data version and recounts after an ingest bumps it', async () => {
    const request = { dataset: 'companies', filter: { country: 'USA' }, per_page: 5 }
    const env = unwrap(await engine.query(request))
    const total = env.meta.total_record_count
    const version = Number(all(`select value from meta where key = 'data_version'`)[0]!.value)
    expect(all('select total from query_totals where query_id = ? and data_version = ?', env.query_id, version)).toEqual([{ total }])

    // The cache is what answers: a planted total shows through.
    vdb.sqlite.prepare('update query_totals set total = 12345 where query_id = ? and data_version = ?').run(env.query_id, version)
    expect(unwrap(await engine.page(env.query_id, { per_page: 5 })).meta.total_record_count).toBe(12345)

    // A new row and a new data version: counted again.
    vdb.sqlite.prepare(`insert into companies (id, name, country) values (999999, 'Late Co', 'USA')`).run()
    await bumpDataVersion(vdb)
    expect(unwrap(await engine.page(env.query_id, { per_page: 5 })).meta.total_record_count).toBe(total + 1)
    vdb.sqlite.prepare('delete from companies where id = 999999').run()
    await bumpDataVersion(vdb)
  })
})

describe('explain and count', () => {
  it('explains without storing', async () => {
    const request = { dataset: 'companies', filter: { name: { starts_with: 'zz-explain' } } }
    const r = unwrap(await engine.explain(request))
    expect(r.sql).toContain('like ? escape')
    expect(r.parameters).toContain('zz-explain%')
    expect(r.count_sql).toMatch(/^select count\(\*\)/)
    expect(r.canonical).toEqual({ dataset: 'companies', filter: { name: { starts_with: 'zz-explain' } }, sort: [{ svc_score: 'desc' }] })
    expect(all('select * from stored_queries where query_id = ?', r.query_id)).toEqual([])
    expect(unwrap(await engine.store(request)).query_id).toBe(r.query_id)
  })

  it('counts what query selects', async () => {
    const request = { dataset: 'fundings', filter: { series: { in: ['seed', 'a'] } } }
    const n = unwrap(await engine.count(request))
    expect(n).toBe(all(`select count(*) n from fundings where series in ('seed', 'a')`)[0]!.n)
    expect(n).toBeGreaterThan(0)
  })
})

describe('read-only database', () => {
  it('lists, queries and counts without writing its caches', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vql-ro-'))
    try {
      const file = join(dir, 'ro.db')
      const writable = await createFixtureDatabase({ file, companies: 120 })
      await writable.close()
      const vdb = openDatabase(file, { readonly: true })
      const engine = createEngine({ database: vdb })
      try {
        const request = { dataset: 'companies', filter: { employees: { gte: 10 } }, per_page: 5, page: 2 }
        const listed = await engine.list(request)
        if (!listed.ok) throw new Error(JSON.stringify(listed.issues))
        const expected = vdb.sqlite.prepare('select count(*) as n from companies where employees >= 10').get() as { n: number }
        expect(listed.value.meta.total_record_count).toBe(expected.n)
        expect(listed.value.results).toHaveLength(5)
        const queried = await engine.query(request)
        if (!queried.ok) throw new Error(JSON.stringify(queried.issues))
        expect(queried.value.results).toEqual(listed.value.results)
        const cached = vdb.sqlite.prepare('select (select count(*) from query_totals) + (select count(*) from query_checkpoints) + (select count(*) from stored_queries) as n').get() as { n: number }
        expect(cached.n).toBe(0)
      } finally {
        await engine.close()
        await vdb.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
