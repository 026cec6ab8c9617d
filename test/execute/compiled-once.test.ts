/**
 * The statements a page compiles once and reuses (issue 9: the fixed cost of a page):
 * - the keys statement of a read from the start, per plan and walk choice, with only its limit
 *   changed from call to call: the same SQL and parameters as compiling it afresh, for every limit
 *   and walk choice; built through Kysely once per plan and walk choice, not once per call; never
 *   shared between two query shapes or two filters' values;
 * - the cached-total lookup, compiled once with placeholder values: it answers the total of the
 *   query id and data version asked for, never another's;
 * - after an ingest moves the data version, page 1 and its total show the new data;
 * - the probes of a page without its total and page 1's walk (`withNumbers`): the same SQL and
 *   parameters as compiling afresh, for any numbers, built through Kysely once per plan; a statement
 *   whose numbers are not parameters of their own is compiled per call;
 * - records built by the generated mapper equal the member-by-member mapper's, in value and order.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { and, condition as c, foreign, not, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import { datasets, type DatasetName } from '../../src/catalog/index.js'
import { planQuery, recordsByIdsQuery, sqliteDialect, type QueryPlan } from '../../src/compile/index.js'
import { createEngine } from '../../src/engine.js'
import { countRows, knownTotal, versionAndKnownTotal } from '../../src/execute/counts.js'
import { fetchKeys, type ExecContext } from '../../src/execute/index.js'
import { compiledMapper, loopMapper, recordMapper, recordSlots } from '../../src/execute/records.js'
import { keysFromStart, seekStatements } from '../../src/execute/run.js'
import { RAW_STATEMENTS_PER_HANDLE, readRows, withNumbers } from '../../src/execute/statements.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, dataVersionSync } from '../../src/store/open.js'
import { checked } from '../compile/helpers.js'

const vdb = await createFixtureDatabase({ companies: 400 })
const ctx: ExecContext = { db: vdb.db, dialect: sqliteDialect, dataVersion: dataVersionSync(vdb.sqlite), sqlite: vdb.sqlite }
afterAll(() => vdb.close())
const p = '/filter'

const shapes: readonly { name: string; dataset: DatasetName; filter?: FilterNode; sort?: [string, 'asc' | 'desc'][] }[] = [
  { name: 'companies, match-all', dataset: 'companies' },
  { name: 'companies, country and employees', dataset: 'companies', filter: and([c('country', 'eq', 'USA', p), c('employees', 'gte', 5, p)], p) },
  { name: 'companies, tags', dataset: 'companies', filter: c('industries', 'has_any', ['Fintech', 'Software'], p) },
  { name: 'companies, not or', dataset: 'companies', filter: not(or([c('country', 'eq', 'USA', p), c('employees', 'lt', 10, p)], p), p) },
  { name: 'companies without a seed round', dataset: 'companies', filter: foreign('fundings', c('series', 'eq', 'seed', p), 'none', p), sort: [['total_funding', 'desc']] },
  { name: 'investors with Fintech companies', dataset: 'investors', filter: and([c('portfolio_size', 'gte', 2, p), foreign('companies', c('industries', 'has_any', ['Fintech'], p), 'any', p)], p) },
  { name: 'fundings in 2020', dataset: 'fundings', filter: c('rounds_funding_date', 'between', ['2020-01-01', '2020-12-31'], p) },
]

/** The plan, with its keys builder counted. */
function countedPlan(plan: QueryPlan): { plan: QueryPlan; builds: () => number } {
  let builds = 0
  const counted: QueryPlan = { ...plan, keysQuery: (db, options) => { builds++; return plan.keysQuery(db, options) } }
  return { plan: counted, builds: () => builds }
}

