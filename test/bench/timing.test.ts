/**
 * The suite's interleaving (bench/suite/timing.ts): every round runs each variant once, and over the
 * rounds each variant runs right after each other one about equally often, so a slow variant's
 * cold caches do not always land on the same neighbour (as a rotation's did).
 */
import { describe, expect, it } from 'vitest'
import { roundOrders } from '../../bench/suite/timing.js'

/** How often variant b ran right after variant a, over `rounds` rounds run back to back. */
function followers(order: () => number[], n: number, rounds: number): number[][] {
  const counts = Array.from({ length: n }, () => new Array<number>(n).fill(0))
  let previous: number | undefined
  for (let r = 0; r < rounds; r++) {
    const round = order()
    expect([...round].sort()).toEqual(Array.from({ length: n }, (_, k) => k))
    for (const i of round) {
      if (previous !== undefined) counts[previous]![i]! += 1
      previous = i
    }
  }
  return counts
}

describe('roundOrders', () => {
  it('shuffled: over 31 rounds of 4 variants, each follows each other one 5 to 16 times', () => {
    const counts = followers(roundOrders(4, 'shuffle'), 4, 31)
    for (let a = 0; a < 4; a++) {
      for (let b = 0; b < 4; b++) if (a !== b) expect(counts[a]![b], `${b} after ${a}`).toBeGreaterThanOrEqual(5)
      for (let b = 0; b < 4; b++) if (a !== b) expect(counts[a]![b], `${b} after ${a}`).toBeLessThanOrEqual(16)
    }
  })

  it('the same orders on every run of the suite (seeded), different ones from another seed', () => {
    const a = roundOrders(5, 'shuffle')
    const b = roundOrders(5, 'shuffle')
    const c = roundOrders(5, 'shuffle', 7)
    const rounds = Array.from({ length: 10 }, () => [a(), b(), c()])
    expect(rounds.map(([x, y]) => JSON.stringify(x) === JSON.stringify(y)).every(Boolean)).toBe(true)
    expect(rounds.some(([x, , z]) => JSON.stringify(x) !== JSON.stringify(z))).toBe(true)
  })

  it('a rotation (the old order) keeps a variant behind the same one: what the shuffle removes', () => {
    const counts = followers(roundOrders(4, 'rotate'), 4, 31)
    // Variant 0 (the engine) ran right after variant 3 (plain SQLite) in three rounds of four, never after variant 1.
    expect(counts[3]![0]).toBeGreaterThanOrEqual(23)
    expect(counts[1]![0]).toBe(0)
  })
})
