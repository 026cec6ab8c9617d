/**
 * Nested input cannot crash anything: arrays and objects nested up to what the body limit can
 * encode, placed in every field of every engine method (the typed engine, `records` and `access`
 * included) and of every HTTP route with a body or parameters, on a POOL engine (worker threads:
 * a structured clone of 20,000 levels overflowed there and left the process dying). Each case must
 * answer: an issue or a value from the engine (a record lookup may reject only with
 * `InvalidInputError`), a status below 500 from HTTP; and afterwards no worker was replaced and a
 * plain query still answers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { createEngine, InvalidInputError, type Engine } from '../../src/engine.js'
import type { Result } from '../../src/errors/issue.js'
import { createWorkerPool } from '../../src/execute/pool/pool.js'
import { createApp, type VentureApp } from '../../src/http/app.js'
import { ROUTE_MODULES } from '../../src/http/routes/index.js'
import { createApiKey } from '../../src/store/api-keys.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { typedEngine, type TypedEngine } from '../../src/typed/engine.js'
import { numRuns } from '../support/num-runs.js'

const NOW = new Date('2026-06-15T12:00:00Z')
const LIMIT = DEFAULT_LIMITS.maxInputDepth

let dir: string
let file: string
let engine: Engine
let typed: TypedEngine
let app: VentureApp
let trialKey: string
let storedId: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-nested-'))
  file = join(dir, 'fixture.db')
  await (await createFixtureDatabase({ file, companies: 200 })).close()
  // Two general workers and the light one, as `serve` has on two cores.
  engine = createEngine({ database: file, workers: 2, timeoutMs: 20_000 })
  typed = typedEngine(engine)
  const trial = await createApiKey(engine.database, { plan: 'trial', quota: 1_000_000, period: 'day' }, NOW)
  if (!trial.ok) throw new Error('no key')
  trialKey = trial.value.key
  app = createApp(engine, { clock: () => NOW })
  const stored = await engine.store({ dataset: 'companies', filter: { stage: 'a' } })
  if (!stored.ok) throw new Error('store')
  storedId = stored.value.query_id
}, 60_000)

afterAll(async () => {
  await engine?.close()
  rmSync(dir, { recursive: true, force: true })
})

//// nested values, as objects and as JSON text (built without recursion: JSON.stringify would overflow) ////

type Kind = 'array' | 'object' | 'mixed'
interface Nest { readonly depth: number; readonly kind: Kind }

const opens = (n: Nest): string[] => Array.from({ length: n.depth }, (_, i) => (n.kind === 'array' || (n.kind === 'mixed' && i % 2 === 0) ? '[' : '{"a":'))
function nestText(n: Nest, leaf = '1'): string {
  const o = opens(n)
  let close = ''
  for (let i = o.length - 1; i >= 0; i--) close += o[i] === '[' ? ']' : '}'
  return o.join('') + leaf + close
}
function nestValue(n: Nest): unknown {
  const o = opens(n)
  let value: unknown = 1
  for (let i = o.length - 1; i >= 0; i--) value = o[i] === '[' ? [value] : { a: value }
  return value
}
/** Bytes of JSON text per level: the deepest nesting a body within maxBodyBytes can carry. */
const BYTES_PER_LEVEL: Record<Kind, number> = { array: 2, object: 6, mixed: 4 }
const maxLevels = (kind: Kind, budget: number): number => Math.floor((budget - 400) / BYTES_PER_LEVEL[kind])

/** Depths around the limit, well below it, and up to what a body of maxBodyBytes can hold. */
const nest: fc.Arbitrary<Nest> = fc.constantFrom<Kind>('array', 'object', 'mixed').chain((kind) => fc.record({
  kind: fc.constant(kind),
  depth: fc.oneof(
    fc.integer({ min: 1, max: LIMIT - 8 }),
    fc.integer({ min: LIMIT - 8, max: LIMIT + 8 }),
    fc.integer({ min: LIMIT + 8, max: maxLevels(kind, DEFAULT_LIMITS.maxBodyBytes) }),
  ),
}))
/** The same nesting, cut to what fits the limit once each character takes `bytesPerChar` (percent-encoded: 3). */
const fitting = (n: Nest, bytesPerChar: number): Nest => ({ kind: n.kind, depth: Math.min(n.depth, maxLevels(n.kind, DEFAULT_LIMITS.maxBodyBytes / bytesPerChar)) })

//// the engine: every method, every field ////

