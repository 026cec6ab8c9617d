/**
 * `ventureql keys create | list | revoke`, run in-process through the commander program against a
 * fixture database file, and checked end to end: a key the CLI prints opens the HTTP API, and a
 * key it revokes is refused there.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/store/open.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/run-cli.js'
import { createEngine } from '../../src/engine.js'
import { createApp } from '../../src/http/app.js'
import { hashApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

let dir: string
let database: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-keys-'))
  database = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file: database, companies: 50 })).close()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (args: string[], cwd?: string) => runCli(args, cwd === undefined ? {} : { cwd })

/** Every text column of the key table: the key must appear in none of them, only its hash. */
function keyTableText(): string {
  // Read-only through the store, which attaches the state file the key table lives in.
  const vdb = openDatabase(database, { readonly: true })
  try {
    return JSON.stringify(vdb.sqlite.prepare('select * from api_keys').all())
  } finally {
    vdb.sqlite.close()
  }
}

async function callUsage(key: string): Promise<Response> {
  const engine = createEngine({ database })
  try {
    const app = createApp(engine, { onInternalError: () => undefined })
    return await app.fetch(new Request(`https://api.test/ratelimit/usage?key=${encodeURIComponent(key)}`))
  } finally {
    await engine.close()
  }
}

describe('keys create', () => {
  it('prints the key alone on stdout and a human line on stderr; the key opens the API with its quota', async () => {
    const { stdout, stderr, exitCode } = await run(['keys', 'create', '--database', database, '--plan', 'full', '--quota', '25', '--period', 'hour', '--label', 'ci'])
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/^vql_[A-Za-z0-9_-]{32}\n$/)
    const key = stdout.trim()
    expect(stderr).toMatch(/created full key \d+ \(vql_.{6}…\), 25 requests per hour, label "ci"\. It is shown only this once/)
    expect(stderr).not.toContain(key)
    // Stored hashed: the text is nowhere in the table, its SHA-256 is.
    const stored = keyTableText()
    expect(stored).not.toContain(key)
    expect(stored).toContain(hashApiKey(key))

    const res = await callUsage(key)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-quota-limit')).toBe('25')
    const [usage] = await res.json() as [{ quota_limit: number; quota_reset: number; quota_period: number }]
    expect(usage.quota_limit).toBe(25)
    expect(usage.quota_reset - usage.quota_period).toBe(3600)
  })

  it('counts per day when no --period is given', async () => {
    const { stdout, stderr, exitCode } = await run(['keys', 'create', '--database', database, '--plan', 'full', '--quota', '100000'])
    expect(exitCode, stderr).toBe(0)
    expect(stdout).toMatch(/^vql_\S+\n$/)
    expect(stderr).toMatch(/100000 requests per day/)
  })

  it('without --quota gives the default of its plan (that of the keys serve creates), as its help says', async () => {
    const full = await run(['keys', 'create', '--database', database, '--plan', 'full'])
    expect(full.exitCode, full.stderr).toBe(0)
    expect(full.stderr).toMatch(/created full key \d+ .*100000 requests per day/)
    const trial = await run(['keys', 'create', '--database', database, '--plan', 'trial', '--period', 'hour'])
    expect(trial.exitCode, trial.stderr).toBe(0)
    expect(trial.stderr).toMatch(/created trial key \d+ .*1000 requests per hour/)
    const help = await run(['keys', 'create', '--help'])
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--quota <n> requests allowed per period \(default 100000 for a full key, 1000 for a trial key/)
  })

  it('creates a trial key with a period given as a length', async () => {
    const { stdout, stderr, exitCode } = await run(['keys', 'create', '--database', database, '--plan', 'trial', '--quota', '5', '--period', '15m'])
    expect(exitCode).toBe(0)
    expect(stderr).toMatch(/created trial key \d+ .*5 requests per 900 seconds/)
    const listed = JSON.parse((await run(['keys', 'list', '--database', database, '--json'])).stdout) as Array<Record<string, string>>
    const row = listed.find((r) => stdout.trim().startsWith(r.prefix!))
    expect(row).toMatchObject({ plan: 'trial', quota: '5', period: '900', revoked: '' })
  })

  const badFlags: Array<[string, string[], RegExp]> = [
    ['an unknown plan', ['--plan', 'gold', '--quota', '5', '--period', 'day'], /--plan: A plan is one of full, trial/],
    ['a quota of zero', ['--plan', 'full', '--quota', '0', '--period', 'day'], /--quota: a quota is a positive whole number/],
    ['a quota that is not a number', ['--plan', 'full', '--quota', '10abc', '--period', 'day'], /--quota: .*got "10abc"/],
    ['a negative quota', ['--plan', 'full', '--quota', '-3', '--period', 'day'], /--quota/],
    ['an unknown period', ['--plan', 'full', '--quota', '5', '--period', 'fortnight'], /--period: A quota period is minute, hour, day, week, month/],
    ['a missing --plan', ['--quota', '5', '--period', 'day'], /required option '--plan <plan>' not specified/],
  ]
  it.each(badFlags)('refuses %s with exit code 1 and a clear message, creating nothing', async (_name, flags, message) => {
    const before = keyTableText()
    const { stdout, stderr, exitCode } = await run(['keys', 'create', '--database', database, ...flags])
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(message)
    expect(keyTableText()).toBe(before)
  })

  it('refuses --database together with --data-dir', async () => {
    const { stderr, exitCode } = await run(['keys', 'create', '--database', database, '--data-dir', dir, '--plan', 'full', '--quota', '5', '--period', 'day'])
    expect(exitCode).toBe(1)
    expect(stderr).toContain('give --database or --data-dir, not both')
  })

  it('refuses a database that does not exist instead of creating an empty one', async () => {
    const missing = join(dir, 'nowhere', 'ventureql.db')
    const { stderr, exitCode } = await run(['keys', 'create', '--database', missing, '--plan', 'full', '--quota', '5', '--period', 'day'])
    expect(exitCode).toBe(1)
    expect(stderr).toContain(`no database at ${missing}`)
    expect(existsSync(missing)).toBe(false)
  })

  it('uses <data-dir>/ventureql.db, and ./.ventureql/ventureql.db by default', async () => {
    const home = join(dir, 'home')
    mkdirSync(join(home, '.ventureql'), { recursive: true })
    await (await createFixtureDatabase({ file: join(home, '.ventureql', 'ventureql.db'), companies: 5 })).close()
    const byDefault = await run(['keys', 'create', '--plan', 'full', '--quota', '5', '--period', 'day'], home)
    expect(byDefault.exitCode).toBe(0)
    const byDir = await run(['keys', 'list', '--data-dir', join(home, '.ventureql'), '--json'])
    const rows = JSON.parse(byDir.stdout) as Array<{ prefix: string }>
    expect(rows.map((r) => r.prefix)).toContain(byDefault.stdout.trim().slice(0, 10))
  })
})

