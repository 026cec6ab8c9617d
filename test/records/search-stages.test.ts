/**
 * The typo stages' plan (records/search.ts, `typoStages`): the stages a term has do not depend on
 * the typo dictionary, and each stage reads the dictionary only when its names or groups are first
 * read (SQLite stops asking stages once `limit` hits are known), each lookup once.
 */
import { describe, expect, it } from 'vitest'
import { searchWords, typoStages, typoTerm } from '../../src/records/search.js'

describe('typo stages', () => {
  const term = typoTerm(searchWords('Tkchnologies Galillab'), 'auto')
  const words = ['technologies', 'technology', 'techno']
  const names = ['\uE000technologies galilab', '\uE000galilab']

  it('look the dictionary up only for the stages read, each lookup once', () => {
    const asked: string[] = []
    const stages = typoStages(term, (i) => { asked.push(`word ${i}`); return i === 0 ? words : ['galilab'] }, () => { asked.push('names'); return names })
    expect(stages.length).toBeGreaterThan(2)
    expect(asked).toEqual([])
    // The first stage: the names starting within one edit of the term's letters.
    expect(stages[0]!.names).toEqual([])
    expect(asked).toEqual(['names'])
    // The second: each word within one edit.
    expect(stages[1]!.names).toBeUndefined()
    expect(stages[1]!.groups.map((g) => g.prefixes)).toEqual([['technologies'], ['galilab']])
    expect(asked).toEqual(['names', 'word 0', 'word 1'])
    // Read again, and the later stages: no lookup repeated.
    for (const s of stages) void (s.names ?? s.groups)
    expect(stages[1]!.groups.map((g) => g.prefixes)).toEqual([['technologies'], ['galilab']])
    expect(asked).toEqual(['names', 'word 0', 'word 1'])
  })

  it('give the same plan read lazily or all at once', () => {
    const plan = () => typoStages(term, (i) => (i === 0 ? words : ['galilab']), () => names)
    const eager = JSON.parse(JSON.stringify(plan()))
    const lazy = plan()
    const laterFirst = [...lazy].reverse().map((s) => JSON.parse(JSON.stringify(s))).reverse()
    expect(laterFirst).toEqual(eager)
    expect(eager.map((s: { names?: unknown }) => s.names !== undefined)).toContain(true)
  })
})
