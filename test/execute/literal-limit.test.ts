/**
 * Trailing LIMITs written as numbers on SQLite (src/execute/statements.ts, `withLiteralLimit` and
 * `statementPerLimit`): SQLite prepares a statement again on every run whose LIMIT parameter was
 * bound, so the engine writes a trailing limit into the SQL text instead. The rewrite must give the
 * same rows, touch only a trailing `limit ?` holding a whole number, and keep the number of
 * statement texts bounded when a statement's limit keeps changing.
 */
import Database from 'better-sqlite3'
import { CompiledQuery } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { readRows, statementPerLimit, withLiteralLimit } from '../../src/execute/statements.js'

const sqlite = new Database(':memory:')
sqlite.exec('create table t (id integer primary key, v text)')
const insert = sqlite.prepare('insert into t (id, v) values (?, ?)')
for (let i = 1; i <= 100; i++) insert.run(i, `v${i % 7}`)
afterAll(() => sqlite.close())

const SQL = 'select id from t where v = ? order by id limit ?'

describe('withLiteralLimit', () => {
  it('writes a trailing limit as its number and drops that parameter', () => {
    const handle = {}
    expect(withLiteralLimit(handle, { sql: SQL, parameters: ['v3', 5] })).toEqual({ sql: 'select id from t where v = ? order by id limit 5', parameters: ['v3'] })
    expect(withLiteralLimit(handle, { sql: 'select 1 limit ?', parameters: [0] })).toEqual({ sql: 'select 1 limit 0', parameters: [] })
  })

  it('leaves every other statement as it is', () => {
    const handle = {}
    const same = (sql: string, parameters: unknown[]) => {
      const query = { sql, parameters }
      expect(withLiteralLimit(handle, query)).toBe(query)
    }
    // An offset after the limit, a limit inside a subquery, no limit at all.
    same('select id from t order by id limit ? offset ?', [5, 10])
    same('select count(*) from (select 1 from t where v = ? limit ?) as m', ['v1', 2])
    same('select id from t where id = ?', [3])
    // Only whole, non-negative numbers become text: anything else stays a bound value.
    same(SQL, ['v1', 2.5])
    same(SQL, ['v1', -1])
    same(SQL, ['v1', '5'])
    same(SQL, ['v1', 5n])
    same(SQL, ['v1', Number.MAX_SAFE_INTEGER + 1])
  })

  it('writes out at most 32 limits of one statement per handle; later ones stay bound', () => {
    const handle = {}
    const texts = new Set<string>()
    for (let limit = 1; limit <= 100; limit++) texts.add(withLiteralLimit(handle, { sql: SQL, parameters: ['v1', limit] }).sql)
    // 32 texts with a number, and the bound form for the other 68 limits.
    expect(texts.size).toBe(33)
    expect(texts.has(SQL)).toBe(true)
    // A limit already written out stays so; another handle has its own count.
    expect(withLiteralLimit(handle, { sql: SQL, parameters: ['v1', 7] }).sql).toBe('select id from t where v = ? order by id limit 7')
    expect(withLiteralLimit({}, { sql: SQL, parameters: ['v1', 99] }).sql).toBe('select id from t where v = ? order by id limit 99')
  })

  it('gives the same rows as the bound statement through readRows', async () => {
    for (const [v, limit] of [['v1', 0], ['v1', 3], ['v2', 1000], ['v6', 1000]] as const) {
      const bound = sqlite.prepare(SQL).raw().all(v, limit)
      const read = await readRows({ db: undefined as never, sqlite }, CompiledQuery.raw(SQL, [v, limit]))
      expect(read.rows).toEqual(bound)
      expect(read.columns).toEqual(['id'])
      // Not trivial: the limit cuts (3), returns nothing (0) or more than a value has (1000: 14 or 15).
      expect(read.rows.length).toBe(limit === 1000 ? (v === 'v6' ? 14 : 15) : limit)
    }
  })
})

describe('statementPerLimit', () => {
  it('prepares a statement once per limit, with the limit in its text, up to 32 limits', () => {
    const prepared: number[] = []
    const byLimit = statementPerLimit((limit) => {
      prepared.push(limit)
      return sqlite.prepare(`select id from t order by id limit ${limit}`).pluck()
    })
    expect(byLimit(3).all()).toEqual([1, 2, 3])
    expect(byLimit(3)).toBe(byLimit(3))
    expect(prepared).toEqual([3])
    for (let limit = 1; limit <= 40; limit++) byLimit(limit)
    // 32 kept (3 among them); limits past those are prepared again on every call.
    const before = prepared.length
    byLimit(40)
    byLimit(40)
    expect(prepared.length).toBe(before + 2)
    byLimit(5)
    expect(prepared.length).toBe(before + 2)
  })

  it('refuses a limit that is not a whole number', () => {
    const byLimit = statementPerLimit((limit) => limit)
    expect(() => byLimit(1.5)).toThrow(/whole number/)
    expect(() => byLimit(-1)).toThrow(/whole number/)
  })
})
