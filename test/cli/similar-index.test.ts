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

  it('refuses a database that does not exist', async () => {
    await expect(runCli(['similar-index', '--database', join(dir, 'nothing.db')], { rethrow: true })).rejects.toThrow(/nothing\.db does not exist/)
  })
})
