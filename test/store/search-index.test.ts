/**
 * The search index (store/search-index.ts, migration 006): present on a fresh database, filled by
 * the migration on a database loaded before it existed, rebuilt by every ingest (generator and
 * `ventureql import`), ranks in importance order, and the marked first word behind the name tier;
 * migration 013's copy of what a company hit shows in the rank table.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, SqliteDialect } from 'kysely'
import Database from 'better-sqlite3'
import { importFiles } from '../../src/cli/import.js'
import { anyWordsQuery, companyDetailsSql, namePrefixQuery, searchRecords } from '../../src/records/search.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { ingestAll } from '../../src/store/ingest.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { refreshSearchIndex, searchIndexStatements } from '../../src/store/search-index.js'
import { SEARCH_TABLES } from '../../src/store/schema/search-tables.js'
import { count, tableDigest } from './helpers.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })
const dir = mkdtempSync(join(tmpdir(), 'vql-search-index-'))

function track(vdb: SqliteVentureDb): SqliteVentureDb {
  open.push(vdb)
  return vdb
}

const both = ['company', 'investor'] as const

/** Company ids in the importance order the index promises, computed in JS from the rows. */
function companiesByImportance(vdb: SqliteVentureDb): number[] {
  const rows = vdb.sqlite.prepare('select id, svc_score, total_funding from companies').all() as { id: number; svc_score: number | null; total_funding: number | null }[]
  const desc = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a)
  return rows.sort((a, b) => desc(a.svc_score, b.svc_score) || desc(a.total_funding, b.total_funding) || a.id - b.id).map((r) => r.id)
}

function investorsByImportance(vdb: SqliteVentureDb): number[] {
  const rows = vdb.sqlite.prepare('select id, portfolio_size, number_of_deals from investors').all() as { id: number; portfolio_size: number | null; number_of_deals: number | null }[]
  const desc = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a)
  return rows.sort((a, b) => desc(a.portfolio_size, b.portfolio_size) || desc(a.number_of_deals, b.number_of_deals) || a.id - b.id).map((r) => r.id)
}

const ranked = (vdb: SqliteVentureDb, table: string, idColumn: string) =>
  vdb.sqlite.prepare(`select "${idColumn}" from "${table}" order by rank`).pluck().all() as number[]

function expectIndexMatchesData(vdb: SqliteVentureDb): void {
  expect(ranked(vdb, SEARCH_TABLES.company.ranks, SEARCH_TABLES.company.idColumn)).toEqual(companiesByImportance(vdb))
  expect(ranked(vdb, SEARCH_TABLES.investor.ranks, SEARCH_TABLES.investor.idColumn)).toEqual(investorsByImportance(vdb))
  // Every company is findable by its full name, and every investor by its slug.
  const companies = vdb.sqlite.prepare('select id, name from companies order by id').all() as { id: number; name: string }[]
  for (const c of companies.slice(0, 25)) {
    expect(searchRecords(vdb, { term: c.name, objectTypes: ['company'], limit: 50 }).map((h) => h.id)).toContain(c.id)
  }
  const investors = vdb.sqlite.prepare('select id, svc_slug from investors order by id').all() as { id: number; svc_slug: string }[]
  for (const x of investors.slice(0, 10)) {
    expect(searchRecords(vdb, { term: x.svc_slug, objectTypes: ['investor'], limit: 50 }).map((h) => h.id)).toContain(x.id)
  }
}

