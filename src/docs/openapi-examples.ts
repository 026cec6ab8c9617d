/**
 * @module The OpenAPI document's examples: one real request per operation, sent through the app's
 * fetch handler to the demo database, and the server's answer. `npm run openapi-examples`
 * (scripts/generate-openapi-examples.ts) writes them to src/http/openapi-examples.json, which the
 * served document includes; `test/docs/openapi-examples.test.ts` runs this again and fails when the
 * committed file differs.
 *
 * Deterministic: the demo database of `ventureql serve` (the same generator, seed and size) with a
 * fixed generator "today" (`asOf`), and a fixed clock for the app (quota periods, date phrases).
 * The records' names, ids, domains and people do not depend on `asOf`, only their dates do, so the
 * example requests are valid on a demo database generated on any day; the answers shown are those
 * of the fixed day.
 *
 * The requests pick records by what they show (a company with people, a contact, stories, a tech
 * stack and funding rounds; an investor with a small portfolio and filings), so a generator change
 * picks new ones rather than breaking. A route without a request here fails the run: a new
 * endpoint gets an example or is listed in WITHOUT_EXAMPLE with the reason.
 */
import { createEngine } from '../engine.js'
import { createApp } from '../http/app.js'
import { openApiPath, type OperationExample, type OperationExamples } from '../http/openapi.js'
import { createApiKey } from '../store/api-keys.js'
import { generateInto } from '../store/generate/build.js'
import { openDatabase, type SqliteVentureDb } from '../store/open.js'
import { DEFAULT_DEMO_COMPANIES } from '../cli/generate.js'
import { FIRST_RUN_KEYS } from '../cli/serve.js'

/** The demo database as `ventureql serve` generates it (serve.ts, generateDemo), on a fixed day. */
export const EXAMPLES_DEMO = Object.freeze({ companies: DEFAULT_DEMO_COMPANIES, seed: 1, asOf: '2024-06-30' })
/** The app's clock while the examples are taken: the day after the generator's "today". */
export const EXAMPLES_CLOCK = '2024-07-01T12:00:00.000Z'
/** The base of `url` fields in the answers: where `npm start` serves. */
export const EXAMPLES_SERVER_URL = 'https://127.0.0.1:8443'

/** Operations without an example, and why. */
export const WITHOUT_EXAMPLE: Readonly<Record<string, string>> = Object.freeze({
  'get /openapi.json': 'its answer is the document itself, examples included',
  'get /queries/{query_id}/export': 'its answer is a streamed NDJSON or CSV file, not a JSON body the examples hold',
})

/** The committed file's shape. */
export interface OpenApiExamplesFile {
  readonly comment: string
  /** One sentence for the document's description. */
  readonly source: string
  readonly demo: { readonly companies: number; readonly seed: number; readonly asOf: string }
  readonly clock: string
  readonly serverUrl: string
  readonly operations: OperationExamples
}

interface Picked {
  readonly company: { readonly id: number; readonly website: string; readonly contact: string }
  readonly investor: { readonly id: number }
  readonly searchTerm: string
}

/** The records the requests name, chosen by what they show. */
function pick(vdb: SqliteVentureDb): Picked {
  const company = vdb.sqlite.prepare(`
    select c.id, c.website, (select min(k.name) from company_contacts k where k.company_id = c.id and k.email is not null) as contact
    from companies c
    where c.website is not null
      and exists (select 1 from company_people p where p.company_id = c.id)
      and exists (select 1 from company_contacts k where k.company_id = c.id and k.email is not null)
      and (select count(*) from company_stories s where s.company_id = c.id) between 1 and 5
      and exists (select 1 from company_tech_stack t where t.company_id = c.id)
      and exists (select 1 from fundings f where f.company_id = c.id)
      and exists (select 1 from company_industries i where i.company_id = c.id)
    order by c.id limit 1`).get() as { id: number; website: string; contact: string } | undefined
  const investor = vdb.sqlite.prepare(`
    select i.id from investors i
    where i.portfolio_size between 4 and 12 and exists (select 1 from investor_filings f where f.investor_id = i.id)
    order by i.id limit 1`).get() as { id: number } | undefined
  if (!company || !investor) throw new Error('openapi examples: the demo database has no company or investor of the kind the examples show')
  // The first word of the company's name: a type-ahead term that finds it among others.
  const name = (vdb.sqlite.prepare('select name from companies where id = ?').get(company.id) as { name: string }).name
  return { company, investor, searchTerm: name.split(/\s+/)[0]!.toLowerCase().slice(0, 4) }
}

interface Planned {
  readonly request: OperationExample['request']
  /** Sent before this one, not recorded (GET /queries/{query_id} pages a query stored by POST /queries). */
  readonly note?: string
}

/** The structured query of the POST /queries example; GET /queries/{query_id} pages the query it stores. */
const QUERY_BODY = Object.freeze({
  dataset: 'companies',
  filter: {
    and: [
      { stage: { in: ['a', 'b'] } },
      { industries: { has_any: ['Software', 'Fintech'] } },
      { employees: { between: [10, 500] } },
    ],
  },
  sort: [{ total_funding: 'desc' }],
  per_page: 3,
})

