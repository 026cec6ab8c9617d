/**
 * `ventureql similar-index`: in-process through the commander program (a build, an update, --full,
 * --reweigh), as a child process, and a database that does not exist.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { similarIndexNote, SUGGEST_SIMILAR_INDEX_FROM } from '../../src/cli/serve.js'
import { jobsCount, parseShard } from '../../src/cli/similar-index.js'
import { similarCompanies } from '../../src/records/similar.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { bumpDataVersionSync, openDatabase } from '../../src/store/open.js'
import { runCli } from '../support/run-cli.js'

const run = promisify(execFile)
let dir: string
let database: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-similar-index-'))
  database = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file: database, companies: 120 })).close()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function indexed(): { rows: number; versions: number[] } {
  const vdb = openDatabase(database, { readonly: true })
  try {
    const rows = vdb.sqlite.prepare('select count(*) from similar_companies').pluck().get() as number
    const versions = vdb.sqlite.prepare('select distinct data_version from similar_companies order by 1').pluck().all() as number[]
    return { rows, versions }
  } finally {
    vdb.sqlite.close()
  }
}

describe('what serve says about the similarity index at startup', () => {
  it('names the index when it is current, the gap when it is not, and the command for a large dataset without one', () => {
    expect(similarIndexNote('current', 5000, '/d/x.db')).toBe('similar companies: from the similarity index (built for this data version)')
    expect(similarIndexNote('partial', 5000, '/d/x.db')).toMatch(/incomplete for this data version .*`ventureql similar-index --database \/d\/x\.db` completes it$/)
    expect(similarIndexNote('none', SUGGEST_SIMILAR_INDEX_FROM - 1, '/d/x.db')).toBeUndefined()
    expect(similarIndexNote('none', SUGGEST_SIMILAR_INDEX_FROM, 'postgres://u@h/db --schema vq')).toBe(
      'similar companies: searched on each request (milliseconds a call at this size); `ventureql similar-index --database postgres://u@h/db --schema vq` computes them ahead')
  })
})

describe('ventureql similar-index', () => {
  it('builds the index, updates it after the data moves, and says what it did', async () => {
    const first = await runCli(['similar-index', '--database', database])
    expect(first.exitCode).toBe(0)
    expect(first.stderr).toMatch(/similar-index: 120 computed, 0 already current, of 120 companies at data version \d+ in [\d.]+ s \(new tag weights\)/)
    expect(indexed().rows).toBe(120)
    const vdb = openDatabase(database)
    vdb.sqlite.exec("update companies set description = 'Fraud detection for card payments' where id = 5")
    const version = bumpDataVersionSync(vdb.sqlite)
    vdb.sqlite.close()
    const update = await runCli(['similar-index', '--database', database])
    const [, computed] = /similar-index: (\d+) computed, (\d+) already current, of 120 companies/.exec(update.stderr) ?? []
    expect(Number(computed)).toBeGreaterThanOrEqual(1)
    expect(Number(computed)).toBeLessThan(120)
    expect(indexed()).toEqual({ rows: 120, versions: [version] })
    expect((await runCli(['similar-index', '--database', database, '--full'])).stderr).toMatch(/similar-index: 120 computed, 0 already current/)
    expect((await runCli(['similar-index', '--database', database, '--reweigh'])).stderr).toMatch(/similar-index: 120 computed, 0 already current, .*\(new tag weights\)/)
  })

  it('runs as a command of its own, and the index answers', async () => {
    const vdb = openDatabase(database)
    const version = bumpDataVersionSync(vdb.sqlite)
    vdb.sqlite.close()
    const { stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'similar-index', '--database', database], { cwd: process.cwd() })
    expect(stderr).toMatch(/similar-index: 0 computed, 120 already current, of 120 companies/)
    expect(indexed()).toEqual({ rows: 120, versions: [version] })
    const check = openDatabase(database, { readonly: true })
    try {
      let nonEmpty = 0
      for (let id = 1; id <= 120; id += 7) {
        const answer = await similarCompanies(check, id)
        const row = check.sqlite.prepare('select neighbours from similar_companies where company_id = ?').pluck().get(id) as string
        expect(answer.map((r) => [r.id, r.score]), `company ${id}`).toEqual(JSON.parse(row))
        if (answer.length > 0) nonEmpty++
      }
      expect(nonEmpty).toBeGreaterThan(12)
    } finally {
      await check.close()
    }
  }, 60_000)

  it('accepts --jobs (threads computing the answers) and --shard: shard 0 builds the whole index, the others do nothing', async () => {
    const vdb = openDatabase(database)
    const version = bumpDataVersionSync(vdb.sqlite)
    vdb.sqlite.close()
    const other = await runCli(['similar-index', '--database', database, '--shard', '1/2'])
    expect(other.exitCode).toBe(0)
    expect(other.stderr).toMatch(/similar-index 1\/2: nothing to do \(shard 0 builds the whole index in one process\)/)
    expect(indexed().versions).not.toEqual([version])
    const first = await runCli(['similar-index', '--database', database, '--shard', '0/2'])
    expect(first.stderr).toMatch(/similar-index: 0 computed, 120 already current, of 120 companies/)
    expect(indexed()).toEqual({ rows: 120, versions: [version] })
    const jobs = await runCli(['similar-index', '--database', database, '--jobs', '2', '--full'])
    expect(jobs.exitCode).toBe(0)
    expect(jobs.stderr).toMatch(/similar-index: 120 computed, 0 already current, of 120 companies/)
  })

  it('refuses a shard that is not i/n, --jobs out of range, and both at once, naming the option', async () => {
    for (const text of ['2/2', '1', 'a/b', '-1/2', '0/0', '1/2/3']) expect(() => parseShard(text), text).toThrow(`--shard must be i/n with 0 <= i < n, such as 0/2 (got "${text}")`)
    expect(parseShard('1/3')).toEqual({ index: 1, count: 3 })
    expect(() => jobsCount('0')).toThrow('--jobs must be a whole number from 1 to 64, got "0"')
    expect(jobsCount('64')).toBe(64)
    for (const jobs of ['65', '1e1', '0x2', ' 2', '-1', '']) expect(() => jobsCount(jobs), jobs).toThrow('--jobs must be a whole number from 1 to 64')
    await expect(runCli(['similar-index', '--database', database, '--jobs', '2', '--shard', '0/2'], { rethrow: true })).rejects.toThrow('--jobs and --shard cannot be combined')
    await expect(runCli(['similar-index', '--database', database, '--shard', '3/2'], { rethrow: true })).rejects.toThrow('--shard must be i/n')
    const refused = await runCli(['similar-index', '--database', database, '--jobs', '0'])
    expect(refused.exitCode).not.toBe(0)
    expect(refused.stderr).toContain('--jobs must be a whole number from 1 to 64')
  })

  it('refuses a database that does not exist', async () => {
    await expect(runCli(['similar-index', '--database', join(dir, 'nothing.db')], { rethrow: true })).rejects.toThrow(/nothing\.db does not exist/)
  })
})
