/**
 * @module Arbitraries of the query parameters of GET /companies and GET /fundings, derived from
 * the parameter table the server reads them with (`LIST_PARAMETERS`): each parameter in one of the
 * forms its format accepts, with values drawn from the data when a snapshot is given, plus `sort`,
 * `page` and `per_page`. Every generated set of parameters is accepted by the server.
 */
import fc from 'fast-check'
import type { FieldDef } from '../catalog/define.js'
import { compareValues, distinctValues, type Snapshot } from '../reference/index.js'
import {
  FOUNDING_PHRASES, FUNDING_PHRASES, LIST_DATASET, LIST_PARAMETERS, paramField, sortableNames, type ListEndpoint, type ListParamDef,
} from '../parse/list-params.js'

export type { ListEndpoint }

/** Options of `listParamsArbitrary`. */
export interface ListParamsArbitraryOptions {
  /** Data whose values parameters are mostly drawn from (`loadSnapshot`), so they match some records. */
  readonly values?: Snapshot
  /** Most filtering parameters in one set (default 3). */
  readonly maxParameters?: number
}

/** Text as the number forms of the parameters accept it (no exponent). */
const NUMBER_TEXT = /^-?[0-9]+(\.[0-9]+)?$/
const FALLBACK: Readonly<Record<string, readonly string[]>> = {
  integer: ['0', '10', '250', '5000'], number: ['-2.5', '0', '1.5', '40'], date: ['2015-01-01', '2020-06-30', '2023-12-31'],
  string: ['a', 'London', 'usa'],
}