/** The request of every operation that has an example, keyed like the document's operations. */
function plan(picked: Picked): Readonly<Record<string, Planned>> {
  const id = String(picked.company.id)
  return {
    'get /companies': { request: { query: { stage: 'a|b', country: 'USA', sort: '-total_funding', per_page: '3' } } },
    'get /companies/{id}': { request: { path: { id } } },
    'get /domains/{domain}/companies': { request: { path: { domain: picked.company.website } } },
    'get /companies/{id}/stories': { request: { path: { id } } },
    'get /companies/{id}/similar': { request: { path: { id } } },
    'get /companies/{id}/people': { request: { path: { id } } },
    'get /companies/{company_id}/contact': { request: { path: { company_id: id }, query: { full_name: picked.company.contact } } },
    'get /companies/{company_id}/tech_stack': { request: { path: { company_id: id } } },
    'get /search': { request: { query: { term: picked.searchTerm, object_types: 'company|investor', per_page: '5' } } },
    'get /fundings': { request: { query: { series: 'a|b', amount: '5000000~', per_page: '3' } } },
    'get /investors/{id}': { request: { path: { id: String(picked.investor.id) } } },
    'get /investors/{id}/portfolio': { request: { path: { id: String(picked.investor.id) }, query: { per_page: '3' } } },
    'post /queries': { request: { body: QUERY_BODY } },
    'get /queries/{query_id}': {
      // The id is filled in from the POST's answer (ids are content-addressed: the same body always gets it).
      request: { path: { query_id: '' }, query: { page: '2', per_page: '3' } },
      note: 'The query must be stored first: send the POST /queries example (the same body always gets this id).',
    },
    'get /ratelimit/usage': { request: {} },
    'get /ratelimit/quota': { request: {} },
  }
}

/** The URL of a request: the path with its parameters filled in (encoded), then the query string. */
export function exampleUrl(base: string, path: string, request: OperationExample['request']): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = request.path?.[name]
    if (value === undefined) throw new Error(`openapi examples: ${path} has no value for {${name}}`)
    return encodeURIComponent(value)
  })
  const query = new URLSearchParams(Object.entries(request.query ?? {})).toString()
  return `${base}${filled}${query ? `?${query}` : ''}`
}

export interface ProduceOptions {
  /** The demo's generator "today" (default EXAMPLES_DEMO.asOf): tests try another day. */
  readonly asOf?: string
}

/** Generates the demo database in memory, sends every example request and collects the answers. */
export async function produceOpenApiExamples(options: ProduceOptions = {}): Promise<OpenApiExamplesFile> {
  const demo = { ...EXAMPLES_DEMO, asOf: options.asOf ?? EXAMPLES_DEMO.asOf }
  const clock = new Date(EXAMPLES_CLOCK)
  const vdb = openDatabase(':memory:')
  try {
    generateInto(vdb, demo)
    const full = FIRST_RUN_KEYS.find((k) => k.name === 'full')!
    const created = await createApiKey(vdb, { plan: full.plan, quota: full.quota, period: full.period, label: 'openapi examples' }, clock)
    if (!created.ok) throw new Error('openapi examples: could not create a key')
    const key = created.value.key
    const engine = createEngine({ database: vdb })
    try {
      const app = createApp(engine, { clock: () => clock, baseUrl: EXAMPLES_SERVER_URL, compression: false })
      const planned = plan(pick(vdb))
      const operations: Record<string, OperationExample> = {}
      let storedQueryId: string | undefined
      for (const route of app.routes) {
        const name = `${route.method} ${openApiPath(route.path)}`
        if (Object.hasOwn(WITHOUT_EXAMPLE, name)) continue
        const entry = planned[name]
        if (entry === undefined) throw new Error(`openapi examples: no example request for ${name}; add one to plan() in src/docs/openapi-examples.ts (or a reason to WITHOUT_EXAMPLE)`)
        let request = entry.request
        if (name === 'get /queries/{query_id}') {
          if (storedQueryId === undefined) throw new Error('openapi examples: GET /queries/{query_id} needs the POST /queries example first')
          request = { ...request, path: { query_id: storedQueryId } }
        }
        const url = exampleUrl(EXAMPLES_SERVER_URL, openApiPath(route.path), request)
        const headers: Record<string, string> = { authorization: `Bearer ${key}` }
        if (request.body !== undefined) headers['content-type'] = 'application/json'
        const response = await app.fetch(new Request(url, {
          method: route.method.toUpperCase(),
          headers,
          ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        }))
        const text = await response.text()
        if (response.status !== 200) throw new Error(`openapi examples: ${route.method.toUpperCase()} ${url} answered ${response.status}: ${text.slice(0, 500)}`)
        const body = JSON.parse(text) as unknown
        if (name === 'post /queries') storedQueryId = (body as { query_id: string }).query_id
        operations[name] = { request, response: { status: 200, body }, ...(entry.note ? { note: entry.note } : {}) }
      }
      const file: OpenApiExamplesFile = {
        comment: 'Generated by `npm run openapi-examples` (src/docs/openapi-examples.ts) from the demo database. Do not edit; test/docs/openapi-examples.test.ts fails when it differs from a fresh run.',
        source: `The examples are real requests and answers on the demo database that \`ventureql serve\` generates (${demo.companies} companies, seed ${demo.seed}), taken with its dates as of ${demo.asOf}: the same requests work on any demo database, and its answers differ only in dates.`,
        demo,
        clock: EXAMPLES_CLOCK,
        serverUrl: EXAMPLES_SERVER_URL,
        operations,
      }
      // Examples travel in a public document: never a key, the one used here or any other.
      const text = JSON.stringify(file)
      if (text.includes(key) || /vql_[A-Za-z0-9_-]{8,}/.test(text)) throw new Error('openapi examples: an answer holds an API key')
      return file
    } finally {
      await engine.close()
    }
  } finally {
    await vdb.close()
  }
}

/** The file's text: stable formatting, one trailing newline. */
export function examplesFileText(file: OpenApiExamplesFile): string {
  return `${JSON.stringify(file, null, 2)}\n`
}