describe('the keys statement of a read from the start', () => {
  it.each(shapes)('$name: the same SQL and parameters as compiling afresh, for every limit and walk choice', ({ dataset, filter, sort }) => {
    const plan = planQuery(checked(dataset, filter, sort), sqliteDialect)
    for (const walkSortIndex of [false, true]) {
      for (const limit of [1, 2, 3, 10, 51, 4097]) {
        const fresh = plan.keysQuery(vdb.db, { limit, walkSortIndex }).compile()
        const reused = keysFromStart(vdb.db, plan, walkSortIndex, limit)
        expect(reused.sql).toBe(fresh.sql)
        expect(reused.parameters).toEqual(fresh.parameters)
      }
    }
  })

  it('is built through Kysely once per plan and walk choice, not once per page', async () => {
    const base = planQuery(checked('companies', c('country', 'eq', 'USA', p), [['svc_score', 'desc']]), sqliteDialect)
    expect(base.canWalkSortIndex).toBe(true)
    const { plan, builds } = countedPlan(base)
    const rows = vdb.sqlite.prepare('select count(*) from companies').pluck().get() as number
    const expected = async (limit: number, walkSortIndex: boolean) =>
      (await base.keysQuery(vdb.db, { limit, walkSortIndex }).execute()).map((r) => Number(r[base.keys.at(-1)!.alias]))
    for (let i = 0; i < 5; i++) {
      // Few matches: driven from the filter's index; as many as the rows: the sort index walked.
      const driven = await fetchKeys(ctx, plan, { limit: 10 + i, matches: 1 })
      const walked = await fetchKeys(ctx, plan, { limit: 10 + i, matches: rows })
      expect(driven.map((k) => k.id)).toEqual(await expected(10 + i, false))
      expect(walked.map((k) => k.id)).toEqual(await expected(10 + i, true))
    }
    // Two compilations per walk choice (limits 1 and 2, to find the limit among the parameters).
    expect(builds()).toBe(4)
    expect(keysFromStart(vdb.db, base, true, 10).sql).not.toBe(keysFromStart(vdb.db, base, false, 10).sql)
  })

  it('is never shared between filters that differ in values or in shape', async () => {
    const plans = [
      planQuery(checked('companies', c('country', 'eq', 'USA', p)), sqliteDialect),
      planQuery(checked('companies', c('country', 'eq', 'DEU', p)), sqliteDialect),
      planQuery(checked('companies', c('country', 'ne', 'USA', p)), sqliteDialect),
      planQuery(checked('companies', c('country', 'eq', 'USA', p), [['employees', 'asc']]), sqliteDialect),
    ]
    const direct = [
      "select id from companies where country = 'USA' order by id limit 20",
      "select id from companies where country = 'DEU' order by id limit 20",
      "select id from companies where country is null or country <> 'USA' order by id limit 20",
      "select id from companies where country = 'USA' order by employees asc nulls last, id limit 20",
    ].map((q) => vdb.sqlite.prepare(q).pluck().all() as number[])
    // Interleaved, twice, so every plan runs after every other one's statement is cached.
    for (let round = 0; round < 2; round++) {
      for (const [i, plan] of plans.entries()) {
        const keys = await fetchKeys(ctx, plan, { limit: 20 })
        expect(keys.map((k) => k.id)).toEqual(direct[i])
      }
    }
    expect(new Set(direct.map((ids) => JSON.stringify(ids))).size).toBe(direct.length)
  })
})

