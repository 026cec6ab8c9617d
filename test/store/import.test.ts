import { afterEach, describe, expect, test } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importFiles } from '../../src/cli/import.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { parseRecord } from '../../src/store/record-schemas.js'
import { count } from './helpers.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })

const dir = mkdtempSync(join(tmpdir(), 'vql-import-'))

const lines = [
  { type: 'investor', record: { investor_id: 7, name: 'Acme VC', type: 'vc', svc_slug: 'acme-vc' } },
  { type: 'investor', record: { id: '8', name: 'Bea Angel', type: 'Angel', svc_slug: 'bea' } },
  { type: 'company', record: { id: '1', name: 'Foo', employees: '40', stage: 'exited (acquired)', last_funding_date: '20200105', industries: ['SaaS'],
    funding: [{ id: 11, amount: 1000, currency: 'USD', series: 'a', funding_date: '2019-01-01', investor_ids: [7] }] } },
  { type: 'company', record: { id: '2', name: 'Bar', employees: 'many' } }, // line 4: bad employees
  { type: 'funding', record: { id: '12', company_id: '1', amount: '500', currency: 'EUR', series: '', rounds_funding_date: '2020-01-05', investor_slugs: 'bea,acme-vc' } },
  { type: 'investor', record: { name: 'No id' } }, // line 6: missing id
  { type: 'company', record: { id: 3, stage: 'series z' } }, // line 7: bad enum
]

function writeJsonl(name: string, body: string): string {
  const file = join(dir, name)
  writeFileSync(file, body)
  return file
}

describe('ventureql import', () => {
  test('keeps every good line and rejects each bad one with its line number and a reason naming the field', async () => {
    const file = writeJsonl('mixed.jsonl', lines.map((l) => JSON.stringify(l)).join('\n') + '\n\n{not json\n')
    const db = join(dir, 'mixed.db')
    const out: string[] = []
    const { rejected } = await importFiles(db, [file], (l) => out.push(l))
    expect(rejected).toBe(4)
    // The company's funding item counts as a funding event, as the standalone funding record does.
    expect(out[0]).toBe('imported 1 companies, 2 investors, 2 funding events (1 in company records, 1 funding records), 3 investor links; rejected 4; data version 2')
    expect(out).toContain(`${file}:4: company.employees: expected an integer (number or numeric string), got "many"`)
    expect(out).toContain(`${file}:6: investor.investor_id: expected an integer investor_id (or id), got nothing`)
    expect(out.find((l) => l.startsWith(`${file}:7:`))).toMatch(/company\.stage: expected one of: Unknown, .*Exited, got "series z"/)
    expect(out.find((l) => l.startsWith(`${file}:9:`))).toMatch(/not valid JSON/)

    const vdb = openDatabase(db)
    open.push(vdb)
    expect(count(vdb, 'select count(*) from companies')).toBe(1)
    expect(count(vdb, 'select count(*) from investors')).toBe(2)
    expect(count(vdb, 'select count(*) from fundings')).toBe(2)
    // Stage spelling normalised, raw forms kept for detail responses.
    expect(vdb.sqlite.prepare('select stage from companies where id = 1').pluck().get()).toBe('Exited')
    expect(vdb.sqlite.prepare('select last_funding_date_raw, stage_raw from companies_extra where company_id = 1').get())
      .toEqual({ last_funding_date_raw: '20200105', stage_raw: 'exited (acquired)' })
    // Slugs resolved to investor ids; EUR excluded from total_funding (spec 2.3).
    expect(vdb.sqlite.prepare('select investor_id from funding_investors where funding_id = 12 order by 1').pluck().all()).toEqual([7, 8])
    expect(vdb.sqlite.prepare('select total_funding, last_funding_amount, last_funding_date from companies where id = 1').get())
      .toEqual({ total_funding: 1000, last_funding_amount: 500, last_funding_date: '2020-01-05' })
    expect(vdb.sqlite.prepare('select series, company_name from fundings where id = 12').get()).toEqual({ series: null, company_name: 'Foo' })
    expect(vdb.sqlite.prepare('select investor_id, company_id, first_invested_on from investments order by 1').all()).toEqual([
      { investor_id: 7, company_id: 1, first_invested_on: '2019-01-01' },
      { investor_id: 8, company_id: 1, first_invested_on: '2020-01-05' },
    ])
  })

  test('a clean file rejects nothing; importing again bumps the data version and replaces records', async () => {
    const file = writeJsonl('clean.jsonl', [lines[0], lines[2]].map((l) => JSON.stringify(l)).join('\n'))
    const db = join(dir, 'clean.db')
    const version = () => {
      const vdb = openDatabase(db)
      try {
        return Number(vdb.sqlite.prepare("select value from meta where key = 'data_version'").pluck().get())
      } finally {
        vdb.sqlite.close()
      }
    }
    expect((await importFiles(db, [file], () => {})).rejected).toBe(0)
    const first = version()
    expect((await importFiles(db, [file], () => {})).rejected).toBe(0)
    expect(version()).toBeGreaterThan(first)
    const vdb = openDatabase(db)
    open.push(vdb)
    expect(count(vdb, 'select count(*) from companies')).toBe(1)
    expect(count(vdb, 'select count(*) from company_industries')).toBe(1)
    expect(count(vdb, 'select count(*) from funding_investors')).toBe(1)
  })
})

