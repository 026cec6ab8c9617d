/**
 * @module Differential, SQLite against PostgreSQL: the same fixture (copied with copyToPostgres),
 * the same generated requests (src/testing/arbitraries.ts), and the engine on each backend must
 * answer exactly alike: totals, page results (records, in order), query ids, pages walked by
 * stored query id, NULLs-last sorts, null-safe negation and every `foreign` form (the correlated
 * EXISTS / NOT EXISTS, the semi-join `IN (SELECT ...)` of pinned and nested `foreign`, and its
 * complement, NOT EXISTS over the keys on PostgreSQL and NOT IN on SQLite). As in the SQLite property tests, the
 * share of generated filters that select some but not all rows is measured and asserted, so the
 * comparison cannot pass by comparing empty (or full) results.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATASET_NAMES, datasets, FOREIGN_MATCH_MODES, relations, type DatasetName } from '../../src/catalog/index.js'
import { createEngine, type Engine } from '../../src/engine.js'
import { loadSnapshot, type Snapshot } from '../../src/reference/index.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { PostgresVentureDb, SqliteVentureDb } from '../../src/store/open.js'
import { filterArbitraries, forEveryFieldOperator, type FilterArbitraries, type RequestJson } from '../../src/testing/arbitraries.js'
import { numRuns } from '../support/num-runs.js'
import { testSchema, type TestSchema } from './support.js'

const ALL_ROWS = 100_000

let schema: TestSchema
let source: SqliteVentureDb
let target: PostgresVentureDb
let lite: Engine<SqliteVentureDb>
let pgEngine: Engine<PostgresVentureDb>
let snapshot: Snapshot
let arbs: FilterArbitraries

beforeAll(async () => {
  schema = await testSchema('differential')
  source = await createFixtureDatabase()
  target = await schema.open()
  await copyToPostgres(source, target)
  snapshot = await loadSnapshot(source)
  arbs = filterArbitraries(snapshot)
  // No cost limit: these tests compare what filters select (test/check/rules/cost-within-limit.test.ts
  // tests the limit), and nested generated filters can exceed it.
  lite = createEngine({ database: source, limits: { maxPerPage: ALL_ROWS, maxCost: Number.MAX_SAFE_INTEGER } })
  pgEngine = createEngine({ database: target, limits: { maxPerPage: ALL_ROWS, maxCost: Number.MAX_SAFE_INTEGER } })
})
afterAll(async () => {
  await source?.close()
  await schema?.drop()
})

/**
 * The answer of a call, its predicted milliseconds left out: the prediction uses each backend's own
 * figures (check/cost.ts, TIME_MODEL), so only the units and rows of the cost must agree.
 */
function value<T>(r: { ok: true; value: T } | { ok: false; issues: unknown }, request: unknown): T {
  if (!r.ok) throw new Error(`engine rejected a valid request ${JSON.stringify(request)}: ${JSON.stringify(r.issues)}`)
  const cost = (r.value as { cost?: { units: number; rows: number; ms: number } } | null)?.cost
  if (cost === undefined) return r.value
  return { ...r.value, cost: { units: cost.units, rows: cost.rows } }
}

const total = (name: DatasetName) => snapshot.datasets[name].ids.length

/** Runs `request` on both engines (every row on one page) and asserts the envelopes are identical. */
async function same(request: object): Promise<{ matched: number; dataset: DatasetName }> {
  const all = { ...request, per_page: ALL_ROWS }
  const a = value(await lite.query(all), all)
  const b = value(await pgEngine.query(all), all)
  expect(b, JSON.stringify(request)).toEqual(a)
  return { matched: a.meta.total_record_count, dataset: a.query.dataset as DatasetName }
}