describe('search index', () => {
  test('exists, empty, on a fresh database (migration 006)', () => {
    const vdb = track(openDatabase(':memory:'))
    expect(vdb.sqlite.prepare("select name from kysely_migration where name = '006-search-index'").pluck().get()).toBe('006-search-index')
    for (const t of Object.values(SEARCH_TABLES)) {
      expect(count(vdb, `select count(*) from "${t.ranks}"`)).toBe(0)
      expect(count(vdb, `select count(*) from sqlite_master where name = ?`, t.fts)).toBe(1)
    }
    expect(searchRecords(vdb, { term: 'a', objectTypes: both, limit: 10 })).toEqual([])
  })

  test('is rebuilt by a generated load, in importance order, with the name-key index restored', async () => {
    const vdb = track(await createFixtureDatabase({ companies: 200 }))
    expect(count(vdb, `select count(*) from "${SEARCH_TABLES.company.ranks}"`)).toBe(200)
    expectIndexMatchesData(vdb)
    for (const t of Object.values(SEARCH_TABLES)) expect(count(vdb, `select count(*) from sqlite_master where type = 'index' and name = ?`, t.nameKeyIndex)).toBe(1)
  })

  test('is filled by migration 006 on a database loaded before the index existed', async () => {
    const file = join(dir, 'before-006.db')
    const loaded = await createFixtureDatabase({ companies: 150, file })
    const expected = tableDigest(loaded, SEARCH_TABLES.company.ranks)
    // What a database built by the previous release looks like: no search tables, 006 not applied.
    loaded.sqlite.exec(`drop table ${SEARCH_TABLES.company.fts}; drop table ${SEARCH_TABLES.company.ranks};
      drop table ${SEARCH_TABLES.investor.fts}; drop table ${SEARCH_TABLES.investor.ranks};
      delete from kysely_migration where name = '006-search-index'`)
    await loaded.close()

    const reopened = track(openDatabase(file))
    expect(tableDigest(reopened, SEARCH_TABLES.company.ranks)).toBe(expected)
    expectIndexMatchesData(reopened)
  })

  test('follows `ventureql import` into a loaded database: new records findable, ranks recomputed', async () => {
    const file = join(dir, 'import.db')
    await (await createFixtureDatabase({ companies: 60, file })).close()
    const jsonl = join(dir, 'more.jsonl')
    writeFileSync(jsonl, [
      { type: 'investor', record: { investor_id: 70001, name: 'Quorvex Partners', type: 'vc', svc_slug: 'qvx-partners' } },
      // The best score of all: it must take rank 1.
      { type: 'company', record: { id: 70002, name: 'Quorvex Robotics', website: 'quorvex.example', svc_score: '100000',
        funding: [{ id: 70003, amount: 700, currency: 'USD', series: 'seed', funding_date: '2023-05-01', investor_ids: [70001] }] } },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n')
    const out: string[] = []
    expect((await importFiles(file, [jsonl], (l) => out.push(l))).rejected).toBe(0)

    const vdb = track(openDatabase(file))
    expectIndexMatchesData(vdb)
    expect(vdb.sqlite.prepare(`select company_id from ${SEARCH_TABLES.company.ranks} where rank = 1`).pluck().get()).toBe(70002)
    const hits = searchRecords(vdb, { term: 'quorvex', objectTypes: both, limit: 10 })
    expect(hits.map((h) => `${h.objectType}:${h.id}`)).toEqual(['company:70002', 'investor:70001'])
    expect(hits[1]!.investorFunding).toBe(700)
    expect(searchRecords(vdb, { term: 'qvx', objectTypes: ['investor'], limit: 10 }).map((h) => h.id)).toEqual([70001])
  })

  test('a rebuild of unchanged data gives the same index', async () => {
    const vdb = track(await createFixtureDatabase({ companies: 80 }))
    const before = [tableDigest(vdb, SEARCH_TABLES.company.ranks), tableDigest(vdb, SEARCH_TABLES.investor.ranks)]
    refreshSearchIndex(vdb.sqlite)
    expect([tableDigest(vdb, SEARCH_TABLES.company.ranks), tableDigest(vdb, SEARCH_TABLES.investor.ranks)]).toEqual(before)
    expect(searchRecords(vdb, { term: 'a', objectTypes: both, limit: 10 })).toHaveLength(10)
  })

  test('names behind punctuation and accents still reach the name tiers', () => {
    const vdb = track(openDatabase(':memory:'))
    ingestAll(vdb, [
      { type: 'company', record: { id: 1, name: '(Parenwick) Works', website: 'pw.example', svc_score: '1' } },
      { type: 'company', record: { id: 2, name: 'Other Parenwick', website: 'op.example', svc_score: '90' } },
      { type: 'company', record: { id: 3, name: 'Éclair Systèmes', website: 'ec.example', svc_score: '2' } },
      { type: 'company', record: { id: 4, name: 'Eclair Systemes Group', website: 'esg.example', svc_score: '95' } },
    ])
    // Company 2 is more important, but company 1's name starts with the word (behind a parenthesis).
    expect(searchRecords(vdb, { term: 'parenw', objectTypes: both, limit: 10 }).map((h) => [h.id, h.tier])).toEqual([[1, 1], [2, 2]])
    // The exact name, typed without accents and in capitals, comes before the more important prefix match.
    expect(searchRecords(vdb, { term: 'ECLAIR systemes', objectTypes: both, limit: 10 }).map((h) => [h.id, h.tier])).toEqual([[3, 0], [4, 1]])
    expect(searchRecords(vdb, { term: 'éclair', objectTypes: both, limit: 10 }).map((h) => h.id)).toEqual([4, 3])
  })

  test('a combining mark stays inside its word, as unicode61 keeps it', () => {
    const vdb = track(openDatabase(':memory:'))
    // q + U+0301 has no composed form: unicode61 stores the word "aqb".
    ingestAll(vdb, [{ type: 'company', record: { id: 1, name: 'Aq\u0301b Works', website: 'w.example', svc_score: '1' } }])
    const ids = (term: string) => searchRecords(vdb, { term, objectTypes: both, limit: 10 }).map((h) => [h.id, h.tier])
    expect(ids('aq\u0301b')).toEqual([[1, 1]])
    expect(ids('aqb works')).toEqual([[1, 0]])
    expect(ids('AQ\u0301')).toEqual([[1, 1]])
    expect(ids('\u0301')).toEqual([])
  })

  test('long prefixes find the same records whether the words table lists their words or FTS5 merges them', () => {
    const vdb = track(openDatabase(':memory:'))
    // 40 distinct first words starting with "zorb": more than the lookup lists, so "zorb" as a first
    // word goes to FTS5's own prefix merge, while "zorb1" (11 words), "zorbx" (1, in a domain) and
    // "zorb" in later words (1) are listed from the words table.
    ingestAll(vdb, [
      ...Array.from({ length: 40 }, (_, k) => ({ type: 'company', record: { id: k + 1, name: `Zorb${k}x Group`, website: `z${k}.example`, svc_score: String(k) } })),
      { type: 'company', record: { id: 100, name: 'Acme', website: 'zorbxample.example', svc_score: '50' } },
    ])
    expect(count(vdb, `select count(*) from ${SEARCH_TABLES.company.terms} where term like '%zorb%'`)).toBe(41)
    const ids = (term: string) => searchRecords(vdb, { term, objectTypes: both, limit: 50 }).map((h) => h.id).sort((a, b) => a - b)
    expect(ids('zorb')).toEqual([...Array.from({ length: 40 }, (_, k) => k + 1), 100])
    expect(ids('zorb1')).toEqual([2, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20])
    expect(ids('zorbx')).toEqual([100])
    expect(ids('zorb1 group')).toEqual(ids('zorb1'))
    expect(ids('zorbq')).toEqual([])
  })

  test('the FTS5 queries quote every word, so even words with FTS5 syntax in them are plain text', () => {
    const vdb = track(openDatabase(':memory:'))
    ingestAll(vdb, [{ type: 'company', record: { id: 1, name: 'Near Or Not', website: 'nearornot.example', svc_score: '1' } }])
    // searchWords never yields these (letters and digits only); the builders must hold on their own.
    const hostile = ['NEAR(', 'a"b', '*', 'OR', 'AND', 'NOT', '-x', 'name:', '^', '(', '"', '{name}']
    const match = vdb.sqlite.prepare(`select rowid from "${SEARCH_TABLES.company.fts}" where "${SEARCH_TABLES.company.fts}" match ? order by rowid`).pluck()
    for (const word of hostile) {
      for (const query of [anyWordsQuery([word]), namePrefixQuery([word], 'name'), namePrefixQuery(['near', word], 'name')]) {
        expect(() => match.all(query), `${word}: ${query}`).not.toThrow()
      }
    }
    // FTS5's operators are upper case; as quoted words they match the words themselves.
    expect(match.all(anyWordsQuery(['NEAR', 'OR', 'NOT']))).toEqual([1])
    expect(match.all(namePrefixQuery(['NEAR', 'OR'], 'name'))).toEqual([1])
  })

  test('migration 013 copies what a hit shows into the company rank table of an earlier database: the same hits, read from there', async () => {
    const file = join(dir, 'before-013.db')
    const loaded = await createFixtureDatabase({ companies: 150, file })
    const terms = ['a', 'te', 'sys', 'group', ...(loaded.sqlite.prepare('select name from companies order by id limit 5').pluck().all() as string[])]
    const hits = terms.map((term) => searchRecords(loaded, { term, objectTypes: both, limit: 20 }))
    expect(hits.flat().filter((h) => h.objectType === 'company' && h.keywords.length > 0).length).toBeGreaterThan(5)
    const expected = tableDigest(loaded, SEARCH_TABLES.company.ranks)
    // What a database of the release before looks like: the rank table without the hit fields, 013 not applied.
    const t = SEARCH_TABLES.company
    loaded.sqlite.exec(`create table old_ranks (rank integer primary key, "${t.idColumn}" integer not null, name_key text);
      insert into old_ranks select rank, "${t.idColumn}", name_key from "${t.ranks}"; drop table "${t.ranks}";
      alter table old_ranks rename to "${t.ranks}"; create index "${t.nameKeyIndex}" on "${t.ranks}" (name_key, rank);
      delete from kysely_migration where name = '013-search-hit-fields'`)
    await loaded.close()

    // Opened read-only, migrations do not run: the hits come from the companies, the same.
    const readOnly = track(openDatabase(file, { readonly: true }))
    expect(companyDetailsSql(readOnly.sqlite, t, 'true')).toMatch(/ join /)
    expect(terms.map((term) => searchRecords(readOnly, { term, objectTypes: both, limit: 20 }))).toEqual(hits)
    await readOnly.close()
    open.splice(open.indexOf(readOnly), 1)

    const migrated = track(openDatabase(file))
    expect(tableDigest(migrated, t.ranks)).toBe(expected)
    expect(count(migrated, `select count(*) from sqlite_master where type = 'index' and name = ?`, t.nameKeyIndex)).toBe(1)
    expect(companyDetailsSql(migrated.sqlite, t, 'true')).not.toMatch(/ join /)
    expect(terms.map((term) => searchRecords(migrated, { term, objectTypes: both, limit: 20 }))).toEqual(hits)
    // An earlier release's build into this file leaves the copies empty: the companies are read again.
    migrated.sqlite.exec(`update "${t.ranks}" set name = null, website = null, total_funding = null, svc_score = null, keywords = null`)
    expect(companyDetailsSql(migrated.sqlite, t, 'true')).toMatch(/ join /)
    migrated.sqlite.exec(`delete from "${t.ranks}" where rank > 5`)
    expect(companyDetailsSql(migrated.sqlite, t, 'true')).toMatch(/ join /)
    refreshSearchIndex(migrated.sqlite)
    expect(companyDetailsSql(migrated.sqlite, t, 'true')).not.toMatch(/ join /)
    // Every rank's copied fields are what the companies hold.
    // The condition closes both statements: every rank, in rank order.
    const copied = migrated.sqlite.prepare(companyDetailsSql(migrated.sqlite, t, 'true order by s.rank'))
    const joined = migrated.sqlite.prepare(companyDetailsSql(migrated.sqlite, t, 'true order by s.rank', 'joined'))
    expect(copied.all()).toEqual(joined.all())
    expect(copied.all()).toHaveLength(150)
  })

  test('migration 006 is SQLite only', () => {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) })
    expect(searchIndexStatements(db, 'postgres')).toEqual([])
    expect(searchIndexStatements(db, 'sqlite').length).toBeGreaterThan(4)
    void db.destroy()
  })
})

