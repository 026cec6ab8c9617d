/**
 * @module Company detail endpoints (spec 4.2–4.8): the detail by id or by domain, stories,
 * similar companies, people, the contact lookup and the technology stack. Each handler validates
 * its parameters, calls a record lookup (`src/records/`) and shapes the result with a view.
 *
 * Identifiers in the path: a `:id` that is not a positive integer is a 404, like an unknown id.
 * The path names a resource that cannot exist, which is what 404 means (spec 7: "the endpoint or
 * resource does not exist"); the body still names the parameter, what was expected and what was
 * got. A malformed `:domain` is a 404 for the same reason.
 */
import type { Context } from 'hono'
import { z } from 'zod'
import { detailSelection, pickMembers, type WireSelection } from '../fields.js'
import { previewValue } from '../../errors/format.js'
import { fail, issue, ok, type Issue, type Result } from '../../errors/issue.js'
import { callOptions, type AppDeps, type HttpEnv, type RouteModule, type RouteSpec } from '../context.js'
import { misspeltParameterIssues, parameterNames, QueryParams } from '../params.js'
import { issuesResponse, problemResponse } from '../problem.js'
import {
  companyDetailSchema, companyIdAsCompanyIdParams, companyIdParams, contactQuery, contactSchema, domainParams,
  peopleSchema, personSchema, similarCompaniesSchema, similarCompanySchema, storiesSchema, storySchema, techItemSchema, techStackSchema,
} from '../schemas/company.js'
import { memberFieldsParam } from '../schemas/fields.js'
import { toCompanyDetail } from '../views/company-detail.js'
import { toContact, toPerson, toSimilarCompany, toStory, toTechItem } from '../views/company-resources.js'

/** Longest `full_name` accepted: no person's name is longer, and the resolver may be a remote service. */
export const MAX_FULL_NAME_LENGTH = 200
/** Seconds a client is told to wait when contact lookups are saturated (spec 4.7, section 7). */
export const CONTACT_RETRY_AFTER_SECONDS = 1
/** The names GET /companies/:company_id/contact takes: a near miss of one is refused, other names are ignored. */
const CONTACT_PARAMETERS = parameterNames(contactQuery)

/**
 * `fields` of the company detail (its top-level members) and of the sub-resources' items
 * (http/fields.ts, `detailSelection`). An item's id is always present; a person has none, and a
 * technology item is named by its company's.
 */
interface Members { readonly members: readonly string[]; readonly what: string; readonly always: readonly string[] }
const membersOf = (schema: z.ZodObject, what: string, always: readonly string[]): Members => ({ members: Object.keys(schema.shape), what, always })
const DETAIL = membersOf(companyDetailSchema, 'The company detail', ['id'])
const STORY = membersOf(storySchema, 'A story', ['id'])
const SIMILAR = membersOf(similarCompanySchema, 'A similar company', ['id'])
const PERSON = membersOf(personSchema, 'A person', [])
const TECH_ITEM = membersOf(techItemSchema, 'A technology item', ['company_id'])
const DETAIL_QUERY = z.object(memberFieldsParam(DETAIL.members))
const itemsQuery = (m: Members) => z.object(memberFieldsParam(m.members, { each: true, always: m.always }))

function fieldsOf(c: Context<HttpEnv>, m: Members): Result<WireSelection | undefined> {
  const raw = QueryParams.of(c.req.raw).one('fields')
  return raw.ok ? detailSelection(m.members, raw.value, m.what, m.always) : raw
}

/** A sub-resource's items with the picked members, or the 400 of an unknown name. */
function withFields<T>(c: Context<HttpEnv>, m: Members, respond: (pick: (item: T) => Record<string, unknown>) => Response | Promise<Response>): Response | Promise<Response> {
  const fields = fieldsOf(c, m)
  return fields.ok ? respond((item) => pickMembers(item as object, fields.value)) : issuesResponse(fields.issues)
}

