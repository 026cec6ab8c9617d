/**
 * @module The query string as clients of the original service send it (design section 6): list
 * parameters pipe-joined (`a|b`, also `%7C`), repeated (`industries=A&industries=B`) or with `[]`,
 * all merged into one list; `?&` and `&&` are harmless; spaces as `+` or `%20`. Decoding never
 * throws: a malformed percent escape stays as typed, and the value then fails its own validation
 * with a 400 that names the parameter.
 */
import { fail, issue, ok, type Result } from '../errors/issue.js'
import { previewValue } from '../errors/format.js'

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
