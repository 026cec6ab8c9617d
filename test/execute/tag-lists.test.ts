/**
 * A record's tag lists come out in byte order of their UTF-8 text (SQLite's BINARY collation),
 * whatever order the JSON text of the list has: kept as they are when already in that order, sorted
 * otherwise, including values from the surrogates up, where UTF-16 order and byte order part.
 */
import { describe, expect, it } from 'vitest'
import { datasets } from '../../src/catalog/index.js'
import type { FieldDef } from '../../src/catalog/define.js'
import { tagsAlias } from '../../src/compile/plan.js'
import { compareText, recordMapper } from '../../src/execute/records.js'

const industries = datasets.companies.fields.industries as FieldDef
const columns = ['id', tagsAlias(industries)]
const map = recordMapper(datasets.companies, columns, [datasets.companies.fields.id as FieldDef, industries])
const listOf = (json: string) => map([1, json]).industries as string[]
const byBytes = (values: string[]) => [...values].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))

describe('tag lists of a record', () => {
  it('keep a list already in byte order, and sort one that is not', () => {
    expect(listOf('["a","b","c"]')).toEqual(['a', 'b', 'c'])
    expect(listOf('["b","a"]')).toEqual(['a', 'b'])
    expect(listOf('["B","a","A"]')).toEqual(['A', 'B', 'a'])
    expect(listOf('["x"]')).toEqual(['x'])
    expect(listOf('[]')).toEqual([])
    expect(map([1, null]).industries).toEqual([])
  })
  it('sort by UTF-8 bytes where UTF-16 order differs (from the surrogates up)', () => {
    // U+1F600 is D83D DE00 in UTF-16, below U+FF5A; in UTF-8 (F0 ...) it is above (EF BD 9A).
    const values = ['\u{1F600}', '\uFF5A', 'z', 'é']
    const utf16 = [...values].sort()
    expect(utf16).not.toEqual(byBytes(values))
    expect(listOf(JSON.stringify(utf16))).toEqual(byBytes(values))
    expect(listOf(JSON.stringify(byBytes(values)))).toEqual(byBytes(values))
    // One such value anywhere in a list: the whole list compared by bytes.
    expect(listOf(JSON.stringify(['b', 'a', '\u{1F600}']))).toEqual(['a', 'b', '\u{1F600}'])
  })
  it('sort by UTF-8 bytes values from the surrogates up that the JSON text spells as escapes', () => {
    // The text itself has no code unit from the surrogates up: its \\u escapes spell them.
    const text = '["\\ud83d\\ude00","\\uff5a"]'
    expect(/[\uD800-\uFFFF]/.test(text)).toBe(false)
    expect(listOf(text)).toEqual(['\uFF5A', '\u{1F600}'])
    expect(listOf('["\\u00e9","a"]')).toEqual(['a', 'é'])
  })
  it('give each empty list an array of its own', () => {
    const a = listOf('[]')
    const b = listOf('[]')
    expect(a).toEqual([])
    expect(a).not.toBe(b)
  })
  it('agree with compareText on random lists', () => {
    const alphabet = ['a', 'B', 'é', '\uFF5A', '\u{1F600}', 'zz', 'a\u{1F600}', '\uD7FF']
    let seed = 7
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (let i = 0; i < 300; i++) {
      const list = Array.from({ length: Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * alphabet.length)]!)
      expect(listOf(JSON.stringify(list))).toEqual([...list].sort(compareText))
    }
  })
})
