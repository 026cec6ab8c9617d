/**
 * `ventureql export`, run in-process through the commander program against a fixture database
 * file: a request (--filter) or a stored query id, NDJSON and CSV, --fields and --output; every
 * record in the query's order, as the engine's pages have them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { runCli } from '../support/run-cli.js'

let dir: string
let database: string
const request = { dataset: 'companies', filter: { employees: { gte: 5 } }, sort: [{ total_funding: 'desc' }] }
let expected: Record<string, unknown>[]
let queryId: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-cli-export-'))
  database = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file: database, companies: 300 })).close()
  const engine = createEngine({ database, workers: 0 })
  const stored = await engine.store(request)
  if (!stored.ok) throw new Error('store')
  queryId = stored.value.query_id
  expected = []
  for (let page = 1; ; page++) {
    const r = await engine.page(queryId, { page, per_page: 50 })
    if (!r.ok) throw new Error('page')
    expected.push(...r.value.results)
    if (r.value.results.length < 50) break
  }
  await engine.close()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (args: string[]) => runCli(args, { rethrow: true })

describe('ventureql export', () => {
  it('writes NDJSON of a request, every record in order', async () => {
    const file = join(dir, 'request.json')
    writeFileSync(file, JSON.stringify(request))
    const { stdout, stderr, exitCode } = await run(['export', '--database', database, '--filter', file])
    expect(exitCode).toBe(0)
    expect(stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(expected)
    expect(expected.length).toBeGreaterThan(50)
    expect(stderr).toContain(`${expected.length} records of query ${queryId}`)
  })

  it('writes CSV of a stored query to a file, with --fields', async () => {
    const output = join(dir, 'out.csv')
    const { exitCode } = await run(['export', '--database', database, queryId, '--format', 'csv', '--fields', 'name,industries', '--output', output])
    expect(exitCode).toBe(0)
    const lines = readFileSync(output, 'utf8').split('\r\n')
    expect(lines[0]).toBe('id,name,industries')
    expect(lines.length).toBe(expected.length + 2)
    const joined = expected.find((r) => (r.industries as string[]).length > 1)!
    expect(lines).toContain(`${joined.id},${/[",]/.test(String(joined.name)) ? JSON.stringify(joined.name) : joined.name},${(joined.industries as string[]).join('|')}`)
  })

  it('refuses a bad format, both or neither of id and --filter, and unknown fields', async () => {
    const both = await run(['export', '--database', database, queryId, '--filter', 'x.json'])
    expect(both.exitCode).toBe(1)
    expect(both.stderr).toContain('either a query id or --filter')
    const format = await run(['export', '--database', database, queryId, '--format', 'xlsx'])
    expect(format.stderr).toContain('--format is csv or ndjson')
    const fields = await run(['export', '--database', database, queryId, '--fields', 'nmae'])
    expect(fields.exitCode).toBe(1)
    expect(fields.stderr).toContain('name')
  })
})
