/**
 * The record types of src/typed/records.ts are derived from the catalog by the rules `toRecord`
 * follows at run time; this checks real records of every dataset against those same rules, so a
 * change to either side that makes the types lie fails here. And the typed entry (`typedEngine`)
 * answers what the engine answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createEngine, datasets, DATASET_NAMES, EngineClosedError, typedEngine,
  type DatasetName, type Engine, type FieldDef, type SqliteVentureDb, type TypedEngine,
} from '../../src/index.js'
import { createFixtureDatabase } from '../../src/internal.js'

let vdb: SqliteVentureDb
let engine: Engine
let db: TypedEngine

beforeAll(async () => {
  vdb = await createFixtureDatabase()
  engine = createEngine({ database: vdb })
  db = typedEngine(engine)
})

afterAll(async () => {
  await engine.close()
  await vdb.close()
})

/** What `RecordValue<F>` says a field's value is, checked on a value. */
function fitsType(field: FieldDef, value: unknown): boolean {
  if (value === null) return field.nullable && field.type.kind !== 'tags'
  switch (field.type.kind) {
    case 'tags': return Array.isArray(value) && value.every((v) => typeof v === 'string')
    case 'boolean': return typeof value === 'boolean'
    case 'integer':
    case 'number': return field.wire === 'string' ? typeof value === 'string' : typeof value === 'number'
    case 'enum': return typeof value === 'string' && field.type.values.includes(value)
    case 'string':
    case 'date':
    case 'datetime': return typeof value === 'string'
  }
}

describe('records match their types', () => {
  it.each(DATASET_NAMES)('%s: every field, of its type, and nothing else but the constants', async (name: DatasetName) => {
    const r = await db.query({ dataset: name, per_page: 50 })
    if (!r.ok) throw new Error(JSON.stringify(r.issues))
    expect(r.value.results.length).toBeGreaterThan(10)
    const fields = Object.values(datasets[name].fields)
    const constants = name === 'investors' ? { resource_type: 'investor' } : {}
    const seen = new Map<string, Set<string>>()
    for (const record of r.value.results as readonly Record<string, unknown>[]) {
      expect(Object.keys(record).sort()).toEqual([...fields.map((f) => f.name), ...Object.keys(constants)].sort())
      for (const f of fields) {
        expect(fitsType(f, record[f.name]), `${name}.${f.name} = ${JSON.stringify(record[f.name])}`).toBe(true)
        seen.set(f.name, (seen.get(f.name) ?? new Set()).add(record[f.name] === null ? 'null' : typeof record[f.name]))
      }
      expect(record).toMatchObject(constants)
    }
    // Not vacuous: most fields had a value somewhere on the page.
    const withValues = [...seen.values()].filter((kinds) => [...kinds].some((k) => k !== 'null')).length
    expect(withValues).toBeGreaterThan(fields.length / 2)
  })
})

describe('typedEngine', () => {
  it('answers what the engine answers, the dataset resolved from an alias, and pages by the typed id', async () => {
    const request = { dataset: 'investor', filter: { portfolio_size: { gte: 2 } }, sort: [{ portfolio_size: 'desc' }], per_page: 5 } as const
    const typed = await db.query(request)
    const plain = await engine.query(request)
    if (!typed.ok || !plain.ok) throw new Error('query failed')
    expect(typed.value).toEqual(plain.value)
    expect(typed.value.query.dataset).toBe('investors')
    const first = typed.value.results[0]!
    expect(first.resource_type).toBe('investor')
    expect(typeof first.portfolio_size).toBe('number')

    const page2 = await db.page(typed.value.query_id, { page: 2, per_page: 5 })
    if (!page2.ok) throw new Error('page failed')
    expect(page2.value.meta.current_page).toBe(2)
    expect(page2.value.results[0]!.investor_id).not.toBe(first.investor_id)

    const count = await db.count({ dataset: 'investors', filter: { portfolio_size: { gte: 2 } } })
    expect(count).toEqual({ ok: true, value: typed.value.meta.total_record_count })
    const list = await db.list({ dataset: 'companies', filter: { stage: { in: ['a', 'b'] } }, per_page: 3 })
    if (!list.ok) throw new Error('list failed')
    expect(list.value.results.every((c) => c.stage === 'a' || c.stage === 'b')).toBe(true)
  })

  it('closes the engine underneath: its calls then reject with EngineClosedError', async () => {
    const own = typedEngine(createEngine({ database: vdb, workers: 0 }))
    expect((await own.count({ dataset: 'companies' })).ok).toBe(true)
    await own.close()
    await expect(own.count({ dataset: 'companies' })).rejects.toBeInstanceOf(EngineClosedError)
    await expect(own.engine.count({ dataset: 'companies' })).rejects.toBeInstanceOf(EngineClosedError)
  })

  it('passes the engine\'s issues through for what the types cannot see', async () => {
    const r = await db.query({ dataset: 'companies', filter: { stage: { in: [] } } })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.issues.map((i) => i.code)).toEqual(['empty_list'])
  })
})
