/**
 * @module print(parse(x)) round-trips: printing a parsed filter and parsing it again gives the
 * same AST (paths aside). The printer is how canonical forms and explain output are written, so a
 * lossy printer would silently change stored queries.
 */
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { printFilter, stripPaths } from '../../src/ast/print.js'
import { DATASET_NAMES } from '../../src/catalog/index.js'
import { parseFilter } from '../../src/parse/index.js'
import { createSnapshot } from '../../src/reference/index.js'
import { filterArbitraries } from '../../src/testing/arbitraries.js'
import { numRuns } from '../support/num-runs.js'

// Values do not matter to the printer; a snapshot with no rows makes the generators use each
// type's fallback values, so this file needs no database.
const arbs = filterArbitraries(createSnapshot({}))

test.each(DATASET_NAMES)('stripPaths(parse(print(parse(x)))) equals stripPaths(parse(x)) on %s filters', (dataset) => {
  fc.assert(
    fc.property(arbs.filter(dataset), (json) => {
      const first = parseFilter(json)
      if (!first.ok) throw new Error(`generated filter does not parse: ${JSON.stringify(first.issues)}`)
      const printed = printFilter(first.value)
      const second = parseFilter(JSON.parse(JSON.stringify(printed)))
      if (!second.ok) throw new Error(`printed filter does not parse: ${JSON.stringify(second.issues)}`)
      expect(stripPaths(second.value)).toEqual(stripPaths(first.value))
    }),
    { numRuns: numRuns(200) },
  )
})

test('printing is idempotent: print(parse(print(ast))) equals print(ast)', () => {
  fc.assert(
    fc.property(arbs.request(), ({ filter }) => {
      const ast = parseFilter(filter)
      if (!ast.ok) throw new Error('generated filter does not parse')
      const printed = printFilter(ast.value)
      const again = parseFilter(printed)
      if (!again.ok) throw new Error('printed filter does not parse')
      expect(printFilter(again.value)).toEqual(printed)
    }),
    { numRuns: numRuns(100) },
  )
})
