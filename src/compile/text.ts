/**
 * @module The literal, case-insensitive text operators (`contains`, `starts_with`, `ends_with`).
 *
 * Literal: the user's text becomes a LIKE pattern whose `%`, `_` and escape character `\` are
 * escaped, so `50%` finds "50%" and not "500". Case-insensitive the same way on every backend:
 * only ASCII letters are folded, on both sides. The pattern is folded here in JS; the column is
 * folded by the dialect (`SqlDialect.foldCase`: nothing on SQLite, whose LIKE folds ASCII itself;
 * `translate(col, 'A..Z', 'a..z')` on PostgreSQL). Caveat, documented in grammar-docs: non-ASCII
 * letters compare exactly (`É` does not match `é`) on both backends; folding them would depend
 * on the database's locale or ICU build and so differ between backends.
 */
import type { OperatorName } from '../catalog/operators.js'

export type TextOperator = Extract<OperatorName, 'contains' | 'starts_with' | 'ends_with'>

/** The escape character of every LIKE the compiler emits (the `escape '\'` clause). */
export const LIKE_ESCAPE = '\\'

/** Lower-cases A-Z only: the exact folding both backends apply to the column. */
export function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase())
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => LIKE_ESCAPE + c)
}

const SHAPES: Record<TextOperator, (escaped: string) => string> = {
  contains: (e) => `%${e}%`,
  starts_with: (e) => `${e}%`,
  ends_with: (e) => `%${e}`,
}

/** The LIKE pattern (a bound parameter, never SQL text) for a text operator. */
export function likePattern(operator: TextOperator, text: string): string {
  return SHAPES[operator](escapeLike(foldAscii(text)))
}
