/**
 * `ventureql similar-index`: in-process through the commander program for one process and a shard,
 * as a child process for `--jobs` (it starts this command once per shard), and the usage errors.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobsCount, parseShard } from '../../src/cli/similar-index.js'
import { similarIndexNote, SUGGEST_SIMILAR_INDEX_FROM } from '../../src/cli/serve.js'
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
    expect(similarIndexNote('partial', 5000, '/d/x.db')).toMatch(/incomplete for this data version .*`ventureql similar-index --database \/d\/x\.db --jobs N` completes it$/)
    expect(similarIndexNote('none', SUGGEST_SIMILAR_INDEX_FROM - 1, '/d/x.db')).toBeUndefined()
    expect(similarIndexNote('none', SUGGEST_SIMILAR_INDEX_FROM, 'postgres://u@h/db --schema vq')).toBe(
      'similar companies: searched on each request (milliseconds a call at this size); `ventureql similar-index --database postgres://u@h/db --schema vq --jobs N` computes them ahead')
  })
})

describe('ventureql similar-index', () => {
  it('builds one shard, then the rest, and says what it did', async () => {
    const shard = await runCli(['similar-index', '--database', database, '--shard', '1/3'])
    expect(shard.exitCode).toBe(0)
    expect(shard.stderr).toMatch(/similar-index 1\/3: 40 computed, 0 already current, of 40 companies at data version \d+/)
    expect(indexed().rows).toBe(40)
    const rest = await runCli(['similar-index', '--database', database])
    expect(rest.stderr).toMatch(/similar-index: 80 computed, 40 already current, of 120 companies/)
    expect(indexed().rows).toBe(120)
  })

  it('--jobs 2 runs two processes, one shard each, and the index answers as the search does', async () => {
    const vdb = openDatabase(database)
    const version = bumpDataVersionSync(vdb.sqlite)
    vdb.sqlite.close()
    const { stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'similar-index', '--database', database, '--jobs', '2'], { cwd: process.cwd() })
    expect(stderr).toMatch(/similar-index 0\/2: 60 computed, 0 already current, of 60 companies/)
    expect(stderr).toMatch(/similar-index 1\/2: 60 computed, 0 already current, of 60 companies/)
    expect(stderr).toMatch(/similar-index: 2 jobs done/)
    expect(indexed()).toEqual({ rows: 120, versions: [version] })
    const check = openDatabase(database, { readonly: true })
    try {
      let nonEmpty = 0
      for (let id = 1; id <= 120; id += 7) {
        const answer = await similarCompanies(check, id)
        expect(answer, `company ${id}`).toStrictEqual(await similarCompanies(check, id, { index: false, totalsBuildMs: Number.POSITIVE_INFINITY }))
        if (answer.length > 0) nonEmpty++
      }
      expect(nonEmpty).toBeGreaterThan(12)
    } finally {
      await check.close()
    }
  }, 60_000)

  it('refuses a shard that is not i/n, --jobs out of range, and both at once, naming the option', async () => {
    for (const text of ['2/2', '1', 'a/b', '-1/2', '0/0', '1/2/3']) expect(() => parseShard(text), text).toThrow(`--shard must be i/n with 0 <= i < n, such as 0/2 (got "${text}")`)
    expect(parseShard(' 1/4 ')).toEqual({ index: 1, count: 4 })
    expect(() => jobsCount('0')).toThrow('--jobs must be a whole number from 1 to 64, got "0"')
    expect(jobsCount('64')).toBe(64)
    await expect(runCli(['similar-index', '--database', database, '--jobs', '2', '--shard', '0/2'], { rethrow: true })).rejects.toThrow('--jobs and --shard cannot be combined')
    await expect(runCli(['similar-index', '--database', database, '--shard', '3/2'], { rethrow: true })).rejects.toThrow('--shard must be i/n')
    for (const jobs of ['65', '1e1', '0x2', ' 2', '-1', '']) expect(() => jobsCount(jobs), jobs).toThrow('--jobs must be a whole number from 1 to 64')
    await expect(runCli(['similar-index', '--database', join(dir, 'nothing.db')], { rethrow: true })).rejects.toThrow(/nothing\.db does not exist/)
    // With --jobs, the database is opened once before any process starts: one error, no children.
    await expect(runCli(['similar-index', '--database', join(dir, 'nothing.db'), '--jobs', '2'], { rethrow: true })).rejects.toThrow(/nothing\.db does not exist/)
  })
})