describe('the keys statements after a boundary', () => {
  // Boundaries of every shape the sorts give: NULL and non-NULL first values, text, numbers and
  // booleans, taken from real rows so that each seek also reads rows.
  const sorts: readonly { name: string; dataset: DatasetName; filter?: FilterNode; sort: [string, 'asc' | 'desc'][] }[] = [
    { name: 'last_funding_date desc (nullable, ties)', dataset: 'companies', filter: c('country', 'eq', 'USA', p), sort: [['last_funding_date', 'desc']] },
    { name: 'added_date desc', dataset: 'companies', filter: and([c('country', 'eq', 'USA', p), c('employees', 'gte', 5, p)], p), sort: [['added_date', 'desc']] },
    { name: 'stage asc, svc_score desc', dataset: 'companies', sort: [['stage', 'asc'], ['svc_score', 'desc']] },
    { name: 'has_mobile desc (boolean), name asc', dataset: 'companies', filter: c('employees', 'gte', 1, p), sort: [['has_mobile', 'desc'], ['name', 'asc']] },
    { name: 'fundings by rounds_funding_date desc', dataset: 'fundings', sort: [['rounds_funding_date', 'desc']] },
  ]

  it.each(sorts)('$name: the same SQL and parameters as compiling afresh, for every boundary and limit', async ({ dataset, filter, sort }) => {
    const plan = planQuery(checked(dataset, filter, sort), sqliteDialect)
    const all = await fetchKeys(ctx, plan, { limit: 100_000 })
    expect(all.length).toBeGreaterThan(50)
    const boundaries = [0, 1, 7, Math.floor(all.length / 2), all.length - 2].map((i) => all[i]!.boundary)
    // A NULL first value, when the sort has NULLs: the tail's own shape.
    const nullFirst = all.find((k) => k.boundary[0] === null)
    if (nullFirst) boundaries.push(nullFirst.boundary)
    for (const walk of [false, true]) {
      for (const after of boundaries) {
        const fresh = plan.seekRanges(after).map((range) => plan.keysQuery(vdb.db, { range, limit: 0, walkSortIndex: walk }))
        for (const limit of [1, 3, 51]) {
          const reused = seekStatements(vdb.db, plan, walk, after).map((statement) => statement(limit))
          const compiled = fresh.map((q) => q.limit(limit).compile())
          expect(reused.map((q) => q.sql)).toEqual(compiled.map((q) => q.sql))
          expect(reused.map((q) => [...q.parameters])).toEqual(compiled.map((q) => [...q.parameters]))
        }
      }
    }
  })

  it('pages after a boundary read the rows of a fresh compile, and are built once per boundary shape', async () => {
    const base = planQuery(checked('companies', c('country', 'eq', 'USA', p), [['last_funding_date', 'desc']]), sqliteDialect)
    const { plan, builds } = countedPlan(base)
    const all = await fetchKeys(ctx, base, { limit: 100_000 })
    const firstNull = all.findIndex((k) => k.boundary[0] === null)
    expect(firstNull).toBeGreaterThan(10)
    // Boundaries with a value (two shapes: walked and not) and in the NULL tail.
    const starts = [3, 10, firstNull - 2, firstNull + 1, firstNull + 5]
    for (let round = 0; round < 2; round++) {
      for (const start of starts) {
        for (const matches of [1, all.length]) {
          const got = await fetchKeys(ctx, plan, { after: all[start]!.boundary, limit: 7, matches })
          expect(got.map((k) => k.id)).toEqual(all.slice(start + 1, start + 8).map((k) => k.id))
        }
      }
    }
    // Per shape (a value or NULL first, walked or not) two compilations of every range, on the first
    // page of that shape only: at most 2 shapes x 2 walk choices x 2 sets x 3 ranges.
    expect(builds()).toBeGreaterThan(0)
    expect(builds()).toBeLessThanOrEqual(24)
  })

  it('is never shared between filters that differ in values', async () => {
    const usa = planQuery(checked('companies', c('country', 'eq', 'USA', p), [['added_date', 'desc']]), sqliteDialect)
    const deu = planQuery(checked('companies', c('country', 'eq', 'DEU', p), [['added_date', 'desc']]), sqliteDialect)
    const after = [(vdb.sqlite.prepare('select max(added_date) from companies').pluck().get() as string), 0]
    const direct = (country: string) => vdb.sqlite.prepare('select id from companies where country = ? and added_date <= ? order by added_date desc, id limit 5').pluck().all(country, after[0]) as number[]
    for (let round = 0; round < 2; round++) {
      expect((await fetchKeys(ctx, usa, { after, limit: 5 })).map((k) => k.id)).toEqual(direct('USA'))
      expect((await fetchKeys(ctx, deu, { after, limit: 5 })).map((k) => k.id)).toEqual(direct('DEU'))
    }
    expect(direct('USA')).not.toEqual(direct('DEU'))
  })
})

describe('the cached-total lookup', () => {
  it('answers the total of the query id and data version asked for, never another', async () => {
    vdb.sqlite.prepare('insert into query_totals (query_id, data_version, total) values (?, ?, ?)').run('query-a', 41, 5)
    vdb.sqlite.prepare('insert into query_totals (query_id, data_version, total) values (?, ?, ?)').run('query-a', 42, 9)
    vdb.sqlite.prepare('insert into query_totals (query_id, data_version, total) values (?, ?, ?)').run('query-b', 42, 13)
    const at = (dataVersion: number) => ({ ...ctx, dataVersion })
    expect(await knownTotal(at(41), 'query-a')).toBe(5)
    expect(await knownTotal(at(42), 'query-a')).toBe(9)
    expect(await knownTotal(at(42), 'query-b')).toBe(13)
    expect(await knownTotal(at(43), 'query-a')).toBeUndefined()
    expect(await knownTotal(at(41), 'query-b')).toBeUndefined()
    // The placeholders it was compiled with are not a query id and version that match anything.
    vdb.sqlite.prepare('insert into query_totals (query_id, data_version, total) values (?, ?, ?)').run('', 0, 77)
    expect(await knownTotal(at(42), '')).toBeUndefined()
    expect(await knownTotal(at(0), '')).toBe(77)
    vdb.sqlite.exec(`delete from query_totals where query_id in ('query-a', 'query-b', '')`)
  })
})

