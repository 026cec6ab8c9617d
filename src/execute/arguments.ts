/**
 * @module The declared types of the record lookups' and `access`'s arguments, checked on the
 * caller's thread. Those methods take typed values (an id, a domain, a paging object) rather than a
 * request to parse, but callers in plain JavaScript can pass anything, and the statements behind
 * them would fail on it in as many ways (a TypeError from `.trim`, a driver's RangeError on a
 * parameter). A wrong type is an `invalid_type` issue naming the argument, what was expected and
 * what was got, thrown as `InvalidInputError`: the same error, with the same kind of issue, as
 * `guardInput`'s refusals. A value of the right type that names nothing (an unknown id) still
 * answers as before (`undefined`, `false`, `null`).
 */
import { previewValue } from '../errors/format.js'
import { childPath, issue, type Issue } from '../errors/issue.js'
import { isPlainObject } from '../parse/guard.js'
import { SEARCH_OBJECT_TYPES } from '../records/search.js'

type Check = (value: unknown) => boolean

const number: Check = (v) => typeof v === 'number'
const text: Check = (v) => typeof v === 'string'
const flag: Check = (v) => typeof v === 'boolean'
const count: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 1
const objectTypes: Check = (v) => Array.isArray(v) && v.every((t) => (SEARCH_OBJECT_TYPES as readonly unknown[]).includes(t))

/** One argument: its name in messages, what it must be, and for an object, each member's. */
interface Argument {
  readonly name: string
  readonly expected: string
  readonly check: Check
  readonly members?: Readonly<Record<string, { readonly expected: string; readonly check: Check }>>
}

const ID = (what: string): Argument => ({ name: 'id', expected: `${what} id (a number)`, check: number })
const PAGING: Argument = {
  name: 'paging', expected: 'an object {page, perPage}', check: isPlainObject,
  members: { page: { expected: 'a whole number from 1', check: count }, perPage: { expected: 'a whole number from 1', check: count } },
}

/** The arguments of each method that has declared types (the request methods parse theirs instead). */
export const TYPED_ARGUMENTS: Readonly<Record<string, readonly Argument[]>> = {
  companyDetail: [ID('a company')],
  companyExists: [ID('a company')],
  companyStories: [ID('a company')],
  similarCompanies: [ID('a company')],
  companyPeople: [ID('a company')],
  companyTechStack: [ID('a company')],
  investorDetail: [ID('an investor')],
  companyByDomain: [{ name: 'domain', expected: 'a domain (a string)', check: text }],
  contactEmail: [ID('a company'), { name: 'fullName', expected: 'a full name (a string)', check: text }],
  investorPortfolio: [ID('an investor'), PAGING],
  search: [{
    name: 'request', expected: 'an object {term, objectTypes, limit}', check: isPlainObject,
    members: {
      term: { expected: 'a string', check: text },
      objectTypes: { expected: `an array of ${SEARCH_OBJECT_TYPES.map((t) => `"${t}"`).join(', ')}`, check: objectTypes },
      limit: { expected: 'a whole number from 1', check: count },
    },
  }],
  fundingExtras: [{ name: 'ids', expected: 'an array of funding ids (numbers)', check: (v) => Array.isArray(v) && v.every(number) }],
  reserveQuota: [
    { name: 'key', expected: 'an API key (a string)', check: text },
    { name: 'now', expected: 'a time (a Date)', check: (v) => typeof v === 'number' && Number.isFinite(v) },
    { name: 'units', expected: 'a whole number of requests from 0', check: (v) => Number.isSafeInteger(v) && (v as number) >= 0 },
  ],
  authorize: [
    { name: 'key', expected: 'an API key (a string)', check: text },
    { name: 'now', expected: 'a time (a Date)', check: (v) => typeof v === 'number' && Number.isFinite(v) },
    { name: 'count', expected: 'true or false', check: flag },
  ],
}

/** The issues of `args` against the declared types of `op` (none for a method without them). */
export function argumentIssues(op: string, args: readonly unknown[]): Issue[] {
  const declared = TYPED_ARGUMENTS[op]
  if (declared === undefined) return []
  const issues: Issue[] = []
  declared.forEach((argument, i) => {
    const value = args[i]
    const where = `Argument ${i + 1} (${argument.name}) of ${op}()`
    if (!argument.check(value)) {
      issues.push(wrongType('', `${where} is ${argument.expected}`, argument.expected, value))
      return
    }
    for (const [member, { expected, check }] of Object.entries(argument.members ?? {})) {
      const got = (value as Record<string, unknown>)[member]
      if (!check(got)) issues.push(wrongType(childPath('', member), `\`${member}\` of ${where.charAt(0).toLowerCase()}${where.slice(1)} is ${expected}`, expected, got))
    }
  })
  return issues
}

function wrongType(path: string, what: string, expected: string, got: unknown): Issue {
  return issue({ code: 'invalid_type', path, message: `${what}; got ${previewValue(got)}.`, expected, got: previewValue(got) })
}
