/**
 * Two `serve` processes, each on its own port, over one PostgreSQL database (issue 8, items 3 and 6):
 * N concurrent requests split across both, against a key with R < N remaining, give exactly R
 * successes (the quota count is one atomic statement under the counter row's lock), and a query
 * stored through one server is paged through the other.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/store/api-keys.js'
import { bumpDataVersion } from '../../src/store/open.js'
import { PG_URL, testSchema, type TestSchema } from './support.js'

let schema: TestSchema
const servers: { child: ChildProcess; url: string }[] = []

async function startServer(name: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--http', '--port', '0', '--database', PG_URL, '--schema', name, '--connections', '4', '--workers', '3'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => { out += d })
  child.stderr!.on('data', (d) => { err += d })
  const until = Date.now() + 60_000
  let url: string | undefined
  // The start-up lines arrive as separate writes: wait for the one after the URL too.
  while (!(url = /^ventureql: serving (http:\/\/\S+)/m.exec(out)?.[1]) || !/^queries: .*\n/m.test(out)) {
    if (child.exitCode !== null || Date.now() > until) throw new Error(`serve did not start:\n${out}\n${err}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  // The pool is the size asked for, and the start-up lines say so.
  expect(out).toMatch(/^queries: a pool of 4 PostgreSQL connections \(--connections\), at most 3 heavy calls at once \(--workers\), stopped after 10000 ms/m)
  return { child, url }
}

beforeAll(async () => {
  schema = await testSchema('two_servers')
  await schema.open() // migrated once, before both servers start
  servers.push(...await Promise.all([startServer(schema.name), startServer(schema.name)]))
}, 120_000)

afterAll(async () => {
  await Promise.all(servers.map(({ child }) => new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })))
  await schema.drop()
})

describe('two servers over one PostgreSQL', () => {
  it('split 60 concurrent requests against a key with 25 remaining: exactly 25 succeed, across both', async () => {
    const pgdb = await schema.open()
    const made = await createApiKey(pgdb, { plan: 'full', quota: 25, period: 'day' })
    if (!made.ok) throw new Error('key')
    const key = made.value.key
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      fetch(`${servers[i % 2]!.url}/companies?per_page=1&key=${key}`).then(async (r) => ({ status: r.status, server: i % 2, remaining: r.headers.get('x-quota-remaining') }))))
    const ok = responses.filter((r) => r.status === 200)
    expect(ok.length).toBe(25)
    expect(responses.filter((r) => r.status === 429).length).toBe(35)
    // One counter: every success saw a different remaining count, whichever server answered.
    expect(new Set(responses.map((r) => r.server))).toEqual(new Set([0, 1]))
    expect(new Set(ok.map((r) => r.remaining))).toEqual(new Set(Array.from({ length: 25 }, (_, i) => String(i))))
    const usage = await (await fetch(`${servers[1]!.url}/ratelimit/usage?key=${key}`)).json() as { quota_remaining: number }[]
    expect(usage[0]!.quota_remaining).toBe(0)
  })

  it('a data version moved on the database is seen by both servers: no stale cached total', async () => {
    const pgdb = await schema.open()
    const made = await createApiKey(pgdb, { plan: 'full', quota: 100, period: 'day' })
    if (!made.ok) throw new Error('key')
    const total = async (server: number) =>
      ((await (await fetch(`${servers[server]!.url}/companies?per_page=1&key=${made.value.key}`)).json()) as { meta: { total_record_count: number } }).meta.total_record_count
    const before = [await total(0), await total(1)]
    expect(before[0]).toBe(before[1])
    // What an import does: new rows, then a new data version (every cached total is keyed by it).
    await pgdb.db.insertInto('companies').values({ id: 9_000_001, name: 'Added Later Inc' }).execute()
    await bumpDataVersion(pgdb)
    expect([await total(0), await total(1)]).toEqual([before[0]! + 1, before[1]! + 1])
  })

  it('a query stored through one server pages through the other', async () => {
    const pgdb = await schema.open()
    const made = await createApiKey(pgdb, { plan: 'full', quota: 100, period: 'day' })
    if (!made.ok) throw new Error('key')
    const posted = await fetch(`${servers[0]!.url}/queries?key=${made.value.key}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dataset: 'investors', filter: { portfolio_size: { gte: 0 } } }),
    })
    expect(posted.status).toBe(200)
    const id = (await posted.json() as { query_id: string }).query_id
    const paged = await fetch(`${servers[1]!.url}/queries/${id}?page=1&key=${made.value.key}`)
    expect(paged.status).toBe(200)
    expect((await paged.json() as { query_id: string }).query_id).toBe(id)
  })
})
