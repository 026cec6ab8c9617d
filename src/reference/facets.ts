/**
 * @module Facet counts in the reference evaluator: the records `evaluate` selects, counted per
 * value of each field in plain JS (grammar-docs/guides/facets.md): a record without a value counts
 * in `missing`, a tags field counts a record once per value it holds, a date field by its year;
 * values ranked by count descending, then by value (`compareValues`); the first `limit` listed and
 * the rest summed in `other`.
 */
import type { FilterNode } from '../ast/nodes.js'
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { compareValues, evaluate } from './evaluate.js'
import type { Snapshot } from './snapshot.js'

export interface ReferenceFacet {
  readonly values: readonly { readonly value: string; readonly count: number }[]
  readonly other: number
  readonly missing: number
}

export interface ReferenceFacets {
  readonly total: number
  readonly facets: Readonly<Record<string, ReferenceFacet>>
}

/** The facets of `fields` over the records of `dataset` that `filter` selects. */
export function referenceFacets(filter: FilterNode, dataset: DatasetDef, fields: readonly FieldDef[], limit: number, snapshot: Snapshot): ReferenceFacets {
  const ds = snapshot.datasets[dataset.name]
  const selected = evaluate(filter, dataset, snapshot)
  const facets: Record<string, ReferenceFacet> = {}
  for (const field of fields) {
    if (field.facet === undefined) throw new Error(`reference: ${dataset.name}.${field.name} cannot be faceted`)
    const counts = new Map<string, number>()
    let missing = 0
    const add = (value: string) => counts.set(value, (counts.get(value) ?? 0) + 1)
    for (const pk of selected) {
      if (field.type.kind === 'tags') {
        const values = ds.tags.get(field.name)?.get(pk)
        if (!values || values.size === 0) missing++
        else for (const v of values) add(v)
        continue
      }
      const v = ds.rows.get(pk)?.[field.name] ?? null
      if (v === null) missing++
      else add(field.facet === 'year' ? String(v).slice(0, 4) : String(v))
    }
    const ranked = [...counts].map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || compareValues(a.value, b.value))
    facets[field.name] = {
      values: ranked.slice(0, limit),
      other: ranked.slice(limit).reduce((sum, g) => sum + g.count, 0),
      missing,
    }
  }
  return { total: selected.size, facets }
}
