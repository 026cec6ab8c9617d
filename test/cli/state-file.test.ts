/**
 * `serve` and `keys` over a database whose state file (`<db>-state`: keys, quota counts, stored
 * queries) is missing, emptied, another database's or corrupt (issue 29, item 4): each is refused
 * with the file named, what is wrong and `--new-state`; `--new-state` starts afresh on purpose. A
 * state file deleted while `serve` runs turns `/readyz` into a 503 and writes a log line.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe } from '../../src/cli/serve.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { stateFileOf } from '../../src/store/state-file.js'
import { runCli } from '../support/run-cli.js'

const root = mkdtempSync(join(tmpdir(), 'vql-state-cli-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end()
  })
}

const quiet = { port: 0, http: true, companies: 50, workers: 1, out: () => {}, err: () => {} }

/** A served demo database (first run: keys created), stopped: its two files are copied for each case. */
const base = join(root, 'base')
let baseKey: string
let otherState: string
beforeAll(async () => {
  const first = await startServe({ ...quiet, dataDir: base })
  baseKey = first.createdKeys!.full
  await first.close()
  const other = join(root, 'other.db')
  await (await createFixtureDatabase({ file: other, companies: 10 })).close()
  otherState = stateFileOf(other)
})

/** A copy of the base data directory with its state file damaged as `damage` says. */
function dataDir(name: string, damage: (stateFile: string) => void): { dir: string; db: string; stateFile: string } {
  const dir = join(root, name)
  mkdirSync(dir)
  const db = join(dir, 'ventureql.db')
  copyFileSync(join(base, 'ventureql.db'), db)
  copyFileSync(stateFileOf(join(base, 'ventureql.db')), stateFileOf(db))
  damage(stateFileOf(db))
  return { dir, db, stateFile: stateFileOf(db) }
}

const cases = [
  { problem: 'missing', says: 'does not exist', damage: (f: string) => rmSync(f) },
  { problem: 'empty', says: 'is empty', damage: (f: string) => writeFileSync(f, '') },
  { problem: 'foreign', says: 'belongs to another data file', damage: (f: string) => copyFileSync(otherState, f) },
  { problem: 'corrupt', says: 'is not a SQLite database', damage: (f: string) => writeFileSync(f, Buffer.alloc(4096, 0x41)) },
] as const

describe.each(cases)('a $problem state file', ({ problem, says, damage }) => {
  it('is refused by serve and keys, naming the file, what is wrong and --new-state', async () => {
    const { dir, stateFile } = dataDir(`${problem}-refused`, damage)
    const served = await runCli(['serve', '--data-dir', dir, '--port', '0', '--http', '--workers', '1'])
    expect(served.exitCode).toBe(1)
    expect(served.stderr).toContain(`ventureql serve: the state file ${stateFile} ${says}`)
    expect(served.stderr).toContain('--new-state')
    expect(served.stdout).not.toContain('full key:')
    const listed = await runCli(['keys', 'list', '--data-dir', dir])
    expect(listed.exitCode).toBe(1)
    expect(listed.stderr).toContain(`ventureql keys list: the state file ${stateFile} ${says}`)
    // Nothing was created or changed in its place.
    expect(existsSync(stateFile)).toBe(problem !== 'missing')
  })

  it('serve --new-state starts afresh on purpose: new keys, the old key refused', async () => {
    const { dir, stateFile } = dataDir(`${problem}-new`, damage)
    const errLines: string[] = []
    const handle = await startServe({ ...quiet, dataDir: dir, newState: true, err: (l) => errLines.push(l) })
    try {
      expect(handle.createdKeys?.full).toMatch(/^vql_/)
      expect(errLines.join('\n')).toContain(`the state file ${stateFile}`)
      expect(errLines.join('\n')).toContain('(--new-state)')
      if (problem === 'foreign' || problem === 'corrupt') expect(errLines.join('\n')).toMatch(new RegExp(`set aside as \\S+-state\\.${problem}-`))
      expect((await get(`${handle.url}/companies?key=${handle.createdKeys!.full}`)).status).toBe(200)
      expect((await get(`${handle.url}/companies?key=${baseKey}`)).status).toBe(403)
    } finally {
      await handle.close()
    }
  })
})

describe('keys --new-state', () => {
  it('creates a key in an empty state file in place of a missing one', async () => {
    const { dir, stateFile } = dataDir('keys-new', (f) => rmSync(f))
    const made = await runCli(['keys', 'create', '--data-dir', dir, '--plan', 'full', '--quota', '10', '--new-state'])
    expect(made.exitCode).toBe(0)
    expect(made.stderr).toContain(`the state file ${stateFile} does not exist: an empty one created (--new-state)`)
    expect(made.stdout).toMatch(/^vql_/)
    const listed = await runCli(['keys', 'list', '--data-dir', dir, '--json'])
    expect(listed.exitCode).toBe(0)
    expect(JSON.parse(listed.stdout)).toHaveLength(1)
  })
})

describe('a state file deleted while serve runs', () => {
  it('turns /readyz into a 503 with the reason, and writes a log line naming the file', async () => {
    const { dir, stateFile } = dataDir('deleted-live', () => {})
    const errLines: string[] = []
    const handle = await startServe({ ...quiet, dataDir: dir, stateCheckMs: 20, err: (l) => errLines.push(l) })
    try {
      expect((await get(`${handle.url}/readyz`)).status).toBe(200)
      expect((await get(`${handle.url}/companies?key=${baseKey}`)).status).toBe(200)
      rmSync(stateFile)
      const ready = await get(`${handle.url}/readyz`)
      expect(ready.status).toBe(503)
      expect(JSON.parse(ready.body)).toMatchObject({ status: 'not ready', state_file: 'lost' })
      expect(ready.body).toContain('state file')
      expect(ready.body).not.toContain(stateFile)
      for (let i = 0; i < 200 && !errLines.some((l) => l.includes('was deleted')); i++) await new Promise((r) => setTimeout(r, 10))
      const logged = errLines.filter((l) => l.includes('was deleted'))
      expect(logged).toEqual([`ventureql: the state file ${stateFile} was deleted while the database is open; ${logged[0]!.split('; ').slice(1).join('; ')}`])
      expect(logged[0]).toContain('from a backup')
    } finally {
      await handle.close()
    }
  })
})
