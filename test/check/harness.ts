/**
 * @module The checker's test harness (after graphql-js's expectValidationErrors): run a request
 * through parse and check, and compare the issues with an exact list of `{code, path, message}`.
 * Tests name only the keys they pin; `expectValid` returns the checked query for positives.
 */
import { expect } from 'vitest'
import type { CheckedQuery } from '../../src/check/checked.js'
import { checkQuery } from '../../src/check/index.js'
import { resolveLimits, type Limits } from '../../src/check/limits.js'
import type { Issue } from '../../src/errors/issue.js'
import { parseQuery } from '../../src/parse/index.js'

/** Runs parse then check; parse issues come back as they are (the request never reached check). */
export function issuesOf(request: unknown, limits: Partial<Limits> = {}): readonly Issue[] {
  const resolved = resolveLimits(limits)
  const parsed = parseQuery(request, resolved)
  if (!parsed.ok) return parsed.issues
  const checked = checkQuery(parsed.value, resolved)
  return checked.ok ? [] : checked.issues
}

/** Asserts the exact issues, in order; each expected entry pins the keys it names. */
export function expectIssues(request: unknown, expected: readonly Partial<Issue>[], limits: Partial<Limits> = {}): readonly Issue[] {
  const issues = issuesOf(request, limits)
  expect(issues.map((issue, i) => pick(issue, Object.keys(expected[i] ?? { code: 1, path: 1, message: 1 })))).toEqual(expected)
  return issues
}

export function expectValid(request: unknown, limits: Partial<Limits> = {}): CheckedQuery {
  const resolved = resolveLimits(limits)
  const parsed = parseQuery(request, resolved)
  expect(parsed.ok ? [] : parsed.issues).toEqual([])
  if (!parsed.ok) throw new Error('unreachable')
  const checked = checkQuery(parsed.value, resolved)
  expect(checked.ok ? [] : checked.issues).toEqual([])
  if (!checked.ok) throw new Error('unreachable')
  return checked.value
}

function pick(issue: Issue, keys: readonly string[]): Partial<Issue> {
  return Object.fromEntries(keys.map((k) => [k, (issue as unknown as Record<string, unknown>)[k]])) as Partial<Issue>
}

/** A companies request with this filter. */
export const companies = (filter: unknown, extra: Record<string, unknown> = {}): unknown => ({ dataset: 'companies', filter, ...extra })
export const investors = (filter: unknown, extra: Record<string, unknown> = {}): unknown => ({ dataset: 'investors', filter, ...extra })
export const fundings = (filter: unknown, extra: Record<string, unknown> = {}): unknown => ({ dataset: 'fundings', filter, ...extra })
