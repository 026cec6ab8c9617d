/**
 * `ventureql query` and `ventureql explain`, run in-process through the commander program
 * against a fixture database file.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/run-cli.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

let dir: string
let database: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-cli-'))
  database = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file: database })).close()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (args: string[]) => runCli(args, { rethrow: true })

function requestFile(name: string, body: unknown): string {
  const file = join(dir, name)
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body))
  return file
}

describe('cli', () => {
  it('query prints the envelope as JSON', async () => {
    const file = requestFile('ok.json', { dataset: 'investor', filter: { portfolio_size: { gte: 30 } } })
    const { stdout, exitCode } = await run(['query', '--database', database, '--per-page', '3', '--page', '2', file])
    expect(exitCode).toBe(0)
    const env = JSON.parse(stdout)
    expect(env.meta).toMatchObject({ current_page: 2, per_page: 3 })
    expect(env.results.length).toBeLessThanOrEqual(3)
    expect(env.query_id).toBe(env.query.query_id)
  })

  it('query refuses a request file over the body limit, saying how large it is, without running it', async () => {
    const file = requestFile('huge.json', { dataset: 'companies', filter: { name: 'x'.repeat(1_100_000) } })
    const { stdout, stderr, exitCode } = await run(['query', '--database', database, file])
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/The request is 1100\d{3} bytes, more than the limit \(maxBodyBytes\) of 1000000 bytes\./)
  })

  it('query prints the issues for a person with exit code 1', async () => {
    const file = requestFile('bad.json', { dataset: 'investor', filter: { portfolio_sise: 3 } })
    const { stdout, stderr, exitCode } = await run(['query', '--database', database, file])
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('/filter/portfolio_sise')
    expect(stderr).toContain('portfolio_size')
  })

  it('query rejects a request that is not JSON', async () => {
    const { stderr, exitCode } = await run(['query', '--database', database, requestFile('junk.json', '{nope')])
    expect(exitCode).toBe(1)
    expect(stderr).toContain('not valid JSON')
  })

  it('a --page that is not a number is reported as the user typed it', async () => {
    const file = requestFile('paged.json', { dataset: 'companies' })
    const { stderr, exitCode } = await run(['query', '--database', database, '--page', 'abc', file])
    expect(exitCode).toBe(1)
    expect(stderr).toContain('`page` takes a positive integer; got "abc".')
  })

  it('import with a file that cannot be read stops before loading any file', async () => {
    const good = requestFile('good.jsonl', JSON.stringify({ type: 'company', record: { id: 1, name: 'Foo' } }))
    const target = join(dir, 'half.db')
    await expect(run(['import', '--database', target, good, join(dir, 'missing.jsonl')])).rejects.toThrow(/missing\.jsonl/)
    expect(existsSync(target)).toBe(false)
  })

  it('explain prints the canonical form, id, SQL and parameters', async () => {
    const file = requestFile('explain.json', { dataset: 'companies', filter: { name: { contains: "O'Brien" } } })
    const { stdout, exitCode } = await run(['explain', '--database', database, file])
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/^query_id: [A-Za-z0-9_-]{22}$/m)
    expect(stdout).toContain('query_version: 2001')
    expect(stdout).toContain('"contains": "O\'Brien"')
    expect(stdout).toContain('like ? escape')
    expect(stdout).toContain(`parameters: ["%o'brien%",50]`)
  })
})
