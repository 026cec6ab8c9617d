/**
 * @module Arbitrary JSON as a request never makes the engine throw: it answers with a result, and
 * a failure carries well-formed issues (a known code, a JSON Pointer path, a message). Hostile or
 * careless clients must get an explanation, never a 500.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { DATASET_NAMES, datasets, FOREIGN_MATCH_MODES, OPERATOR_NAMES } from '../../src/catalog/index.js'
import { ISSUE_CODES } from '../../src/errors/codes.js'
import { numRuns, openPropertyContext, type PropertyContext } from '../support/property-context.js'

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

async function answersWithoutThrowing(request: unknown): Promise<void> {
  let result: Awaited<ReturnType<PropertyContext['engine']['query']>>
  try {
    result = await ctx.engine.query(request)
  } catch (error) {
    throw new Error(`engine.query threw for ${safeJson(request)}: ${String(error)}`)
  }
  expect(typeof result.ok).toBe('boolean')
  if (!result.ok) {
    expect(result.issues.length).toBeGreaterThan(0)
    for (const i of result.issues) {
      expect(Object.keys(ISSUE_CODES)).toContain(i.code)
      expect(i.path === '' || i.path.startsWith('/')).toBe(true)
      expect(typeof i.message).toBe('string')
      expect(i.message.length).toBeGreaterThan(0)
    }
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Words the language knows, so random structures hit the interesting code paths often. */
const words = fc.constantFrom(
  'and', 'or', 'not', 'foreign', 'dataset', 'filter', 'match', 'sort', 'page', 'per_page',
  ...OPERATOR_NAMES, ...FOREIGN_MATCH_MODES, ...DATASET_NAMES, 'investor',
  ...DATASET_NAMES.flatMap((d) => Object.keys(datasets[d].fields)), 'asc', 'desc',
)
const nearJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { arbitrary: fc.oneof(fc.string(), words, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)), weight: 4 },
    { arbitrary: fc.array(tie('value'), { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.dictionary(fc.oneof(words, fc.string()), tie('value'), { maxKeys: 4 }), weight: 2 },
  ),
})).value

test('arbitrary JSON values as the request', async () => {
  await fc.assert(fc.asyncProperty(fc.jsonValue(), answersWithoutThrowing), { numRuns: numRuns(200) })
})

test('arbitrary JS values (fc.anything) as the request', async () => {
  await fc.assert(fc.asyncProperty(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }), answersWithoutThrowing), { numRuns: numRuns(200) })
})

test('requests built from the language\'s own words, in random structures', async () => {
  const request = fc.record({
    dataset: fc.oneof(fc.constantFrom(...DATASET_NAMES, 'investor', 'Companies'), fc.string()),
    filter: nearJson,
    sort: fc.oneof(fc.array(fc.dictionary(words, fc.oneof(words, nearJson), { maxKeys: 2 }), { maxLength: 3 }), nearJson),
    page: fc.oneof(fc.integer(), fc.string(), fc.double()),
    per_page: fc.oneof(fc.integer({ min: -5, max: 100 }), fc.string()),
  }, { requiredKeys: ['dataset'] })
  await fc.assert(fc.asyncProperty(request, answersWithoutThrowing), { numRuns: numRuns(300) })
})

test('valid requests with one subtree replaced by garbage', async () => {
  const mutated = fc.tuple(ctx.arbs.request(), nearJson, fc.nat()).map(([req, garbage, pick]) => {
    const holders: Array<{ obj: Record<string, unknown>; key: string }> = []
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return
      for (const [key, child] of Object.entries(node)) {
        holders.push({ obj: node as Record<string, unknown>, key })
        walk(child)
      }
    }
    const copy = JSON.parse(JSON.stringify(req)) as Record<string, unknown>
    walk(copy)
    const target = holders[pick % holders.length]
    if (target) target.obj[target.key] = garbage
    return copy
  })
  await fc.assert(fc.asyncProperty(mutated, answersWithoutThrowing), { numRuns: numRuns(300) })
})
