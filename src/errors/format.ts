/**
 * @module Pure formatters for issues (after zod 4's `prettifyError`): the stages only build
 * `Issue` objects; how they read in a terminal, in the one-line `error` string that clients of the
 * original service look for, or in an RFC 9457 problem body is decided here and nowhere else.
 */
import type { Issue } from './issue.js'

/** A problem+json body (RFC 9457) carrying our issues; `error` is for clients that only look there. */
export interface Problem {
  readonly type: string
  readonly title: string
  readonly status: number
  readonly detail: string
  readonly error: string
  readonly issues: readonly Issue[]
}

/**
 * For a terminal: one block per issue, blank line between blocks.
 *
 * @example
 * ✖ Unknown field "emplyees" on dataset "companies". Did you mean "employees"?
 *   → at /filter/emplyees
 *   did you mean: employees
 *   allowed: id, name, website, ...
 */
export function formatIssues(issues: readonly Issue[]): string {
  return issues
    .map((i) => {
      const lines = [`✖ ${i.message}`, `  → at ${i.path === '' ? '(the whole request)' : i.path}`]
      if (i.suggestions && i.suggestions.length > 0) lines.push(`  did you mean: ${i.suggestions.join(', ')}`)
      if (i.allowed && i.allowed.length > 0) lines.push(`  allowed: ${i.allowed.join(', ')}`)
      return lines.join('\n')
    })
    .join('\n\n')
}

/** How many issues the one-line summary spells out before "and N more". */
const SUMMARY_ISSUES = 3

/** One line: the `error` string of HTTP bodies and the headline of CLI output. */
export function issuesSummary(issues: readonly Issue[]): string {
  if (issues.length === 0) return 'No issues.'
  const shown = issues.slice(0, SUMMARY_ISSUES).map((i) => (i.path === '' ? i.message : `${i.message} (at ${i.path})`))
  const rest = issues.length - shown.length
  const head = issues.length === 1 ? '' : `${issues.length} issues: `
  return `${head}${shown.join(' ')}${rest > 0 ? ` …and ${rest} more.` : ''}`
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Invalid request',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request too large',
  422: 'Unprocessable request',
}

/**
 * The problem+json body for these issues. `type` is a URN per status (RFC 9457 allows any URI;
 * ours do not resolve, the issue codes carry the precise meaning).
 */
export function toProblem(issues: readonly Issue[], status = 400): Problem {
  const title = TITLES[status] ?? 'Error'
  const slug = title.toLowerCase().replace(/[^a-z]+/g, '-')
  const summary = issuesSummary(issues)
  return Object.freeze({
    type: `urn:ventureql:problem:${slug}`,
    title,
    status,
    detail: summary,
    error: summary,
    issues: Object.freeze(issues.map((i) => Object.freeze({ ...i }))),
  })
}

/**
 * A run of characters shaped like an API key (`vql_` and URL-safe base64, see store/api-keys.ts),
 * whole or cut: error texts never quote one. A client that pastes its key into a filter value or a
 * path would otherwise get it back in an error body, which ends up in client logs and proxies; a
 * key cut by a length cap is still most of a key.
 */
const KEY_SHAPED = /vql_[A-Za-z0-9_-]*/gi

/** What stands in for a key-shaped run in error texts and logs. */
export const REDACTED_KEY = '[api key]'

/** `text` with every key-shaped run (whole or cut) replaced by `[api key]`. */
export function redactKeys(text: string): string {
  return text.replace(KEY_SHAPED, REDACTED_KEY)
}

/**
 * `text` cut to at most `max` characters (an ellipsis marks the cut), key-shaped runs redacted
 * first and again after the cut, so neither a whole nor a cut key survives.
 */
export function capText(text: string, max: number): string {
  const redacted = redactKeys(text)
  return redacted.length > max ? redactKeys(`${redacted.slice(0, max - 1)}…`) : redacted
}

/**
 * A name the client sent (a field, a dataset, an operator), quoted for a message: JSON-quoted,
 * capped at `max` characters, keys redacted. Names the catalog knows are short and come back whole.
 */
export function quoteName(name: string, max = 60): string {
  return JSON.stringify(capText(name, max))
}

/**
 * Renders any value compactly for messages and `got`: JSON-like, cut at `max` characters, key-shaped
 * runs redacted (`redactKeys`). Unlike
 * JSON.stringify it never throws and stays cheap on hostile input (deep nesting, huge lists,
 * Infinity, getters), because it stops as soon as it has `max` characters.
 */
export function previewValue(value: unknown, max = 80): string {
  const out: string[] = []
  let length = 0
  const push = (s: string): boolean => {
    out.push(s)
    length += s.length
    return length <= max
  }
  const render = (v: unknown, depth: number): boolean => {
    if (v === undefined) return push('nothing')
    if (v === null) return push('null')
    switch (typeof v) {
      case 'string':
        return push(JSON.stringify(v.length > max ? v.slice(0, max) : v))
      case 'number':
        return push(Number.isFinite(v) ? JSON.stringify(v) : String(v))
      case 'boolean':
        return push(String(v))
      case 'bigint':
        return push(`${v}n`)
      case 'symbol':
        return push(v.toString())
      case 'function':
        return push('a function')
    }
    if (depth > 8) return push('…')
    if (Array.isArray(v)) {
      if (!push('[')) return false
      for (let i = 0; i < v.length; i++) {
        if (i > 0 && !push(',')) return false
        if (!render(v[i], depth + 1)) return false
      }
      return push(']')
    }
    const proto = Object.getPrototypeOf(v) as unknown
    if (proto !== Object.prototype && proto !== null) {
      const name = (v as { constructor?: { name?: unknown } }).constructor?.name
      return push(typeof name === 'string' && name !== '' ? `a ${name}` : 'an object')
    }
    if (!push('{')) return false
    let first = true
    for (const key of Object.keys(v)) {
      if (!first && !push(',')) return false
      first = false
      if (!push(`${JSON.stringify(key)}:`)) return false
      if (!render((v as Record<string, unknown>)[key], depth + 1)) return false
    }
    return push('}')
  }
  try {
    render(value, 0)
  } catch {
    return 'an unreadable value'
  }
  // Capped after rendering; the redaction runs on the rendered text, so a key cut by the cap goes too.
  return capText(out.join(''), max)
}
