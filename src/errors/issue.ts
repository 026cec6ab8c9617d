/**
 * @module Issues as data (after zod 4): a stable `code`, a JSON Pointer `path` into the request,
 * a message that explains, and per-code details. Formatting for people or for HTTP is done by
 * pure functions elsewhere; stages only build these objects.
 */
import type { IssueCode } from './codes.js'
import { capText } from './format.js'

export interface Issue {
  readonly code: IssueCode
  /** JSON Pointer (RFC 6901) into the request, e.g. `/filter/and/1/portfolio_size/gte`; '' is the whole request. */
  readonly path: string
  /** One sentence that says what is wrong: what was expected and what was got. */
  readonly message: string
  /** What would have been accepted, in words (e.g. "an integer", "one of: vc, angel"). */
  readonly expected?: string
  /** What was received, rendered compactly (JSON, truncated). */
  readonly got?: string
  /** Did-you-mean candidates for an unknown name, best first (at most 5). */
  readonly suggestions?: readonly string[]
  /** For operator_not_allowed / unknown_field: every name that is allowed here. */
  readonly allowed?: readonly string[]
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly Issue[] }

export const ok = <T>(value: T): Result<T> => Object.freeze({ ok: true as const, value })
export const fail = <T = never>(issues: readonly Issue[]): Result<T> => Object.freeze({ ok: false as const, issues: Object.freeze([...issues]) })

/**
 * Caps of an issue's texts. Messages and `got` are built from what the client sent, so without a
 * cap a 1 MB value came back several times over (message, `got`, path, and the summary that repeats
 * the message); with it an error stays a few hundred bytes whatever was sent. Well-formed names and
 * values are far shorter than these and come back whole.
 */
export const ISSUE_TEXT_LIMITS = Object.freeze({ message: 1000, path: 300, expected: 500, got: 200 })

/**
 * An issue, frozen, its texts capped (`ISSUE_TEXT_LIMITS`) and cleared of key-shaped runs
 * (`redactKeys`): every stage's issues pass here, so no message quotes a client's key, whole or cut.
 */
export function issue(fields: Issue): Issue {
  const capped: { -readonly [K in keyof Issue]: Issue[K] } = {
    ...fields,
    message: capText(fields.message, ISSUE_TEXT_LIMITS.message),
    path: capText(fields.path, ISSUE_TEXT_LIMITS.path),
  }
  if (fields.expected !== undefined) capped.expected = capText(fields.expected, ISSUE_TEXT_LIMITS.expected)
  if (fields.got !== undefined) capped.got = capText(fields.got, ISSUE_TEXT_LIMITS.got)
  return Object.freeze(capped)
}

/** Appends a segment to a JSON Pointer, escaping `~` and `/` as RFC 6901 requires. */
export function childPath(path: string, segment: string | number): string {
  return `${path}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`
}
