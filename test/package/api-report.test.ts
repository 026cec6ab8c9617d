/**
 * The public surface changes only on purpose: each entry point's declarations, as api-extractor
 * reports them, must equal the committed api-report/*.api.md (scripts/api-report.ts). A change to
 * an exported name or signature fails here until the report is regenerated with
 * `npm run api-report` and committed with the change.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { API_ENTRY_POINTS, describeFailures, runApiReports } from '../../scripts/api-report.js'

describe('API report', () => {
  it('covers every entry point of package.json "exports"', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> }
    const subpaths = Object.keys(pkg.exports).filter((s) => s !== './package.json')
    expect(API_ENTRY_POINTS.map((e) => e.subpath).sort()).toEqual(subpaths.sort())
  })

  it('each entry point\'s surface is the committed report (else: run npm run api-report)', async () => {
    const outcomes = await runApiReports(true)
    expect(outcomes.map((o) => o.report)).toEqual(API_ENTRY_POINTS.map((e) => e.report))
    const failures = describeFailures(outcomes)
    expect(failures, failures).toBe('')
  }, 300_000)
})
