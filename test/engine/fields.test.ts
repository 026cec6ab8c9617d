/**
 * Field selection (`fields`) and export batches in the engine: the records carry the primary key
 * and the picked fields only, with the same values, order and query id as without; the records
 * statement reads only the picked columns and tags tables; unknown names are refused with
 * did-you-mean; export batches walk the whole result in sort order.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { datasets } from '../../src/catalog/index.js'
import { selectFields } from '../../src/check/fields.js'
import { DIALECTS, recordsByIdsQuery } from '../../src/compile/index.js'
import { createEngine, type Engine } from '../../src/engine.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

let dir: string
const engines: Record<string, Engine> = {}
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-fields-'))
  const file = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file, companies: 300 })).close()
  engines.pool = createEngine({ database: file, workers: 1 })
  engines.inline = createEngine({ database: file, workers: 0 })
})
afterAll(async () => {
  for (const e of Object.values(engines)) await e.close()
  rmSync(dir, { recursive: true, force: true })
})

const request = { dataset: 'companies', filter: { employees: { gte: 5 } }, sort: [{ total_funding: 'desc' }], per_page: 40 }

function value<T>(r: { ok: true; value: T } | { ok: false; issues: readonly unknown[] }): T {
  if (!r.ok) throw new Error(JSON.stringify(r.issues))
  return r.value
}

describe.each(['pool', 'inline'])('fields (%s)', (kind) => {
  it('returns the id and the picked fields, with the same values, order and query id', async () => {
    const engine = engines[kind]!
    const full = value(await engine.query(request))
    const picked = value(await engine.query({ ...request, fields: ['name', 'industries', 'stage', 'name'] }))
    expect(full.results.length).toBeGreaterThan(10)
    expect(picked.query_id).toBe(full.query_id)
    expect(picked.meta).toEqual(full.meta)
    expect(picked.results).toEqual(full.results.map((r) => ({ id: r.id, name: r.name, industries: r.industries, stage: r.stage })))
    expect(Object.keys(picked.results[0]!)).toEqual(['id', 'name', 'industries', 'stage'])
    // Some company has tags, so the tags field is really read.
    expect(picked.results.some((r) => (r.industries as string[]).length > 0)).toBe(true)
  })

  it('applies to list, page and pageWithoutTotal, as an array or a comma-separated string', async () => {
    const engine = engines[kind]!
    const listed = value(await engine.list({ ...request, fields: 'website, country' }))
    expect(Object.keys(listed.results[0]!)).toEqual(['id', 'website', 'country'])
    const { query_id } = value(await engine.store({ ...request, fields: ['name'] }))
    const page2 = value(await engine.page(query_id, { page: 2, per_page: 5, fields: ['employees'] }))
    const full2 = value(await engine.page(query_id, { page: 2, per_page: 5 }))
    expect(page2.results).toEqual(full2.results.map((r) => ({ id: r.id, employees: r.employees })))
    const noTotal = value(await engine.pageWithoutTotal(query_id, { page: 2, per_page: 5, fields: 'employees' }))
    expect(noTotal.results).toEqual(page2.results)
  })

  it('keeps the primary key (investor_id) and drops the constant members of investor records', async () => {
    const engine = engines[kind]!
    const picked = value(await engine.query({ dataset: 'investors', fields: ['name'], per_page: 3 }))
    expect(Object.keys(picked.results[0]!)).toEqual(['investor_id', 'name'])
  })

  it('refuses unknown names with did-you-mean, together with the filter\'s issues', async () => {
    const engine = engines[kind]!
    const r = await engine.query({ ...request, fields: ['name', 'stagee', 7] })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.issues.map((i) => [i.code, i.path])).toEqual([['unknown_field', '/fields/1'], ['invalid_type', '/fields/2']])
    expect(r.issues[0]!.suggestions).toContain('stage')
    const both = await engine.query({ ...request, filter: { employes: { gte: 1 } }, fields: 'nme' })
    expect(both.ok ? [] : both.issues.map((i) => [i.code, i.path, i.suggestions?.[0]])).toEqual([
      ['unknown_field', '/filter/employes', 'employees'], ['unknown_field', '/fields', 'name'],
    ])
    const empty = await engine.list({ ...request, fields: [] })
    expect(empty.ok ? [] : empty.issues.map((i) => i.code)).toEqual(['invalid_value'])
    const { query_id } = value(await engine.store(request))
    const paged = await engine.page(query_id, { fields: 'nmae' })
    expect(paged.ok ? [] : paged.issues.map((i) => [i.code, i.suggestions?.[0]])).toEqual([['unknown_field', 'name']])
  })

  it('export batches walk every record in sort order, with fields', async () => {
    const engine = engines[kind]!
    const { query_id } = value(await engine.store(request))
    const all = { results: [] as Record<string, unknown>[] }
    for (let page = 1; ; page++) {
      const got = value(await engine.page(query_id, { page, per_page: 50 })).results
      all.results.push(...got)
      if (got.length < 50) break
    }
    const seen: unknown[] = []
    let after: readonly (string | number | boolean | null)[] | undefined
    let batches = 0
    for (;;) {
      const batch = value(await engine.exportBatch(query_id, { after, limit: 7, fields: ['name'] }))
      batches++
      seen.push(...batch.records)
      if (!batch.next) break
      after = batch.next
    }
    expect(all.results.length).toBeGreaterThan(20)
    expect(batches).toBe(Math.floor(all.results.length / 7) + 1)
    expect(seen).toEqual(all.results.map((r) => ({ id: r.id, name: r.name })))
  })

  it('refuses an export position that is not one of its own', async () => {
    const engine = engines[kind]!
    const { query_id } = value(await engine.store(request))
    for (const after of [[1], ['x', 2, 3], [{}, 1], 'abc']) {
      const r = await engine.exportBatch(query_id, { after: after as never, limit: 5 })
      expect(r.ok ? [] : r.issues.map((i) => [i.code, i.path])).toEqual([['invalid_value', '/after']])
    }
    const limit = await engine.exportBatch(query_id, { limit: 0 })
    expect(limit.ok ? [] : limit.issues.map((i) => i.path)).toEqual(['/limit'])
  })
})

describe('the records statement of a selection', () => {
  it('reads only the picked columns and tags tables', () => {
    const companies = datasets.companies
    const selection = selectFields(companies, ['name', 'stage'])
    if (!selection.ok || !selection.value) throw new Error('selection')
    const db = engines.inline!.database.db
    const narrow = recordsByIdsQuery(db, DIALECTS.sqlite, companies, [1], selection.value.fields).compile().sql
    const full = recordsByIdsQuery(db, DIALECTS.sqlite, companies, [1]).compile().sql
    expect(full).toContain('company_industries')
    expect(narrow).not.toContain('company_industries')
    expect(narrow).not.toContain('"description"')
    expect(narrow).toMatch(/"name".*"stage"/)
  })
})
