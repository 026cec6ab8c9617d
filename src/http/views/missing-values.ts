/**
 * @module How every HTTP view shows a value the data does not have, or a field that does not apply
 * to the record (grammar-docs/guides/serving.md, "Missing values"). One rule for every endpoint and dataset, query results
 * included, so that a client sees the same record the same way wherever it appears, and a filter on
 * any value shown finds it again (a filter's `""` on a text field means "no value", like `null`):
 *
 * 1. A plain spec `string` is `""` (`text`). Fields whose absence has a meaning the spec describes
 *    keep that form: a company without a stage shows the spec 3 stage "Unknown" (`stageText`), a
 *    round without a series '' (spec 4.11). A search hit's string fields that do not apply to it
 *    (an investor's `company_domain`) are '' too.
 * 2. A field the spec marks nullable is `null` (`nullableText`), unless another shape of the same
 *    record types it as a plain string (an investor's `website`: '' in 2.11 and 2.12 alike).
 * 3. Numbers (`integerOrNull`), numeric strings (`numericText`), dates and datetimes (`dateOrNull`)
 *    are `null`: a 0, "0" or made-up date would be false data. This is the one deliberate
 *    deviation from the spec's non-nullable types. (A total over nothing is a known 0: a company
 *    that never raised has total_funding 0; one whose amounts are all undisclosed, null. The data
 *    holds these values, materialise.ts.)
 * 4. Arrays are `[]` when empty, never null (`list`); `microblog_mentions` is always `[]`.
 *
 * Rule 3 has exceptions where a number is known to be nothing, or does not apply and the original
 * service's clients add it up: `NUMBERS_WHEN_UNKNOWN`.
 */
import type { DatasetDef, DatasetName, FieldDef } from '../../catalog/define.js'

/**
 * The numbers shown as a number rather than null when the data has no value for them: field, where
 * it shows, the value, and why. Everything else numeric follows rule 3 (null). The guide's table
 * (grammar-docs/guides/serving.md, "Missing values") is checked against this one.
 */
export interface NumberWhenUnknown {
  readonly field: string
  readonly shownIn: string
  readonly value: string
  readonly reason: string
}

export const NUMBERS_WHEN_UNKNOWN: readonly NumberWhenUnknown[] = Object.freeze([
  {
    field: 'total_funding',
    shownIn: 'company detail (2.3), similar companies (2.5), portfolios (2.13), search `company_funding`, query results',
    value: '0 when the company has no funding round on record; null when it has rounds and none of their amounts is disclosed',
    reason: 'a company that never raised has raised a known nothing; an undisclosed amount is unknown, and a 0 there would be false data',
  },
  {
    field: 'last_funding_amount',
    shownIn: 'company detail (2.3), query results',
    value: '0 when the company has no funding round on record; null when its last round\'s amount is undisclosed',
    reason: 'the same as total_funding: no round is a known nothing',
  },
  {
    field: 'investor_funding of a company hit',
    shownIn: 'GET /search (2.9)',
    value: '0, always',
    reason: 'it does not apply to a company; the original service sent 0 and its clients add the field up over all hits',
  },
  {
    field: 'number_of_deals, portfolio_size; investor_funding of an investor hit',
    shownIn: 'investor detail (2.12), query results; GET /search (2.9)',
    value: '0 for an investor without deals (investor_funding: null when none of its rounds\' amounts is disclosed)',
    reason: 'counts and totals over nothing are a known 0',
  },
].map((x) => Object.freeze(x)))

/** A plain spec `string` (rule 1): the value as text, `''` when unknown. */
export function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value)
}

/** A string the spec marks nullable (rule 2): the value as text, `null` when unknown. */
export function nullableText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value)
}

/** A "string (numeric)" of the spec (rule 3): the stored number as text, `null` when unknown. */
export function numericText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value)
}

/** An integer of the spec (rule 3): `null` when unknown or not a number, never a made-up 0. */
export function integerOrNull(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null
  const n = Number(value)
  return Number.isFinite(n) ? Math.trunc(n) : null
}

/** A date or datetime of the spec (rule 3): the stored text, `null` when unknown, never `''`. */
export function dateOrNull(value: unknown): string | null {
  return value === null || value === undefined || value === '' ? null : String(value)
}

/** An array of the spec (rule 4): a copy, `[]` when there is none. */
export function list<T>(values: readonly T[] | null | undefined): T[] {
  return values ? [...values] : []
}

/**
 * The stage as the record spelled it, else as stored; the spec 3 stage "Unknown" when none is
 * known (rule 1's exception: the spec names that state).
 */
export function stageText(stage: string | number | null | undefined): string {
  return stage === null || stage === undefined || stage === '' ? 'Unknown' : String(stage)
}

//// POST /queries and GET /queries/:query_id results: the same rules, by the catalog ////

/**
 * How a field of a query result shows a value the record lacks, by the rules above: `''` for a
 * text (a string or enum field, rule 1), `'Unknown'` for a company's stage (rule 1's exception),
 * null for numbers, dates and the texts the spec marks nullable in every shape that shows them
 * (rule 2), `[]` for a tags field (rule 4). A text the spec marks nullable in one shape and plain in
 * another shows `''` everywhere (an investor's `website`: nullable in 2.11, a string in 2.12), so
 * the same record reads the same on every endpoint.
 */
export type MissingForm = 'text' | 'stage' | 'null' | 'list'

/** Texts the spec marks nullable wherever it shows them (rule 2): null when unknown. */
const NULLABLE_TEXTS: Readonly<Record<DatasetName, readonly string[]>> = Object.freeze({
  companies: [],
  // 2.11 `investor_domain: string, nullable` (its `website` is a plain string in 2.12).
  investors: ['investor_domain'],
  // 2.10 `region` and `state`: "string, nullable".
  fundings: ['region', 'state'],
})

/** The catalog field of companies whose unknown value reads 'Unknown' (spec 3). */
const COMPANY_STAGE = 'stage'

export function missingFormOf(dataset: DatasetName, field: FieldDef): MissingForm {
  switch (field.type.kind) {
    case 'tags':
      return 'list'
    case 'string':
    case 'enum':
      if (NULLABLE_TEXTS[dataset].includes(field.name)) return 'null'
      return dataset === 'companies' && field.name === COMPANY_STAGE ? 'stage' : 'text'
    default:
      return 'null'
  }
}

const formsByDataset = new Map<DatasetName, ReadonlyMap<string, MissingForm>>()

/**
 * A result record of `dataset` (the engine's: null where the data has no value) as the wire shows
 * it: each catalog field's missing value in its `missingFormOf` form; other members (constants
 * such as `resource_type`) as they are.
 */
export function queryResultView(dataset: DatasetDef): (record: Readonly<Record<string, unknown>>) => Record<string, unknown> {
  let forms = formsByDataset.get(dataset.name)
  if (!forms) {
    forms = new Map(Object.values(dataset.fields).map((f) => [f.name, missingFormOf(dataset.name, f)] as const))
    formsByDataset.set(dataset.name, forms)
  }
  const known = forms
  return (record) => {
    const out: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(record)) {
      const form = known.get(name)
      if (value !== null && value !== undefined) out[name] = value
      else if (form === 'text') out[name] = text(value)
      else if (form === 'stage') out[name] = stageText(null)
      else if (form === 'list') out[name] = []
      else out[name] = null
    }
    return out
  }
}
