/**
 * @module Facet counts of a query: one `GROUP BY` per field over the filtered set
 * (`compile/facets.ts`), ranked here, and remembered per connection under the data version with
 * the query's content-addressed id, like a cheap total (`counts.ts`): an ingest bumps the version
 * and retires them all. The groups are kept whole, so another `limit` of the same facet is
 * answered from memory too.
 */
import type { Kysely } from 'kysely'
import type { FieldDef } from '../catalog/define.js'
import type { CheckedQuery } from '../check/checked.js'
import { facetQuery } from '../compile/facets.js'
import type { ExecContext } from './context.js'
import { facetsHeld } from './facet-columns.js'
import { readRows } from './statements.js'

/** One value of a facet and the number of records holding it. */
export interface FacetValue {
  readonly value: string
  readonly count: number
}

/** A facet: its top values, and the counts of the rest and of records without a value. */
export interface Facet {
  /** The `limit` most frequent values, by count descending, ties by value ascending (byte order). */
  readonly values: readonly FacetValue[]
  /** The sum of the counts of the values not listed (a tags field: their record-value pairs). */
  readonly other: number
  /** Records of the filtered set without a value: NULL, or, for tags, no value at all. */
  readonly missing: number
}

/** Every group of one facet, ranked, and its NULL group. */
interface Groups {
  readonly ranked: readonly FacetValue[]
  readonly missing: number
}

/** Most facets kept in memory per connection; the oldest go first. */
const MAX_REMEMBERED_FACETS = 2_000
const remembered = new WeakMap<Kysely<any>, Map<string, Groups>>()

function memoryOf(db: Kysely<any>): Map<string, Groups> {
  let map = remembered.get(db)
  if (!map) remembered.set(db, (map = new Map()))
  return map
}

/** Orders groups as facets list them: count descending, then value ascending by UTF-8 bytes (the columns' order on both backends). */
export function rankFacetValues(values: Iterable<FacetValue>): FacetValue[] {
  return [...values].sort((a, b) => b.count - a.count || Buffer.compare(Buffer.from(a.value), Buffer.from(b.value)))
}

/** The top `limit` of ranked groups, the rest summed. */
export function topOf(groups: { readonly ranked: readonly FacetValue[]; readonly missing: number }, limit: number): Facet {
  const values = groups.ranked.slice(0, limit)
  let other = 0
  for (let i = limit; i < groups.ranked.length; i++) other += groups.ranked[i]!.count
  return Object.freeze({ values: Object.freeze(values), other, missing: groups.missing })
}

async function countGroups(ctx: ExecContext, checked: Pick<CheckedQuery, 'dataset' | 'filter'>, field: FieldDef): Promise<Groups> {
  const { rows } = await readRows(ctx, facetQuery(ctx.db, ctx.dialect, checked, field).compile())
  let missing = 0
  const values: FacetValue[] = []
  for (const [value, count] of rows) {
    if (value === null || value === undefined) missing += Number(count)
    else values.push(Object.freeze({ value: String(value), count: Number(count) }))
  }
  return Object.freeze({ ranked: Object.freeze(rankFacetValues(values)), missing })
}

/** The facets of a query, and its total when they were counted in memory (with it, in the same pass). */
export interface CountedFacets {
  readonly facets: Record<string, Facet>
  readonly total?: number
}

/**
 * The facets of a checked query (`queryId` its content-addressed id), each field counted once per
 * data version and connection: the fields not remembered counted together in memory when their
 * columns are held and the fields allow it (`facet-columns.ts`), else one `GROUP BY` each. No
 * column is read here: the pipeline reads them in the background.
 */
export async function cachedFacets(
  ctx: ExecContext, checked: Pick<CheckedQuery, 'dataset' | 'filter'>, queryId: string, fields: readonly FieldDef[], limit: number,
): Promise<CountedFacets> {
  const memory = memoryOf(ctx.db)
  const keyOf = (field: FieldDef) => `${ctx.dataVersion}\u0000${queryId}\u0000${field.name}`
  const remember = (field: FieldDef, groups: Groups) => {
    if (memory.size >= MAX_REMEMBERED_FACETS) memory.delete(memory.keys().next().value!)
    memory.set(keyOf(field), groups)
  }
  const missing = fields.filter((f) => !memory.has(keyOf(f)))
  let total: number | undefined
  if (missing.length > 0) {
    const counted = await facetsHeld(ctx, checked.dataset, checked.filter, missing)
    if (counted) {
      total = counted.total
      for (const field of missing) {
        const g = counted.groups.get(field.name)!
        const values = [...g.counts].map(([value, count]) => Object.freeze({ value, count }))
        remember(field, Object.freeze({ ranked: Object.freeze(rankFacetValues(values)), missing: g.missing }))
      }
    }
  }
  const out: Record<string, Facet> = {}
  for (const field of fields) {
    let groups = memory.get(keyOf(field))
    if (groups === undefined) {
      groups = await countGroups(ctx, checked, field)
      remember(field, groups)
    }
    out[field.name] = topOf(groups, limit)
  }
  return total === undefined ? { facets: Object.freeze(out) } : { facets: Object.freeze(out), total }
}

/** Forgets the facets kept in memory for `db` (benchmarks of first counts start cold this way). */
export function forgetRememberedFacets(db: Kysely<any>): void {
  remembered.delete(db)
}
