/**
 * `ventureql generate` end to end, in-process through the commander program (issue 11, item 8):
 * generated data is dated from the day it is generated unless `--as-of` says otherwise, says so in
 * its summary and keeps the day in `meta`; `serve` says how old generated data is.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { generatedDataNote } from '../../src/cli/serve.js'
import { GENERATED_AS_OF_KEY } from '../../src/store/generate/build.js'
import { todayUtc } from '../../src/store/generate/generator.js'
import { dbValue } from '../support/db-value.js'
import { runCli } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'vql-generate-dates-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const value = dbValue

describe('generate dates its data from the day it runs', () => {
  test('by default today, UTC: said in the summary and kept in meta', async () => {
    const before = todayUtc()
    const out = join(dir, 'today.db')
    const run = await runCli(['generate', '--companies', '120', '--out', out])
    const after = todayUtc()
    expect(run.exitCode, run.stderr).toBe(0)
    const asOf = value(out, `select value from meta where key = '${GENERATED_AS_OF_KEY}'`) as string
    expect([before, after]).toContain(asOf)
    expect(run.stdout).toMatch(new RegExp(`^${out}: 120 companies, 6 investors, \\d+ funding events, .* \\(dated as of ${asOf}\\)\\n$`))
    // Every date falls before that day, and the latest funding events are recent.
    expect(value(out, 'select max(last_funding_date) from companies')! < asOf).toBe(true)
    expect(value(out, 'select max(est_founding_date) from companies')! < asOf).toBe(true)
  })

  test('--as-of gives the same data whatever the day; a day that does not exist is refused', async () => {
    const a = join(dir, 'a.db')
    const run = await runCli(['generate', '--companies', '60', '--out', a, '--as-of', '2031-03-15'])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain('(dated as of 2031-03-15)')
    expect(value(a, `select value from meta where key = '${GENERATED_AS_OF_KEY}'`)).toBe('2031-03-15')
    expect(String(value(a, 'select max(last_funding_date) from companies')) < '2031-03-15').toBe(true)
    const jsonl = join(dir, 'a.jsonl')
    const lines = await runCli(['generate', '--companies', '60', '--out', jsonl, '--as-of', '2031-03-15'])
    expect(lines.stdout).toMatch(/^wrote \d+ records to .* \(dated as of 2031-03-15\)\n$/)
    for (const bad of ['2031-02-30', '15/03/2031', 'today']) {
      const refused = await runCli(['generate', '--companies', '5', '--out', join(dir, 'bad.db'), '--as-of', bad])
      expect(refused.exitCode).toBe(1)
      expect(refused.stderr).toContain(`--as-of must be a calendar day YYYY-MM-DD, got ${JSON.stringify(bad)}`)
    }
  })

  test('serve says how old generated data is, and how to renew the demo database', () => {
    expect(generatedDataNote('2026-11-25', '2026-11-25', '/d/ventureql.db')).toBe('data: generated, dated as of 2026-11-25 (today)')
    expect(generatedDataNote('2026-11-01', '2026-11-25', undefined)).toBe('data: generated, dated as of 2026-11-01')
    expect(generatedDataNote('2024-06-30', '2026-11-25', '/d/ventureql.db')).toMatch(/^data: generated, dated as of 2024-06-30, 878 days ago: .*match less of it; delete \/d\/ventureql\.db for a new demo database/)
    expect(generatedDataNote('2024-06-30', '2026-11-25', undefined)).toMatch(/regenerate it with `ventureql generate --out FILE`$/)
  })
})
