/**
 * @module Shared by the facet property tests on SQLite (test/properties/facets.test.ts) and
 * PostgreSQL (test/postgres/facets.test.ts): generated requests with 1-3 facet fields and a limit,
 * the comparison of the engine's facets with the reference evaluator's, and the share of cases
 * that make the comparison mean something (filters selecting some but not all records, facets
 * with values left over in `other` and records in `missing`).
 */
import fc from 'fast-check'
import { expect } from 'vitest'
import type { DatasetName, FieldDef } from '../../src/catalog/define.js'
import { datasets } from '../../src/catalog/index.js'
import { facetableFields } from '../../src/check/facets.js'
import type { Engine } from '../../src/engine.js'
import { referenceFacets, type Snapshot } from '../../src/reference/index.js'
import type { FilterArbitraries, RequestJson } from '../../src/testing/arbitraries.js'
import { checked } from './property-context.js'
import type { ExecContext } from '../../src/execute/context.js'
import { evaluatesInMemory, facetsInMemory } from '../../src/execute/facet-columns.js'

export interface FacetCase {
  readonly request: RequestJson
  readonly fields: readonly string[]
  readonly limit: number
}

/** A request over a dataset with facetable fields, 1-3 of them, and a limit from 1 to 12. */
export function facetCase(arbs: FilterArbitraries): fc.Arbitrary<FacetCase> {
  return fc.constantFrom<DatasetName>('companies', 'fundings', 'investors').chain((dataset) =>
    fc.record({
      request: fc.oneof({ weight: 4, arbitrary: arbs.request(dataset) }, { weight: 1, arbitrary: fc.constant({ dataset, filter: {} as Record<string, unknown> }) })
        .map((r) => (Object.keys(r.filter).length === 0 ? { dataset: r.dataset } as RequestJson : r)),
      fields: fc.shuffledSubarray(facetableFields(datasets[dataset]), { minLength: 1, maxLength: 3 }),
      limit: fc.integer({ min: 1, max: 12 }),
    }))
}

/** What the runs covered, to assert the cases were not trivial. */
export interface FacetOutcomes {
  cases: number
  partial: number
  withOther: number
  withMissing: number
  tags: number
  years: number
}

export const newOutcomes = (): FacetOutcomes => ({ cases: 0, partial: 0, withOther: 0, withMissing: 0, tags: 0, years: 0 })

/** Runs one case on `engine` and compares it with the reference evaluator's facets; returns the answer. */
export async function compareWithReference(engine: Engine, snapshot: Snapshot, c: FacetCase, outcomes: FacetOutcomes) {
  const query = checked(c.request.filter === undefined ? { dataset: c.request.dataset } : c.request)
  const fields = c.fields.map((f) => query.dataset.fields[f] as FieldDef)
  const expected = referenceFacets(query.filter, query.dataset, fields, c.limit, snapshot)
  const r = await engine.facets(c.request, c.fields, { limit: c.limit })
  if (!r.ok) throw new Error(`engine rejected a valid facet request ${JSON.stringify(c)}: ${JSON.stringify(r.issues)}`)
  expect(r.value.total).toBe(expected.total)
  expect(Object.keys(r.value.facets)).toEqual(c.fields)
  for (const f of c.fields) expect(r.value.facets[f], `${query.dataset.name}.${f}`).toEqual(expected.facets[f])
  const all = snapshot.datasets[query.dataset.name].ids.length
  outcomes.cases++
  if (expected.total > 0 && expected.total < all) outcomes.partial++
  if (fields.some((f) => expected.facets[f.name]!.other > 0)) outcomes.withOther++
  if (fields.some((f) => expected.facets[f.name]!.missing > 0)) outcomes.withMissing++
  if (fields.some((f) => f.type.kind === 'tags')) outcomes.tags++
  if (fields.some((f) => f.facet === 'year')) outcomes.years++
  return r.value
}

/** The share asserted of each kind of case: the comparison must not pass on empty or trivial facets. */
export function expectNonTrivial(outcomes: FacetOutcomes): void {
  console.info(`facets: ${JSON.stringify(outcomes)}`)
  expect(outcomes.partial / outcomes.cases, 'generated filters must mostly select some but not all records').toBeGreaterThanOrEqual(0.25)
  expect(outcomes.withOther / outcomes.cases, 'facets must often have values beyond the limit').toBeGreaterThanOrEqual(0.2)
  expect(outcomes.withMissing / outcomes.cases, 'facets must often count records without a value').toBeGreaterThanOrEqual(0.1)
  expect(outcomes.tags, 'tags facets must be generated').toBeGreaterThan(0)
  expect(outcomes.years, 'year facets must be generated').toBeGreaterThan(0)
}

