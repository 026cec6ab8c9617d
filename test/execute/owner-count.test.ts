/**
 * Counting from a tag or link table alone (compile/owner-count.ts, store/owner-integrity.ts):
 * - an ingest records, under its data version, the tag and link columns without orphan rows;
 * - a filter that is one tags has_any or one link-relation `foreign ... any` is then counted from
 *   that table, with the same total as the plain count, on every case the fixture has;
 * - an orphan row makes the owner form wrong, so it is used only while the record is current and
 *   lists that column: a change that moves the data version (as every writer must) turns it off,
 *   and the next record leaves out the column that has an orphan.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { condition as c, foreign, and } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { DatasetName } from '../../src/catalog/index.js'
import { planQuery, sqliteDialect } from '../../src/compile/index.js'
import { countRows, type ExecContext } from '../../src/execute/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, dataVersionSync } from '../../src/store/open.js'
import { completeOwners, ownerChecks, parseCompleteOwners, recordCompleteOwnersSync } from '../../src/store/owner-integrity.js'
import { checked } from '../compile/helpers.js'

const vdb = await createFixtureDatabase({ companies: 400 })
afterAll(() => vdb.close())
const p = '/filter'
const ctxNow = (): ExecContext => ({ db: vdb.db, dialect: sqliteDialect, dataVersion: dataVersionSync(vdb.sqlite), sqlite: vdb.sqlite })

const slugs = vdb.sqlite.prepare('select svc_slug from investors where number_of_deals > 1 order by number_of_deals desc limit 3').pluck().all() as string[]
const cases: readonly { name: string; dataset: DatasetName; filter: FilterNode; owner: string }[] = [
  { name: 'companies in one industry', dataset: 'companies', filter: c('industries', 'eq', 'Software', p), owner: 'company_industries.company_id' },
  { name: 'companies in either industry', dataset: 'companies', filter: c('industries', 'in', ['Fintech', 'Software'], p), owner: 'company_industries.company_id' },
  { name: 'companies with a keyword', dataset: 'companies', filter: c('business_models', 'has_any', ['B2B', 'B2C', 'Marketplace'], p), owner: 'company_business_models.company_id' },
  { name: 'fundings of the largest investor', dataset: 'fundings', filter: foreign('investors', c('svc_slug', 'eq', slugs[0]!, p), 'any', p), owner: 'funding_investors.funding_id' },
  { name: 'fundings of three investors (shared rounds counted once)', dataset: 'fundings', filter: foreign('investors', c('svc_slug', 'in', slugs, p), 'any', p), owner: 'funding_investors.funding_id' },
  { name: 'investors of USA companies', dataset: 'investors', filter: foreign('companies', c('country', 'eq', 'USA', p), 'any', p), owner: 'investments.investor_id' },
  { name: 'fundings of an investor, as GET /fundings?investor_slugs= sends it ({and: [...]})', dataset: 'fundings', filter: and([foreign('investors', c('svc_slug', 'in', [slugs[0]!], p), 'any', p)], p), owner: 'funding_investors.funding_id' },
  { name: 'companies with an angel investor', dataset: 'companies', filter: foreign('investors', c('type', 'eq', 'angel', p), 'any', p), owner: 'investments.company_id' },
]

describe('an ingest records the owner columns without orphans', () => {
  it('lists every tag and link owner column of the fixture under its current data version', () => {
    const value = vdb.sqlite.prepare(`select value from meta where key = 'complete_owners'`).pluck().get() as string
    const owners = parseCompleteOwners(value, dataVersionSync(vdb.sqlite))
    expect([...owners].sort()).toEqual(ownerChecks().map((o) => o.owner).sort())
    expect(owners.size).toBeGreaterThanOrEqual(9)
    // Another version's record trusts nothing.
    expect(parseCompleteOwners(value, dataVersionSync(vdb.sqlite) + 1).size).toBe(0)
    expect(parseCompleteOwners('not json', 1).size).toBe(0)
  })
})

describe('counting from the tag or link table', () => {
  it.each(cases)('$name: the same total as the plain count', async ({ dataset, filter, owner }) => {
    const plan = planQuery(checked(dataset, filter), sqliteDialect)
    expect(plan.ownerCount?.owner).toBe(owner)
    const plain = Number((await plan.countQuery(vdb.db).executeTakeFirstOrThrow()).count)
    const fromOwners = Number((await plan.ownerCount!.query(vdb.db).executeTakeFirstOrThrow()).count)
    const all = vdb.sqlite.prepare(`select count(*) from ${dataset}`).pluck().get() as number
    expect(fromOwners).toBe(plain)
    expect(await countRows(ctxNow(), plan)).toBe(plain)
    // Not trivial: some records match and some do not.
    expect(plain).toBeGreaterThan(0)
    expect(plain).toBeLessThan(all)
  })

  it('counts link rows without distinct only when one related record matches', async () => {
    const sqlOf = (i: number) => planQuery(checked('fundings', cases[i]!.filter), sqliteDialect).ownerCount!.query(vdb.db).compile()
    const one = sqlOf(3)
    // The sum of both counts, each under the probe as a constant condition: only one of them scans.
    const probe = '\\(select count\\(\\*\\) as "count" from \\(select 1 as "one" from "investors" as "t0" where [^)]* limit 2\\) as "m"\\)'
    expect(one.sql).toMatch(new RegExp(`^select \\(select count\\(\\*\\) as "count" from \\(.*\\) as "o" where ${probe} <= 1\\) \\+ \\(select count\\(distinct "o"."k"\\) as "count" from \\(.*\\) as "o" where ${probe} > 1\\) as "count"$`))
    // Three investors share rounds: their link rows outnumber the rounds, so counting them without
    // distinct would be wrong; the probe sends this case to count(distinct), and the totals above
    // agree with the plain count for both.
    const linkRows = vdb.sqlite.prepare(`select count(*) from funding_investors where investor_id in (select id from investors where svc_slug in (${slugs.map(() => '?').join(', ')}))`).pluck().get(...slugs) as number
    const rounds = Number((await planQuery(checked('fundings', cases[4]!.filter), sqliteDialect).countQuery(vdb.db).executeTakeFirstOrThrow()).count)
    expect(linkRows).toBeGreaterThan(rounds)
  })

  it('on SQLite runs the probe as a statement of its own, then the one count it picks; the same totals as one statement', async () => {
    for (const i of [3, 4, 6]) {
      const plan = planQuery(checked('fundings', cases[i]!.filter), sqliteDialect)
      const parts = plan.ownerCount!.byProbe!
      const related = Number((await parts.probe(vdb.db).executeTakeFirstOrThrow()).count)
      const plain = Number((await plan.countQuery(vdb.db).executeTakeFirstOrThrow()).count)
      // One investor (cases 3 and 6) and three (case 4): each picks its own form, both exact.
      expect(related).toBe(i === 4 ? 2 : 1)
      const picked = related <= 1 ? parts.single : parts.several
      expect(Number((await picked(vdb.db).executeTakeFirstOrThrow()).count)).toBe(plain)
      // Each run on a handle of its own, which prepares (and so shows) every statement it runs.
      const statementsOf = async (dialect: typeof sqliteDialect) => {
        const statements: string[] = []
        const sqlite = new Proxy(vdb.sqlite, {
          get(target, key) {
            if (key === 'prepare') return (source: string) => { statements.push(source); return target.prepare(source) }
            const value = Reflect.get(target, key) as unknown
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
          },
        })
        expect(await countRows({ ...ctxNow(), sqlite, dialect }, plan)).toBe(plain)
        return statements.filter((sql) => sql.includes('"funding_investors"') || sql.includes('"investors" as "t0"'))
      }
      // Two statements the first way (the probe, then a count without the probe inside), one the second.
      const local = await statementsOf(sqliteDialect)
      expect(local).toHaveLength(2)
      expect(local[0]).toMatch(/^select count\(\*\) as "count" from \(select 1 as "one" from "investors" as "t0"/)
      expect(local[1]).not.toContain('"m"')
      const combined = await statementsOf({ ...sqliteDialect, localStatements: false })
      expect(combined).toHaveLength(1)
      expect(combined[0]).toContain(' + ')
    }
  })

  it('is not planned for other shapes', () => {
    const none = (dataset: DatasetName, filter: FilterNode) => planQuery(checked(dataset, filter), sqliteDialect).ownerCount
    expect(none('companies', c('industries', 'has_all', ['Fintech', 'Software'], p))).toBeUndefined()
    expect(none('companies', c('industries', 'has_none', ['Fintech'], p))).toBeUndefined()
    expect(none('companies', c('country', 'eq', 'USA', p))).toBeUndefined()
    expect(none('companies', and([c('country', 'eq', 'USA', p), c('industries', 'eq', 'Software', p)], p))).toBeUndefined()
    // A direct relation (fundings.company_id) is counted from the fundings table already.
    expect(none('fundings', foreign('companies', c('country', 'eq', 'USA', p), 'any', p))).toBeUndefined()
    expect(none('fundings', foreign('investors', c('type', 'eq', 'angel', p), 'none', p))).toBeUndefined()
  })
})

describe('an orphan row', () => {
  it('is never counted: a new data version stops the owner form, and the next record leaves the column out', async () => {
    const { filter, dataset, owner } = cases[3]!
    const plan = planQuery(checked(dataset, filter), sqliteDialect)
    const plain = async () => Number((await plan.countQuery(vdb.db).executeTakeFirstOrThrow()).count)
    const before = await plain()
    const investorId = vdb.sqlite.prepare('select id from investors where svc_slug = ?').pluck().get(slugs[0]) as number
    // A link row naming a funding event that does not exist: the link table alone now says one more.
    vdb.sqlite.prepare('insert into funding_investors (funding_id, investor_id) values (?, ?)').run(999_999_999, investorId)
    expect(Number((await plan.ownerCount!.query(vdb.db).executeTakeFirstOrThrow()).count)).toBe(before + 1)
    expect(await plain()).toBe(before)

    // Any writer moves the data version: the record of the old one is not trusted.
    const version = bumpDataVersionSync(vdb.sqlite)
    expect((await completeOwners(vdb.db, version)).has(owner)).toBe(false)
    expect(await countRows(ctxNow(), plan)).toBe(before)

    // The next check finds the orphan and leaves that column out, and only that one.
    const passed = recordCompleteOwnersSync(vdb.sqlite, version)
    expect(passed).not.toContain(owner)
    expect(passed.length).toBe(ownerChecks().length - 1)
    expect(await countRows(ctxNow(), plan)).toBe(before)
    // Other columns keep the fast form.
    expect((await completeOwners(vdb.db, version)).has('company_industries.company_id')).toBe(true)
  })
})