describe('file encodings', () => {
  test('a UTF-8 byte order mark before the first line does not reject that record', async () => {
    const file = writeJsonl('bom.jsonl', '\uFEFF' + JSON.stringify({ type: 'company', record: { id: 1, name: 'Foo' } }) + '\r\n')
    const db = join(dir, 'bom.db')
    const out: string[] = []
    expect((await importFiles(db, [file], (l) => out.push(l))).rejected).toBe(0)
    expect(out[0]).toMatch(/^imported 1 companies/)
  })
})

describe('derived funding fields', () => {
  test('a funding event without a state gets its company\'s, also when its other location fields are given', async () => {
    const rows = [
      { type: 'company', record: { id: 1, name: 'Foo', location: 'Bay Area', city: 'Oakland', state: 'CA', country: 'USA' } },
      { type: 'funding', record: { id: 12, company_id: 1, company_name: 'Foo', region: 'Bay Area', city: 'Oakland', country: 'USA' } },
    ]
    const file = writeJsonl('funding-state.jsonl', rows.map((l) => JSON.stringify(l)).join('\n'))
    const db = join(dir, 'funding-state.db')
    expect((await importFiles(db, [file], () => {})).rejected).toBe(0)
    const vdb = openDatabase(db)
    open.push(vdb)
    expect(vdb.sqlite.prepare('select state from fundings where id = 12').pluck().get()).toBe('CA')
  })
})

describe('a record repeated within one load', () => {
  test('the later company record replaces the earlier one\'s tags and detail rows, also in a first load', async () => {
    const twice = [
      { type: 'company', record: { id: 1, name: 'Foo', industries: ['Fintech', 'AI'], people: [{ name: 'A' }, { name: 'B' }], tech_stack: ['x'] } },
      { type: 'company', record: { id: 1, name: 'Foo again', industries: ['Health'], people: [{ name: 'C' }] } },
    ]
    const file = writeJsonl('twice.jsonl', twice.map((l) => JSON.stringify(l)).join('\n'))
    const db = join(dir, 'twice.db')
    expect((await importFiles(db, [file], () => {})).rejected).toBe(0)
    const vdb = openDatabase(db)
    open.push(vdb)
    expect(vdb.sqlite.prepare('select name from companies').pluck().all()).toEqual(['Foo again'])
    expect(vdb.sqlite.prepare('select value from company_industries where company_id = 1').pluck().all()).toEqual(['Health'])
    expect(vdb.sqlite.prepare('select name from company_people where company_id = 1').pluck().all()).toEqual(['C'])
    expect(count(vdb, 'select count(*) from company_tech_stack')).toBe(0)
  })

  test('the later funding record replaces the earlier one\'s investors', async () => {
    const twice = [
      { type: 'investor', record: { investor_id: 7, name: 'Acme VC', svc_slug: 'acme-vc' } },
      { type: 'investor', record: { investor_id: 8, name: 'Bea', svc_slug: 'bea' } },
      { type: 'funding', record: { id: 12, company_id: 1, investor_slugs: 'acme-vc', investor_ids: [8], source: 'wire' } },
      { type: 'funding', record: { id: 12, company_id: 1, investor_slugs: 'bea' } },
    ]
    const file = writeJsonl('funding-twice.jsonl', twice.map((l) => JSON.stringify(l)).join('\n'))
    const db = join(dir, 'funding-twice.db')
    expect((await importFiles(db, [file], () => {})).rejected).toBe(0)
    const vdb = openDatabase(db)
    open.push(vdb)
    expect(vdb.sqlite.prepare('select investor_id from funding_investors where funding_id = 12').pluck().all()).toEqual([8])
    expect(vdb.sqlite.prepare('select source from fundings_extra where funding_id = 12').pluck().all()).toEqual([null])
  })
})

