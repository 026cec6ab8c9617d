/** `ventureql serve`'s heap setting (src/cli/heap.ts): set unless the operator chose a value. */
import { describe, expect, it } from 'vitest'
import { heapGrowingSetByOperator } from '../../src/cli/heap.js'

describe('heapGrowingSetByOperator', () => {
  it('sees the flag given to node, in either spelling', () => {
    expect(heapGrowingSetByOperator(['--heap-growing-percent=50'])).toBe(true)
    expect(heapGrowingSetByOperator(['--max-old-space-size=4096', '--heap_growing_percent=0'])).toBe(true)
    expect(heapGrowingSetByOperator(['--heap-growing-percent'])).toBe(true)
  })

  it('is false without it, and not fooled by a longer flag of the same start', () => {
    expect(heapGrowingSetByOperator([])).toBe(false)
    expect(heapGrowingSetByOperator(['--inspect', '--max-semi-space-size=8'])).toBe(false)
    expect(heapGrowingSetByOperator(['--heap-growing-percentage=5'])).toBe(false)
  })
})
