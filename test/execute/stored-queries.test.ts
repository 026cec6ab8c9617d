/**
 * The canonical form and id of stored queries: what is normalised (grouping, order, duplicates,
 * list order, one-value `in`, double negation, key order) and what is not (sort order, dataset,
 * values), and the id's shape and dependence on query_version.
 */
import { describe, expect, it } from 'vitest'
import { and, condition as c, foreign, not, or } from '../../src/ast/factory.js'
import { CATALOG_VERSION } from '../../src/catalog/index.js'
import { canonicalFilter, canonicalJson, canonicalQuery, queryIdOf, QUERY_VERSION } from '../../src/execute/index.js'
import { checked } from '../compile/helpers.js'

const p = '/filter'
const A = c('employees', 'gte', 10, p)
const B = c('stage', 'in', ['c', 'a', 'b', 'a'], p)
const C = c('name', 'contains', 'x', p)

describe('canonical form', () => {
  it('writes conditions as {field: {operator: value}} with sorted, de-duplicated lists', () => {
    expect(canonicalFilter(B)).toEqual({ stage: { in: ['a', 'b', 'c'] } })
    expect(canonicalFilter(c('employees', 'in', [10, 2, 33, 2], p))).toEqual({ employees: { in: [2, 10, 33] } })
    expect(canonicalFilter(c('industries', 'has_all', ['b', 'a'], p))).toEqual({ industries: { has_all: ['a', 'b'] } })
  })

  it('turns a one-value in into eq, and drops double negation', () => {
    expect(canonicalFilter(c('stage', 'in', ['a', 'a'], p))).toEqual({ stage: { eq: 'a' } })
    expect(canonicalFilter(not(not(A, p), p))).toEqual({ employees: { gte: 10 } })
    expect(canonicalFilter(not(A, p))).toEqual({ not: { employees: { gte: 10 } } })
  })

  it('flattens, sorts and de-duplicates and/or children, and unwraps a single child', () => {
    const x = canonicalFilter(and([A, and([B, C], p)], p))
    const y = canonicalFilter(and([and([C, A], p), B, A], p))
    expect(canonicalJson(x)).toBe(canonicalJson(y))
    expect((x as { and: unknown[] }).and).toHaveLength(3)
    expect(canonicalFilter(or([A, A], p))).toEqual({ employees: { gte: 10 } })
    // and inside or is not flattened into the or.
    expect(canonicalFilter(or([A, and([B, C], p)], p))).toHaveProperty('or')
  })

  it('always states the foreign match mode', () => {
    expect(canonicalFilter(foreign('companies', A, 'any', p))).toEqual({ foreign: { dataset: 'companies', filter: { employees: { gte: 10 } }, match: 'any' } })
  })

  it('serialises with keys sorted at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).toBe('{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}')
  })
})

describe('query id', () => {
  const base = canonicalQuery(checked('companies', and([A, B], p), [['svc_score', 'desc']]))

  it('is 22 URL-safe characters, stable for the same content', () => {
    const id = queryIdOf(base)
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(queryIdOf(canonicalQuery(checked('companies', and([B, A], p), [['svc_score', 'desc']])))).toBe(id)
  })

  it('differs for another sort, dataset, value or query_version', () => {
    const id = queryIdOf(base)
    expect(queryIdOf(canonicalQuery(checked('companies', and([A, B], p), [['svc_score', 'asc']])))).not.toBe(id)
    expect(queryIdOf(canonicalQuery(checked('companies', and([A, c('stage', 'in', ['a', 'b'], p)], p), [['svc_score', 'desc']])))).not.toBe(id)
    expect(queryIdOf(canonicalQuery(checked('investors', c('portfolio_size', 'gte', 10, p), [])))).not.toBe(queryIdOf(canonicalQuery(checked('investors', c('portfolio_size', 'gte', 11, p), []))))
    expect(queryIdOf(base, QUERY_VERSION + 1)).not.toBe(id)
  })

  it('combines the language and catalog versions', () => {
    expect(QUERY_VERSION % 1000).toBe(CATALOG_VERSION)
  })
})