describe('keys list', () => {
  it('shows id, prefix, plan, quota, period, label, created and revoked, and never a key or a hash', async () => {
    const made = (await run(['keys', 'create', '--database', database, '--plan', 'full', '--quota', '7', '--period', 'day', '--label', 'listed'])).stdout.trim()
    const { stdout, exitCode } = await run(['keys', 'list', '--database', database])
    expect(exitCode).toBe(0)
    const [header, ...lines] = stdout.trimEnd().split('\n')
    expect(header!.split(/\s+/)).toEqual(['id', 'prefix', 'plan', 'quota', 'period', 'label', 'created', 'revoked'])
    const line = lines.find((l) => l.includes('listed'))
    expect(line).toBeDefined()
    expect(line).toContain(made.slice(0, 10))
    expect(line).toMatch(/\bfull\s+7\s+day\s+listed\s+\d{4}-\d{2}-\d{2}T/)
    expect(stdout).not.toContain(made)
    expect(stdout).not.toContain(hashApiKey(made))
  })
})

describe('keys revoke', () => {
  async function newKey(): Promise<{ key: string; id: string; prefix: string }> {
    const key = (await run(['keys', 'create', '--database', database, '--plan', 'full', '--quota', '9', '--period', 'day'])).stdout.trim()
    const rows = JSON.parse((await run(['keys', 'list', '--database', database, '--json'])).stdout) as Array<{ id: string; prefix: string }>
    const row = rows.find((r) => key.startsWith(r.prefix))!
    return { key, id: row.id, prefix: row.prefix }
  }

  it.each(['id', 'prefix', 'key'] as const)('revokes by %s; the API then answers 403', async (by) => {
    const made = await newKey()
    expect((await callUsage(made.key)).status).toBe(200)
    const { stdout, stderr, exitCode } = await run(['keys', 'revoke', '--database', database, made[by === 'key' ? 'key' : by]])
    expect(exitCode).toBe(0)
    expect(stdout).toBe(`revoked full key ${made.id} (${made.prefix}…)\n`)
    expect(stdout + stderr).not.toContain(made.key)
    expect((await callUsage(made.key)).status).toBe(403)
    const row = (JSON.parse((await run(['keys', 'list', '--database', database, '--json'])).stdout) as Array<{ id: string; revoked: string }>).find((r) => r.id === made.id)
    expect(row!.revoked).toMatch(/^\d{4}-\d{2}-\d{2}T/)
  })

  it('says so, with exit code 1, when nothing matches, without echoing a key', async () => {
    const made = await newKey()
    await run(['keys', 'revoke', '--database', database, made.id])
    const again = await run(['keys', 'revoke', '--database', database, made.key])
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('no active key matches the given key')
    expect(again.stderr).not.toContain(made.key)
    const unknown = await run(['keys', 'revoke', '--database', database, '999999'])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('no active key matches id 999999')
  })
})
