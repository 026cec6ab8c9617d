import { afterEach, describe, expect, test } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { datasets, INVESTOR_TYPE, SERIES, STAGE, type FieldDef } from '../../src/catalog/index.js'
import { createFixtureDatabase, FIXTURE_AS_OF } from '../../src/store/generate/fixture.js'
import { GENERATED_AS_OF_KEY, generateInto, generateJsonl } from '../../src/store/generate/build.js'
import { asOfDate, generateRecords, todayUtc, type Envelope } from '../../src/store/generate/generator.js'
import { monthsBefore } from '../../src/parse/list-params.js'
import { Ingestor } from '../../src/store/ingest.js'
import { openDatabase, dataVersion, type SqliteVentureDb } from '../../src/store/open.js'
import { importFiles } from '../../src/cli/import.js'
import { createEngine } from '../../src/engine.js'
import { count, databaseDigest } from './helpers.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })
async function fixture(options?: Parameters<typeof createFixtureDatabase>[0]): Promise<SqliteVentureDb> {
  const vdb = await createFixtureDatabase(options)
  open.push(vdb)
  return vdb
}

describe('generated dates follow the day they are generated (issue 11, item 8)', () => {
  const datesOf = (records: Envelope[]) => records.filter((e) => e.type === 'company').map((e) => ({
    founded: e.record.est_founding_date as string | null,
    lastFunding: e.record.last_funding_date === null ? null : String(e.record.last_funding_date).replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3'),
  }))
  const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000

  test('by default as of today, UTC: every date before it, the latest a few days before; recorded in meta', () => {
    const before = todayUtc()
    const vdb = openDatabase(':memory:')
    open.push(vdb)
    generateInto(vdb, { companies: 400, seed: 1 })
    const asOf = vdb.sqlite.prepare(`select value from meta where key = '${GENERATED_AS_OF_KEY}'`).pluck().get() as string
    expect([before, todayUtc()]).toContain(asOf)
    const latest = count(vdb, `select julianday(?) - julianday(max(last_funding_date)) from companies`, asOf)
    expect(latest).toBeGreaterThanOrEqual(1)
    expect(latest).toBeLessThan(30)
    expect(count(vdb, 'select count(*) from companies where last_funding_date >= ?', monthsBefore(new Date(`${asOf}T12:00:00Z`), 3))).toBeGreaterThan(0)
    expect(count(vdb, 'select count(*) from companies where est_founding_date >= ?', monthsBefore(new Date(`${asOf}T12:00:00Z`), 12))).toBeGreaterThan(0)
    expect(count(vdb, 'select count(*) from companies where est_founding_date >= ? or added_date >= ?', asOf, asOf)).toBe(0)
  })

  test('another asOf moves every date by the same number of days and nothing else; the same asOf repeats exactly', () => {
    const a = [...generateRecords({ companies: 300, seed: 2, asOf: '2024-06-30' })]
    const b = [...generateRecords({ companies: 300, seed: 2, asOf: '2031-03-15' })]
    expect([...generateRecords({ companies: 300, seed: 2, asOf: '2031-03-15' })]).toEqual(b)
    const shift = dayNumber('2031-03-15') - dayNumber('2024-06-30')
    const [da, db] = [datesOf(a), datesOf(b)]
    let compared = 0
    da.forEach((x, k) => {
      const y = db[k]!
      expect(y.founded === null).toBe(x.founded === null)
      if (x.founded !== null) expect(dayNumber(y.founded!) - dayNumber(x.founded)).toBe(shift)
      if (x.lastFunding !== null && y.lastFunding !== null && dayNumber(x.lastFunding) > dayNumber('2012-06-01')) {
        expect(dayNumber(y.lastFunding) - dayNumber(x.lastFunding)).toBe(shift)
        compared++
      }
    })
    expect(compared).toBeGreaterThan(100)
    // Names, amounts and everything else but dates are the same records.
    const undated = (e: Envelope) => JSON.stringify(e).replace(/\d{4}-?\d{2}-?\d{2}(?:[ T]\d{2}:\d{2}:\d{2})?/g, 'D')
    expect(b.map(undated)).toEqual(a.map(undated))
  })

  test('asOf must be a calendar day', () => {
    expect(asOfDate('2024-02-29')).toBe('2024-02-29')
    for (const bad of ['2023-02-29', '2024-2-1', '20240201', 'today', '', '1850-01-01']) {
      expect(() => [...generateRecords({ companies: 1, asOf: bad })], bad).toThrow(/asOf must be a calendar day YYYY-MM-DD/)
    }
  })

  test(`the fixture stays as of ${FIXTURE_AS_OF}, whatever the day`, async () => {
    const vdb = await fixture({ companies: 50 })
    expect(vdb.sqlite.prepare(`select value from meta where key = '${GENERATED_AS_OF_KEY}'`).pluck().get()).toBe(FIXTURE_AS_OF)
    expect(databaseDigest(vdb)).toEqual(databaseDigest(await fixture({ companies: 50, asOf: FIXTURE_AS_OF })))
  })
})

