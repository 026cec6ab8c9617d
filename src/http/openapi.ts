/**
 * @module The OpenAPI 3.1 document, derived from the `RouteSpec`s the route modules export: the
 * same zod schemas the tests parse responses with, converted by zod's own `z.toJSONSchema` (JSON
 * Schema 2020-12, which is OpenAPI 3.1's schema dialect). Nothing here names an endpoint: a route
 * module that adds a spec appears in the document without an edit to this file.
 *
 * Schemas that carry an id (`.meta({ id: 'Company' })`) become `components.schemas` entries and are
 * referenced with `$ref`; everything else is inlined where it is used.
 *
 * Examples (`OpenApiOptions.examples`) are real requests and responses, keyed by operation: the
 * served document takes them from src/http/openapi-examples.json, which `npm run openapi-examples`
 * produces from the demo database (src/docs/openapi-examples.ts). They become the `example` of each
 * parameter (what the /docs page's "Try it out" sends), of the request body and of the 200 response.
 */
import { QUERY_COST_HEADER } from './query-cost.js'
import { z } from 'zod'
import packageJson from '../../package.json' with { type: 'json' }
import type { RouteSpec } from './context.js'
import { problemSchema } from './schemas/common.js'

/** A JSON Schema object as z.toJSONSchema produces it. */
export type JsonSchema = { [keyword: string]: unknown }

export interface OpenApiDocument {
  readonly openapi: '3.1.0'
  readonly info: { readonly title: string; readonly version: string; readonly description: string; readonly license: { readonly name: string; readonly identifier: string } }
  readonly servers?: readonly { readonly url: string }[]
  readonly paths: Record<string, Record<string, OperationObject>>
  readonly components: {
    readonly schemas: Record<string, JsonSchema>
    readonly responses: Record<string, unknown>
    readonly headers: Record<string, unknown>
    readonly securitySchemes: Record<string, unknown>
  }
}

export interface OperationObject {
  readonly operationId: string
  readonly summary: string
  readonly description: string
  readonly tags: readonly string[]
  readonly deprecated?: boolean
  readonly parameters?: readonly ParameterObject[]
  readonly requestBody?: unknown
  readonly responses: Record<string, unknown>
  /** Absent when the document cannot say (a host's authentication that was not described). */
  readonly security?: readonly Record<string, readonly string[]>[]
  readonly 'x-spec-section': string
}

export interface ParameterObject {
  readonly name: string
  readonly in: 'path' | 'query'
  readonly required: boolean
  /** A name kept for existing clients (the original service's spelling); its schema says `deprecated: true` too. */
  readonly deprecated?: boolean
  readonly description?: string
  readonly schema: JsonSchema
  readonly example?: string
}

/** A real request to one operation and the server's answer (src/http/openapi-examples.json). */
export interface OperationExample {
  readonly request: {
    /** Path parameters by name, as sent (unencoded). */
    readonly path?: Readonly<Record<string, string>>
    /** Query parameters by name, as sent (unencoded); never the `key`. */
    readonly query?: Readonly<Record<string, string>>
    /** The JSON request body (POST). */
    readonly body?: unknown
  }
  /** The 200 answer's body. */
  readonly response: { readonly status: 200; readonly body: unknown }
  /** What to know before sending it (shown in the operation's description). */
  readonly note?: string
}

/** Examples by operation: `"get /companies/{id}"` (method, then the path in OpenAPI's `{param}` form). */
export type OperationExamples = Readonly<Record<string, OperationExample>>

export interface OpenApiOptions {
  /** The base URL clients call (the `servers` entry); left out when unknown. */
  readonly serverUrl?: string
  /** Examples to include; an operation without one has none. */
  readonly examples?: OperationExamples
  /** One sentence on where the examples come from, appended to the document's description. */
  readonly examplesSource?: string
  /**
   * Who may call and how much, as the app enforces it (createApp's `auth` and `quota`). Default:
   * the built-in API keys with their quotas.
   */
  readonly access?: DocumentedAccess
}