/** Where in a request the nested value goes. */
const REQUEST_FIELDS: Record<string, (deep: unknown) => unknown> = {
  'the request': (d) => d,
  dataset: (d) => ({ dataset: d }),
  filter: (d) => ({ dataset: 'companies', filter: d }),
  'a field': (d) => ({ dataset: 'companies', filter: { name: d } }),
  'an operand': (d) => ({ dataset: 'companies', filter: { employees: { in: d } } }),
  and: (d) => ({ dataset: 'companies', filter: { and: d } }),
  'a foreign filter': (d) => ({ dataset: 'investors', filter: { foreign: { dataset: 'companies', filter: d } } }),
  sort: (d) => ({ dataset: 'companies', sort: d }),
  'a sort clause': (d) => ({ dataset: 'companies', sort: [{ name: d }] }),
  page: (d) => ({ dataset: 'companies', page: d }),
  per_page: (d) => ({ dataset: 'companies', per_page: d }),
  'an unknown key': (d) => ({ dataset: 'companies', x: d }),
}

type Answer = { readonly kind: 'result'; readonly value: Result<unknown> } | { readonly kind: 'value' }
type Site = (deep: unknown) => Promise<Answer>

const asResult = async (r: Promise<Result<unknown>>): Promise<Answer> => ({ kind: 'result', value: await r })
const asValue = async (r: Promise<unknown>): Promise<Answer> => {
  await r
  return { kind: 'value' }
}
const any = (v: unknown) => v as never

function engineSites(): Record<string, Site> {
  const sites: Record<string, Site> = {}
  for (const [field, place] of Object.entries(REQUEST_FIELDS)) {
    sites[`query: ${field}`] = (d) => asResult(engine.query(place(d)))
    sites[`list: ${field}`] = (d) => asResult(engine.list(place(d)))
    sites[`store: ${field}`] = (d) => asResult(engine.store(place(d)))
    sites[`explain: ${field}`] = (d) => asResult(engine.explain(place(d)))
    sites[`count: ${field}`] = (d) => asResult(engine.count(place(d)))
    sites[`typed query: ${field}`] = (d) => asResult(typed.query(any(place(d))))
    sites[`typed list: ${field}`] = (d) => asResult(typed.list(any(place(d))))
    sites[`typed store: ${field}`] = (d) => asResult(typed.store(any(place(d))))
    sites[`typed explain: ${field}`] = (d) => asResult(typed.explain(any(place(d))))
    sites[`typed count: ${field}`] = (d) => asResult(typed.count(any(place(d))))
  }
  Object.assign(sites, {
    'query: owner': (d) => asResult(engine.query({ dataset: 'companies' }, { owner: any(d) })),
    'store: owner': (d) => asResult(engine.store({ dataset: 'companies' }, { owner: any(d) })),
    'page: id': (d) => asResult(engine.page(d)),
    'page: paging': (d) => asResult(engine.page(storedId, any(d))),
    'page: page': (d) => asResult(engine.page(storedId, { page: d })),
    'page: per_page': (d) => asResult(engine.page(storedId, { per_page: d })),
    'pageWithoutTotal: id': (d) => asResult(engine.pageWithoutTotal(d)),
    'pageWithoutTotal: paging': (d) => asResult(engine.pageWithoutTotal(storedId, any(d))),
    'pageWithoutTotal: page': (d) => asResult(engine.pageWithoutTotal(storedId, { page: d })),
    'exportBatch: batch': (d) => asResult(engine.exportBatch(storedId, any(d))),
    'exportBatch: after': (d) => asResult(engine.exportBatch(storedId, { limit: 5, after: any(d) })),
    'exportBatch: fields': (d) => asResult(engine.exportBatch(storedId, { limit: 5, fields: d })),
    'page: fields': (d) => asResult(engine.page(storedId, { fields: d })),
    'typed page: id': (d) => asResult(typed.page(any(d))),
    'typed page: per_page': (d) => asResult(typed.page(storedId, { per_page: any(d) })),
    'records.companyDetail': (d) => asValue(engine.records.companyDetail(any(d))),
    'records.companyByDomain': (d) => asValue(engine.records.companyByDomain(any(d))),
    'records.companyExists': (d) => asValue(engine.records.companyExists(any(d))),
    'records.companyStories': (d) => asValue(engine.records.companyStories(any(d))),
    'records.similarCompanies': (d) => asValue(engine.records.similarCompanies(any(d))),
    'records.companyPeople': (d) => asValue(engine.records.companyPeople(any(d))),
    'records.companyTechStack': (d) => asValue(engine.records.companyTechStack(any(d))),
    'records.contactEmail: id': (d) => asValue(engine.records.contactEmail(any(d), 'Ada Lovelace')),
    'records.contactEmail: name': (d) => asValue(engine.records.contactEmail(1, any(d))),
    'records.investorDetail': (d) => asValue(engine.records.investorDetail(any(d))),
    'records.investorPortfolio: id': (d) => asValue(engine.records.investorPortfolio(any(d), { page: 1, perPage: 10 })),
    'records.investorPortfolio: paging': (d) => asValue(engine.records.investorPortfolio(1, any(d))),
    'records.investorPortfolio: page': (d) => asValue(engine.records.investorPortfolio(1, { page: any(d), perPage: 10 })),
    'records.search: request': (d) => asValue(engine.records.search(any(d))),
    'records.search: term': (d) => asValue(engine.records.search({ term: any(d), objectTypes: ['company'], limit: 5 })),
    'records.search: objectTypes': (d) => asValue(engine.records.search({ term: 'a', objectTypes: any(d), limit: 5 })),
    'records.fundingExtras': (d) => asValue(engine.records.fundingExtras(any(d))),
    'records.fundingExtras: an id': (d) => asValue(engine.records.fundingExtras([any(d)])),
    'access.authorize: key': (d) => asValue(engine.access.authorize(any(d), NOW, false)),
    'access.authorize: count': (d) => asValue(engine.access.authorize(trialKey, NOW, any(d))),
    'access.reserve: units': (d) => asValue(engine.access.reserve(trialKey, NOW, any(d))),
    'access.defer: key': async (d) => asValue(engine.access.defer(any(d), NOW, false).outcome()),
  } satisfies Record<string, Site>)
  return sites
}

