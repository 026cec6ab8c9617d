/**
 * @module Shared setup of the property tests: the seeded fixture database, the engine over it,
 * the reference snapshot of the same data and the arbitraries built from it (src/testing, the
 * code `ventureql/testing` ships). Each property file
 * builds its own (vitest runs files in separate workers; the fixture takes well under a second).
 */
import type { Scalar } from '../../src/ast/nodes.js'
import type { DatasetDef } from '../../src/catalog/define.js'
import type { CheckedQuery } from '../../src/check/checked.js'
import { checkQuery } from '../../src/check/index.js'
import { resolveLimits, type Limits } from '../../src/check/limits.js'
import { createEngine } from '../../src/engine.js'
import { formatIssues } from '../../src/errors/format.js'
import { parseQuery } from '../../src/parse/index.js'
import { loadSnapshot, type Snapshot } from '../../src/reference/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { filterArbitraries, type FilterArbitraries } from '../../src/testing/arbitraries.js'

export { numRuns } from './num-runs.js'

export type Engine = ReturnType<typeof createEngine>
type VentureDb = Awaited<ReturnType<typeof createFixtureDatabase>>

/** Large enough that one page holds every row of the fixture, so order can be compared whole. */
export const ALL_ROWS = 100_000

/**
 * The limits of the property tests: pages hold every row, and no cost limit. These tests judge
 * which rows a filter selects; deeply nested generated filters can exceed `maxCost`, whose own
 * tests are in test/check/rules/cost-within-limit.test.ts.
 */
export const PROPERTY_LIMITS = Object.freeze({ maxPerPage: ALL_ROWS, maxCost: Number.MAX_SAFE_INTEGER })

export interface PropertyContext {
  readonly vdb: VentureDb
  readonly engine: Engine
  readonly snapshot: Snapshot
  readonly arbs: FilterArbitraries
  close(): Promise<void>
}

export async function openPropertyContext(): Promise<PropertyContext> {
  const vdb = await createFixtureDatabase()
  const snapshot = await loadSnapshot(vdb)
  const engine = createEngine({ database: vdb, limits: PROPERTY_LIMITS })
  return {
    vdb,
    engine,
    snapshot,
    arbs: filterArbitraries(snapshot),
    close: async () => {
      await engine.close()
      await vdb.close().catch(() => undefined)
    },
  }
}

/** Parses and checks a request that the generators made, which must be valid. */
export function checked(request: unknown, limits: Limits = resolveLimits(PROPERTY_LIMITS)): CheckedQuery {
  const parsed = parseQuery(request, limits)
  if (!parsed.ok) throw new Error(`generated request does not parse:\n${formatIssues(parsed.issues)}\n${JSON.stringify(request)}`)
  const result = checkQuery(parsed.value, limits)
  if (!result.ok) throw new Error(`generated request does not check:\n${formatIssues(result.issues)}\n${JSON.stringify(request)}`)
  return result.value
}

/** The primary keys of result records, in order (some datasets serialise ids as strings, spec 2.3). */
export function resultIds(records: readonly Record<string, unknown>[], dataset: DatasetDef): number[] {
  return records.map((r) => Number(r[dataset.primaryKey] as Scalar))
}