describe('investor_funding (spec 2.9) by the rule of total_funding (grammar-docs/guides/serving.md, "Missing values")', () => {
  test('the disclosed U.S.-dollar total; 0 without rounds; null when no round\'s amount is disclosed', async () => {
    const vdb = track(await createFixtureDatabase({ companies: 80 }))
    const investors = vdb.sqlite.prepare('select id from investors where number_of_deals > 0 order by id limit 2').pluck().all() as number[]
    const [undisclosed, disclosed] = investors as [number, number]
    vdb.sqlite.prepare('update fundings set amount = null where id in (select funding_id from funding_investors where investor_id = ?)').run(undisclosed)
    vdb.sqlite.prepare("insert into investors (id, name, svc_slug, number_of_deals, portfolio_size) values (990001, 'Idle Capital', 'idle-capital', 0, 0)").run()
    refreshSearchIndex(vdb.sqlite)
    const funding = (id: number) => searchRecords(vdb, { term: vdb.sqlite.prepare('select svc_slug from investors where id = ?').pluck().get(id) as string, objectTypes: ['investor'], limit: 50 })
      .find((h) => h.id === id)!.investorFunding
    const usd = vdb.sqlite.prepare(`select sum(amount) from fundings where upper(currency) = 'USD' and amount is not null
      and id in (select funding_id from funding_investors where investor_id = ?)`).pluck().get(disclosed) as number
    expect(usd).toBeGreaterThan(0)
    expect(funding(disclosed)).toBe(usd)
    expect(funding(undisclosed)).toBeNull()
    expect(funding(990001)).toBe(0)
  })
})