describe('record schemas', () => {
  test('accept the forms the spec says occur and normalise them', () => {
    const r = parseRecord({ type: 'company', record: {
      id: '5', svc_score: '12.5', employees: 40, last_funding_date: '2021-03-04', added_date: '2020-01-02 03:04:05',
      est_founding_date: '20100101', has_mobile: '1', stage: 'NO KNOWN FUNDING', industries: ['A', ' A ', 'B', ''],
      growth_scores: [{ recorded_at: '2020-01-01 00:00:00 UTC', score: '-3' }, { recorded_at: '2020-01-08 00:00:00 +0000', score: 4 }],
    } })
    expect(r.ok).toBe(true)
    if (!r.ok || r.value.type !== 'company') return
    const c = r.value.record
    expect([c.id, c.svc_score, c.employees, c.last_funding_date, c.added_date, c.est_founding_date, c.has_mobile, c.stage, c.industries])
      .toEqual([5, 12.5, 40, '2021-03-04', '2020-01-02 03:04:05', '2010-01-01', 1, 'No Known Funding', ['A', 'B']])
    expect(c.growth_scores).toEqual([{ recorded_at: '2020-01-01 00:00:00 UTC', score: { text: '-3', isString: true } }, { recorded_at: '2020-01-08 00:00:00 +0000', score: { text: '4', isString: false } }])
  })

  test('reject what the spec does not allow, naming field, expectation and value', () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'company', record: { id: 1, last_funding_date: '2021-13-01' } }, /company\.last_funding_date: expected a date YYYY-MM-DD or YYYYMMDD, got "2021-13-01"/],
      // Not calendar dates or times, or text after the date: a bad record, never a stored half-value.
      [{ type: 'company', record: { id: 1, last_funding_date: '2023-02-30' } }, /company\.last_funding_date: expected a date YYYY-MM-DD or YYYYMMDD, got "2023-02-30"/],
      [{ type: 'company', record: { id: 1, est_founding_date: '2023-01-15garbage' } }, /company\.est_founding_date: expected a date/],
      [{ type: 'company', record: { id: 1, added_date: '2023-13-45 99:99:99' } }, /company\.added_date: expected a timestamp 'YYYY-MM-DD HH:MM:SS', got "2023-13-45 99:99:99"/],
      [{ type: 'funding', record: { id: 1, company_id: 1, created_on: '2023-02-29 10:00:00' } }, /funding\.created_on: expected a timestamp/],
      [{ type: 'funding', record: { id: 1, company_id: 1, created_on: '2023-01-01 24:00:00' } }, /funding\.created_on: expected a timestamp/],
      [{ type: 'company', record: { id: 1, industries: 'x', keywords: [1] } }, /company\.keywords: expected an array of strings, got \[1\]/],
      [{ type: 'funding', record: { id: 1 } }, /funding\.company_id: expected an integer company_id, got nothing/],
      [{ type: 'company', record: { id: 1, funding: [{ amount: 'lots' }] } }, /company\.funding\.0\.amount: expected an integer/],
      [{ type: 'company', record: { id: 1, funding: 'lots' } }, /company\.funding: expected an array, got "lots"/],
      [{ type: 'company', record: { id: 1, tech_stack: ['Go', 7] } }, /company\.tech_stack\.1: expected a string or \{"title": string\}, got 7/],
      [{ type: 'company', record: { id: 1, growth_scores: [{ recorded_at: '', score: 'x' }] } }, /company\.growth_scores\.0\.recorded_at: expected a timestamp string.*; company\.growth_scores\.0\.score: expected a numeric score/],
      [{ type: 'company', record: { id: 1, stage: 'series z', employees: 'x', svc_score: 'y', zip: {} } }, /\(and 1 more\)$/],
      [{ type: 'people', record: {} }, /type: expected one of: company, investor, funding, got "people"/],
      [[1], /expected an object/],
    ]
    for (const [input, reason] of cases) {
      const r = parseRecord(input)
      expect(r.ok, JSON.stringify(input)).toBe(false)
      if (!r.ok) expect(r.reason).toMatch(reason)
    }
  })
})
