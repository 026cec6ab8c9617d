/**
 * @module A small in-memory database for execute tests, filled generically from the catalog with
 * a seeded PRNG: few distinct values per field (so sorts have many ties), ~25% NULLs in every
 * nullable column (so NULLs-last ordering and null-safe negation are exercised), tags from a small
 * vocabulary (some records with none), and link/direct relations between the datasets.
 * Also returns the inserted rows so tests can compute expectations in plain JS.
 */
import type { FieldDef } from '../../src/catalog/define.js'
import { DATASET_NAMES, datasets, primaryKeyColumn, relations, type DatasetName } from '../../src/catalog/index.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { prng } from '../../src/testing/arbitraries.js'

export type Row = Record<string, string | number | null>

export interface SeedData {
  readonly vdb: SqliteVentureDb
  /** Rows per dataset, keyed by column. */
  readonly rows: Record<DatasetName, Row[]>
  /** Tag values per tags table: owner → values. */
  readonly tags: Map<string, Map<number, string[]>>
  /** Link table rows. */
  readonly links: Map<string, Row[]>
}


export const TAG_VOCABULARY = ['Fintech', 'Health', 'AI', 'SaaS', 'Retail', 'Energy']
const WORDS = ['Acme', 'acme labs', 'Zeta', 'zeta', 'Nova_1', '100% Pure', 'Back\\Slash', "O'Brien", 'Éclair', 'beta']

export function seedDatabase(options: { companies?: number; investors?: number; fundings?: number; seed?: number } = {}): SeedData {
  const rnd = prng(options.seed ?? 7)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const counts: Record<DatasetName, number> = { companies: options.companies ?? 120, investors: options.investors ?? 40, fundings: options.fundings ?? 150 }
  const vdb = openDatabase(':memory:')
  const rows = { companies: [], investors: [], fundings: [] } as Record<DatasetName, Row[]>
  const tags = new Map<string, Map<number, string[]>>()

  const valueFor = (f: FieldDef): string | number | null => {
    if (f.nullable && rnd() < 0.25) return null
    switch (f.type.kind) {
      case 'integer': return pick([0, 1, 5, 10, 12, 50, 200])
      case 'number': return pick([-1.5, 0, 2.25, 3.5, 10])
      case 'string': return pick(WORDS)
      case 'date': return pick(['2019-05-01', '2020-01-31', '2021-12-24', '2023-06-30'])
      case 'datetime': return pick(['2019-05-01 10:00:00', '2020-01-31 00:00:00', '2023-06-30 12:30:00'])
      case 'boolean': return rnd() < 0.5 ? 1 : 0
      case 'enum': return pick(f.type.values.slice(0, 4))
      case 'tags': throw new Error('tags have no column')
    }
  }

  for (const name of DATASET_NAMES) {
    const ds = datasets[name]
    const pk = primaryKeyColumn(ds)
    for (let id = 1; id <= counts[name]; id++) {
      const row: Row = { [pk]: id }
      for (const f of Object.values(ds.fields) as FieldDef[]) {
        if (f.tags) {
          const values = [...new Set(Array.from({ length: Math.floor(rnd() * 4) }, () => pick(TAG_VOCABULARY)))]
          let perTable = tags.get(f.tags.table)
          if (!perTable) tags.set(f.tags.table, (perTable = new Map()))
          if (values.length > 0) perTable.set(id, values)
        } else if (f.column && f.column !== pk) row[f.column] = valueFor(f)
      }
      if (name === 'fundings') row.company_id = 1 + Math.floor(rnd() * counts.companies)
      rows[name].push(row)
    }
    const columns = Object.keys(rows[name][0]!)
    const insert = vdb.sqlite.prepare(`insert into ${ds.table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`)
    for (const row of rows[name]) insert.run(...columns.map((c) => row[c]))
    for (const f of Object.values(ds.fields) as FieldDef[]) {
      if (!f.tags) continue
      const ins = vdb.sqlite.prepare(`insert into ${f.tags.table} (${f.tags.ownerColumn}, ${f.tags.valueColumn}) values (?, ?)`)
      for (const [owner, values] of tags.get(f.tags.table) ?? []) for (const v of values) ins.run(owner, v)
    }
  }

  const links = new Map<string, Row[]>()
  for (const r of relations) {
    if (r.kind !== 'link' || links.has(r.table)) continue
    const fromCount = counts[r.from]
    const toCount = counts[r.to]
    const seen = new Set<string>()
    const linkRows: Row[] = []
    // Some records of each side have no links at all (for foreign none/all).
    for (let a = 1; a <= fromCount; a++) {
      if (rnd() < 0.2) continue
      for (let k = 0; k < 1 + Math.floor(rnd() * 4); k++) {
        const b = 1 + Math.floor(rnd() * toCount)
        if (seen.has(`${a}:${b}`)) continue
        seen.add(`${a}:${b}`)
        linkRows.push({ [r.fromKey]: a, [r.toKey]: b })
      }
    }
    const ins = vdb.sqlite.prepare(`insert into ${r.table} (${r.fromKey}, ${r.toKey}) values (?, ?)`)
    for (const l of linkRows) ins.run(l[r.fromKey], l[r.toKey])
    links.set(r.table, linkRows)
  }
  return { vdb, rows, tags, links }
}
