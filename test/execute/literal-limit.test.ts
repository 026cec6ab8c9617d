/**
 * Trailing LIMITs written as numbers on SQLite (src/execute/statements.ts, `withLiteralLimit`,
 * `LiteralLimits`, `limitedStatement`): a bound LIMIT costs about a prepare on every run, so the
 * engine writes a trailing limit into the SQL text instead. The rewrite must give the same rows,
 * touch only a trailing `limit ?` holding a safe whole number, reach the statements that
 * `readRows` and the record session prepare, and keep the number of statement texts bounded when
 * a statement's limit keeps changing.
 */
import Database from 'better-sqlite3'
import { CompiledQuery } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { LIMITS_PER_STATEMENT, LiteralLimits, limitedStatement, namedLimitedStatement, readRows, withLiteralLimit } from '../../src/execute/statements.js'
import { recordSession } from '../../src/records/session.js'
import { storiesOf } from '../../src/records/stories.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

const sqlite = new Database(':memory:')
sqlite.exec('create table t (id integer primary key, v text)')
const insert = sqlite.prepare('insert into t (id, v) values (?, ?)')
for (let i = 1; i <= 100; i++) insert.run(i, `v${i % 7}`)
const vdb = await createFixtureDatabase({ companies: 200 })
afterAll(async () => {
  sqlite.close()
  await vdb.close()
})

const SQL = 'select id from t where v = ? order by id limit ?'

