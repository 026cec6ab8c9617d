/**
 * @module `fields` over HTTP: the names a client may pick are the members of the records an
 * endpoint answers. Those are the catalog's fields under their catalog names (what
 * `check/fields.ts` resolves for the engine), plus the few members an endpoint's view adds or
 * renames: GET /companies items show `name` as `company_name` and `website` as `domain`; a funding
 * event (GET /fundings, fundings results of /queries) adds `funding_id` (its id again) and
 * `investors`, `investor_slugs` and `industry` (one extra lookup per page, made only when one of
 * them is picked). The identifying members (`id`, a company item's `url`) are always present.
 */
import { datasets, type DatasetName } from '../catalog/index.js'
import { selectableFields } from '../check/fields.js'
import { didYouMean, suggestionList } from '../errors/did-you-mean.js'
import { previewValue } from '../errors/format.js'
import { childPath, fail, issue, ok, type Issue, type Result } from '../errors/issue.js'

/** Which records: a dataset's (POST /queries, GET /queries/:id, export) or the GET /companies list items. */
export type WireRecords = DatasetName | 'company-list-items'

/** A view member that is not a catalog field under its own name: the catalog fields it is made of. */
const VIEW_MEMBERS: Readonly<Record<WireRecords, Readonly<Record<string, readonly string[]>>>> = {
  'companies': {},
  'investors': {},
  'fundings': { funding_id: [], investors: [], investor_slugs: [], industry: [] },
  'company-list-items': { company_name: ['name'], domain: ['website'], url: [] },
}

/** Members that need the funding extras lookup (`engine.records.fundingExtras`). */
const FUNDING_EXTRAS: ReadonlySet<string> = new Set(['investors', 'investor_slugs', 'industry'])

/** Members always present in a selection: the record's id, and what is made of it alone. */
const ALWAYS: Readonly<Record<WireRecords, readonly string[]>> = {
  'companies': ['id'],
  'investors': ['investor_id'],
  'fundings': ['id'],
  'company-list-items': ['id', 'url'],
}

const datasetOf = (records: WireRecords): DatasetName => (records === 'company-list-items' ? 'companies' : records)

/** Every name `fields` accepts for these records, in the catalog's order, then the view's own members. */
export function wireFieldNames(records: WireRecords): readonly string[] {
  const own = Object.keys(VIEW_MEMBERS[records])
  const renamed = new Set(Object.values(VIEW_MEMBERS[records]).flat())
  const catalog = selectableFields(datasets[datasetOf(records)]).map((f) => f.name).filter((n) => !renamed.has(n))
  return [...catalog, ...own.filter((n) => !catalog.includes(n))]
}

/** A resolved HTTP selection. */
export interface WireSelection {
  /** The names to show (always-present members first, then the picked ones in order, each once). */
  readonly members: readonly string[]
  /** The catalog fields the engine is asked for (`fields` of its request). */
  readonly engineFields: readonly string[]
  /** Whether the funding extras lookup is needed. */
  readonly extras: boolean
}

/**
 * Resolves `fields` (one comma-separated string, as URLs send it, or an array of names, as JSON
 * bodies may) for an endpoint's records; absent: every member (`undefined`). Unknown names are
 * `unknown_field` issues with did-you-mean, all at once, at `path` (or `path/i` in an array).
 */
export function wireSelection(records: WireRecords, raw: unknown, path = '/fields'): Result<WireSelection | undefined> {
  if (raw === undefined || raw === null) return ok(undefined)
  const asList = typeof raw === 'string'
  const names: unknown = asList ? raw.split(',').map((n) => n.trim()).filter((n) => n !== '') : raw
  const expected = 'field names, comma-separated (or an array of them in a JSON body)'
  if (!Array.isArray(names)) return fail([issue({ code: 'invalid_type', path, message: `\`fields\` takes ${expected}; got ${previewValue(raw)}.`, expected, got: previewValue(raw) })])
  if (names.length === 0) {
    return fail([issue({ code: 'invalid_value', path, message: '`fields` names no field; leave it out for every field, or name at least one.', expected: 'at least one field name', got: previewValue(raw) })])
  }
  const allowed = wireFieldNames(records)
  const view = VIEW_MEMBERS[records]
  const members = [...ALWAYS[records]]
  const issues: Issue[] = []
  names.forEach((name: unknown, i) => {
    const at = asList ? path : childPath(path, i)
    if (typeof name !== 'string' || !allowed.includes(name)) {
      const shown = typeof name === 'string' ? name : previewValue(name)
      const suggestions = typeof name === 'string' ? suggestionList(name, allowed) : []
      issues.push(issue({
        code: typeof name === 'string' ? 'unknown_field' : 'invalid_type',
        path: at,
        message: `The records of ${datasetOf(records)} have no field \`${shown}\` to select.${didYouMean(suggestions)}`,
        expected: `one of the fields of ${datasetOf(records)}`,
        got: JSON.stringify(name) ?? String(name),
        suggestions,
        allowed,
      }))
      return
    }
    if (!members.includes(name)) members.push(name)
  })
  if (issues.length > 0) return fail(issues)
  const engineFields = new Set<string>()
  for (const name of members) for (const field of Object.hasOwn(view, name) ? view[name]! : [name]) engineFields.add(field)
  // The engine always adds the primary key; a selection of only always-present members asks for it by name.
  if (engineFields.size === 0) engineFields.add(datasets[datasetOf(records)].primaryKey)
  return ok(Object.freeze({
    members: Object.freeze(members),
    engineFields: Object.freeze([...engineFields]),
    extras: records === 'fundings' && members.some((m) => FUNDING_EXTRAS.has(m)),
  }))
}

/** An item with only the selected members, in the selection's order. */
export function pickMembers<T extends object>(item: T, selection: WireSelection | undefined): Record<string, unknown> {
  if (selection === undefined) return item as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const name of selection.members) if (Object.hasOwn(item, name)) out[name] = (item as Record<string, unknown>)[name]
  return out
}

/**
 * `fields` of a record answer that is not a catalog dataset's: a detail (GET /companies/:id,
 * GET /domains/:domain/companies, GET /investors/:id) or the items of a company sub-resource or an
 * investor's portfolio. The names are the record's members (its schema's); `always` (its id, if it
 * has one) is always present. The lookup itself reads whole records; the answer carries the picked members.
 */
export function detailSelection(members: readonly string[], raw: string | undefined, what: string, always: readonly string[] = ['id']): Result<WireSelection | undefined> {
  if (raw === undefined) return ok(undefined)
  const names = raw.split(',').map((n) => n.trim()).filter((n) => n !== '')
  if (names.length === 0) {
    return fail([issue({ code: 'invalid_value', path: '/fields', message: '`fields` names no field; leave it out for every field, or name at least one.', expected: 'at least one field name', got: JSON.stringify(raw) })])
  }
  const picked = [...always]
  const issues: Issue[] = []
  for (const name of names) {
    if (!members.includes(name)) {
      const suggestions = suggestionList(name, members)
      issues.push(issue({
        code: 'unknown_field', path: '/fields',
        message: `${what} has no field \`${name}\` to select.${didYouMean(suggestions)}`,
        expected: `one of the fields of ${what}`, got: JSON.stringify(name), suggestions, allowed: members,
      }))
    } else if (!picked.includes(name)) picked.push(name)
  }
  if (issues.length > 0) return fail(issues)
  return ok(Object.freeze({ members: Object.freeze(picked), engineFields: Object.freeze([]), extras: false }))
}
