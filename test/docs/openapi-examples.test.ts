/**
 * The OpenAPI document's examples (src/http/openapi-examples.json) against a fresh run of what
 * produces them (src/docs/openapi-examples.ts): the demo database of `ventureql serve` generated in
 * memory with a fixed generator day, every example request sent through the app's fetch handler.
 *
 * What is compared: the whole file, exactly (every request, every 200 answer's body, the demo's
 * seed, size and generator day, the clock, the base URL). A change to an endpoint's answers or to
 * the demo generator fails it: run `npm run openapi-examples` and commit the file.
 *
 * And, since the served demo database may be generated on another day than the examples': the same
 * requests, picked the same way, answer 200 on a demo database generated as of today.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { openApiPath } from '../../src/http/openapi.js'
import { EXAMPLES_DEMO, produceOpenApiExamples, WITHOUT_EXAMPLE, type OpenApiExamplesFile } from '../../src/docs/openapi-examples.js'
import { ROUTE_MODULES } from '../../src/http/routes/index.js'

const file = join(import.meta.dirname, '..', '..', 'src', 'http', 'openapi-examples.json')
const REGENERATE = 'src/http/openapi-examples.json is out of date: run `npm run openapi-examples` and commit it'

let committed: OpenApiExamplesFile
let fresh: OpenApiExamplesFile
beforeAll(async () => {
  committed = JSON.parse(readFileSync(file, 'utf8')) as OpenApiExamplesFile
  fresh = await produceOpenApiExamples()
}, 120_000)

describe('src/http/openapi-examples.json', () => {
  it('equals a fresh run on the demo database, operation by operation', () => {
    expect(Object.keys(committed.operations), REGENERATE).toEqual(Object.keys(fresh.operations))
    for (const name of Object.keys(fresh.operations)) {
      expect(committed.operations[name]?.request, `${name}: ${REGENERATE}`).toEqual(fresh.operations[name]!.request)
      expect(committed.operations[name]?.response, `${name}: ${REGENERATE}`).toEqual(fresh.operations[name]!.response)
    }
    expect(committed, REGENERATE).toEqual(fresh)
  })

  it('is taken on the demo of `ventureql serve` with a fixed generator day and clock', () => {
    expect(committed.demo).toEqual({ companies: 5000, seed: 1, asOf: EXAMPLES_DEMO.asOf })
    expect(committed.clock).toMatch(/^\d{4}-\d{2}-\d{2}T/)
  })

  it('has an example for every operation but those listed with a reason', () => {
    const operations = ROUTE_MODULES.flatMap((m) => m.specs).map((r) => `${r.method} ${openApiPath(r.path)}`)
    expect(Object.keys(committed.operations).sort()).toEqual(operations.filter((o) => !Object.hasOwn(WITHOUT_EXAMPLE, o)).sort())
    for (const o of Object.keys(WITHOUT_EXAMPLE)) expect(operations).toContain(o)
  })

  it('holds no API key', () => {
    expect(readFileSync(file, 'utf8')).not.toMatch(/vql_[A-Za-z0-9_-]{8,}/)
    for (const example of Object.values(committed.operations)) expect(Object.keys(example.request.query ?? {})).not.toContain('key')
  })
})

describe('the example requests on a demo database generated on another day', () => {
  it('are the same requests, and each answers 200 (produceOpenApiExamples throws on anything else)', async () => {
    const today = new Date().toISOString().slice(0, 10)
    const other = await produceOpenApiExamples({ asOf: today === EXAMPLES_DEMO.asOf ? '2026-01-15' : today })
    for (const [name, example] of Object.entries(committed.operations)) {
      expect(other.operations[name]?.request, name).toEqual(example.request)
      expect(other.operations[name]?.response.status, name).toBe(200)
    }
  }, 120_000)
})
