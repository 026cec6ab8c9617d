/**
 * Time budgets on PostgreSQL: a call given up on at its deadline (or by its AbortSignal) has its
 * statements cancelled on the server (`pg_cancel_backend` of the connections it holds), and the
 * pool's `statement_timeout` stops what runs longer than the backstop. `pg_sleep` stands in for a
 * slow statement, so the tests control its length exactly.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, QueryCancelledError, QueryTimeoutError } from '../../src/engine.js'
import { inlineBackend, type BackendCall } from '../../src/execute/backend.js'
import type { PostgresVentureDb } from '../../src/store/open.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let pgdb: PostgresVentureDb

beforeAll(async () => {
  schema = await testSchema('budgets')
  pgdb = await schema.open()
})
afterAll(async () => schema.drop())

const call = (timeoutMs: number, signal?: AbortSignal): BackendCall => ({ timeoutMs, signal, light: false })

/** Backends of this test's process still running `pg_sleep` (our own test statements only). */
async function sleepingBackends(db: PostgresVentureDb, marker: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where query like ${`%${marker}%`} and state = 'active' and pid <> pg_backend_pid()`.execute(db.db)
  return r.rows[0]!.n
}

/** A backend whose one operation sleeps on the server in a statement tagged with `marker`. */
function sleeper(marker: string) {
  return inlineBackend(
    { sleep: (s: number) => sql.raw(`select pg_sleep(${Number(s)}) as "${marker}"`).execute(pgdb.db) },
    { cancellable: (work) => pgdb.cancellable(work) },
  )
}

/** How many statements tagged `marker` still run after up to 2 s of waiting for them to go. */
async function stillSleeping(marker: string): Promise<number> {
  let running = await sleepingBackends(pgdb, marker)
  for (let i = 0; i < 40 && running > 0; i++) {
    await new Promise((r) => setTimeout(r, 50))
    running = await sleepingBackends(pgdb, marker)
  }
  return running
}

describe('a call over its budget', () => {
  it('answers query_timeout at the deadline and cancels its statement on the server', async () => {
    const marker = `sleep_${Math.random().toString(36).slice(2)}`
    const backend = sleeper(marker)
    const started = performance.now()
    await expect(backend.call('sleep', [10], call(300))).rejects.toBeInstanceOf(QueryTimeoutError)
    expect(performance.now() - started).toBeLessThan(2000)
    // The statement is gone from the server shortly after, not after its 10 s.
    expect(await stillSleeping(marker)).toBe(0)
  })

  it('an AbortSignal cancels it the same way', async () => {
    const marker = `abort_${Math.random().toString(36).slice(2)}`
    const backend = sleeper(marker)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    await expect(backend.call('sleep', [10], call(0, controller.signal))).rejects.toBeInstanceOf(QueryCancelledError)
    expect(await stillSleeping(marker)).toBe(0)
  })

  it('the pool\'s statement_timeout is the backstop: a statement past it is query_timeout too', async () => {
    const short = await schema.open({ statementTimeoutMs: 200 })
    const backend = inlineBackend({ sleep: () => sql`select pg_sleep(5)`.execute(short.db) }, { cancellable: (work) => short.cancellable(work) })
    const started = performance.now()
    await expect(backend.call('sleep', [], call(0))).rejects.toBeInstanceOf(QueryTimeoutError)
    expect(performance.now() - started).toBeLessThan(3000)
  })

  it('an engine on PostgreSQL answers the issue instead of throwing', async () => {
    const engine = createEngine({ database: pgdb })
    expect(engine.execution).toMatchObject({ kind: 'inline', interruptible: true })
    const r = await engine.count({ dataset: 'companies', filter: {} }, { signal: AbortSignal.abort() })
    expect(r.ok ? [] : r.issues.map((i) => i.code)).toEqual(['query_cancelled'])
    expect(await engine.count({ dataset: 'companies', filter: {} })).toEqual({ ok: true, value: 0 })
    await engine.close()
  })
})

describe('close', () => {
  it('cancels the statements still running after its grace, so that it ends within the grace', async () => {
    const marker = `sleep_${Math.random().toString(36).slice(2)}`
    const backend = sleeper(marker)
    const running = backend.call('sleep', [30], call(0))
    running.catch(() => {})
    for (let i = 0; i < 100 && await sleepingBackends(pgdb, marker) === 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(await sleepingBackends(pgdb, marker)).toBe(1)
    const closing = backend.close(200).then(() => 'closed' as const)
    const later = new Promise<'statement still running'>((r) => setTimeout(() => r('statement still running'), 10_000))
    // Order, not speed: the close ends once the statement is cancelled, long before its 30 s.
    expect(await Promise.race([closing, later])).toBe('closed')
    await expect(running).rejects.toThrow()
    expect(await stillSleeping(marker)).toBe(0)
  }, 30_000)
})