describe('the data version and the cached total in one statement', () => {
  it('reads what dataVersion and knownTotal read, at every version', async () => {
    const own = await createFixtureDatabase({ companies: 20 })
    try {
      const at = { db: own.db, dialect: sqliteDialect, sqlite: own.sqlite }
      const insert = own.sqlite.prepare('insert into query_totals (query_id, data_version, total) values (?, ?, ?)')
      const start = dataVersionSync(own.sqlite)
      insert.run('query-a', start, 5)
      insert.run('query-a', start + 1, 9)
      insert.run('query-b', start + 1, 13)
      expect(await versionAndKnownTotal(at, 'query-a')).toEqual({ dataVersion: start, total: 5 })
      expect(await versionAndKnownTotal(at, 'query-b')).toEqual({ dataVersion: start, total: undefined })
      bumpDataVersionSync(own.sqlite)
      expect(await versionAndKnownTotal(at, 'query-a')).toEqual({ dataVersion: start + 1, total: 9 })
      expect(await versionAndKnownTotal(at, 'query-b')).toEqual({ dataVersion: start + 1, total: 13 })
      expect(await versionAndKnownTotal(at, 'query-c')).toEqual({ dataVersion: start + 1, total: undefined })
      // A database whose version was never recorded is at version 0, as dataVersion says.
      own.sqlite.exec(`delete from meta where key = 'data_version'`)
      insert.run('query-a', 0, 3)
      expect(dataVersionSync(own.sqlite)).toBe(0)
      expect(await versionAndKnownTotal(at, 'query-a')).toEqual({ dataVersion: 0, total: 3 })
      expect(await versionAndKnownTotal(at, 'query-b')).toEqual({ dataVersion: 0, total: undefined })
    } finally {
      await own.close()
    }
  })

  it('is what the engine answers a page and a count with: a cached total at the current version only', async () => {
    const own = await createFixtureDatabase({ companies: 50 })
    // Every total written, so the test can plant one (the default keeps cheap ones in memory).
    const engine = createEngine({ database: own, paging: { persistTotalsFromMs: 0 } })
    try {
      const request = { dataset: 'companies', filter: { country: 'USA' }, per_page: 5 }
      const counted = await engine.count(request)
      if (!counted.ok) throw new Error(JSON.stringify(counted.issues))
      // A wrong total planted at the current version is believed (it is the cache); at another, never.
      const version = dataVersionSync(own.sqlite)
      own.sqlite.prepare('update query_totals set total = ? where data_version = ?').run(counted.value + 1000, version)
      const planted = await engine.list(request)
      if (!planted.ok) throw new Error(JSON.stringify(planted.issues))
      expect(planted.value.meta.total_record_count).toBe(counted.value + 1000)
      own.sqlite.prepare('update query_totals set data_version = ? where data_version = ?').run(version + 1, version)
      const recounted = await engine.list(request)
      if (!recounted.ok) throw new Error(JSON.stringify(recounted.issues))
      expect(recounted.value.meta.total_record_count).toBe(counted.value)
      expect(engine.stats().cache).toMatchObject({ totalHits: 1, totalMisses: 1 })
    } finally {
      await engine.close()
    }
  })
})

