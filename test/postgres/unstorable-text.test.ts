/**
 * Text PostgreSQL cannot hold (a NUL character, an unpaired UTF-16 surrogate) in a filter is an
 * `invalid_value` issue on PostgreSQL too, never a driver fault (`invalid byte sequence for encoding
 * "UTF8": 0x00`), exactly as on SQLite: the checker refuses it before any SQL runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../src/engine.js'
import type { PostgresVentureDb } from '../../src/store/open.js'
import { testSchema, type TestSchema } from './support.js'

let schema: TestSchema
let engine: Engine<PostgresVentureDb>
beforeAll(async () => {
  schema = await testSchema('text')
  engine = createEngine({ database: await schema.open() })
})
afterAll(async () => {
  await engine?.close()
  await schema?.drop()
})

describe('unstorable text on PostgreSQL', () => {
  for (const filter of [
    { name: 'a\u0000b' },
    { name: { contains: 'a\u0000' } },
    { name: { in: ['a\u0000b', 'x'] } },
    { name: { in: ['ok', '\ud800'] } },
    { industries: { has_any: ['x\udc00'] } },
  ]) {
    it(`${JSON.stringify(filter)} is an invalid_value issue`, async () => {
      const counted = await engine.count({ dataset: 'companies', filter })
      expect(counted.ok).toBe(false)
      if (!counted.ok) expect(counted.issues.map((i) => i.code)).toEqual(['invalid_value'])
      const listed = await engine.list({ dataset: 'companies', filter })
      expect(listed.ok).toBe(false)
    })
  }

  it('well-formed text with an emoji runs', async () => {
    const counted = await engine.count({ dataset: 'companies', filter: { name: { in: ['ok\u{1F600}'] } } })
    expect(counted).toEqual({ ok: true, value: 0 })
  })
})
