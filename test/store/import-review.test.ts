/**
 * `ventureql import` after the hostile review of issue 11 (item 14): a line of invalid UTF-8 and a
 * record whose id is not a positive integer are rejected with a reject line, never stored.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importFiles } from '../../src/cli/import.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { count } from './helpers.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })

const dir = mkdtempSync(join(tmpdir(), 'vql-import-review-'))
const line = (value: unknown) => Buffer.from(JSON.stringify(value) + '\n', 'utf8')

describe('ventureql import rejects what it cannot store faithfully', () => {
  test('a line that is not valid UTF-8 is rejected, its neighbours kept; valid U+FFFD and a leading BOM are text', async () => {
    const file = join(dir, 'utf8.jsonl')
    writeFileSync(file, Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]), line({ type: 'company', record: { id: 1, name: 'Good' } }),
      // 0xff never occurs in UTF-8; 0xc3 0x28 is a broken two-byte sequence.
      Buffer.from('{"type":"company","record":{"id":2,"name":"Bad \xff name"}}\n', 'latin1'),
      Buffer.concat([Buffer.from('{"type":"company","record":{"id":3,"name":"Bad '), Buffer.from([0xc3, 0x28]), Buffer.from('"}}\r\n')]),
      line({ type: 'company', record: { id: 4, name: 'Real \uFFFD replacement character' } }),
      Buffer.from('{"type":"company","record":{"id":5,"name":"Caf\xc3\xa9"}}', 'latin1'), // no final newline
    ]))
    const db = join(dir, 'utf8.db')
    const out: string[] = []
    const { rejected } = await importFiles(db, [file], (l) => out.push(l))
    expect(rejected).toBe(2)
    expect(out).toContainEqual(expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2: not valid UTF-8`)))
    expect(out.find((l) => l.startsWith(`${file}:3:`))).toMatch(/not valid UTF-8/)
    const vdb = openDatabase(db)
    open.push(vdb)
    expect(vdb.sqlite.prepare('select id, name from companies order by id').all()).toEqual([
      { id: 1, name: 'Good' }, { id: 4, name: 'Real \uFFFD replacement character' }, { id: 5, name: 'Café' },
    ])
  })

  test('an id below 1 (company, investor, funding, or a funding event\'s company_id) is rejected with a reason', async () => {
    const file = join(dir, 'ids.jsonl')
    writeFileSync(file, Buffer.concat([
      line({ type: 'company', record: { id: 1, name: 'One' } }),
      line({ type: 'company', record: { id: -5, name: 'Minus five' } }),
      line({ type: 'company', record: { id: '0', name: 'Zero' } }),
      line({ type: 'investor', record: { investor_id: -1, name: 'Neg VC', type: 'vc' } }),
      line({ type: 'funding', record: { id: -12, company_id: 1, amount: 5 } }),
      line({ type: 'funding', record: { id: 13, company_id: -1, amount: 5 } }),
    ]))
    const db = join(dir, 'ids.db')
    const out: string[] = []
    const { rejected } = await importFiles(db, [file], (l) => out.push(l))
    expect(rejected).toBe(5)
    expect(out).toContain(`${file}:2: company.id: expected an integer company id, at least 1, got -5`)
    expect(out.find((l) => l.startsWith(`${file}:3:`))).toMatch(/company\.id: expected .*at least 1/)
    expect(out.find((l) => l.startsWith(`${file}:4:`))).toMatch(/investor\.investor_id: expected .*at least 1/)
    expect(out.find((l) => l.startsWith(`${file}:5:`))).toMatch(/funding\.id: expected .*at least 1/)
    expect(out.find((l) => l.startsWith(`${file}:6:`))).toMatch(/funding\.company_id: expected .*at least 1/)
    const vdb = openDatabase(db)
    open.push(vdb)
    expect(count(vdb, 'select count(*) from companies')).toBe(1)
    expect(count(vdb, 'select count(*) from investors')).toBe(0)
    expect(count(vdb, 'select count(*) from fundings')).toBe(0)
  })
})
