/**
 * @module `page` and `per_page` of every paged endpoint (spec section 8, design section 6), and the
 * trial restriction (spec sections 1 and 5: at most 50 results, no paging). `per_page` above the
 * cap is lowered to the cap, not refused, as the original service does; `meta.per_page` shows the
 * size used. A trial key asking for page 2 or later gets a 403 that says why.
 */
import { issue, type Issue } from '../errors/issue.js'
import { previewValue } from '../errors/format.js'
import type { AppDeps } from './context.js'
import type { Identity } from './access.js'
import { issuesResponse, problemResponse } from './problem.js'

export type PagingResult =
  | { readonly ok: true; readonly page: number; readonly perPage: number }
  | { readonly ok: false; readonly response: Response }

const POSITIVE_INTEGER = /^[0-9]{1,15}$/

/**
 * Reads paging from raw values (query-string text, or numbers from a JSON body). `undefined`
 * means absent: page 1 and `defaultPerPage`.
 */
export function readPaging(
  deps: AppDeps,
  caller: Pick<Identity, 'plan'> | undefined,
  raw: { page?: unknown; per_page?: unknown },
  defaultPerPage: number,
): PagingResult {
  const issues: Issue[] = []
  const number = (name: 'page' | 'per_page', value: unknown): number | undefined => {
    if (value === undefined) return undefined
    const n = typeof value === 'number' ? value : typeof value === 'string' && POSITIVE_INTEGER.test(value.trim()) ? Number(value.trim()) : NaN
    if (!Number.isSafeInteger(n) || n < 1) {
      issues.push(issue({
        code: 'invalid_page', path: `/${name}`,
        message: `Parameter \`${name}\` must be a whole number from 1 up.`,
        expected: 'an integer >= 1', got: previewValue(value),
      }))
      return undefined
    }
    return n
  }
  const page = number('page', raw.page) ?? 1
  const requested = number('per_page', raw.per_page) ?? defaultPerPage
  if (issues.length > 0) return { ok: false, response: issuesResponse(issues) }

  const trial = caller?.plan === 'trial'
  const cap = trial ? Math.min(deps.engine.limits.maxPerPage, deps.options.trialMaxResults) : deps.engine.limits.maxPerPage
  if (trial && page > 1) {
    return {
      ok: false,
      response: problemResponse(403, {
        detail: `Trial keys receive the first page only (at most ${deps.options.trialMaxResults} results); page ${page} needs a full key.`,
        extra: { plan: 'trial' },
      }),
    }
  }
  return { ok: true, page, perPage: Math.min(requested, cap) }
}
