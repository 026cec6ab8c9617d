/**
 * Company lookup by domain (spec 4.3): the canonical form of what clients send, and the index
 * index walk that finds websites stored in mixed case without scanning the table.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canonicalDomain, companyIdByDomain, storedCaseSpellings } from '../../src/records/company.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

describe('canonicalDomain', () => {
  it.each([
    ['Acme.COM', 'acme.com'], ['www.acme.com', 'acme.com'], ['WWW.Acme.com.', 'acme.com'], [' acme.io ', 'acme.io'],
    ['sub.acme.co.uk', 'sub.acme.co.uk'], ['my-shop_1.example', 'my-shop_1.example'], ['bücher.example', 'bücher.example'], ['www.', 'www'],
  ])('%s → %s', (input, expected) => expect(canonicalDomain(input)).toBe(expected))

  it.each(['', '.', 'a..b', 'a b.com', 'a/b', 'a\u0000.com', "x' or '1'='1", '..', 'x'.repeat(254)])('rejects %j', (input) => {
    expect(canonicalDomain(input)).toBeUndefined()
  })
})

describe('storedCaseSpellings', () => {
  const domain = fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/)
  it('finds every stored upper/lower case spelling of the domain, and only those', () => {
    fc.assert(fc.property(domain, fc.array(fc.array(fc.boolean(), { minLength: 22, maxLength: 22 }), { maxLength: 4 }), (d, flipSets) => {
      const stored = flipSets.map((flips) => [...d].map((ch, i) => (flips[i] ? ch.toUpperCase() : ch)).join(''))
      const probes: string[] = []
      const exists = (prefix: string) => { probes.push(prefix); return stored.some((s) => s.startsWith(prefix)) }
      const found = storedCaseSpellings(d, exists)
      expect(new Set(found)).toEqual(new Set(stored))
      // One or two probes per character per live spelling: bounded by the stored spellings, not the table.
      expect(probes.length).toBeLessThanOrEqual(2 * d.length * Math.max(1, new Set(stored).size))
    }))
  })

  it('stops at the first character no stored text continues with', () => {
    const probes: string[] = []
    expect(storedCaseSpellings('acme-widgets.com', (p) => { probes.push(p); return false })).toEqual([])
    expect(probes).toEqual(['A', 'a'])
  })
})

describe('companyIdByDomain', () => {
  let vdb: SqliteVentureDb
  beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 120 }) })
  afterAll(async () => { await vdb.close() })

  it('finds stored lower-case, www. and mixed-case websites, the lowest id when shared, and nothing else', async () => {
    const insert = vdb.sqlite.prepare('insert into companies (id, name, website) values (?, ?, ?)')
    insert.run(9001, 'Mixed', 'MiXeD-Case.Example')
    insert.run(9002, 'Prefixed', 'www.prefixed.example')
    insert.run(9003, 'Shared B', 'shared.example')
    insert.run(9004, 'Shared A', 'Shared.Example')
    // Distractors that sort inside the first prefix's range.
    for (let i = 0; i < 50; i++) insert.run(9100 + i, `Noise ${i}`, `mixed-case${i}.example`)
    expect(await companyIdByDomain(vdb, 'mixed-case.example')).toBe(9001)
    expect(await companyIdByDomain(vdb, 'MIXED-CASE.EXAMPLE.')).toBe(9001)
    expect(await companyIdByDomain(vdb, 'prefixed.example')).toBe(9002)
    expect(await companyIdByDomain(vdb, 'WWW.PREFIXED.EXAMPLE')).toBe(9002)
    // The exact spelling is found first; it is the lowest id among exact spellings.
    expect(await companyIdByDomain(vdb, 'shared.example')).toBe(9003)
    expect(await companyIdByDomain(vdb, 'mixed-case.exampl')).toBeUndefined()
    expect(await companyIdByDomain(vdb, 'not a domain')).toBeUndefined()
    const row = vdb.sqlite.prepare('select id, website from companies where id = 5').get() as { id: number; website: string }
    expect(await companyIdByDomain(vdb, row.website.toUpperCase())).toBe(row.id)
  })
})