describe('a new data version', () => {
  it('shows page 1 and the total of the new data, with every statement already compiled', async () => {
    const own = await createFixtureDatabase({ companies: 200 })
    const engine = createEngine({ database: own })
    try {
      const request = { dataset: 'companies', filter: { country: 'USA' }, per_page: 5 }
      const before = await engine.list(request)
      if (!before.ok) throw new Error(JSON.stringify(before.issues))
      await engine.list(request) // the total now cached, the statements compiled
      // An ingest's effect: a company that sorts first, and a new data version.
      const columns = (own.sqlite.prepare('select name from pragma_table_info(?)').pluck().all('companies') as string[])
      const values = columns.map((name) => (name === 'id' ? '(select max(id) + 1 from companies)' : name === 'svc_score' ? '(select max(svc_score) + 1 from companies)' : name === 'country' ? `'USA'` : name))
      const firstId = own.sqlite.prepare('select max(id) + 1 from companies').pluck().get() as number
      own.sqlite.exec(`insert into companies (${columns.join(', ')}) select ${values.join(', ')} from companies where id = (select min(id) from companies)`)
      bumpDataVersionSync(own.sqlite)
      const after = await engine.list(request)
      if (!after.ok) throw new Error(JSON.stringify(after.issues))
      expect(after.value.meta.total_record_count).toBe(before.value.meta.total_record_count + 1)
      expect(Number(after.value.results[0]!.id)).toBe(firstId)
      expect(after.value.results.slice(1).map((r) => r.id)).toEqual(before.value.results.slice(0, 4).map((r) => r.id))
    } finally {
      await engine.close()
    }
  })
})

describe('records from the generated mapper', () => {
  it.each(['companies', 'investors', 'fundings'] as const)('%s: the same members, values and order as the member-by-member mapper, frozen', async (name) => {
    const dataset = datasets[name]
    const query = recordsByIdsQuery(vdb.db, sqliteDialect, dataset, vdb.sqlite.prepare(`select id from ${dataset.table} order by id`).pluck().all() as number[]).compile()
    const { columns, rows } = await readRows(ctx, query)
    expect(rows.length).toBeGreaterThan(10)
    const slots = recordSlots(dataset, columns)
    const generated = compiledMapper(slots)
    expect(generated).toBeDefined()
    const reference = loopMapper(slots)
    for (const row of rows) {
      const record = generated!(row)
      expect(Object.isFrozen(record)).toBe(true)
      expect(Object.keys(record)).toEqual(Object.keys(reference(row)))
      expect(record).toEqual(reference(row))
    }
    expect(recordMapper(dataset, columns)(rows[0]!)).toEqual(reference(rows[0]!))
    if (name === 'investors') expect(generated!(rows[0]!).resource_type).toBe('investor')
  })

  it('tag lists of numbers come out as strings; of strings, as they are', () => {
    const columns = companyRecordColumns()
    const slots = recordSlots(datasets.companies, columns)
    const row = columns.map((column) => (column === 'tags__industries' ? '["b",1,2.5]' : column === 'tags__keywords' ? '["x","y"]' : null))
    const record = compiledMapper(slots)!(row)
    expect(record.industries).toEqual(['b', '1', '2.5'])
    expect(record.keywords).toEqual(['x', 'y'])
    expect(record.business_models).toEqual([])
  })

  it('tag lists come out ascending in UTF-8 byte order (SQLite reads them in key order without sorting)', () => {
    const columns = companyRecordColumns()
    const slots = recordSlots(datasets.companies, columns)
    // U+FFFD sorts before an astral character in UTF-8, after it in UTF-16 code units.
    const row = columns.map((column) => (column === 'tags__industries' ? JSON.stringify(['\u{1F600}', '\uFFFD', 'b', 'a', 'B']) : column === 'tags__keywords' ? '["x","y"]' : null))
    for (const mapper of [compiledMapper(slots)!, loopMapper(slots)]) {
      const record = mapper(row)
      expect(record.industries).toEqual(['B', 'a', 'b', '\uFFFD', '\u{1F600}'])
      expect(record.keywords).toEqual(['x', 'y'])
    }
  })
})

describe('raw statements kept per handle', () => {
  it('answers correctly past the bound, when the first statements have been evicted', async () => {
    for (let n = 0; n < RAW_STATEMENTS_PER_HANDLE + 20; n++) {
      // Each its own SQL text: the value is a parameter, so the text differs by an alias.
      const compiled = vdb.db.selectNoFrom((eb) => eb.val(n).as(`n${n}`)).compile()
      expect((await readRows(ctx, compiled)).rows).toEqual([[n]])
    }
    const again = vdb.db.selectNoFrom((eb) => eb.val(3).as('n0')).compile()
    expect(await readRows(ctx, again)).toEqual({ columns: ['n0'], rows: [[3]] })
  })
})

/** The columns of the companies records statement, in its order. */
function companyRecordColumns(): string[] {
  return vdb.sqlite.prepare(recordsByIdsQuery(vdb.db, sqliteDialect, datasets.companies, [0]).compile().sql).columns().map((col) => col.name)
}

