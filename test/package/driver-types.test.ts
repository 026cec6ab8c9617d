/**
 * The driver types ventureql publishes (src/store/driver-types.ts) are restated from
 * @types/better-sqlite3 and @types/pg so that consumers need neither. These assertions, checked by
 * `tsc --noEmit -p .` (npm test), fail when the restatement and the real types drift apart: the
 * better-sqlite3 `Database` must be assignable both ways, and a `pg` pool and client must be
 * accepted where ventureql names one.
 */
import type BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { BetterSqliteDatabase, BetterSqliteStatement, PgClient, PgPool, SqliteVentureDb } from '../../src/index.js'
import { openDatabase, openPostgres } from '../../src/index.js'

describe('restated driver types', () => {
  it('better-sqlite3: Database and Statement, both ways', () => {
    expectTypeOf<BetterSqlite3.Database>().toExtend<BetterSqliteDatabase>()
    expectTypeOf<BetterSqliteDatabase>().toExtend<BetterSqlite3.Database>()
    expectTypeOf<BetterSqlite3.Statement<[number], { id: number }>>().toExtend<BetterSqliteStatement<[number], { id: number }>>()
    expectTypeOf<BetterSqliteStatement<[number], { id: number }>>().toExtend<BetterSqlite3.Statement<[number], { id: number }>>()
    expectTypeOf<SqliteVentureDb['sqlite']>().toEqualTypeOf<BetterSqliteDatabase>()
  })

  it('pg: a Pool is a PgPool, a PoolClient a PgClient', () => {
    expectTypeOf<pg.Pool>().toExtend<PgPool>()
    expectTypeOf<pg.PoolClient>().toExtend<PgClient>()
    expectTypeOf(openPostgres).parameter(0).exclude<undefined>().toHaveProperty('pool').toEqualTypeOf<PgPool | undefined>()
  })

  it('the handle openDatabase gives is the better-sqlite3 Database the types describe', async () => {
    const vdb = openDatabase(':memory:')
    try {
      const one: unknown = vdb.sqlite.prepare('select 1').pluck().get()
      expect(one).toBe(1)
      expect(vdb.sqlite.transaction(() => 2)()).toBe(2)
    } finally {
      await vdb.close()
    }
  })
})