describe('engine on PostgreSQL = engine on SQLite, over the same copied fixture', () => {
  it('the fixture is big enough for the comparison to mean something', () => {
    for (const name of DATASET_NAMES) expect(total(name), name).toBeGreaterThanOrEqual(10)
  })

  it('generated requests: same totals, records in the same order, same query ids; a random page by id too', async () => {
    const outcomes: Array<{ dataset: DatasetName; matched: number }> = []
    await fc.assert(
      fc.asyncProperty(arbs.request(), fc.integer({ min: 1, max: 25 }), fc.integer({ min: 1, max: 6 }), async (request: RequestJson, perPage, page) => {
        outcomes.push(await same(request))
        const stored = value(await lite.store(request), request)
        expect(value(await pgEngine.store(request), request).query_id).toBe(stored.query_id)
        const a = value(await lite.page(stored.query_id, { page, per_page: perPage }), stored)
        const b = value(await pgEngine.page(stored.query_id, { page, per_page: perPage }), stored)
        expect(b).toEqual(a)
        const counted = value(await pgEngine.count(request), request)
        expect(counted).toBe(a.meta.total_record_count)
      }),
      { numRuns: numRuns(150) },
    )
    const partial = outcomes.filter((o) => o.matched > 0 && o.matched < total(o.dataset)).length
    const none = outcomes.filter((o) => o.matched === 0).length
    const share = partial / outcomes.length
    console.info(`postgres differential: ${outcomes.length} requests; ${partial} matched some but not all rows (${(share * 100).toFixed(0)}%), ${none} matched none`)
    expect(share, 'generated filters must mostly select some but not all rows').toBeGreaterThanOrEqual(0.25)
    for (const name of DATASET_NAMES) expect(outcomes.some((o) => o.dataset === name), `no request over ${name} was generated`).toBe(true)
  })

  it('walking every page by stored query id gives the same pages, and together the whole result', async () => {
    let walked = 0
    await fc.assert(
      fc.asyncProperty(arbs.request(), fc.integer({ min: 3, max: 40 }), async (request, perPage) => {
        await same(request)
        const whole = value(await pgEngine.query({ ...request, per_page: ALL_ROWS }), request)
        const id = whole.query_id
        const pages = Math.max(1, Math.ceil(whole.meta.total_record_count / perPage))
        // Jump to the last page first (the cursor walks and remembers boundaries), then go in order.
        const lastA = value(await lite.page(id, { page: pages, per_page: perPage }), id)
        const lastB = value(await pgEngine.page(id, { page: pages, per_page: perPage }), id)
        expect(lastB).toEqual(lastA)
        const collected: unknown[] = []
        for (let p = 1; p <= pages; p++) {
          const a = value(await lite.page(id, { page: p, per_page: perPage }), id)
          const b = value(await pgEngine.page(id, { page: p, per_page: perPage }), id)
          expect(b).toEqual(a)
          collected.push(...b.results)
        }
        expect(collected).toEqual(whole.results)
        // One past the end: empty on both.
        expect(value(await pgEngine.page(id, { page: pages + 1, per_page: perPage }), id).results).toEqual([])
        if (pages > 1) walked++
      }),
      { numRuns: numRuns(40) },
    )
    expect(walked, 'some walks must span several pages').toBeGreaterThan(5)
  })

  it('NULLs sort last in both directions, on every sortable field', async () => {
    let nullable = 0
    for (const name of DATASET_NAMES) {
      const ds = datasets[name]
      for (const field of Object.values(ds.fields)) {
        if (!field.sortable) continue
        for (const direction of ['asc', 'desc'] as const) {
          await same({ dataset: name, filter: {}, sort: [{ [field.name]: direction }] })
          const rows = value(await pgEngine.list({ dataset: name, filter: {}, sort: [{ [field.name]: direction }], per_page: ALL_ROWS }), field.name).results
          const values = rows.map((r) => r[field.name])
          const firstNull = values.indexOf(null)
          if (firstNull >= 0 && firstNull < values.length) {
            nullable++
            expect(values.slice(firstNull).every((v) => v === null), `${name}.${field.name} ${direction}: NULLs last`).toBe(true)
          }
        }
      }
    }
    expect(nullable, 'the fixture must have NULLs in sorted fields').toBeGreaterThan(4)
  })

  it('negation is null-safe: count(P) + count(not P) = count(all), equal on both backends', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DATASET_NAMES).chain((ds) => fc.tuple(fc.constant(ds), arbs.filter(ds))), async ([dataset, filter]) => {
        const p = value(await pgEngine.count({ dataset, filter }), filter)
        const notP = value(await pgEngine.count({ dataset, filter: { not: filter } }), filter)
        expect(p + notP).toBe(total(dataset))
        expect(p).toBe(value(await lite.count({ dataset, filter }), filter))
        await same({ dataset, filter: { not: filter } })
      }),
      { numRuns: numRuns(60) },
    )
  })

  it('foreign in every direction and match mode (correlated EXISTS / NOT EXISTS) agrees', async () => {
    let partial = 0
    let cases = 0
    for (const relation of relations) {
      for (const match of FOREIGN_MATCH_MODES) {
        await fc.assert(
          fc.asyncProperty(arbs.filter(relation.to), async (inner) => {
            const filter = { foreign: { dataset: relation.to, filter: inner, match } }
            const { matched } = await same({ dataset: relation.from, filter })
            const negated = await same({ dataset: relation.from, filter: { not: filter } })
            expect(matched + negated.matched).toBe(total(relation.from))
            cases++
            if (matched > 0 && matched < total(relation.from)) partial++
          }),
          { numRuns: numRuns(6) },
        )
      }
    }
    expect(partial / cases).toBeGreaterThanOrEqual(0.25)
  })

  it('nested foreign chains (depth 2-4, any/none/all), merged and unmerged siblings, and their complements agree', async () => {
    // A foreign inside a foreign is a set (semi-join, and on PostgreSQL NOT EXISTS over its keys
    // for none/all); siblings on one dataset merge (compile/relations.ts, check/foreign-plan.ts).
    let partial = 0
    let cases = 0
    const shapes = fc.constantFrom(...DATASET_NAMES).chain((ds) => fc.oneof(
      fc.integer({ min: 2, max: 4 }).chain((depth) => arbs.foreignChain(ds, depth)),
      arbs.foreignSiblings(ds),
    ).map((filter) => ({ dataset: ds, filter })))
    await fc.assert(
      fc.asyncProperty(shapes, async (request) => {
        const { matched } = await same(request)
        const negated = await same({ ...request, filter: { not: request.filter } })
        expect(matched + negated.matched).toBe(total(request.dataset))
        cases++
        if (matched > 0 && matched < total(request.dataset)) partial++
      }),
      { numRuns: numRuns(60) },
    )
    expect(partial / cases).toBeGreaterThanOrEqual(0.25)
  })

  it('the semi-join form (foreign any pinned by an identifying field) agrees with SQLite and with EXISTS', async () => {
    const slugs = source.sqlite.prepare('select svc_slug from investors order by id').pluck().all() as string[]
    const websites = source.sqlite.prepare('select website from companies where website is not null order by id limit 15').pluck().all() as string[]
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ...slugs.map((slug): [string, string, Record<string, unknown>] => ['companies', 'investors', { svc_slug: slug }]),
      ['fundings', 'investors', { svc_slug: { in: slugs.slice(0, 3) } }],
      ...websites.map((website): [string, string, Record<string, unknown>] => ['fundings', 'companies', { website }]),
    ]
    let nonEmpty = 0
    for (const [dataset, to, pinned] of cases) {
      const semi = { foreign: { dataset: to, filter: pinned } }
      const explained = value(await pgEngine.explain({ dataset, filter: semi }), semi)
      expect(explained.sql).toMatch(/ in \(select /)
      const a = await same({ dataset, filter: semi })
      // A branch that matches nothing keeps the filter from being recognised as pinned: EXISTS.
      const pk = to === 'investors' ? 'investor_id' : 'id'
      const exists = await same({ dataset, filter: { foreign: { dataset: to, filter: { or: [pinned, { [pk]: { lt: 0 } }] } } } })
      expect(exists.matched).toBe(a.matched)
      const negated = await same({ dataset, filter: { not: semi } })
      expect(a.matched + negated.matched).toBe(total(dataset as DatasetName))
      if (a.matched > 0) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(cases.length / 2)
  })

  it('every operator on every field, alone, selects the same rows in the same order', async () => {
    const pairs = await forEveryFieldOperator(arbs, numRuns(1, 'FC_PAIR_RUNS'), async (dataset, filter) => {
      await same({ dataset, filter })
    })
    expect(pairs).toBeGreaterThan(300)
  })
})