/** Security requirements: each entry names schemes that together suffice; any one entry does. */
export type SecurityRequirements = readonly Readonly<Record<string, readonly string[]>>[]

/** How a host's own authentication (createApp's `auth` hook) appears in the OpenAPI document. */
export interface OpenApiSecurity {
  /** OpenAPI 3.1 Security Scheme Objects by name, e.g. `{ session: { type: 'apiKey', in: 'cookie', name: 'sid' } }`. */
  readonly schemes: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /** Which schemes an authenticated operation takes. Default: any one of `schemes`. */
  readonly requirements?: SecurityRequirements
}

export interface DocumentedAccess {
  /** `keys`: the built-in API keys; `host`: an `auth` hook, described by `security` when given. */
  readonly auth: 'keys' | 'host'
  readonly security?: OpenApiSecurity
  /** `none`: no quota (no X-Quota-* headers, never 429); `keys`: the built-in quotas; `hook`: a quota hook (its headers when it reports a quota). */
  readonly quota: 'keys' | 'hook' | 'none'
}

const KEYS_ACCESS: DocumentedAccess = Object.freeze({ auth: 'keys', quota: 'keys' })

/** The security schemes of spec section 5: `?key=` or `Authorization: Bearer`. Either one suffices. */
const SECURITY_SCHEMES = Object.freeze({
  apiKeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: 'The API key as the `key` query parameter.' },
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as `Authorization: Bearer <key>`.' },
})
const AUTHENTICATED: readonly Record<string, readonly string[]>[] = Object.freeze<Record<string, readonly string[]>[]>([{ apiKeyQuery: [] }, { bearerAuth: [] }])

/** Error statuses of spec section 7, each answered with a Problem body. */
const ERROR_RESPONSES: Readonly<Record<string, { name: string; description: string }>> = Object.freeze({
  400: { name: 'BadRequest', description: 'Malformed request: the body names each parameter, what was expected and what was got.' },
  401: { name: 'Unauthorized', description: 'Authentication is required (the host application\'s scheme; see WWW-Authenticate).' },
  403: { name: 'Forbidden', description: 'Missing, wrong or revoked API key, or a trial key asking beyond the first page.' },
  404: { name: 'NotFound', description: 'The endpoint or the resource does not exist.' },
  429: { name: 'RateLimited', description: 'The key\'s quota for the current period is used up; see X-Quota-Reset and Retry-After.' },
  500: { name: 'InternalError', description: 'Server fault; the body carries an error id and nothing of the fault. Retry later.' },
  503: { name: 'Unavailable', description: 'The database is busy or unavailable; retry shortly (Retry-After).' },
})
/**
 * The 429 of a heavy route (`RouteSpec.heavy`): besides a used-up quota, the caller's fair share of
 * the workers (`TenantBusyError`, grammar-docs/guides/fairness.md). One response per status, so it
 * replaces `RateLimited` there, and stands alone where there is no quota.
 */
const TENANT_BUSY = 'too many of this caller\'s heavy queries are waiting beside those running, or it has used its allowance of query time per minute: '
  + 'the issue `tenant_busy`, with `retry_after` (seconds) in the body and a Retry-After header; the request is not counted against a quota. '
  + 'See grammar-docs/guides/fairness.md.'
const BUSY_RESPONSES = Object.freeze({
  quota: { name: 'RateLimitedOrBusy', description: `The key's quota for the current period is used up (see X-Quota-Reset and Retry-After), or ${TENANT_BUSY}` },
  none: { name: 'TenantBusy', description: `The caller is busy: ${TENANT_BUSY}` },
})
const RETRY_AFTER_HEADER = Object.freeze({ description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } })

/** Statuses a public endpoint can answer besides 200: it has no key to refuse and no quota to exceed. */
const PUBLIC_ERROR_STATUSES = Object.freeze(['500', '503'])