describe('a plan\'s count statement', () => {
  it.each(shapes.filter((s) => s.filter !== undefined))('$name: built through Kysely once per plan, counting what a fresh compile counts', async ({ dataset, filter, sort }) => {
    const base = planQuery(checked(dataset, filter, sort), sqliteDialect)
    let builds = 0
    const counted = <F extends ((db: never) => unknown) | undefined>(f: F): F =>
      (f === undefined ? undefined : (db: never) => { builds++; return f(db) }) as F
    const plan: QueryPlan = {
      ...base,
      countQuery: counted(base.countQuery),
      ...(base.complementCount ? { complementCount: counted(base.complementCount) } : {}),
      ...(base.splitCount ? { splitCount: counted(base.splitCount) } : {}),
      ...(base.ownerCount ? { ownerCount: { owner: base.ownerCount.owner, query: counted(base.ownerCount.query.bind(base.ownerCount)) } } : {}),
    }
    const fresh = Number((await base.countQuery(vdb.db).executeTakeFirstOrThrow()).count)
    for (let i = 0; i < 4; i++) expect(await countRows(ctx, plan)).toBe(fresh)
    expect(builds).toBe(1)
  })

  it('is never shared between plans whose values differ', async () => {
    const usa = planQuery(checked('companies', c('country', 'eq', 'USA', p)), sqliteDialect)
    const deu = planQuery(checked('companies', c('country', 'eq', 'DEU', p)), sqliteDialect)
    const direct = (country: string) => vdb.sqlite.prepare('select count(*) from companies where country = ?').pluck().get(country) as number
    expect(direct('USA')).not.toBe(direct('DEU'))
    for (let round = 0; round < 2; round++) {
      expect(await countRows(ctx, usa)).toBe(direct('USA'))
      expect(await countRows(ctx, deu)).toBe(direct('DEU'))
    }
  })
})

describe('statements compiled once with their numbers as parameters (withNumbers)', () => {
  it.each(shapes.filter((s) => s.filter))('$name: the probes and the walk, as compiled afresh, built once', ({ dataset, filter, sort }) => {
    const plan = planQuery(checked(dataset, filter, sort), sqliteDialect)
    let builds = 0
    type Build = (...n: number[]) => { compile(): { sql: string; parameters: readonly unknown[] } }
    const counted = (f: Build): Build => (...n) => { builds++; return f(...n) }
    const forms: [string, Build, number][] = [['probe', counted((b) => plan.probeQuery(vdb.db, b!)), 1]]
    const { walkProbeQuery, walkKeysQuery } = plan
    if (walkProbeQuery) forms.push(['walk probe', counted((r, h) => walkProbeQuery(vdb.db, r!, h!)), 2])
    if (walkKeysQuery) forms.push(['walk keys', counted((r, h) => walkKeysQuery(vdb.db, r!, h!)), 2])
    for (const [name, build, count] of forms) {
      const made: number[] = []
      for (const numbers of [[1, 2], [50, 708], [7, 7], [2_000_000_011, 3]].map((n) => n.slice(0, count))) {
        const fresh = build(...numbers).compile()
        const before = builds
        const reused = withNumbers(vdb.db, plan, name, build as never, numbers)
        made.push(builds - before)
        expect(reused.sql).toBe(fresh.sql)
        expect(reused.parameters).toEqual(fresh.parameters)
      }
      // Two builds to make the template on the first call, none after.
      expect(made, name).toEqual([2, 0, 0, 0])
    }
    expect(forms.length).toBeGreaterThan(0)
  })
  it('compiles per call a statement whose numbers are not parameters of their own', () => {
    const plan = planQuery(checked('companies', c('country', 'eq', 'USA', p)), sqliteDialect)
    let builds = 0
    // The number written into the SQL text: no template can put another in.
    const literal = (n: number) => { builds++; return { compile: () => ({ ...plan.probeQuery(vdb.db, 1).compile(), sql: `select ${n}`, parameters: [] }) } }
    expect(withNumbers(vdb.db, plan, 'literal', literal as never, [3]).sql).toBe('select 3')
    expect(withNumbers(vdb.db, plan, 'literal', literal as never, [4]).sql).toBe('select 4')
    expect(builds).toBe(4) // two to try the template, then one per call
  })
})

