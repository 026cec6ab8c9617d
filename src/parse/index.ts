/**
 * @module The parse stage: JSON input to a frozen AST, or issues. Three steps, each cheap to
 * reason about: the guard (limits and non-JSON values, iterative, so hostile input cannot blow the
 * stack), the zod schemas (structure), and the AST builder. Parse reports what is wrong with the
 * shape of a request; what a shape means for a dataset is the checker's business.
 *
 * Parse never throws: any input, including class instances, getters that throw and cyclic
 * objects, comes back as a `Result`.
 */
import type { FilterNode, QueryNode } from '../ast/nodes.js'
import { DEFAULT_LIMITS, type Limits } from '../check/limits.js'
import { previewValue } from '../errors/format.js'
import { fail, issue, ok, type Issue, type Result } from '../errors/issue.js'
import { filterSchema, querySchema } from './filter-schema.js'
import { guardFilter, guardQuery } from './guard.js'
import { mapZodIssues } from './issues.js'
import { filterToAst, partialQueryToAst, queryToAst, type RawQuery } from './to-ast.js'

export { filterSchema, nestedFilterSchema, querySchema } from './filter-schema.js'
export * from './list-params.js'

/** Parses a whole query (spec 4.14): `{dataset, filter?, sort?, page?, per_page?}`. */
export function parseQuery(input: unknown, limits: Limits = DEFAULT_LIMITS): Result<QueryNode> {
  const parsed = parseQueryStages(input, limits)
  return parsed.ok ? ok(parsed.value) : fail(parsed.issues)
}

/** `parseQuery`'s answer, saying on failure whether the guard refused the input (then nothing more may read it). */
type Staged = { readonly ok: true; readonly value: QueryNode } | { readonly ok: false; readonly issues: Issue[]; readonly guarded: boolean }

function parseQueryStages(input: unknown, limits: Limits): Staged {
  let guarded = true
  const result = safely('', input, () => {
    const found = guardQuery(input, limits)
    if (found.length > 0) return fail(cap(found, limits))
    guarded = false
    const parsed = querySchema.safeParse(input)
    if (!parsed.success) return fail(cap(mapZodIssues(parsed.error.issues, input, 'query', ''), limits))
    return ok(queryToAst(input as RawQuery))
  })
  return result.ok ? result : { ok: false, issues: [...result.issues], guarded }
}

/** What `parseQueryParts` found: the structural issues, and the tree of what can still be checked. */
export interface ParsedParts {
  /** Structural issues (capped at `maxIssues`); empty when the request is well-formed. */
  readonly issues: readonly Issue[]
  /**
   * The whole query when `issues` is empty; otherwise the structurally valid parts of it
   * (`partialQueryToAst`), or undefined when nothing can be checked (the input is not a hash, its
   * `dataset` is malformed, or the guard refused it: too large, too deep or not JSON data).
   */
  readonly query?: QueryNode
}

/**
 * Like `parseQuery`, but a request with structural issues also comes back with the tree of its
 * structurally valid parts, so that the checker can report their semantic issues in the same
 * answer (grammar-docs/language.md, "Errors"). The issues are exactly `parseQuery`'s.
 */
export function parseQueryParts(input: unknown, limits: Limits = DEFAULT_LIMITS): ParsedParts {
  const parsed = parseQueryStages(input, limits)
  if (parsed.ok) return Object.freeze({ issues: Object.freeze([]), query: parsed.value })
  const issues = Object.freeze(parsed.issues)
  // The guard's issues (limits, non-JSON values) say the input is unsafe to walk: nothing more reads it.
  if (parsed.guarded) return Object.freeze({ issues })
  const query = safely('', input, () => ok(partialQueryToAst(input)))
  return Object.freeze({ issues, ...(query.ok && query.value ? { query: query.value } : {}) })
}

/**
 * Parses a filter hash on its own (for front-ends that build the envelope themselves); `path` is
 * where the filter sits in their request, and prefixes every node's and issue's path.
 */
export function parseFilter(input: unknown, path = '/filter', limits: Limits = DEFAULT_LIMITS): Result<FilterNode> {
  return safely(path, input, () => {
    const guarded = guardFilter(input, path, limits)
    if (guarded.length > 0) return fail(cap(guarded, limits))
    const parsed = filterSchema.safeParse(input)
    if (!parsed.success) return fail(cap(mapZodIssues(parsed.error.issues, input, 'filter', path), limits))
    return ok(filterToAst(input as Record<string, unknown>, path, true))
  })
}

function cap(issues: Issue[], limits: Limits): Issue[] {
  if (issues.length <= limits.maxIssues) return issues
  return [
    ...issues.slice(0, limits.maxIssues),
    issue({
      code: 'too_many_issues',
      path: '',
      message: `Found ${issues.length} issues; only the first ${limits.maxIssues} are reported (limit maxIssues).`,
    }),
  ]
}

/** The last line of defence: input that throws while being read (a hostile getter, a Proxy). */
function safely<T>(path: string, input: unknown, run: () => Result<T>): Result<T> {
  try {
    return run()
  } catch (error) {
    const reason = error instanceof RangeError ? 'it is nested too deeply' : 'reading it failed'
    return fail([issue({
      code: 'invalid_type',
      path,
      message: `The input could not be read as JSON data (${reason}); got ${previewValue(input)}.`,
      expected: 'JSON data',
      got: previewValue(input),
    })])
  }
}
