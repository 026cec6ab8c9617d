/**
 * @module The generated API reference (grammar-docs/reference/api.md), a pure function of the
 * OpenAPI document the server serves at /openapi.json: every endpoint with its parameters, its
 * answers and the fields of its response records. The README links here instead of to the original
 * service's specification, which is not part of this repository or the package; section numbers
 * ("spec 4.1") are kept so clients of the original service can map each endpoint.
 *
 * Examples in the OpenAPI document are left out on purpose: they are real responses from the demo
 * data, and this page describes shapes, so it changes only when a schema or route does.
 */
import { buildOpenApiDocument, type JsonSchema, type OpenApiDocument, type OperationObject, type ParameterObject } from '../http/openapi.js'
import { ROUTE_MODULES } from '../http/routes/index.js'

const BANNER = '<!-- Generated from the OpenAPI document by scripts/generate-docs.ts. Do not edit: run `npm run docs`. -->'

/** The pattern the wire schemas give numeric strings (src/http/schemas/common.ts). */
const NUMERIC_STRING_PATTERN = '^-?[0-9]+(\\.[0-9]+)?(e[+-]?[0-9]+)?$'

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ')
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`]
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`)
  return lines.join('\n')
}

/** GitHub's anchor for a heading, so the index can link to each endpoint. */
function anchorOf(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')
}

function resolve(doc: OpenApiDocument, schema: JsonSchema): JsonSchema {
  const ref = schema.$ref
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return doc.components.schemas[ref.slice('#/components/schemas/'.length)] ?? schema
  }
  return schema
}

/** A short, readable type: `string`, `numeric string or null`, `array of object`, `"a" \| "b"`. */
export function typeText(doc: OpenApiDocument, input: JsonSchema): string {
  const schema = resolve(doc, input)
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (variants) return [...new Set(variants.map((v) => typeText(doc, v)))].join(' or ')
  if ('const' in schema) return JSON.stringify(schema.const)
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' \\| ')
  const type = schema.type
  if (Array.isArray(type)) return type.join(' or ')
  if (type === 'string') {
    if (schema.pattern === NUMERIC_STRING_PATTERN) return 'numeric string'
    if (schema.format) return `string (${String(schema.format)})`
    return 'string'
  }
  if (type === 'array') {
    const items = schema.items as JsonSchema | undefined
    if (schema.maxItems === 0) return 'array (always empty)'
    return items ? `array of ${typeText(doc, items)}` : 'array'
  }
  if (type === 'integer' || type === 'number' || type === 'boolean' || type === 'null' || type === 'object') return type
  return 'any'
}

/** The object schema inside `schema` (through `$ref`, arrays and a nullable union), if any. */
function objectInside(doc: OpenApiDocument, input: JsonSchema): JsonSchema | undefined {
  const schema = resolve(doc, input)
  if (schema.type === 'object' && schema.properties) return schema
  if (schema.type === 'array' && schema.items) return objectInside(doc, schema.items as JsonSchema)
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (variants) {
    const objects = variants.map((v) => objectInside(doc, v)).filter((v): v is JsonSchema => v !== undefined)
    if (objects.length === 1) return objects[0]
  }
  return undefined
}

function isArrayLike(doc: OpenApiDocument, input: JsonSchema): boolean {
  const schema = resolve(doc, input)
  if (schema.type === 'array') return true
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  return variants?.some((v) => isArrayLike(doc, v)) ?? false
}

/**
 * One row per field, nested objects flattened into dotted paths (`companies[].name`). `seen`
 * stops a self-referencing schema from recursing forever.
 */
export function fieldRows(doc: OpenApiDocument, input: JsonSchema, prefix = '', seen: ReadonlySet<JsonSchema> = new Set()): string[][] {
  const object = objectInside(doc, input)
  if (!object || seen.has(object)) return []
  const inner = new Set(seen).add(object)
  const required = new Set((object.required as string[] | undefined) ?? [])
  const rows: string[][] = []
  for (const [name, raw] of Object.entries(object.properties as Record<string, JsonSchema>)) {
    const path = `${prefix}${name}`
    const schema = resolve(doc, raw)
    const description = typeof raw.description === 'string' ? raw.description : typeof schema.description === 'string' ? schema.description : ''
    rows.push([`\`${path}\``, typeText(doc, raw), required.has(name) ? 'yes' : 'no', description])
    rows.push(...fieldRows(doc, raw, `${path}${isArrayLike(doc, raw) ? '[]' : ''}.`, inner))
  }
  return rows
}

/** What tells one shape of a union from the others: the first constant field (`query.dataset` is "companies"). */
function variantLabel(doc: OpenApiDocument, input: JsonSchema, prefix = '', depth = 0): string | undefined {
  const object = objectInside(doc, input)
  if (!object || depth > 2) return undefined
  const properties = Object.entries(object.properties as Record<string, JsonSchema>)
  for (const [name, raw] of properties) {
    const schema = resolve(doc, raw)
    if ('const' in schema) return `\`${prefix}${name}\` is ${JSON.stringify(schema.const)}`
  }
  for (const [name, raw] of properties) {
    if (isArrayLike(doc, raw)) continue
    const found = variantLabel(doc, raw, `${prefix}${name}.`, depth + 1)
    if (found) return found
  }
  return undefined
}