const QUOTA_HEADERS = Object.freeze({
  'X-Quota-Limit': { description: 'Requests allowed in the current period.', schema: { type: 'integer' } },
  'X-Quota-Remaining': { description: 'Requests left in the current period.', schema: { type: 'integer' } },
  'X-Quota-Reset': { description: 'Unix time (seconds, UTC) at which the next period starts.', schema: { type: 'integer' } },
})

const QUERY_COST_HEADER_DOC = Object.freeze({
  description: 'The cost of the filter this request ran, as `units=<u>, rows=<n>, ms=<t>`: its estimated worst-case units per record '
    + '(held to maxCost), the records of the queried dataset, and the predicted milliseconds of its count and page 1 '
    + '(from the data\'s row counts and the selectivity of its conditions on a sample). See grammar-docs/language.md, "Predicted time".',
  schema: { type: 'string', pattern: '^units=\\d+, rows=\\d+, ms=\\d+$' },
})

const LINK_HEADER_DOC = Object.freeze({
  description: 'RFC 8288 links to this listing\'s pages as absolute URLs: `first`, `prev` (after page 1), `next` (while there is a later page; '
    + 'without a total, while the page is full) and `last` (when the total is counted). They keep the request\'s parameters except the API key '
    + '`key`, which is never copied into a link. See grammar-docs/guides/facets.md.',
  schema: { type: 'string' },
})

/**
 * Where a reader of the document finds the endpoint described in full: the API reference that
 * ships in the repository and the npm package (generated from this document by `npm run docs`).
 * The original service's section number stays machine-readable in `x-spec-section`.
 */
export const referencePointer = (method: string, path: string): string =>
  `Reference: grammar-docs/reference/api.md, "${method.toUpperCase()} ${path}".`

/** The error statuses an authenticated operation can answer under `access`. */
function authenticatedErrorStatuses(access: DocumentedAccess): string[] {
  return Object.keys(ERROR_RESPONSES).filter((status) =>
    (status !== '401' || access.auth === 'host') && (status !== '429' || access.quota !== 'none'))
}

/** The document's security schemes and each authenticated operation's requirements under `access`. */
function securityOf(access: DocumentedAccess): { schemes: Record<string, unknown>; requirements: SecurityRequirements | undefined } {
  if (access.auth === 'keys') return { schemes: { ...SECURITY_SCHEMES }, requirements: AUTHENTICATED }
  const schemes = { ...(access.security?.schemes ?? {}) }
  const names = Object.keys(schemes)
  const requirements = access.security?.requirements ?? (names.length > 0 ? names.map((name) => ({ [name]: [] })) : undefined)
  return { schemes, requirements }
}

