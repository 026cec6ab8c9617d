/**
 * @module The facet fields and limit of a facet request (`engine.facets`, `facets=` on the
 * listings and queries), resolved against the catalog: each name a field of the dataset whose
 * `facet` kind is set (`catalog/define.ts`), repeats dropped, the limit a whole number within
 * bounds. Every problem is reported at once, with did-you-mean suggestions for unknown names.
 */
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { getField } from '../catalog/index.js'
import { didYouMean, suggestionList } from '../errors/did-you-mean.js'
import { previewValue, quoteName } from '../errors/format.js'
import { childPath, fail, issue, ok, type Issue, type Result } from '../errors/issue.js'

/** Values per facet when the request names no limit. */
export const DEFAULT_FACET_LIMIT = 10
/** Most values per facet a request may ask for. */
export const MAX_FACET_LIMIT = 100

export interface CheckedFacets {
  /** The facet fields, in the order first named. */
  readonly fields: readonly FieldDef[]
  /** Values listed per facet (the rest are summed in `other`). */
  readonly limit: number
}

/** The names of the fields of `dataset` that can be faceted, in catalog order. */
export function facetableFields(dataset: DatasetDef): string[] {
  return (Object.values(dataset.fields) as FieldDef[]).filter((f) => f.facet !== undefined).map((f) => f.name)
}

/**
 * Resolves `fields` (an array of field names) and `limit` (undefined for the default) for
 * `dataset`. `path` is where the fields sit in the caller's input (`/facets` in a query body).
 */
export function checkFacets(dataset: DatasetDef, fields: unknown, limit: unknown, paths: { fields: string; limit: string } = { fields: '/facets', limit: '/facet_limit' }): Result<CheckedFacets> {
  const issues: Issue[] = []
  const allowed = facetableFields(dataset)
  const resolved: FieldDef[] = []
  if (!Array.isArray(fields)) {
    issues.push(issue({
      code: 'invalid_type', path: paths.fields,
      message: `Facets are a list of field names of ${dataset.name}; got ${previewValue(fields)}.`,
      expected: 'an array of field names', got: previewValue(fields), allowed,
    }))
  } else if (fields.length === 0) {
    issues.push(issue({ code: 'empty_list', path: paths.fields, message: 'Facets name at least one field.', expected: 'one or more field names', got: '[]', allowed }))
  } else {
    fields.forEach((name, i) => {
      const path = childPath(paths.fields, i)
      if (typeof name !== 'string') {
        issues.push(issue({ code: 'invalid_type', path, message: `A facet is a field name (a string); got ${previewValue(name)}.`, expected: 'a field name', got: previewValue(name), allowed }))
        return
      }
      const field = getField(dataset, name)
      if (!field) {
        const suggestions = suggestionList(name, allowed)
        issues.push(issue({
          code: 'unknown_field', path,
          message: `Dataset ${quoteName(dataset.name)} has no field ${quoteName(name)} to facet on.${didYouMean(suggestions)}`,
          expected: `a facetable field of ${dataset.name}`, got: quoteName(name), suggestions, allowed,
        }))
      } else if (field.facet === undefined) {
        issues.push(issue({
          code: 'not_facetable', path,
          message: `Field ${quoteName(name)} of ${dataset.name} cannot be faceted: only enum, tags, country and date fields are counted per value.`,
          expected: `a facetable field of ${dataset.name}`, got: quoteName(name), allowed,
        }))
      } else if (!resolved.includes(field)) {
        resolved.push(field)
      }
    })
  }
  let checkedLimit = DEFAULT_FACET_LIMIT
  if (limit !== undefined) {
    const n = typeof limit === 'string' && /^[0-9]{1,15}$/.test(limit.trim()) ? Number(limit.trim()) : limit
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_FACET_LIMIT) {
      issues.push(issue({
        code: typeof n === 'number' && Number.isInteger(n) && n > MAX_FACET_LIMIT ? 'limit_exceeded' : 'invalid_value',
        path: paths.limit,
        message: `The facet limit is a whole number from 1 to ${MAX_FACET_LIMIT}; got ${previewValue(limit)}.`,
        expected: `an integer from 1 to ${MAX_FACET_LIMIT}`, got: previewValue(limit),
      }))
    } else {
      checkedLimit = n
    }
  }
  if (issues.length > 0) return fail(issues)
  return ok(Object.freeze({ fields: Object.freeze(resolved), limit: checkedLimit }))
}
