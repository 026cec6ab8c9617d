/**
 * @module How every HTTP view shows a value the data does not have (README, "Missing values").
 * One rule for every endpoint, so that a client sees the same company the same way wherever it
 * appears:
 *
 * 1. A field the spec marks nullable is `null` when unknown (`nullableText`).
 * 2. A field the spec types as a plain `string` is `""` when unknown (`text`): clients of the
 *    original service expect a string there, and an empty string invents nothing. Fields whose
 *    absence has a meaning the spec describes keep that form: a company without a stage shows
 *    the spec 3 stage "Unknown" (`stageText`), a round without a series '' (spec 4.11).
 * 3. Numbers (`integerOrNull`), numeric strings (`numericText`), dates and datetimes (`dateOrNull`)
 *    are `null` when unknown: a 0, "0" or made-up date would be false data. This is the one
 *    deliberate deviation from the spec's non-nullable types.
 * 4. Arrays are `[]` when empty, never null (`list`); `microblog_mentions` is always `[]`.
 * 5. Fields that do not apply to a record kind (a search result's company_* fields on an investor,
 *    investor_funding on a company) are `null`.
 */

/** A plain spec `string` (rule 2): the value as text, `''` when unknown. */
export function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value)
}

/** A string the spec marks nullable (rule 1): the value as text, `null` when unknown. */
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
 * known (rule 2's exception: the spec names that state).
 */
export function stageText(stage: string | number | null | undefined): string {
  return stage === null || stage === undefined || stage === '' ? 'Unknown' : String(stage)
}