export function buildOpenApiDocument(routes: readonly RouteSpec[], options: OpenApiOptions = {}): OpenApiDocument {
  const access = options.access ?? KEYS_ACCESS
  const security = securityOf(access)
  const components = new SchemaComponents()
  const problemRef = components.add('Problem', problemSchema, 'output')
  const paths: Record<string, Record<string, OperationObject>> = {}
  const busyResponse = access.quota === 'none' ? BUSY_RESPONSES.none : BUSY_RESPONSES.quota
  const anyHeavy = routes.some((r) => r.heavy && (r.authenticated ?? true))

  for (const route of routes) {
    const path = openApiPath(route.path)
    const authenticated = route.authenticated ?? true
    const example = options.examples?.[`${route.method} ${path}`]
    const parameters = [
      ...parametersOf(route.pathParams, 'path', components, example?.request.path),
      ...parametersOf(route.query, 'query', components, example?.request.query),
    ]
    const errorStatuses = authenticated ? authenticatedErrorStatuses(access) : PUBLIC_ERROR_STATUSES
    const operation: OperationObject = {
      operationId: operationId(route.method, path),
      summary: route.summary,
      description: [route.description, referencePointer(route.method, path), example && exampleText(route.method, path, example)].filter(Boolean).join('\n\n'),
      tags: [tagOf(path)],
      ...(route.deprecated ? { deprecated: true } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body ? { requestBody: requestBodyOf(route.body, components, example?.request.body) } : {}),
      responses: {
        200: {
          description: 'Success.',
          ...(authenticated && access.quota !== 'none' || route.queryCost || route.paged
            ? {
              headers: {
                ...(authenticated && access.quota !== 'none' ? quotaHeaderRefs() : {}),
                ...(route.queryCost ? { [QUERY_COST_HEADER]: QUERY_COST_HEADER_DOC } : {}),
                ...(route.paged ? { Link: LINK_HEADER_DOC } : {}),
              },
            }
            : {}),
          content: route.responseMediaTypes
            ? Object.fromEntries(Object.entries(route.responseMediaTypes).map(([type, schema]) => [type, { schema: components.inline(schema, 'output') }]))
            : {
              'application/json': {
                schema: components.inline(route.response, 'output'),
                ...(example ? { example: example.response.body } : {}),
              },
            },
        },
        ...Object.fromEntries(errorStatuses.map((status) => [status, { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` }])),
        ...(authenticated && route.heavy ? { 429: { $ref: `#/components/responses/${busyResponse.name}` } } : {}),
      },
      ...(!authenticated ? { security: [] } : security.requirements ? { security: security.requirements } : {}),
      'x-spec-section': route.specSection,
    }
    ;(paths[path] ??= {})[route.method] = operation
  }

  const usedStatuses = new Set([...authenticatedErrorStatuses(access), ...PUBLIC_ERROR_STATUSES])
  return {
    openapi: '3.1.0',
    info: {
      title: 'ventureql',
      version: packageJson.version,
      description: 'Company, investor and funding data: search, filtered listings, detail records, structured queries (beta) and quota usage. '
        + (access.auth === 'keys'
          ? 'Every request but this document carries an API key (`?key=` or `Authorization: Bearer`). Errors are application/problem+json with an `error` string.'
            + '\n\nIn the reference page (GET /docs), press **Authorize** and enter a key in either scheme: `ventureql serve` prints a full and a trial key '
            + 'when it creates its database, and `ventureql keys create --plan full --quota 1000` makes another. "Try it out" then sends the request to this server.'
          : 'Every request but this document is authenticated by the host application'
            + (security.requirements ? ', in the security schemes this document declares.' : '; this document does not describe how (ask the host).')
            + ' Errors are application/problem+json with an `error` string.')
        + (options.examplesSource ? ` ${options.examplesSource}` : ''),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl.replace(/\/+$/, '') }] } : {}),
    paths,
    components: {
      schemas: components.schemas,
      responses: {
        ...Object.fromEntries(Object.entries(ERROR_RESPONSES).filter(([status]) => usedStatuses.has(status)).map(([status, { name, description }]) => [name, {
          description: status === '403' && access.auth === 'host' ? 'Refused by the host application\'s authentication, or a trial caller asking beyond the first page.' : description,
          content: { 'application/problem+json': { schema: problemRef } },
        }])),
        ...(anyHeavy ? {
          [busyResponse.name]: {
            description: busyResponse.description,
            headers: { 'Retry-After': RETRY_AFTER_HEADER },
            content: { 'application/problem+json': { schema: problemRef } },
          },
        } : {}),
      },
      headers: { ...QUOTA_HEADERS },
      securitySchemes: security.schemes,
    },
  }
}

/** `/companies/:id` (Hono) and `/companies/{id}` (OpenAPI) both become the OpenAPI form. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
}

function operationId(method: string, path: string): string {
  const words = path.split('/').filter(Boolean).map((segment) => {
    const name = segment.replace(/^\{(.*)\}$/, 'by_$1').replace(/[^A-Za-z0-9]+/g, '_')
    return name.split('_').filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
  })
  return method + words.join('')
}

function tagOf(path: string): string {
  return path.split('/').filter(Boolean)[0]?.replace(/[{}]/g, '') ?? 'root'
}

function quotaHeaderRefs(): Record<string, { $ref: string }> {
  return Object.fromEntries(Object.keys(QUOTA_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]))
}

function parametersOf(shape: z.ZodObject | undefined, where: 'path' | 'query', components: SchemaComponents, examples?: Readonly<Record<string, string>>): ParameterObject[] {
  if (!shape) return []
  return Object.entries(shape.shape).map(([name, field]) => {
    const type = field as z.ZodType
    const schema = components.inline(type, 'input')
    const description = type.description ?? (typeof schema.description === 'string' ? schema.description : undefined)
    const example = examples && Object.hasOwn(examples, name) ? examples[name] : undefined
    const deprecated = schema.deprecated === true
    return {
      name,
      in: where,
      // Path parameters are always required (OpenAPI says so); query ones unless the schema is optional.
      required: where === 'path' || type._zod.optin !== 'optional',
      ...(deprecated ? { deprecated } : {}),
      ...(description ? { description } : {}),
      schema,
      ...(example !== undefined ? { example } : {}),
    }
  })
}

/** The example's request line and note, for the operation's description. */
function exampleText(method: string, path: string, example: OperationExample): string {
  const target = path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = example.request.path?.[name]
    return value === undefined ? whole : encodeURIComponent(value)
  })
  const query = Object.entries(example.request.query ?? {}).map(([name, value]) => `${name}=${value}`).join('&')
  const line = `${method.toUpperCase()} ${target}${query ? `?${query}` : ''}`
  return `Example: \`${line}\`${example.request.body !== undefined ? ' with the example body' : ''}, answered as shown under Responses.${example.note ? ` ${example.note}` : ''}`
}

