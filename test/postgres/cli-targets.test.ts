/**
 * The CLI commands that take `--database`, given a postgres:// URL and `--schema` (issue 8): `keys`
 * prints the key alone on stdout and the key opens the API served from that database; `query` and
 * `explain` answer the same as on the SQLite file the data was copied from. Run in-process through
 * the commander program, as test/cli/keys.test.ts does for files.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/run-cli.js'
import { createEngine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { copyToPostgres } from '../../src/store/copy.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { PG_URL, testSchema, type TestSchema } from './support.js'

let dir: string
let file: string
let schema: TestSchema
let request: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-pg-cli-'))
  file = join(dir, 'fixture.db')
  const source = await createFixtureDatabase({ file, companies: 80 })
  schema = await testSchema('cli')
  await copyToPostgres(source, await schema.open())
  await source.close()
  request = join(dir, 'request.json')
  writeFileSync(request, JSON.stringify({ dataset: 'companies', filter: { stage: { in: ['a', 'b', 'Pre Series A'] } }, sort: [{ total_funding: 'desc' }], per_page: 5 }))
}, 120_000)
afterAll(async () => {
  await schema?.drop()
  rmSync(dir, { recursive: true, force: true })
})

const run = (args: string[]) => runCli(args)

const onPostgres = () => ['--database', PG_URL, '--schema', schema.name]

describe('the CLI on a postgres:// --database', () => {
  it('keys create prints the key alone on stdout; the key opens the API served from that database; list and revoke see it', async () => {
    const created = await run(['keys', 'create', ...onPostgres(), '--plan', 'full', '--quota', '100000', '--label', 'cli-test'])
    expect(created.exitCode, created.stderr).toBe(0)
    const key = created.stdout.trim()
    expect(created.stdout).toBe(`${key}\n`)
    expect(key).toMatch(/^vql_[A-Za-z0-9_-]{20,}$/)
    expect(created.stderr).not.toContain(key)

    const pgdb = await schema.open()
    const engine = createEngine({ database: pgdb })
    try {
      const app = createApp(engine, { onInternalError: () => undefined })
      const res = await app.fetch(new Request(`https://api.test/ratelimit/usage?key=${encodeURIComponent(key)}`))
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject([{ quota_limit: 100000, quota_remaining: 100000 }])

      const listed = await run(['keys', 'list', ...onPostgres()])
      expect(listed.exitCode).toBe(0)
      expect(listed.stdout).toContain('cli-test')
      expect(listed.stdout).not.toContain(key)

      const revoked = await run(['keys', 'revoke', ...onPostgres(), key])
      expect(revoked.exitCode, revoked.stderr).toBe(0)
      expect((await app.fetch(new Request(`https://api.test/ratelimit/usage?key=${encodeURIComponent(key)}`))).status).toBe(403)
    } finally {
      await engine.close()
    }
  })

  it('query and explain answer as they do on the SQLite file the data came from', async () => {
    const [lite, post] = [await run(['query', '--database', file, request]), await run(['query', ...onPostgres(), request])]
    expect(post.exitCode, post.stderr).toBe(0)
    expect(post.stdout).toBe(lite.stdout)
    const results = JSON.parse(post.stdout).results as unknown[]
    expect(results.length).toBeGreaterThan(0)

    const [a, b] = [await run(['explain', '--json', '--database', file, request]), await run(['explain', '--json', ...onPostgres(), request])]
    expect(b.exitCode, b.stderr).toBe(0)
    const [la, pb] = [JSON.parse(a.stdout), JSON.parse(b.stdout)]
    expect(pb.query_id).toBe(la.query_id)
    expect(JSON.stringify(pb)).toMatch(/\$1/) // PostgreSQL's placeholders: the SQL is the PostgreSQL dialect's
  })

  it('an unreachable server is one line on stderr and exit code 1, for every command (as a process)', async () => {
    for (const args of [['keys', 'list'], ['keys', 'create', '--plan', 'full', '--quota', '5'], ['query', request], ['explain', request]]) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--database', 'postgres://postgres@127.0.0.1:1/nowhere'], { encoding: 'utf8' })
      expect(r.status, args.join(' ')).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
      expect(r.stderr).toMatch(/cannot reach PostgreSQL at 127\.0\.0\.1:1\/nowhere/)
    }
  }, 60_000)
})