/** Changes the case of a random subset of letters (enum values and country codes are read in any case). */
const recase = (text: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((flips) => [...text].map((ch, i) => (flips[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''))

/**
 * Query parameters of `GET /companies` or `GET /fundings`: 0 to `maxParameters` filtering
 * parameters, maybe `sort`, `page` and `per_page`. Lists are pipe-joined; pass the object to
 * `new URLSearchParams(...)`.
 *
 * @example
 * fc.assert(fc.asyncProperty(listParamsArbitrary('companies', { values: snapshot }), async (params) => {
 *   const response = await app.fetch(new Request(`http://localhost/companies?${new URLSearchParams(params)}`))
 *   ...
 * }))
 */
export function listParamsArbitrary(endpoint: ListEndpoint, options: ListParamsArbitraryOptions = {}): fc.Arbitrary<Record<string, string>> {
  if (!Object.prototype.hasOwnProperty.call(LIST_PARAMETERS, endpoint)) {
    throw new Error(`listParamsArbitrary: endpoint: expected one of ${Object.keys(LIST_PARAMETERS).join(', ')}, got ${JSON.stringify(endpoint)}`)
  }
  const max = options.maxParameters ?? 3
  if (!Number.isInteger(max) || max < 0) throw new Error(`listParamsArbitrary: maxParameters: expected a non-negative integer, got ${JSON.stringify(max)}`)

  /** The field's occurring values as text, sorted, without the pipe that separates list items. */
  function occurring(def: ListParamDef, field: FieldDef): string[] {
    const dataset = def.via ?? LIST_DATASET[endpoint]
    const values = options.values ? distinctValues(options.values, dataset, field.name).sort(compareValues).map(String) : []
    return values.filter((v) => !v.includes('|') && v.trim() === v && v !== '' && v.length <= 200)
  }

  function pool(def: ListParamDef, field: FieldDef, fallback: readonly string[]): fc.Arbitrary<string> {
    const values = occurring(def, field)
    return fc.constantFrom(...(values.length > 0 ? values : fallback))
  }

  const list = (item: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.uniqueArray(item, { minLength: 1, maxLength: 3 }).map((items) => items.join('|'))

  /** `from~to`, `from~`, `~to` or one value. */
  const range = (bound: fc.Arbitrary<string>, order: (a: string, b: string) => number): fc.Arbitrary<string> =>
    fc.tuple(bound, bound, fc.constantFrom('between', 'from', 'to', 'one')).map(([a, b, form]) => {
      const [lo, hi] = order(a, b) <= 0 ? [a, b] : [b, a]
      return form === 'between' ? `${lo}~${hi}` : form === 'from' ? `${lo}~` : form === 'to' ? `~${hi}` : lo
    })

  function valueOf(def: ListParamDef): fc.Arbitrary<string> {
    const field = paramField(endpoint, def)
    switch (def.format) {
      case 'text_contains':
        return pool(def, field, FALLBACK.string!).chain((text) =>
          fc.tuple(fc.nat({ max: Math.max(0, text.length - 1) }), fc.integer({ min: 1, max: 6 })).map(([at, len]) => text.slice(Math.min(at, Math.max(0, text.length - len)), Math.min(at, Math.max(0, text.length - len)) + len)))
          .filter((piece) => piece.trim() !== '')
      case 'domain':
        return pool(def, field, ['example.com'])
      case 'numeric_range': {
        const values = occurring(def, field).filter((v) => NUMBER_TEXT.test(v))
        const bound = fc.constantFrom(...(values.length > 0 ? values : FALLBACK[field.type.kind === 'integer' ? 'integer' : 'number']!))
        return range(bound, (a, b) => Number(a) - Number(b))
      }
      case 'date_range': {
        const values = occurring(def, field).map((v) => v.slice(0, 10)).filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v))
        const bound = fc.tuple(fc.constantFrom(...(values.length > 0 ? values : FALLBACK.date!)), fc.boolean()).map(([d, compact]) => (compact ? d.replace(/-/g, '') : d))
        return range(bound, (a, b) => a.replace(/-/g, '').localeCompare(b.replace(/-/g, '')))
      }
      case 'date':
        return pool(def, field, FALLBACK.date!)
      case 'founding_phrase':
        return list(fc.constantFrom(...Object.keys(FOUNDING_PHRASES)))
      case 'funding_phrase':
        return fc.constantFrom(...Object.keys(FUNDING_PHRASES))
      case 'list':
        return list(pool(def, field, FALLBACK.string!))
      case 'country_list':
        return list(pool(def, field, ['USA', 'GBR', 'DEU']).filter((c) => /^[A-Za-z]{3}$/.test(c)).chain(recase))
      case 'enum_list': {
        const type = field.type
        if (type.kind !== 'enum') throw new Error(`listParamsArbitrary: ${def.name} is an enum list on a ${type.kind} field`)
        return list(fc.constantFrom(...type.values).chain(recase))
      }
      case 'tags_list':
        return list(pool(def, field, ['software']))
      case 'flag':
        return fc.constantFrom('0', '1')
      case 'investor_slugs':
        return list(pool(def, field, ['acme-ventures']))
      case 'investor_ids':
        return list(pool(def, field, ['1', '2']))
    }
  }

  const defs = LIST_PARAMETERS[endpoint]
  const sortNames = [...sortableNames(endpoint).keys()]
  // Two names may stand for one field (`cached_uniques` and `website_uniques`); a sort names each field once.
  const sortable = sortableNames(endpoint)
  const sort = fc.shuffledSubarray(sortNames, { minLength: 1, maxLength: 2 })
    .filter((names) => new Set(names.map((n) => sortable.get(n))).size === names.length)
    .chain((names) => fc.tuple(...names.map((n) => fc.boolean().map((desc) => (desc ? `-${n}` : n)))).map((terms) => terms.join(',')))
  return fc.record({
    filters: fc.shuffledSubarray([...defs], { minLength: 0, maxLength: Math.min(max, defs.length) })
      .chain((chosen) => fc.tuple(...chosen.map((def) => valueOf(def).map((v) => [def.name, v] as const)))),
    sort: fc.option(sort, { freq: 2 }),
    page: fc.option(fc.integer({ min: 1, max: 5 }), { freq: 2 }),
    per_page: fc.option(fc.integer({ min: 1, max: 50 }), { freq: 2 }),
  }).map(({ filters, sort, page, per_page }) => ({
    ...Object.fromEntries(filters),
    ...(sort !== null ? { sort } : {}),
    ...(page !== null ? { page: String(page) } : {}),
    ...(per_page !== null ? { per_page: String(per_page) } : {}),
  }))
}