function requestBodyOf(body: z.ZodType, components: SchemaComponents, example: unknown): unknown {
  const schema = components.inline(body, 'input')
  return {
    required: true,
    description: 'A JSON object, or the same keys form-encoded with `filter` and `sort` as JSON strings (design section 6).',
    content: {
      'application/json': { schema, ...(example !== undefined ? { example } : {}) },
      'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } },
    },
  }
}

/**
 * Converts zod schemas and collects their named sub-schemas (`$defs`) as components, rewriting the
 * references to point there, so the document has one definition per named schema.
 */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {}

  /** Registers `schema` under `name` and returns a `$ref` to it. */
  add(name: string, schema: z.ZodType, io: 'input' | 'output'): { $ref: string } {
    const converted = this.inline(schema, io)
    if (typeof converted.$ref === 'string' && Object.keys(converted).length === 1) return { $ref: converted.$ref }
    this.schemas[name] = converted
    return { $ref: `#/components/schemas/${name}` }
  }

  /** The JSON Schema of `schema`, its `$defs` moved into components. */
  inline(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      // A transform or a custom check has no JSON Schema form; document it as "any" rather than fail
      // the whole document over one field.
      unrepresentable: 'any',
      cycles: 'ref',
    }) as JsonSchema
    delete converted.$schema
    const defs = converted.$defs as Record<string, JsonSchema> | undefined
    delete converted.$defs
    const names = new Map<string, string>(Object.keys(defs ?? {}).map((name) => [name, name]))
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite)
      if (node === null || typeof node !== 'object') return node
      const out: JsonSchema = {}
      for (const [key, value] of Object.entries(node)) {
        out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')
          ? `#/components/schemas/${names.get(value.slice('#/$defs/'.length)) ?? value.slice('#/$defs/'.length)}`
          : rewrite(value)
      }
      return out
    }
    // Names first: a named schema converted for input and for output can differ (e.g. defaults,
    // additionalProperties); the second form gets a numbered name instead of overwriting the first.
    for (const [name, definition] of Object.entries(defs ?? {})) names.set(name, this.freeName(name, JSON.stringify(rewrite(definition))))
    for (const [name, definition] of Object.entries(defs ?? {})) this.schemas[names.get(name)!] = rewrite(definition) as JsonSchema
    return rewrite(converted) as JsonSchema
  }

  /** `name`, or `name_2`, `name_3`, ... : the first that is free or already holds this very definition. */
  private freeName(name: string, text: string): string {
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? name : `${name}_${n}`
      const existing = this.schemas[candidate]
      if (existing === undefined || JSON.stringify(existing) === text) return candidate
    }
  }
}
