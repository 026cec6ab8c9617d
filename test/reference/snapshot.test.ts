/**
 * @module loadSnapshot reads a whole database faithfully: every row, tag and link, values typed by
 * the catalog (booleans from 0/1, numbers as numbers), checked against SQL counts on the fixture.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { DATASET_NAMES, datasets, relations, type FieldDef } from '../../src/catalog/index.js'
import { loadSnapshot, type Snapshot } from '../../src/reference/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'

let vdb: Awaited<ReturnType<typeof createFixtureDatabase>>
let snapshot: Snapshot
beforeAll(async () => {
  vdb = await createFixtureDatabase()
  snapshot = await loadSnapshot(vdb)
})
afterAll(async () => {
  await vdb?.close()
})

const count = (sql: string): number => Number((vdb.sqlite.prepare(sql).raw().get() as unknown[])[0])

test('every dataset row, tag value and link row is in the snapshot', () => {
  for (const name of DATASET_NAMES) {
    const ds = datasets[name]
    expect(snapshot.datasets[name].ids.length, name).toBe(count(`select count(*) from ${ds.table}`))
    for (const f of Object.values(ds.fields) as FieldDef[]) {
      if (!f.tags) continue
      const inSnapshot = [...(snapshot.datasets[name].tags.get(f.name)?.values() ?? [])].reduce((n, s) => n + s.size, 0)
      expect(inSnapshot, `${name}.${f.name}`).toBe(count(`select count(*) from ${f.tags.table}`))
    }
  }
  for (const r of relations) {
    if (r.kind === 'link') expect(snapshot.links.get(r.table)?.length, r.table).toBe(count(`select count(*) from ${r.table}`))
  }
})

test('values are typed by the catalog, and NULLs stay null', () => {
  for (const name of DATASET_NAMES) {
    for (const f of Object.values(datasets[name].fields) as FieldDef[]) {
      if (f.type.kind === 'tags') continue
      const expected = { integer: 'number', number: 'number', boolean: 'boolean', string: 'string', date: 'string', datetime: 'string', enum: 'string' }[f.type.kind]
      let nulls = 0
      for (const row of snapshot.datasets[name].rows.values()) {
        const v = row[f.name]
        if (v === null) nulls++
        else expect(typeof v, `${name}.${f.name}`).toBe(expected)
      }
      if (f.column) expect(nulls, `${name}.${f.name} nulls`).toBe(count(`select count(*) from ${datasets[name].table} where ${f.column} is null`))
    }
  }
})
