/**
 * GET /search's typo tolerance on the fixture, through the fetch handler (both backends: the
 * `http-on-postgres` project runs this file again): one golden misspelling per edit kind, the
 * thresholds (1 edit from 5 letters, 2 from 9, never below 5), `typo=0|1|2|auto`, the last word as
 * a prefix within its edits, dropped words, and bad `typo` values. The ranking rules and the
 * dictionary after an import are in test/postgres/search.test.ts (both backends, records level).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/http/app.js'
import { problemSchema } from '../../src/http/schemas/common.js'
import { searchResponseSchema } from '../../src/http/schemas/search.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
beforeAll(async () => { h = await createHarness() })
afterAll(async () => { await h.close() })

async function ids(query: string): Promise<string[]> {
  const res = await h.get(`/search?${query}`)
  expect(res.status, query).toBe(200)
  return searchResponseSchema.parse(await res.json()).map((r) => `${r.object_type}:${r.object_id}`)
}

const companyNamed = (name: string) => `company:${h.vdb.sqlite.prepare('select id from companies where name = ?').pluck().get(name) as number}`

describe('GET /search: one golden misspelling per edit kind', () => {
  // The fixture's "Istuscape Technologies" (9-letter first word: auto allows 2 edits) and
  // "Verabit Inc" (7 letters: 1 edit), each the only name with its first word.
  const cases: readonly (readonly [kind: string, term: string, name: string])[] = [
    ['insertion', 'istuscappe', 'Istuscape Technologies'],
    ['deletion', 'istucape', 'Istuscape Technologies'],
    ['substitution', 'istuscaoe', 'Istuscape Technologies'],
    ['transposition', 'itsuscape', 'Istuscape Technologies'],
    ['first letter', 'ostuscape', 'Istuscape Technologies'],
    ['first letter', 'derabit', 'Verabit Inc'],
    ['transposition of the first two letters', 'evrabit', 'Verabit Inc'],
    ['two edits on a word of 9+ letters', 'itsuscappe', 'Istuscape Technologies'],
    ['one edit in each of two words', 'verabti inx', 'Verabit Inc'],
  ]
  for (const [kind, term, name] of cases) {
    it(`${kind}: ${JSON.stringify(term)} finds ${JSON.stringify(name)} in the top 5, and only with typos allowed`, async () => {
      const target = companyNamed(name)
      expect((await ids(`term=${encodeURIComponent(term)}`)).slice(0, 5)).toContain(target)
      expect((await ids(`term=${encodeURIComponent(term)}&typo=auto`)).slice(0, 5)).toContain(target)
      expect(await ids(`term=${encodeURIComponent(term)}&typo=0&per_page=50`)).not.toContain(target)
    })
  }

  it('the misspellings are misspellings: none is a prefix of a word of its target', () => {
    for (const [, term, name] of cases) {
      const words = name.toLowerCase().split(' ')
      for (const w of term.split(' ')) expect(words.some((x) => x.startsWith(w)), term).toBe(false)
    }
  })
})

describe('GET /search: thresholds and typo modes', () => {
  it('words of 1 to 4 letters are never typo-matched', async () => {
    // "istu" is a prefix of Istuscape; one letter off, it matches nothing whatever the mode.
    for (const typo of ['auto', '1', '2']) expect(await ids(`term=istx&typo=${typo}&object_types=company&per_page=50`)).not.toContain(companyNamed('Istuscape Technologies'))
    expect((await ids('term=istu&object_types=company'))).toContain(companyNamed('Istuscape Technologies'))
  })

  it('auto allows one edit from 5 letters and two from 9; typo=1 caps at one, typo=2 allows two from 5', async () => {
    const verabit = companyNamed('Verabit Inc')
    const istuscape = companyNamed('Istuscape Technologies')
    // "vrabti": 6 letters, two edits from "verabit" (a deletion and a swap).
    expect(await ids('term=vrabti&per_page=50')).not.toContain(verabit)
    expect(await ids('term=vrabti&typo=1&per_page=50')).not.toContain(verabit)
    expect((await ids('term=vrabti&typo=2')).slice(0, 5)).toContain(verabit)
    // Two edits on 9+ letters: auto and 2 find it, 1 does not.
    expect((await ids('term=itsuscappe&typo=2')).slice(0, 5)).toContain(istuscape)
    expect(await ids('term=itsuscappe&typo=1&per_page=50')).not.toContain(istuscape)
    // One edit: every mode but 0.
    for (const typo of ['1', '2', 'auto', 'AUTO']) expect((await ids(`term=istucape&typo=${typo}`)).slice(0, 5)).toContain(istuscape)
  })

  it('the last word stays a prefix, within its edits', async () => {
    // "tecnol": a prefix of "technologies" with one letter left out.
    expect((await ids('term=istuscape+tecnol'))[0]).toBe(companyNamed('Istuscape Technologies'))
    expect(await ids('term=istuscape+tecnol&typo=0')).toEqual([])
  })

  it('exact answers come first and are the typo=0 answers', async () => {
    // "verab" starts names exactly; typo hits may follow, never precede them.
    const exact = await ids('term=verab&typo=0&per_page=50')
    expect(exact.length).toBeGreaterThan(0)
    expect((await ids('term=verab&per_page=50')).slice(0, exact.length)).toEqual(exact)
  })

  it('words are dropped from the end when the whole term matches too little', async () => {
    const target = companyNamed('Istuscape Technologies')
    expect(await ids('term=istuscape+qqqqqqqq&typo=0')).toEqual([])
    expect((await ids('term=istuscape+qqqqqqqq'))[0]).toBe(target)
  })

  it('a server default applies when the request sends no typo', async () => {
    const app = createApp(h.engine, { searchTypo: 0, auth: async () => ({ ok: true, identity: { owner: 'typo-test' } }), quota: false })
    const res = await app.fetch(new Request('https://localhost/search?term=istucape'))
    expect(res.status).toBe(200)
    expect(searchResponseSchema.parse(await res.json())).toEqual([])
    const tolerant = await app.fetch(new Request('https://localhost/search?term=istucape&typo=1'))
    expect(searchResponseSchema.parse(await tolerant.json()).map((r) => `${r.object_type}:${r.object_id}`).slice(0, 5)).toContain(companyNamed('Istuscape Technologies'))
    expect(() => createApp(h.engine, { searchTypo: 3 as never })).toThrow(/searchTypo must be 0, 1, 2 or 'auto'; got 3/)
  })

  it('typos are tried only when nothing matches exactly, unless the server sets searchTypoThreshold', async () => {
    const search = async (threshold: number | undefined, term: string) => {
      const app = createApp(h.engine, { searchTypoThreshold: threshold, auth: async () => ({ ok: true, identity: { owner: 'typo-test' } }), quota: false })
      const res = await app.fetch(new Request(`https://localhost/search?term=${encodeURIComponent(term)}&per_page=50&object_types=company`))
      expect(res.status).toBe(200)
      return searchResponseSchema.parse(await res.json()).map((r) => r.object_id)
    }
    // "Istuscape" alone is a whole name's first word: the default answers its exact matches only.
    const exact = await search(undefined, 'istuscape')
    expect(exact).toContain(Number(companyNamed('Istuscape Technologies').split(':')[1]))
    expect(await ids('term=istuscape&typo=0&per_page=50&object_types=company')).toEqual(exact.map((id) => `company:${id}`))
    // A server that fills short pages with typo hits answers the same exact matches first, then more.
    const filled = await search(50, 'istuscape')
    expect(filled.slice(0, exact.length)).toEqual(exact)
    expect(filled.length).toBeGreaterThan(exact.length)
    for (const bad of [0, 1.5, -1]) expect(() => createApp(h.engine, { searchTypoThreshold: bad })).toThrow(/searchTypoThreshold must be a positive integer/)
  })
})

describe('GET /search: bad typo values', () => {
  it('type=, one edit from typo, stays an ignored foreign name', async () => {
    expect(await ids('term=istucape&type=company')).toEqual(await ids('term=istucape'))
  })

  for (const value of ['3', '-1', 'yes', '', '1.5', 'auto2', '%00']) {
    it(`typo=${value} is 400 naming typo and the allowed values`, async () => {
      const res = await h.get(`/search?term=acme&typo=${value}`)
      expect(res.status).toBe(400)
      const body = problemSchema.parse(await res.json())
      expect(JSON.stringify(body)).toMatch(/typo/)
      expect(JSON.stringify(body)).toMatch(/0, 1, 2 or auto/)
    })
  }
})