const specs: readonly RouteSpec[] = Object.freeze([
  {
    method: 'get', path: '/companies/{id}', specSection: '4.2', authenticated: true, carriesKeyCheck: true,
    summary: 'Company detail by id',
    description: 'Every field of the company record, with the store apps, funding items, acquisitions, the 50 latest stories and the time series. 404 for an unknown or malformed id.',
    pathParams: companyIdParams, query: DETAIL_QUERY, response: companyDetailSchema,
  },
  {
    method: 'get', path: '/domains/{domain}/companies', specSection: '4.3', authenticated: true, carriesKeyCheck: true,
    summary: 'Company detail by canonical domain',
    description: 'The same shape as GET /companies/{id}. The domain matches in any case, with or without a leading `www.` and a trailing dot; when several companies share it, the lowest id. 404 when none has it.',
    pathParams: domainParams, query: DETAIL_QUERY, response: companyDetailSchema,
  },
  {
    method: 'get', path: '/companies/{id}/stories', specSection: '4.4', authenticated: true, carriesKeyCheck: true,
    summary: 'The 50 latest news stories of a company, newest first',
    pathParams: companyIdParams, query: itemsQuery(STORY), response: storiesSchema,
  },
  {
    method: 'get', path: '/companies/{id}/similar', specSection: '4.5', authenticated: true, heavy: true,
    summary: 'At most 20 similar companies, most similar first',
    description: 'Weighted Jaccard similarity of industries, business models and keywords (rare tags weigh more), blended with the word overlap of the descriptions; `probability` is the score relative to the best match (1.0). Empty when the company has no tags. On large data the search is budgeted: candidates share a tag with the company and are ranked by the Jaccard of their tags before the best 200 are scored in full (at 1,000,000 companies about 80% of an exhaustive search\'s 20). The first calls after a start or new data, until every company\'s tag total is summed (a slice of about 250 ms per call, 2-3 s in all at 1,000,000 companies), rank by shared tag weight instead and find fewer.',
    pathParams: companyIdParams, query: itemsQuery(SIMILAR), response: similarCompaniesSchema,
  },
  {
    method: 'get', path: '/companies/{id}/people', specSection: '4.6', authenticated: true, carriesKeyCheck: true,
    summary: 'Key personnel of a company',
    pathParams: companyIdParams, query: itemsQuery(PERSON), response: peopleSchema,
  },
  {
    method: 'get', path: '/companies/{company_id}/contact', specSection: '4.7', authenticated: true,
    summary: 'The contact e-mail of a person at a company',
    description: '`email` is null when unavailable (a normal 200). When more contact lookups run at once than the service allows, the answer is 400 with a `Retry-After` header and a `retry_after` member (seconds); retry then.',
    pathParams: companyIdAsCompanyIdParams, query: contactQuery, response: contactSchema,
  },
  {
    method: 'get', path: '/companies/{company_id}/tech_stack', specSection: '4.8', authenticated: true, carriesKeyCheck: true,
    summary: 'The technology stack of a company',
    pathParams: companyIdAsCompanyIdParams, query: itemsQuery(TECH_ITEM), response: techStackSchema,
  },
])

export const companyDetailRoutes: RouteModule = {
  specs,
  register(app, deps) {
    const records = deps.engine.records
    const contacts = contactLookup(deps)

    app.get('/companies/:id', (c) => withCompany(c, 'id', async (id) => {
      const fields = fieldsOf(c, DETAIL)
      if (!fields.ok) return issuesResponse(fields.issues)
      const record = await records.companyDetail(id, callOptions(c))
      return record ? c.json(pickMembers(toCompanyDetail(record), fields.value)) : unknownCompany(id)
    }))

    app.get('/domains/:domain/companies', async (c) => {
      const domain = c.req.param('domain')
      const fields = fieldsOf(c, DETAIL)
      if (!fields.ok) return issuesResponse(fields.issues)
      const record = await records.companyByDomain(domain, callOptions(c))
      if (!record) return problemResponse(404, { detail: `No company has the domain ${previewValue(domain)}.` })
      return c.json(pickMembers(toCompanyDetail(record), fields.value))
    })

    // Each lookup answers undefined when the company does not exist: one call per request.
    app.get('/companies/:id/stories', (c) => withCompany(c, 'id', (id) => withFields(c, STORY, async (pick) =>
      orUnknown(id, await records.companyStories(id, callOptions(c)), (s) => c.json(s.map((story) => pick(toStory(story))))))))
    app.get('/companies/:id/similar', (c) => withCompany(c, 'id', (id) => withFields(c, SIMILAR, async (pick) =>
      orUnknown(id, await records.similarCompanies(id, callOptions(c)), (s) => c.json(s.map((similar) => pick(toSimilarCompany(similar))))))))
    app.get('/companies/:id/people', (c) => withCompany(c, 'id', (id) => withFields(c, PERSON, async (pick) =>
      orUnknown(id, await records.companyPeople(id, callOptions(c)), (p) => c.json(p.map((person) => pick(toPerson(person))))))))
    app.get('/companies/:company_id/tech_stack', (c) => withCompany(c, 'company_id', (id) => withFields(c, TECH_ITEM, async (pick) =>
      orUnknown(id, await records.companyTechStack(id, callOptions(c)), (t) => c.json(t.map((title) => pick(toTechItem(id, title))))))))

    app.get('/companies/:company_id/contact', (c) => withCompany(c, 'company_id', async (id) => {
      const params = QueryParams.of(c.req.raw)
      const misspelt = misspeltParameterIssues(params, CONTACT_PARAMETERS, 'GET /companies/{company_id}/contact')
      const name = fullNameOf(params)
      if (misspelt.length > 0 || !name.ok) return issuesResponse([...misspelt, ...(name.ok ? [] : name.issues)])
      if (!(await records.companyExists(id, callOptions(c)))) return unknownCompany(id)
      const lookup = contacts.tryLookup(id, name.value)
      if (!lookup) {
        return problemResponse(400, {
          detail: `Contact lookups are busy (${contacts.limit} already running); retry after ${CONTACT_RETRY_AFTER_SECONDS} s.`,
          headers: { 'Retry-After': String(CONTACT_RETRY_AFTER_SECONDS) },
          extra: { retry_after: CONTACT_RETRY_AFTER_SECONDS },
        })
      }
      return c.json(toContact(id, name.value, await lookup))
    }))
  },
}