/** The filter selecting the records a facet value counts: `field = value`, a tag held, or a date in the year. */
export function valueFilter(field: FieldDef, value: string): Record<string, unknown> {
  if (field.type.kind === 'tags') return { [field.name]: { has_any: [value] } }
  if (field.facet === 'year') {
    return field.type.kind === 'datetime'
      ? { [field.name]: { between: [`${value}-01-01 00:00:00`, `${value}-12-31 23:59:59`] } }
      : { [field.name]: { between: [`${value}-01-01`, `${value}-12-31`] } }
  }
  return { [field.name]: { eq: value } }
}

/** What the in-memory comparisons covered (test/execute/facet-columns.test.ts and its PostgreSQL twin). */
export interface InMemoryOutcomes {
  cases: number
  answered: number
  partial: number
  tagConditions: number
  negations: number
  tagFacets: number
  years: number
  foreign: number
  /** Answered with the filter evaluated over the held columns (the rest selected their records in SQL). */
  evaluated: number
}

export const newInMemoryOutcomes = (): InMemoryOutcomes => ({ cases: 0, answered: 0, partial: 0, tagConditions: 0, negations: 0, tagFacets: 0, years: 0, foreign: 0, evaluated: 0 })

/**
 * Runs one case through the in-memory facets (`facetsInMemory`) directly; when they answer, the
 * total and every group (all values, not the top `limit`) must be the reference evaluator's.
 */
export async function compareInMemory(ctx: ExecContext, snapshot: Snapshot, c: FacetCase, outcomes: InMemoryOutcomes): Promise<void> {
  const query = checked(c.request.filter === undefined ? { dataset: c.request.dataset } : c.request)
  const fields = c.fields.map((f) => query.dataset.fields[f] as FieldDef)
  outcomes.cases++
  const got = await facetsInMemory(ctx, query.dataset, query.filter, fields)
  if (!got) return
  const expected = referenceFacets(query.filter, query.dataset, fields, Number.MAX_SAFE_INTEGER, snapshot)
  expect(got.total).toBe(expected.total)
  for (const f of fields) {
    const want = expected.facets[f.name]!
    const groups = got.groups.get(f.name)!
    expect(Object.fromEntries(groups.counts), `${query.dataset.name}.${f.name}`).toEqual(Object.fromEntries(want.values.map((v) => [v.value, v.count])))
    expect(groups.missing, `${query.dataset.name}.${f.name} missing`).toBe(want.missing)
  }
  outcomes.answered++
  const all = snapshot.datasets[query.dataset.name].ids.length
  if (expected.total > 0 && expected.total < all) outcomes.partial++
  const nodes = JSON.stringify(query.filter)
  if (/"operator":"(has_any|has_all|is_empty)"/.test(nodes)) outcomes.tagConditions++
  if (nodes.includes('"kind":"Not"')) outcomes.negations++
  if (nodes.includes('"kind":"Foreign"')) outcomes.foreign++
  if (evaluatesInMemory(query.filter, query.dataset)) outcomes.evaluated++
  if (fields.some((f) => f.type.kind === 'tags')) outcomes.tagFacets++
  if (fields.some((f) => f.facet === 'year')) outcomes.years++
}

/** The in-memory path must answer a good share of the generated cases, of every kind. */
export function expectInMemoryNonTrivial(outcomes: InMemoryOutcomes): void {
  console.info(`in-memory facets: ${JSON.stringify(outcomes)}`)
  expect(outcomes.answered / outcomes.cases, 'the in-memory path must answer a share of the generated cases').toBeGreaterThanOrEqual(0.25)
  expect(outcomes.foreign, 'filters through foreign must be answered (their records selected in SQL)').toBeGreaterThan(0)
  expect(outcomes.evaluated / outcomes.cases, 'a share of the filters must be evaluated over the held columns').toBeGreaterThanOrEqual(0.15)
  expect(outcomes.partial / outcomes.answered, 'answered filters must mostly select some but not all records').toBeGreaterThanOrEqual(0.25)
  expect(outcomes.tagConditions, 'answered filters must hold tags conditions').toBeGreaterThan(0)
  expect(outcomes.negations, 'answered filters must hold negations').toBeGreaterThan(0)
  expect(outcomes.tagFacets, 'tags facets must be answered').toBeGreaterThan(0)
  expect(outcomes.years, 'year facets must be answered').toBeGreaterThan(0)
}