/** `handle` with every SQL text it prepares recorded (the statement caches prepare each text once). */
function recordingPrepares<H extends Database.Database>(handle: H): { handle: H; prepared: string[] } {
  const prepared: string[] = []
  const proxy = new Proxy(handle, {
    get(target, key) {
      if (key === 'prepare') return (source: string) => { prepared.push(source); return target.prepare(source) }
      const value = Reflect.get(target, key) as unknown
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
  return { handle: proxy, prepared }
}

describe('withLiteralLimit', () => {
  it('writes a trailing limit as its number and drops that parameter', () => {
    const limits = new LiteralLimits()
    expect(withLiteralLimit(limits, { sql: SQL, parameters: ['v3', 5] })).toEqual({ sql: 'select id from t where v = ? order by id limit 5', parameters: ['v3'] })
    expect(withLiteralLimit(limits, { sql: 'select 1 limit ?', parameters: [0] })).toEqual({ sql: 'select 1 limit 0', parameters: [] })
  })

  it('leaves every other statement as it is', () => {
    const limits = new LiteralLimits()
    const same = (sql: string, parameters: unknown[]) => {
      const query = { sql, parameters }
      expect(withLiteralLimit(limits, query)).toBe(query)
    }
    // An offset after the limit, a limit inside a subquery, no limit at all.
    same('select id from t order by id limit ? offset ?', [5, 10])
    same('select count(*) from (select 1 from t where v = ? limit ?) as m', ['v1', 2])
    same('select id from t where id = ?', [3])
    // Only safe, whole, non-negative numbers become text: anything else stays a bound value.
    same(SQL, ['v1', 2.5])
    same(SQL, ['v1', -1])
    same(SQL, ['v1', '5'])
    same(SQL, ['v1', '5; drop table t'])
    same(SQL, ['v1', 5n])
    same(SQL, ['v1', Number.MAX_SAFE_INTEGER + 1])
    same(SQL, ['v1', Number.NaN])
  })

  it(`writes out at most ${LIMITS_PER_STATEMENT} limits of one statement; later ones stay bound`, () => {
    const limits = new LiteralLimits()
    const texts = new Set<string>()
    for (let limit = 1; limit <= 100; limit++) texts.add(withLiteralLimit(limits, { sql: SQL, parameters: ['v1', limit] }).sql)
    // LIMITS_PER_STATEMENT texts with a number, and the bound form for the other limits.
    expect(texts.size).toBe(LIMITS_PER_STATEMENT + 1)
    expect(texts.has(SQL)).toBe(true)
    // A limit already written out stays so; another tracker has its own count.
    expect(withLiteralLimit(limits, { sql: SQL, parameters: ['v1', 3] }).sql).toBe('select id from t where v = ? order by id limit 3')
    expect(withLiteralLimit(new LiteralLimits(), { sql: SQL, parameters: ['v1', 99] }).sql).toBe('select id from t where v = ? order by id limit 99')
  })

  it('an unbounded tracker never forgets a statement; a bounded one forgets the least recently used', () => {
    const textsOf = (limits: LiteralLimits) => {
      const texts = new Set<string>()
      for (let round = 0; round < 5; round++) {
        for (let k = 0; k < 20; k++) texts.add(withLiteralLimit(limits, { sql: SQL, parameters: ['v1', 100 * round + k] }).sql)
        // Other statements in between, more than the bounded tracker follows.
        for (let other = 0; other < 5; other++) withLiteralLimit(limits, { sql: `select ${other} limit ?`, parameters: [1] })
      }
      return texts.size
    }
    // The record session's kind: however many other statements come, the one statement keeps its count.
    expect(textsOf(new LiteralLimits())).toBe(LIMITS_PER_STATEMENT + 1)
    // readRows' kind follows 3 statements here: the first is forgotten each round and counts afresh
    // (its cache, as large as the tracker, has let those texts go too).
    expect(textsOf(new LiteralLimits(3))).toBe(5 * LIMITS_PER_STATEMENT + 1)
  })

  it('gives the same rows as the bound statement through readRows, and readRows prepares the literal text', async () => {
    const { handle, prepared } = recordingPrepares(sqlite)
    for (const [v, limit] of [['v1', 0], ['v1', 3], ['v2', 1000], ['v6', 1000]] as const) {
      const bound = sqlite.prepare(SQL).raw().all(v, limit)
      const read = await readRows({ db: undefined as never, sqlite: handle }, CompiledQuery.raw(SQL, [v, limit]))
      expect(read.rows).toEqual(bound)
      expect(read.columns).toEqual(['id'])
      // Not trivial: the limit cuts (3), returns nothing (0) or more than a value has (1000: 14 or 15).
      expect(read.rows.length).toBe(limit === 1000 ? (v === 'v6' ? 14 : 15) : limit)
    }
    expect(prepared).toEqual([0, 3, 1000].map((n) => `select id from t where v = ? order by id limit ${n}`))
  })

  it('reaches the record session: a query shape with a limit is prepared with the number', async () => {
    const { handle, prepared } = recordingPrepares(vdb.sqlite)
    const session = recordSession({ ...vdb, sqlite: handle })
    const companyId = vdb.sqlite.prepare('select company_id from company_stories group by company_id having count(*) >= 3 limit 1').pluck().get() as number
    const stories = await storiesOf(session, companyId, 2)
    expect(stories).toHaveLength(2)
    const storySql = prepared.filter((sql) => sql.includes('company_stories'))
    expect(storySql).toHaveLength(1)
    expect(storySql[0]).toMatch(/ limit 2$/)
  })
})

describe('limitedStatement', () => {
  it(`writes the first ${LIMITS_PER_STATEMENT} limits into a statement each, and binds any other on one statement`, () => {
    const prepared: string[] = []
    const statement = limitedStatement((limit) => {
      prepared.push(limit)
      return sqlite.prepare(`select id from t where v = ? order by id limit ${limit}`).pluck()
    })
    expect(statement.all(3, 'v1')).toEqual([1, 8, 15])
    expect(statement.all(3, 'v1')).toEqual([1, 8, 15])
    expect(prepared).toEqual(['3'])
    for (let limit = 1; limit <= 40; limit++) expect(statement.all(limit, 'v2')).toEqual(sqlite.prepare(SQL).pluck().all('v2', limit))
    // The first LIMITS_PER_STATEMENT limits as numbers, every later one on the one bound statement.
    expect(prepared).toEqual([...['3', '1', '2'], ...Array.from({ length: LIMITS_PER_STATEMENT - 3 }, (_, i) => String(i + 4)), '?'])
    statement.all(40, 'v2')
    statement.all(1, 'v2')
    expect(prepared).toHaveLength(LIMITS_PER_STATEMENT + 1)
  })

  it('namedLimitedStatement: named parameters, every LIMIT of the text the same, `@limit` in the bound form', () => {
    const prepared: string[] = []
    // Two LIMITs in one statement (search's name tiers): both get the same value.
    const statement = namedLimitedStatement((limit) => {
      prepared.push(limit)
      return sqlite.prepare(`select * from (select id from t where v = @a order by id limit ${limit})
        union all select * from (select id from t where v = @b order by id desc limit ${limit})`).pluck()
    })
    const expected = (a: string, b: string, limit: number) => [
      ...(sqlite.prepare(SQL).pluck().all(a, limit) as number[]),
      ...(sqlite.prepare('select id from t where v = ? order by id desc limit ?').pluck().all(b, limit) as number[]),
    ]
    for (let limit = 0; limit <= LIMITS_PER_STATEMENT + 5; limit++) expect(statement.all(limit, { a: 'v1', b: 'v2' }), String(limit)).toEqual(expected('v1', 'v2', limit))
    expect(prepared.at(-1)).toBe('@limit')
    expect(prepared).toHaveLength(LIMITS_PER_STATEMENT + 1)
    expect(expected('v1', 'v2', 3).length).toBeGreaterThan(3)
  })

  it('refuses a limit that is not a whole number', () => {
    const statement = limitedStatement(() => ({ all: () => [] }))
    expect(() => statement.all(1.5)).toThrow(/whole number/)
    expect(() => statement.all(-1)).toThrow(/whole number/)
  })
})