/** One case's outcome; anything else (a RangeError, a DataCloneError, a TypeError) fails the property. */
async function answer(site: Site, deep: unknown): Promise<{ refusedForDepth: boolean }> {
  let got: Answer
  try {
    got = await site(deep)
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
    return { refusedForDepth: error.issues.some((i) => i.code === 'limit_exceeded' && i.message.includes('maxInputDepth')) }
  }
  if (got.kind === 'value') return { refusedForDepth: false }
  expect(got.value).toHaveProperty('ok')
  return { refusedForDepth: !got.value.ok && got.value.issues.some((i) => i.code === 'limit_exceeded' && i.message.includes('maxInputDepth')) }
}

async function stillServing(): Promise<void> {
  const listed = await engine.list({ dataset: 'companies', filter: { stage: 'a' } })
  expect(listed.ok).toBe(true)
  const res = await app.fetch(new Request(`https://api.test/companies?stage=a&key=${trialKey}`))
  expect(res.status).toBe(200)
  expect(engine.stats().pool).toMatchObject({ kind: 'workers', busy: 0, queued: 0, replaced: 0 })
}

describe('nested input on a pool engine', () => {
  it('every engine method, every field: an answer or InvalidInputError, never a crash', async () => {
    const sites = engineSites()
    const names = Object.keys(sites)
    let over = 0
    let under = 0
    await fc.assert(fc.asyncProperty(fc.constantFrom(...names), nest, async (name, n) => {
      const { refusedForDepth } = await answer(sites[name]!, nestValue(n))
      // Nested deeper than the limit by itself, it is refused for its depth wherever it sits.
      if (n.depth > LIMIT) expect(refusedForDepth, name).toBe(true)
      if (n.depth > LIMIT) over++
      else under++
    }), { numRuns: numRuns(100) })
    // The generator is not trivial: both sides of the limit were tried.
    expect(over).toBeGreaterThan(numRuns(100) / 5)
    expect(under).toBeGreaterThan(numRuns(100) / 5)
    // The issue's case, every method in turn: 20,000 levels in an unknown key.
    const deep = nestValue({ depth: 20_000, kind: 'array' })
    for (const name of names) await answer(sites[name]!, deep)
    await stillServing()
  }, 120_000)

  it('every route with a body or parameters, over the fetch handler: never a 5xx', async () => {
    const specs = ROUTE_MODULES.flatMap((m) => m.specs).filter((s) => s.body !== undefined || s.query !== undefined || s.pathParams !== undefined)
    /** `body`: the text is the body (or a form field of it), else a parameter; `bytesPerChar`: 3 where it is percent-encoded. */
    type HttpSite = { readonly name: string; readonly body: boolean; readonly bytesPerChar: number; send(text: string): Promise<Response> }
    const sites: HttpSite[] = []
    const url = (path: string) => `https://api.test${path}${path.includes('?') ? '&' : '?'}key=${trialKey}`
    for (const spec of specs) {
      const pathParams = Object.keys(spec.pathParams?.shape ?? {})
      const filled = (value: string, which?: string) => spec.path.replace(/\{([^}]+)\}/g, (_, p: string) => (p === which ? encodeURIComponent(value) : p.includes('domain') ? 'example.com' : '1'))
      for (const p of pathParams) sites.push({ name: `${spec.method} ${spec.path} {${p}}`, body: false, bytesPerChar: 3, send: (t) => app.fetch(new Request(url(filled(t, p)))) })
      for (const q of Object.keys(spec.query?.shape ?? {})) {
        sites.push({ name: `${spec.method} ${spec.path} ?${q}`, body: false, bytesPerChar: 3, send: (t) => app.fetch(new Request(url(`${filled('1')}?${q}=${encodeURIComponent(t)}`), { method: spec.method.toUpperCase() })) })
      }
      if (spec.body === undefined) continue
      const post = (body: string, type: string) => app.fetch(new Request(url(spec.path), { method: 'POST', body, headers: { 'content-type': type } }))
      for (const [field, place] of Object.entries(REQUEST_FIELDS)) {
        // The nested text goes in as text, so the body is exactly what a client sends.
        const template = JSON.stringify(place('NEST_MARKER'))
        sites.push({ name: `POST ${spec.path} JSON: ${field}`, body: true, bytesPerChar: 1, send: (t) => post(template.replace('"NEST_MARKER"', t), 'application/json') })
      }
      for (const field of ['filter', 'sort']) {
        sites.push({ name: `POST ${spec.path} form: ${field}`, body: true, bytesPerChar: 3, send: (t) => post(`dataset=companies&${field}=${encodeURIComponent(t)}`, 'application/x-www-form-urlencoded') })
      }
    }
    // Every route the app has with a body or parameters is tried.
    expect(new Set(sites.map((s) => s.name.split(' ').slice(0, 2).join(' '))).size).toBe(specs.length)
    let over = 0
    let under = 0
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: sites.length - 1 }), nest, async (i, drawn) => {
      const site = sites[i]!
      const n = fitting(drawn, site.bytesPerChar)
      const res = await site.send(nestText(n))
      const text = await res.text()
      expect(res.status, `${site.name}: ${text.slice(0, 300)}`).toBeLessThan(500)
      // A body nested past the limit is refused by the guard, before anything else reads it.
      if (site.body && n.depth > LIMIT) {
        expect(res.status, site.name).toBe(400)
        expect(JSON.parse(text).issues[0]).toMatchObject({ code: 'limit_exceeded', expected: `at most ${LIMIT} levels` })
      }
      if (n.depth > LIMIT) over++
      else under++
    }), { numRuns: numRuns(100) })
    expect(over).toBeGreaterThan(numRuns(100) / 5)
    expect(under).toBeGreaterThan(numRuns(100) / 5)
    await stillServing()
  }, 120_000)

  it('the issue\'s 40 KB body, seven times with a trial key: 400 limit_exceeded each time, then a listing answers', async () => {
    const body = `{"dataset":"companies","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`
    for (let i = 0; i < 7; i++) {
      const res = await app.fetch(new Request(`https://api.test/queries?key=${trialKey}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }))
      expect(res.status).toBe(400)
      const problem = (await res.json()) as { issues: unknown }
      expect(problem.issues).toEqual([expect.objectContaining({
        code: 'limit_exceeded', path: `/x${'/0'.repeat(LIMIT - 1)}`,
        message: `The request body nests arrays and objects deeper than ${LIMIT} levels; the limit (maxInputDepth) is ${LIMIT}.`,
      })])
    }
    await stillServing()
  })
})

describe('the pool on its own', () => {
  it('a call whose arguments the structured clone refuses fails alone; its worker stays free', async () => {
    const pool = createWorkerPool({ file, limits: DEFAULT_LIMITS, size: 1, reserve: 0 })
    try {
      // A worker still starting would hold the calls in the queue, where a loaded machine can time them out first.
      await pool.whenReady()
      const deep = { dataset: 'companies', x: nestValue({ depth: 20_000, kind: 'array' }) }
      const call = { timeoutMs: 10_000, light: false }
      for (let i = 0; i < 3; i++) await expect(pool.call('count', [deep], call)).rejects.toThrow(RangeError)
      await expect(pool.call('count', [{ dataset: 'companies', filter: { f: () => 1 } }] as never, call)).rejects.toThrow(/could not be cloned/)
      const counted = await pool.call('count', [{ dataset: 'companies' }], call)
      expect(counted).toMatchObject({ ok: true, value: 200 })
      expect(pool.stats()).toMatchObject({ busy: 0, queued: 0, replaced: 0 })
    } finally {
      await pool.close()
    }
  })
})
