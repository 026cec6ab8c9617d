/**
 * `ventureql import` end to end, in-process through the commander program (issue 11, item 13): it
 * counts every record it stored, funding events inside company records included, equal to what the
 * tables gained (`count(*)` before and after), and reports each phase of the load on stderr with an
 * estimate of the time left.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { generateRecords } from '../../src/store/generate/generator.js'
import { loadPhases, RECORDS_PHASE } from '../../src/store/load-phases.js'
import { openDatabase } from '../../src/store/open.js'
import { dbValue } from '../support/db-value.js'
import { runCli } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'vql-import-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const value = dbValue

const ROWS = { companies: 'companies', investors: 'investors', fundings: 'fundings', links: 'funding_investors' } as const
function rowCounts(file: string): Record<keyof typeof ROWS, number> {
  const vdb = openDatabase(file, { readonly: true })
  try {
    const out = {} as Record<keyof typeof ROWS, number>
    for (const [k, table] of Object.entries(ROWS) as [keyof typeof ROWS, string][]) out[k] = Number(vdb.sqlite.prepare(`select count(*) from ${table}`).pluck().get())
    return out
  } finally {
    vdb.sqlite.close()
  }
}

describe('import counts every record it stored and shows each phase', () => {
  /** Generated records: companies carry most funding events in their `funding` arrays, a few come as funding records. */
  const envelopes = [...generateRecords({ companies: 400, seed: 4, asOf: '2025-05-05' })]
  const embedded = envelopes.filter((e) => e.type === 'company').reduce((n, e) => n + (e.record.funding as unknown[]).length, 0)
  const standalone = envelopes.filter((e) => e.type === 'funding').length

  test('the summary equals the row counts the database gained, funding events of company records included', async () => {
    expect(embedded).toBeGreaterThan(10 * standalone) // the shape of the report: 1,587 events, 69 of them funding records
    const file = join(dir, 'records.jsonl')
    writeFileSync(file, envelopes.map((e) => JSON.stringify(e)).join('\n') + '\n')
    const db = join(dir, 'imported.db')
    const run = await runCli(['import', '--database', db, file])
    expect(run.exitCode, run.stderr).toBe(0)
    const after = rowCounts(db)
    expect(after.fundings).toBe(embedded + standalone)
    expect(run.stdout).toBe(`imported ${after.companies} companies, ${after.investors} investors, ${after.fundings} funding events `
      + `(${embedded} in company records, ${standalone} funding records), ${after.links} investor links; rejected 0; data version 2\n`)

    // Into a loaded database: new records, records replacing stored ones (a company whose funding
    // item replaces a stored event with fewer investors), and a record repeated within the file.
    const company1 = envelopes.find((e) => e.type === 'company' && e.record.id === '1')!
    const storedEvent = (company1.record.funding as { id: number }[])[0]!
    const more = [
      { type: 'investor', record: { investor_id: 9001, name: 'New Fund', type: 'vc', svc_slug: 'new-fund' } },
      { type: 'company', record: { id: '9001', name: 'Newco', funding: [{ id: 90_001, amount: 5, currency: 'USD', series: 'seed', funding_date: '2025-01-01', investor_ids: [9001, 1] }] } },
      { type: 'company', record: { id: '1', name: 'Renamed', funding: [{ id: storedEvent.id, amount: 7, currency: 'USD', series: 'a', funding_date: '2024-01-01', investor_ids: [] }] } },
      { type: 'funding', record: { id: '90002', company_id: '9001', amount: 1, currency: 'USD', series: 'a', rounds_funding_date: '2025-02-01', investor_slugs: 'new-fund' } },
      { type: 'funding', record: { id: '90002', company_id: '9001', amount: 2, currency: 'USD', series: 'a', rounds_funding_date: '2025-02-02', investor_slugs: 'new-fund' } },
    ]
    const second = join(dir, 'more.jsonl')
    writeFileSync(second, more.map((e) => JSON.stringify(e)).join('\n') + '\n')
    const storedLinks = Number(value(db, `select count(*) from funding_investors where funding_id = ${storedEvent.id}`))
    expect(storedLinks).toBeGreaterThan(0)
    const again = await runCli(['import', '--database', db, second])
    expect(again.exitCode, again.stderr).toBe(0)
    const gained = rowCounts(db)
    const delta = { companies: gained.companies - after.companies, investors: gained.investors - after.investors, fundings: gained.fundings - after.fundings, links: gained.links - after.links }
    expect(delta).toEqual({ companies: 1, investors: 1, fundings: 2, links: 3 - storedLinks })
    expect(again.stdout).toBe('imported 2 companies (1 new, 1 update), 1 investors, 4 funding events (2 in company records, 2 funding records; 2 new, 2 updates), '
      + `${delta.links >= 0 ? delta.links : `${-delta.links} fewer`} investor links; rejected 0; data version 4\n`)
  })

  test('progress on stderr: every phase in order, each with a real estimate, then the time it took', async () => {
    const file = join(dir, 'progress.jsonl')
    writeFileSync(file, envelopes.map((e) => JSON.stringify(e)).join('\n') + '\n')
    const run = await runCli(['import', '--database', join(dir, 'progress.db'), file])
    expect(run.exitCode, run.stderr).toBe(0)
    const lines = run.stderr.trimEnd().split('\n')
    expect(lines.at(-1)).toMatch(/^import: done in [1-9]\d*(?:s|m \d\ds)$/)
    const steps = lines.slice(0, -1).map((line) => {
      const m = /^import: (\d+)% \| (.+?)(?: \(phase (\d+) of (\d+)\)| ([\d.]+)\/([\d.]+) (?:kB|MB)) \| (.+)$/.exec(line)
      expect(m, line).not.toBeNull()
      return { percent: Number(m![1]), phase: m![2]!, left: m![7]! }
    })
    // Every phase of a load into an empty database, in order, and the records in tenths.
    const plan = loadPhases('sqlite', { rebuildsIndexes: true }).map((p) => p.name)
    expect([...new Set(steps.map((s) => s.phase))]).toEqual(plan)
    expect(steps.filter((s) => s.phase === RECORDS_PHASE).length).toBeGreaterThanOrEqual(10)
    for (let k = 1; k < steps.length; k++) expect(steps[k]!.percent).toBeGreaterThanOrEqual(steps[k - 1]!.percent)
    // A real estimate once something is measured; never "0s left" (nor cli-progress's "LLs left") while work remains.
    expect(steps[0]!.left).toBe('estimating time left')
    for (const s of steps.filter((x) => x.phase !== RECORDS_PHASE)) {
      expect(s.left, s.phase).toMatch(/^(?:about|more than) (?:[1-9]\d*s|\d+m \d\ds)(?: left)$|^longer than estimated, still working$/)
    }
    expect(run.stderr).not.toMatch(/\b0s left|LL|NULL|INF/)
  })
})
