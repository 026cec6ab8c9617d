/**
 * The statements of a page and a first count after issue 9's rework, against the plain forms they
 * replace:
 * - a page's records come from one statement (`recordsByIdsQuery`: columns plus each tags field as
 *   a JSON array), read as arrays: same records as the link tables say, tags sorted, `[]` when none;
 * - a top-level `foreign` with `match: none` is counted as the table's rows minus the `any` of the
 *   same inner filter (`complementCount`): the same number as counting the `none` directly, for
 *   direct and link relations, including fundings whose company id is NULL;
 * - serving the same page again does not write its page end again (one write transaction, not one
 *   per request), and a new data version writes it again.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { condition as c, foreign, and, or, matchAll } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { DatasetName } from '../../src/catalog/index.js'
import { planQuery, sqliteDialect } from '../../src/compile/index.js'
import { countRows, loadRecords, pageByCursor, type ExecContext } from '../../src/execute/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { checked } from '../compile/helpers.js'

const vdb = await createFixtureDatabase({ companies: 400 })
const ctx: ExecContext = { db: vdb.db, dialect: sqliteDialect, dataVersion: 0, sqlite: vdb.sqlite }
afterAll(() => vdb.close())
const p = '/filter'

describe('a page of records in one statement', () => {
  it('maps every column and each tags field from the link tables, sorted, [] when none', async () => {
    const ids = vdb.sqlite.prepare('select id from companies order by id').pluck().all() as number[]
    const plan = planQuery(checked('companies'), sqliteDialect)
    const records = await loadRecords(ctx, plan, ids)
    expect(records.map((r) => Number(r.id))).toEqual(ids)
    const tables = ['industries', 'business_models', 'keywords', 'play_categories', 'ios_store_categories'] as const
    let empty = 0
    let several = 0
    for (const t of tables) {
      const byOwner = vdb.sqlite.prepare(`select value from company_${t} where company_id = ? order by value`).pluck()
      for (const r of records) {
        const expected = byOwner.all(Number(r.id)) as string[]
        expect(r[t]).toEqual(expected)
        if (expected.length === 0) empty++
        if (expected.length > 1) several++
      }
    }
    // The fixture exercises both cases the aggregate must get right.
    expect(empty).toBeGreaterThan(10)
    expect(several).toBeGreaterThan(10)
    const row = vdb.sqlite.prepare('select name, svc_score, has_mobile from companies where id = ?').get(ids[7]) as Record<string, unknown>
    expect(records[7]).toMatchObject({ name: row.name, svc_score: String(row.svc_score), has_mobile: row.has_mobile === 1 })
  })

  it('keeps the order of the ids asked for and drops ids that do not exist', async () => {
    const plan = planQuery(checked('fundings'), sqliteDialect)
    const ids = (vdb.sqlite.prepare('select id from fundings order by id desc limit 5').pluck().all() as number[])
    const records = await loadRecords(ctx, plan, [ids[2]!, -1, ids[0]!, ids[4]!])
    expect(records.map((r) => Number(r.id))).toEqual([ids[2], ids[0], ids[4]])
  })
})

describe('counting foreign match none as the rows minus the any', () => {
  const cases: readonly { dataset: DatasetName; target: DatasetName; inner: FilterNode }[] = [
    { dataset: 'companies', target: 'fundings', inner: c('series', 'eq', 'seed', p) },
    { dataset: 'companies', target: 'fundings', inner: or([c('amount', 'gt', 5_000_000, p), c('amount', 'is_null', true, p)], p) },
    { dataset: 'companies', target: 'investors', inner: c('type', 'in', ['vc', 'angel'], p) },
    { dataset: 'companies', target: 'investors', inner: matchAll() },
    { dataset: 'investors', target: 'companies', inner: and([c('country', 'eq', 'USA', p), c('industries', 'has_any', ['Fintech', 'Software'], p)], p) },
    // A funding whose company id is NULL has no related company: it is `none`, and counted.
    { dataset: 'fundings', target: 'companies', inner: c('stage', 'in', ['a', 'b', 'c'], p) },
    { dataset: 'fundings', target: 'investors', inner: c('type', 'eq', 'angel', p) },
  ]
  it.each(cases)('$dataset without $target matching the inner filter', async ({ dataset, target, inner }) => {
    const plan = planQuery(checked(dataset, foreign(target, inner, 'none', p)), sqliteDialect)
    expect(plan.complementCount).toBeDefined()
    const direct = Number((await plan.countQuery(vdb.db).executeTakeFirstOrThrow()).count)
    const all = vdb.sqlite.prepare(`select count(*) from ${dataset}`).pluck().get() as number
    expect(await countRows(ctx, plan)).toBe(direct)
    // Neither side is trivial: some records have a related match and some do not.
    expect(direct).toBeGreaterThan(0)
    expect(direct).toBeLessThan(all)
  })

  it('includes fundings without a company among the none', async () => {
    const orphans = vdb.sqlite.prepare('select count(*) from fundings where company_id is null').pluck().get() as number
    const plan = planQuery(checked('fundings', foreign('companies', matchAll(), 'none', p)), sqliteDialect)
    const dangling = vdb.sqlite.prepare('select count(*) from fundings f where company_id is not null and not exists (select 1 from companies c where c.id = f.company_id)').pluck().get() as number
    expect(await countRows(ctx, plan)).toBe(orphans + dangling)
  })

  it('is not used for any, all, or a none below the top level', () => {
    const inner = c('series', 'eq', 'seed', p)
    expect(planQuery(checked('companies', foreign('fundings', inner, 'any', p)), sqliteDialect).complementCount).toBeUndefined()
    expect(planQuery(checked('companies', foreign('fundings', inner, 'all', p)), sqliteDialect).complementCount).toBeUndefined()
    expect(planQuery(checked('companies', and([c('country', 'eq', 'USA', p), foreign('fundings', inner, 'none', p)], p)), sqliteDialect).complementCount).toBeUndefined()
  })
})

describe('page ends already remembered are not written again', () => {
  it('writes a repeated page once per data version', async () => {
    let writes = 0
    const counting: ExecContext = {
      ...ctx,
      sqlite: {
        pragma: vdb.sqlite.pragma.bind(vdb.sqlite),
        // A cache write is one immediate transaction (cache-write.ts): counted as it begins.
        prepare: ((sql: string) => {
          const statement = vdb.sqlite.prepare(sql)
          if (!/^begin immediate$/i.test(sql)) return statement
          return { run: () => { writes++; return statement.run() } }
        }) as typeof vdb.sqlite.prepare,
        get inTransaction() { return vdb.sqlite.inTransaction },
        transaction: vdb.sqlite.transaction.bind(vdb.sqlite),
      },
    }
    const plan = planQuery(checked('companies', c('country', 'eq', 'USA', p), [['svc_score', 'desc']]), sqliteDialect)
    const request = { queryId: 'remembered-positions-test', page: 2, perPage: 5, matches: await countRows(ctx, plan) }
    const first = await pageByCursor(counting, plan, request)
    expect(first.records).toHaveLength(5)
    const afterFirst = writes
    expect(afterFirst).toBeGreaterThan(0)
    const stored = () => vdb.sqlite.prepare('select count(*) from query_checkpoints where query_id = ?').pluck().get(request.queryId)
    const rows = stored()
    for (let i = 0; i < 5; i++) expect((await pageByCursor(counting, plan, request)).records).toEqual(first.records)
    expect(writes).toBe(afterFirst)
    expect(stored()).toBe(rows)
    // Another data version remembers nothing yet: the page end is written for it.
    await pageByCursor({ ...counting, dataVersion: 1 }, plan, request)
    expect(writes).toBe(afterFirst + 1)
  })
})