function parameterRows(parameters: readonly ParameterObject[]): string[][] {
  return parameters.map((p) => [`\`${p.name}\``, p.in, p.required ? 'yes' : 'no', p.description ?? ''])
}

function responseLines(doc: OpenApiDocument, operation: OperationObject): string[] {
  const lines: string[] = []
  for (const [status, response] of Object.entries(operation.responses)) {
    const ref = (response as { $ref?: string }).$ref
    const description = ref
      ? (doc.components.responses[ref.split('/').pop()!] as { description: string }).description
      : (response as { description: string }).description
    lines.push(`- **${status}**: ${description}${ref ? ' (an error body, [below](#errors))' : ''}`)
  }
  return lines
}

function operationSection(doc: OpenApiDocument, method: string, path: string, operation: OperationObject): string {
  const heading = `${method.toUpperCase()} ${path}`
  const parts = [`## ${heading}`, '', `**${operation.summary}** (spec ${operation['x-spec-section']}). ${(operation.security?.length ?? 0) > 0 ? 'Needs an API key.' : 'Needs no API key.'}`, '']
  parts.push(operation.description.replace(/\n\nReference: grammar-docs\/reference\/api\.md, [^\n]*/, ''), '')
  if (operation.parameters?.length) {
    parts.push('### Parameters', '', table(['Name', 'In', 'Required', 'Description'], parameterRows(operation.parameters)), '')
  }
  const body = (operation.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined)?.content
  if (body) {
    const [mediaType, { schema }] = Object.entries(body)[0]!
    const media = Object.keys(body).map((m) => `\`${m}\``).join(' or ')
    const rows = fieldRows(doc, schema)
    parts.push('### Request body', '', `${media}.`, '')
    if (rows.length > 0) parts.push(table(['Field', 'Type', 'Required', 'Description'], rows), '')
    else parts.push(`Type: ${typeText(doc, schema)} (${mediaType}).`, '')
  }
  parts.push('### Responses', '', ...responseLines(doc, operation), '')
  const success = (operation.responses['200'] as { content?: Record<string, { schema: JsonSchema }> } | undefined)?.content?.['application/json']?.schema
  if (success) {
    const rows = fieldRows(doc, success)
    if (rows.length > 0) parts.push('Fields of a 200 answer:', '', table(['Field', 'Type', 'Always present', 'Description'], rows), '')
    else {
      // A union of shapes (POST /queries answers in the shape of the dataset asked for): one table each.
      const variants = ((resolve(doc, success).anyOf ?? resolve(doc, success).oneOf) as JsonSchema[] | undefined) ?? []
      for (const variant of variants) {
        const variantRows = fieldRows(doc, variant)
        if (variantRows.length === 0) continue
        const label = variantLabel(doc, variant)
        parts.push(`Fields of a 200 answer${label ? ` where ${label}` : ''}:`, '', table(['Field', 'Type', 'Always present', 'Description'], variantRows), '')
      }
    }
  }
  return parts.join('\n')
}

/** grammar-docs/reference/api.md. */
export function apiReferencePage(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method, path, operation })))
  const index = operations.map(({ method, path, operation }) => {
    const heading = `${method.toUpperCase()} ${path}`
    return `| [${heading}](#${anchorOf(heading)}) | ${operation['x-spec-section']} | ${cell(operation.summary)} |`
  })
  const security = Object.values(doc.components.securitySchemes).map((s) => `- ${(s as { description: string }).description}`)
  const problem = doc.components.schemas.Problem
  return [
    BANNER,
    '',
    '# The HTTP API',
    '',
    doc.info.description,
    '',
    'This page is generated from the OpenAPI 3.1 document the server serves at `GET /openapi.json`, so it describes exactly what the server answers. The Spec column gives the section of the original service\'s specification each endpoint reproduces (also `x-spec-section` in the document), for clients written against it. How list parameters map to the filter language: [list-parameters.md](../list-parameters.md); the structured query language of `POST /queries`: [language.md](../language.md); the JSON Lines format `ventureql import` reads: [records.md](../records.md).',
    '',
    '| Endpoint | Spec | What |',
    '|---|---|---|',
    ...index,
    '',
    '## Authentication',
    '',
    'Either form carries the API key:',
    '',
    ...security,
    '',
    'Authenticated answers carry `X-Quota-Limit`, `X-Quota-Remaining` and `X-Quota-Reset`.',
    '',
    '## Errors',
    '',
    'Every error is `application/problem+json`:',
    '',
    table(['Field', 'Type', 'Always present', 'Description'], problem ? fieldRows(doc, problem) : []),
    '',
    ...operations.map(({ method, path, operation }) => operationSection(doc, method, path, operation)),
  ].join('\n').replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '\n')
}

/** The pages this module generates, built from the routes the server mounts (no server URL). */
export function apiReferencePages(): readonly { readonly path: string; readonly content: string }[] {
  const doc = buildOpenApiDocument(ROUTE_MODULES.flatMap((m) => m.specs))
  return [{ path: 'reference/api.md', content: apiReferencePage(doc) }]
}
