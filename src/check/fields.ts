/**
 * @module Field selection (`fields`): which members of each result record a caller wants. The
 * names are the catalog's (its fields with a column or tags, the ones records carry); the primary
 * key is always included, first, then the picked fields in the order asked, each once. A selection
 * is an answer option like `page`: it narrows what is read and returned, never which records or in
 * what order, so it is not part of a stored query's canonical form or id (grammar-docs/guides/fields-and-export.md).
 */
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { getField } from '../catalog/index.js'
import { previewValue } from '../errors/format.js'
import { didYouMean, suggestionList } from '../errors/did-you-mean.js'
import { childPath, fail, issue, ok, type Issue, type Result } from '../errors/issue.js'

/** A resolved selection: the fields in record order (primary key first) and a key naming it. */
export interface FieldSelection {
  readonly fields: readonly FieldDef[]
  /** The field names joined by commas: equal selections have equal keys (statement caches). */
  readonly key: string
}

/** The fields a result record can carry: those stored in a column or a tags table. */
export function selectableFields(dataset: DatasetDef): readonly FieldDef[] {
  return (Object.values(dataset.fields) as FieldDef[]).filter((f) => f.tags || f.column)
}

/**
 * Resolves `raw` (an array of names, or one string of comma-separated names, as a URL sends it)
 * against the dataset. Absent (`undefined` or `null`): every field, answered as `undefined`. An
 * unknown name is an `unknown_field` issue at its own path with did-you-mean suggestions; every
 * bad name is reported at once.
 */
export function selectFields(dataset: DatasetDef, raw: unknown, path = '/fields'): Result<FieldSelection | undefined> {
  if (raw === undefined || raw === null) return ok(undefined)
  const asList = typeof raw === 'string'
  const names = asList ? raw.split(',').map((n) => n.trim()) : raw
  const expected = 'an array of field names, or one string of comma-separated field names'
  if (!Array.isArray(names)) {
    return fail([issue({ code: 'invalid_type', path, message: `\`fields\` must be ${expected}; got ${previewValue(raw)}.`, expected, got: previewValue(raw) })])
  }
  if (names.length === 0 || (asList && names.every((n) => n === ''))) {
    return fail([issue({ code: 'invalid_value', path, message: '`fields` names no field; leave it out for every field, or name at least one.', expected: 'at least one field name', got: previewValue(raw) })])
  }
  const selectable = selectableFields(dataset)
  const allowed = selectable.map((f) => f.name)
  const pk = getField(dataset, dataset.primaryKey)!
  const picked: FieldDef[] = [pk]
  const issues: Issue[] = []
  names.forEach((name: unknown, i) => {
    const at = asList ? path : childPath(path, i)
    if (typeof name !== 'string' || name === '') {
      issues.push(issue({ code: 'invalid_type', path: at, message: `Each name of \`fields\` is a non-empty string; got ${previewValue(name)}.`, expected: 'a field name', got: previewValue(name) }))
      return
    }
    const field = getField(dataset, name)
    if (!field || !(field.tags || field.column)) {
      const suggestions = suggestionList(name, allowed)
      issues.push(issue({
        code: 'unknown_field',
        path: at,
        message: `Dataset \`${dataset.name}\` has no field \`${name}\` to select.${didYouMean(suggestions)}`,
        expected: `a field of ${dataset.name}`,
        got: JSON.stringify(name),
        suggestions,
        allowed,
      }))
      return
    }
    if (!picked.includes(field)) picked.push(field)
  })
  if (issues.length > 0) return fail(issues)
  return ok(Object.freeze({ fields: Object.freeze(picked), key: picked.map((f) => f.name).join(',') }))
}
