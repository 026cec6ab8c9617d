/**
 * @module The `sort` parameter: `field` or `-field`, comma-separated, checked against the
 * dataset's sortable fields (or a parameter name standing for one).
 */
import { type FieldDef, datasets, getField } from '../../catalog/index.js'
import { didYouMean, suggestionList } from '../../errors/did-you-mean.js'
import { previewValue } from '../../errors/format.js'
import { type Issue, type Result, fail, issue, ok } from '../../errors/issue.js'
import { LIST_DATASET, LIST_PARAMETERS, type ListEndpoint, type ListParamSource, MAX_PARAM_VALUE_LENGTH, type SortClause } from './table.js'

/**
 * `sort=field` (ascending) or `sort=-field` (descending), several comma-separated, applied in
 * order. Field names are the dataset's sortable catalog fields, or a parameter name that stands
 * for one (`cached_uniques` for `website_uniques`). Absent: the dataset's default order.
 */
export function readSort(endpoint: ListEndpoint, params: ListParamSource): Result<readonly SortClause[] | undefined> {
  const one = params.one('sort')
  if (!one.ok) return one
  if (one.value === undefined) return ok(undefined)
  const names = sortableNames(endpoint)
  const clauses: SortClause[] = []
  const issues: Issue[] = []
  const expected = `comma-separated field names, each optionally prefixed by - for descending order, from: ${[...names.keys()].join(', ')}`
  if (one.value.length > MAX_PARAM_VALUE_LENGTH) return fail([issue({ code: 'limit_exceeded', path: '/sort', message: `Parameter \`sort\` has ${one.value.length} characters; at most ${MAX_PARAM_VALUE_LENGTH}.`, expected, got: previewValue(one.value) })])
  const seen = new Set<string>()
  for (const raw of one.value.split(',')) {
    const term = raw.trim()
    const descending = term.startsWith('-')
    const name = descending ? term.slice(1).trim() : term
    const field = names.get(name)
    if (field === undefined) {
      const suggestions = suggestionList(name, names.keys())
      issues.push(issue({
        code: name === '' ? 'invalid_sort' : 'not_sortable', path: '/sort',
        message: `Parameter \`sort\` cannot sort on ${previewValue(name)}; it takes ${expected}.${didYouMean(suggestions)}`,
        expected, got: previewValue(term),
        ...(suggestions.length > 0 ? { suggestions } : {}),
      }))
      continue
    }
    if (seen.has(field)) {
      issues.push(issue({ code: 'invalid_sort', path: '/sort', message: `Parameter \`sort\` names ${field} twice.`, expected, got: previewValue(one.value) }))
      continue
    }
    seen.add(field)
    clauses.push({ [field]: descending ? 'desc' : 'asc' })
  }
  return issues.length > 0 ? fail(issues) : ok(Object.freeze(clauses))
}

/** Accepted sort names → catalog field: every sortable field, plus parameter names that stand for one. */
export function sortableNames(endpoint: ListEndpoint): ReadonlyMap<string, string> {
  const dataset = datasets[LIST_DATASET[endpoint]]
  const out = new Map<string, string>()
  for (const f of Object.values(dataset.fields) as FieldDef[]) if (f.sortable) out.set(f.name, f.name)
  for (const def of LIST_PARAMETERS[endpoint]) {
    const f = def.via ? undefined : getField(dataset, def.field)
    if (f?.sortable && !out.has(def.name)) out.set(def.name, f.name)
  }
  return out
}