type Handler = (id: number) => Response | Promise<Response>

/** Runs `handler` with the path's company id, or answers 404 naming the malformed parameter. */
function withCompany(c: Context<HttpEnv>, param: 'id' | 'company_id', handler: Handler): Response | Promise<Response> {
  const id = parseCompanyId(c.req.param(param) ?? '', param)
  return id.ok ? handler(id.value) : issuesResponse(id.issues, 404)
}

/** The sub-resource's response, or 404 when no company has the id (the lookup answered undefined). */
function orUnknown<T>(id: number, found: T | undefined, respond: (found: T) => Response): Response {
  return found === undefined ? unknownCompany(id) : respond(found)
}

function unknownCompany(id: number): Response {
  return problemResponse(404, { detail: `No company has the id ${id}.` })
}

/** Digits only (no sign, no exponent, no spaces), at most 15 of them so the value is an exact integer. */
export function parseCompanyId(raw: string, param: string): Result<number> {
  if (/^[0-9]{1,15}$/.test(raw)) {
    const id = Number(raw)
    if (id > 0) return ok(id)
  }
  return fail([issue({
    code: 'invalid_value',
    path: `/${param}`,
    message: `Path parameter \`${param}\` is a company identifier, a positive integer; got ${previewValue(raw)}, which no company has.`,
    expected: 'a positive integer',
    got: previewValue(raw),
  })])
}

/** `full_name`: required, one value, not blank, no control characters, at most 200 characters. */
export function fullNameOf(params: QueryParams): Result<string> {
  const one = params.one('full_name')
  if (!one.ok) return one as Result<never>
  const raw = one.value
  const problem = (code: Issue['code'], message: string, expected: string): Result<string> => fail([issue({
    code, path: '/full_name', message, expected, got: previewValue(raw ?? null),
  })])
  if (raw === undefined) return problem('missing_key', 'Query parameter `full_name` is required: the full name of the person to look up.', 'a person\'s full name')
  const name = raw.replace(/\s+/gu, ' ').trim()
  if (name === '') return problem('invalid_value', 'Query parameter `full_name` is blank; send the full name of the person to look up.', 'a person\'s full name')
  if (/[\p{Cc}\p{Cs}]/u.test(name) || name.includes('\uFFFD')) {
    return problem('invalid_value', 'Query parameter `full_name` holds control characters or undecodable bytes; send the name as URL-encoded UTF-8 text.', 'URL-encoded UTF-8 text')
  }
  if (name.length > MAX_FULL_NAME_LENGTH) {
    return problem('limit_exceeded', `Query parameter \`full_name\` is ${name.length} characters long; at most ${MAX_FULL_NAME_LENGTH} are accepted.`, `at most ${MAX_FULL_NAME_LENGTH} characters`)
  }
  return ok(name)
}

/**
 * The contact resolver behind a concurrency limit (spec 4.7: under overload the lookup answers
 * 400 and the client retries later). Saturation is answered at once instead of queued: a queue
 * would hold connections open behind a slow resolver, which is the overload itself.
 */
function contactLookup(deps: AppDeps) {
  const limit = Math.max(1, Math.floor(deps.options.contactConcurrency))
  const resolve = deps.options.contactResolver
    ?? ((companyId: number, fullName: string) => deps.engine.records.contactEmail(companyId, fullName))
  let running = 0
  return {
    limit,
    /** The lookup's promise, or undefined when `limit` lookups are already running. */
    tryLookup(companyId: number, fullName: string): Promise<string | null> | undefined {
      if (running >= limit) return undefined
      running++
      let pending: Promise<string | null>
      try {
        pending = Promise.resolve(resolve(companyId, fullName))
      } catch (error) {
        pending = Promise.reject(error)
      }
      return pending.finally(() => { running-- })
    },
  }
}
