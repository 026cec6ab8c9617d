/**
 * @module The query string as clients of the original service send it (design section 6): list
 * parameters pipe-joined (`a|b`, also `%7C`), repeated (`industries=A&industries=B`) or with `[]`,
 * all merged into one list; `?&` and `&&` are harmless; spaces as `+` or `%20`. Decoding never
 * throws: a malformed percent escape stays as typed, and the value then fails its own validation
 * with a 400 that names the parameter.
 */
import type { z } from 'zod'
import { didYouMean, nearMisses } from '../errors/did-you-mean.js'
import { childPath, fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import { previewValue, quoteName } from '../errors/format.js'

export class QueryParams {
  private readonly values = new Map<string, string[]>()

  constructor(search: URLSearchParams) {
    for (const [rawName, value] of search) {
      if (rawName === '') continue
      const name = rawName.endsWith('[]') ? rawName.slice(0, -2) : rawName
      const list = this.values.get(name)
      if (list) list.push(value)
      else this.values.set(name, [value])
    }
  }

  static of(request: Request): QueryParams {
    return new QueryParams(new URL(request.url).searchParams)
  }

  /** Parameter names as sent, `[]` removed. */
  names(): string[] {
    return [...this.values.keys()]
  }

  has(name: string): boolean {
    return this.values.has(name)
  }

  /** Every value sent under `name` or `name[]`, in order, undecoded beyond URL decoding. */
  all(name: string): readonly string[] {
    return this.values.get(name) ?? []
  }

  /**
   * A list parameter: every value split on `|`, trimmed, blanks and repeats dropped. `undefined`
   * when the parameter is absent; an empty array when it was sent with nothing in it (callers
   * answer 400 for that rather than match everything).
   */
  list(name: string): string[] | undefined {
    const raw = this.values.get(name)
    if (!raw) return undefined
    const out: string[] = []
    for (const value of raw) {
      for (const part of value.split('|')) {
        const t = part.trim()
        if (t !== '' && !out.includes(t)) out.push(t)
      }
    }
    return out
  }

  /**
   * A single-valued parameter, trimmed. Sending it twice with different values is a 400 (which one
   * was meant is a guess); sending the same value twice is accepted.
   */
  one(name: string): Result<string | undefined> {
    const raw = this.values.get(name)
    if (!raw) return ok(undefined)
    const distinct = [...new Set(raw.map((v) => v.trim()))]
    if (distinct.length === 1) return ok(distinct[0])
    return fail([issue({
      code: 'invalid_value',
      path: `/${name}`,
      message: `Parameter \`${name}\` takes one value; it was sent ${raw.length} times with different values.`,
      expected: 'one value',
      got: previewValue(raw),
    })])
  }
}

/** The API key's parameter (spec section 5): every authenticated endpoint takes it. */
export const KEY_PARAMETER = 'key'

/** The parameter names a GET endpoint takes: those of its route spec's `query`, and `key`. */
export function parameterNames(query: z.ZodObject | undefined): readonly string[] {
  return Object.freeze([...Object.keys(query?.shape ?? {}), KEY_PARAMETER])
}

/**
 * One `unknown_parameter` issue per parameter name sent that the endpoint does not take but that
 * is a near miss of one it does (`nearMisses`: the same name in another case, or a typo of 1 edit
 * for 3 to 5 characters, 2 from 6): `contry` for `country`, `per-page` for `per_page`. Any other
 * unknown name is ignored, as it always was: clients send cache busters (`_`), tracking parameters
 * (`utm_source`) and parameters of other endpoints, and refusing those would break them for nothing.
 * `endpoint` names the endpoint in the message (`GET /companies`).
 */
export function misspeltParameterIssues(params: QueryParams, known: readonly string[], endpoint: string): Issue[] {
  const issues: Issue[] = []
  for (const name of params.names()) {
    if (known.includes(name)) continue
    const suggestions = nearMisses(name, known)
    if (suggestions.length === 0) continue
    issues.push(issue({
      code: 'unknown_parameter',
      path: childPath('', name),
      message: `${endpoint} has no parameter ${quoteName(name)}.${didYouMean(suggestions)}`,
      expected: `a parameter of ${endpoint}`,
      got: quoteName(name),
      suggestions,
      allowed: known,
    }))
  }
  return issues
}