describe('synthetic generator', () => {
  test('the same seed gives identical databases; another seed does not', async () => {
    const a = databaseDigest(await fixture({ companies: 300, seed: 7 }))
    const b = databaseDigest(await fixture({ companies: 300, seed: 7 }))
    const c = databaseDigest(await fixture({ companies: 300, seed: 8 }))
    expect(a).toEqual(b)
    expect(c.companies).not.toBe(a.companies)
    expect(c.fundings).not.toBe(a.fundings)
  })

  test('generate → jsonl → import gives the same rows as generating straight into SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vql-gen-'))
    const jsonl = join(dir, 'g.jsonl')
    await generateJsonl(jsonl, { companies: 250, seed: 3, asOf: '2025-01-31' })
    const imported = join(dir, 'imported.db')
    expect((await importFiles(imported, [jsonl], () => {})).rejected).toBe(0)
    const direct = openDatabase(':memory:')
    open.push(direct)
    generateInto(direct, { companies: 250, seed: 3, asOf: '2025-01-31' })
    const fromFile = openDatabase(imported)
    open.push(fromFile)
    expect(databaseDigest(fromFile)).toEqual(databaseDigest(direct))
  })

  test('the fixture builds fast and gives filters something to bite on', async () => {
    const started = performance.now()
    const vdb = await fixture()
    expect(performance.now() - started).toBeLessThan(3000) // < 1 s on an idle machine; slack for shared CI cores
    expect(count(vdb, 'select count(*) from companies')).toBe(400)
    expect(count(vdb, 'select count(*) from investors')).toBe(20)
    // Every enum value occurs.
    const values = (sql: string) => new Set(vdb.sqlite.prepare(sql).pluck().all())
    expect(values('select distinct stage from companies')).toEqual(new Set(STAGE.values))
    expect(values('select distinct series from fundings where series is not null')).toEqual(new Set(SERIES.values))
    expect(values('select distinct type from investors')).toEqual(new Set(INVESTOR_TYPE.values))
    // Investors with 0, exactly 1 and many portfolio companies.
    const sizes = vdb.sqlite.prepare('select portfolio_size from investors').pluck().all() as number[]
    expect(sizes).toContain(0)
    expect(sizes).toContain(1)
    expect(Math.max(...sizes)).toBeGreaterThan(20)
    // Tag values repeat across companies.
    for (const f of Object.values(datasets.companies.fields) as FieldDef[]) {
      if (!f.tags) continue
      const top = count(vdb, `select max(n) from (select count(*) as n from "${f.tags.table}" group by "${f.tags.valueColumn}")`)
      expect(top, f.name).toBeGreaterThan(1)
    }
    // Most nullable scalar fields have some NULLs and some values.
    for (const name of ['companies', 'investors', 'fundings'] as const) {
      const ds = datasets[name]
      const nullable = (Object.values(ds.fields) as FieldDef[]).filter((f) => f.column && f.nullable && !f.tags)
      const mixed = nullable.filter((f) => {
        const nulls = count(vdb, `select count(*) from "${ds.table}" where "${f.column}" is null`)
        const total = count(vdb, `select count(*) from "${ds.table}"`)
        return nulls > 0 && nulls < total
      })
      expect(mixed.length / nullable.length, name).toBeGreaterThan(0.5)
    }
    // Three-letter country codes, mostly USA.
    const usa = count(vdb, "select count(*) from companies where country = 'USA'")
    expect(usa / 400).toBeGreaterThan(0.5)
    expect(count(vdb, 'select count(*) from companies where length(country) <> 3')).toBe(0)
  })

  test('shapes: ~1 investor per 20 companies, ~1.5 funding events per company, string numerics as the spec shows', () => {
    const records = [...generateRecords({ companies: 2000, seed: 11 })]
    const companies = records.filter((r) => r.type === 'company')
    const investors = records.filter((r) => r.type === 'investor')
    expect(companies).toHaveLength(2000)
    expect(investors).toHaveLength(100)
    const events = companies.reduce((n, c) => n + (c.record.funding as unknown[]).length, 0) + records.filter((r) => r.type === 'funding').length
    expect(events / 2000).toBeGreaterThan(1.1)
    expect(events / 2000).toBeLessThan(2)
    const c = companies.find((x) => x.record.svc_score != null)!.record
    expect(typeof c.id).toBe('string')
    expect(typeof c.svc_score).toBe('string')
    expect(typeof c.employees).toBe('string')
    const compact = companies.filter((x) => typeof x.record.last_funding_date === 'string' && /^\d{8}$/.test(x.record.last_funding_date))
    expect(compact.length).toBeGreaterThan(0)
  })

  test("time-series timestamps end as the spec shows them: ' UTC', and ' +0000' (with its space) in est_monthly_uniques", () => {
    const companies = [...generateRecords({ companies: 2000, seed: 11, asOf: FIXTURE_AS_OF })].filter((r) => r.type === 'company').map((r) => r.record)
    const stamps = (field: string) => companies.flatMap((c) => ((c[field] ?? []) as { recorded_at: string }[]).map((p) => p.recorded_at))
    const uniques = stamps('est_monthly_uniques')
    const others = ['growth_scores', 'employee_count', 'svc_weekly_momentum'].flatMap(stamps)
    expect(uniques.length).toBeGreaterThan(10)
    expect(others.length).toBeGreaterThan(10)
    for (const t of uniques) expect(t).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0000$/)
    for (const t of others) expect(t).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/)
  })

  test('realism: ~1.5 funding events per company, a long-tailed investor distribution without a giant, stage = last series', async () => {
    const vdb = await fixture({ companies: 10_000, seed: 5 })
    const perCompany = count(vdb, 'select count(*) from fundings') / 10_000
    expect(perCompany).toBeGreaterThan(1.4)
    expect(perCompany).toBeLessThan(1.65)
    const sizes = (vdb.sqlite.prepare('select portfolio_size from investors order by portfolio_size').pluck().all() as number[])
    // The most active investor is in a few percent of the companies (a Zipf draw over ranks gave
    // one 4.5% of a million; the share shrinks as investors grow with companies), and plenty of
    // investors are in a handful.
    expect(sizes.at(-1)!).toBeLessThan(10_000 * 0.1)
    expect(sizes.filter((s) => s <= 3).length).toBeGreaterThan(sizes.length * 0.05)
    expect(sizes[Math.floor(sizes.length / 2)]!).toBeLessThan(sizes.at(-1)! / 10)
    // Follow-on rounds: investors come back to their companies.
    expect(count(vdb, 'select count(*) from investors where deals_per_company > 1')).toBeGreaterThan(sizes.length / 2)
    // A company at a lettered stage raised that series last.
    const mismatched = count(vdb, `select count(*) from companies c where c.stage in ('a','b','c','d','e','f','g','h','i')
      and c.stage is not (select f.series from fundings f where f.company_id = c.id order by f.rounds_funding_date desc, f.id desc limit 1)`)
    expect(mismatched).toBe(0)
  })

  test('unsafeFast really loads without a journal, and leaves the file in WAL mode', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vql-fast-')), 'fast.db')
    const vdb = openDatabase(file)
    open.push(vdb)
    const ingestor = new Ingestor(vdb, { unsafeFast: true })
    // better-sqlite3's defensive mode refuses journal_mode = OFF without a word unless lifted.
    expect(vdb.sqlite.pragma('journal_mode', { simple: true })).toBe('off')
    for (const e of generateRecords({ companies: 50, seed: 2 })) ingestor.add(e, 1)
    ingestor.finish()
    expect(vdb.sqlite.pragma('journal_mode', { simple: true })).toBe('wal')
    // The connection is usable as a WAL connection at once (a checkpoint failed with SQLITE_LOCKED
    // when the last write had happened before the journal came back).
    expect(vdb.sqlite.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }])
    expect(vdb.sqlite.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(count(vdb, 'select count(*) from companies')).toBe(50)
  })

  test('data_version moves when an ingest starts and again when it finishes', async () => {
    const vdb = openDatabase(':memory:')
    open.push(vdb)
    expect(await dataVersion(vdb)).toBe(0)
    generateInto(vdb, { companies: 20, seed: 1 })
    const afterFirst = await dataVersion(vdb)
    expect(afterFirst).toBeGreaterThan(0)
    const ingestor = new Ingestor(vdb, { batchSize: 5 })
    const duringLoad = await dataVersion(vdb)
    expect(duringLoad).toBeGreaterThan(afterFirst)
    for (const envelope of generateRecords({ companies: 20, seed: 2 })) ingestor.add(envelope, 1)
    const summary = ingestor.finish()
    // What a reader cached while batches were committing is keyed to `duringLoad`, never reused.
    expect(summary.dataVersion).toBeGreaterThan(duringLoad)
    expect(await dataVersion(vdb)).toBe(summary.dataVersion)
  })

  test('a total cached during a load is not served after it', async () => {
    const vdb = openDatabase(':memory:')
    open.push(vdb)
    generateInto(vdb, { companies: 30, seed: 1 })
    const engine = createEngine({ database: vdb })
    const request = { dataset: 'companies', filter: {} }
    const before = await engine.count(request)
    const ingestor = new Ingestor(vdb, { batchSize: 1 })
    let added = 0
    for (const envelope of generateRecords({ companies: 30, seed: 7 })) {
      ingestor.add({ ...envelope, record: envelope.type === 'company' ? { ...envelope.record, id: Number(envelope.record.id) + 100_000 } : envelope.record }, 1)
      if (envelope.type === 'company' && ++added === 10) break
    }
    const during = await engine.count(request)   // sees committed batches: partial data
    ingestor.finish()
    const after = await engine.count(request)
    expect(before.ok && during.ok && after.ok).toBe(true)
    if (before.ok && during.ok && after.ok) {
      expect(after.value).toBe(before.value + 10)
      expect(during.value).toBeGreaterThan(before.value)
    }
  })
})