describe('typo dictionary (migration 015)', () => {
  const words = (vdb: SqliteVentureDb) => vdb.sqlite.prepare(`select word from "${SEARCH_TABLES.company.typoWords}" order by word`).pluck().all() as string[]
  const keyCount = (vdb: SqliteVentureDb) => vdb.sqlite.prepare(`select count(*) from "${SEARCH_TABLES.company.typoKeys}"`).pluck().get() as number

  test('an import brings new words in and takes gone ones out, with their keys', async () => {
    const vdb = track(await createFixtureDatabase({ companies: 30 }))
    expect(words(vdb)).not.toContain('quillowmere')
    const misspelt = { term: 'quillowmrre', objectTypes: ['company'] as const, limit: 5, typo: 'auto' as const }
    expect(searchRecords(vdb, misspelt)).toEqual([])
    ingestAll(vdb, [{ type: 'company', record: { id: 990001, name: 'Quillowmere Dynamics', website: 'quillowmere.example', svc_score: '5' } }])
    expect(words(vdb)).toContain('quillowmere')
    expect(searchRecords(vdb, misspelt).map((h) => h.id)).toEqual([990001])
    const keys = keyCount(vdb)
    ingestAll(vdb, [{ type: 'company', record: { id: 990001, name: 'Plain Dynamics', website: 'plain-dyn.example', svc_score: '5' } }])
    expect(words(vdb)).not.toContain('quillowmere')
    expect(keyCount(vdb)).toBeLessThan(keys)
    expect(vdb.sqlite.prepare(`select count(*) from "${SEARCH_TABLES.company.typoKeys}" where word = 'quillowmere'`).pluck().get()).toBe(0)
  })

  test('migration 018 adds the names to a dictionary of words only, and a misspelt short word of a name is found after it', async () => {
    const file = join(dir, 'typo-names-migration.db')
    const built = await createFixtureDatabase({ companies: 40, file })
    const before = words(built)
    const keys = keyCount(built)
    const names = before.filter((w) => w.startsWith('\uE000'))
    expect(names.length).toBeGreaterThan(20)
    // "Verabit Inc" with a swap in its 3-letter word and a deletion in its first: reachable only through the name.
    const term = { term: 'verbit icn', objectTypes: ['company', 'investor'] as const, limit: 5, typo: 'auto' as const }
    const target = built.sqlite.prepare(`select id from companies where name = 'Verabit Inc'`).pluck().get() as number
    // Found with both words (without the names, only through the first word, the second dropped).
    const whole = (vdb: SqliteVentureDb) => searchRecords(vdb, term).filter((h) => h.words === 2).map((h) => h.id)
    expect(whole(built)).toContain(target)
    for (const t of Object.values(SEARCH_TABLES)) {
      built.sqlite.exec(`delete from "${t.typoKeys}" where substr(word, 1, 1) = char(57344); delete from "${t.typoWords}" where substr(word, 1, 1) = char(57344)`)
    }
    built.sqlite.exec("delete from kysely_migration where name = '018-search-typo-names'")
    expect(whole(built)).not.toContain(target)
    await built.close()
    const migrated = track(openDatabase(file))
    expect(words(migrated)).toEqual(before)
    expect(keyCount(migrated)).toBe(keys)
    expect(whole(migrated)).toContain(target)
  })

  test('the migration fills the dictionary of a database indexed before it; a read-only one without it searches exactly', async () => {
    const file = join(dir, 'typo-migration.db')
    const built = await createFixtureDatabase({ companies: 40, file })
    const before = words(built)
    expect(before.length).toBeGreaterThan(50)
    const drop = () => {
      for (const t of Object.values(SEARCH_TABLES)) built.sqlite.exec(`drop table "${t.typoWords}"; drop table "${t.typoKeys}"`)
      built.sqlite.exec("delete from kysely_migration where name = '017-search-typo-dictionary'")
    }
    drop()
    const exact = searchRecords(built, { term: 'a', objectTypes: ['company', 'investor'], limit: 10 })
    await built.close()
    const readonly = track(openDatabase(file, { readonly: true }))
    expect(searchRecords(readonly, { term: 'a', objectTypes: ['company', 'investor'], limit: 10, typo: 'auto' })).toEqual(exact)
    await readonly.close()
    open.splice(open.indexOf(readonly), 1)
    const migrated = track(openDatabase(file))
    expect(words(migrated)).toEqual(before)
  })
})
