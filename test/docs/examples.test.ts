/**
 * @module The example requests of grammar-docs/examples/ run through the engine on the seeded
 * fixture database and do what their `expect` says: valid ones return at least `minResults`
 * records, and the same rows as the reference evaluator; invalid ones fail with exactly the listed
 * issue codes. Examples that drift from the language fail here rather than mislead a reader.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { referenceRows } from '../../src/reference/index.js'
import { checked, openPropertyContext, resultIds, type PropertyContext } from '../support/property-context.js'

interface Example {
  readonly description: string
  readonly request: Record<string, unknown>
  readonly expect: { readonly ok: true; readonly minResults?: number } | { readonly ok: false; readonly codes: readonly string[] }
}

const dir = join(import.meta.dirname, '..', '..', 'grammar-docs', 'examples')
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
const examples = files.map((file) => [file, JSON.parse(readFileSync(join(dir, file), 'utf8')) as Example] as const)

let ctx: PropertyContext
beforeAll(async () => {
  ctx = await openPropertyContext()
})
afterAll(async () => {
  await ctx?.close()
})

test('there are 8 to 12 examples, each with a description, a request and an expectation', () => {
  expect(files.length).toBeGreaterThanOrEqual(8)
  expect(files.length).toBeLessThanOrEqual(12)
  for (const [file, ex] of examples) {
    expect(Object.keys(ex).sort(), file).toEqual(['description', 'expect', 'request'])
    expect(ex.description.length, file).toBeGreaterThan(20)
  }
  expect(examples.some(([, ex]) => !ex.expect.ok), 'at least one invalid example').toBe(true)
})

describe('each example does what it says', () => {
  test.each(examples)('%s', async (_file, ex) => {
    const result = await ctx.engine.query(ex.request)
    if (!ex.expect.ok) {
      if (result.ok) throw new Error('expected the request to be rejected')
      expect(result.issues.map((i) => i.code).sort()).toEqual([...ex.expect.codes].sort())
      for (const i of result.issues) expect(i.path.startsWith('/') || i.path === '').toBe(true)
      return
    }
    if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.issues)}`)
    expect(result.value.meta.total_record_count).toBeGreaterThanOrEqual(ex.expect.minResults ?? 0)
    const query = checked(ex.request)
    const expected = referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
    const { per_page: perPage, current_page: page } = result.value.meta
    expect(result.value.meta.total_record_count).toBe(expected.length)
    expect(resultIds(result.value.results, query.dataset)).toEqual(expected.slice((page - 1) * perPage, page * perPage))
  })
})
