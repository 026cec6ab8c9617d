/**
 * The canonical form and id of stored queries: what is normalised (grouping, order, duplicates,
 * list order, one-value `in`, double negation, key order) and what is not (sort order, dataset,
 * values), and the id's shape and dependence on query_version. Then the bounds on storing them:
 * at the execute level (`storageIssues`, `storeQuery`, `enforceOwnerBound`, `expireStoredQueries`)
 * and through `createEngine` on SQLite (test/support/stored-query-storage.ts; the same suite runs on
 * PostgreSQL in test/postgres/stored-queries.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { and, condition as c, foreign, not, or } from '../../src/ast/factory.js'
import { CATALOG_VERSION } from '../../src/catalog/index.js'
import { canonicalFilter, canonicalJson, canonicalQuery, queryIdOf, QUERY_VERSION } from '../../src/execute/index.js'
import { enforceOwnerBound, expireStoredQueries, storageIssues, storedBytes, storeQuery } from '../../src/execute/stored-queries.js'
import { openDatabase } from '../../src/store/open.js'
import { checked } from '../compile/helpers.js'
import { storedQueryStorageSuite } from '../support/stored-query-storage.js'

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

describe('storing, at the execute level', () => {
  const query = (names: readonly string[]) => canonicalQuery(checked('companies', c('name', 'in', names, p)))

  it('storageIssues measures the canonical JSON in UTF-8 bytes against maxStoredQueryBytes', () => {
    const q = query(['Zoë', 'Ång'])
    const bytes = storedBytes(q)
    expect(bytes).toBe(Buffer.byteLength(canonicalJson(q), 'utf8'))
    expect(bytes).toBe(canonicalJson(q).length + 2)
    expect(storageIssues(q, { maxStoredQueryBytes: bytes })).toEqual([])
    expect(storageIssues(q, { maxStoredQueryBytes: bytes - 1 })).toEqual([{
      code: 'limit_exceeded',
      path: '/filter',
      message: `The query is ${bytes} bytes as stored (canonical JSON); the limit (maxStoredQueryBytes) is ${bytes - 1} bytes. Shorten its lists, or split it into several queries.`,
      expected: `at most ${bytes - 1} bytes`,
      got: `${bytes} bytes`,
    }])
  })

  it('storeQuery with a clock: created and last used at that time; the sweep of the first store expires by it', async () => {
    const vdb = openDatabase(':memory:')
    try {
      await vdb.db.insertInto('stored_queries').values({ query_id: 'old', query_version: QUERY_VERSION, dataset: 'companies', canonical: '{}', created_at: '2024-01-01 00:00:00', owner: 'o', bytes: 2, last_used_at: '2024-01-01 00:00:00' }).execute()
      const now = new Date('2024-03-01T12:00:00Z')
      const stored = await storeQuery(vdb.db, query(['a']), { owner: 'o', now, limits: { maxStoredQueryBytes: 1e6, maxStoredBytesPerOwner: 1e6, storedQueryDays: 30 } })
      const rows = await vdb.db.selectFrom('stored_queries').select(['query_id', 'created_at', 'last_used_at', 'owner']).execute()
      expect(rows).toEqual([{ query_id: stored.query_id, created_at: '2024-03-01 12:00:00', last_used_at: '2024-03-01 12:00:00', owner: 'o' }])
    } finally {
      await vdb.close()
    }
  })

  it('enforceOwnerBound and expireStoredQueries delete exactly what exceeds, oldest first', async () => {
    const vdb = openDatabase(':memory:')
    try {
      const insert = (id: string, owner: string | null, bytes: number, lastUsed: string) =>
        vdb.db.insertInto('stored_queries').values({ query_id: id, query_version: QUERY_VERSION, dataset: 'companies', canonical: '{}', created_at: lastUsed, owner, bytes, last_used_at: lastUsed }).execute()
      await insert('a1', 'a', 100, '2024-01-03 00:00:00')
      await insert('a2', 'a', 100, '2024-01-01 00:00:00')
      await insert('a3', 'a', 100, '2024-01-02 00:00:00')
      await insert('b1', 'b', 500, '2023-01-01 00:00:00')
      await insert('n1', null, 500, '2023-01-01 00:00:00')
      // Stored by code from before migration 010 (no last_used_at), recently: not expired.
      await vdb.db.insertInto('stored_queries').values({ query_id: 'legacy', query_version: QUERY_VERSION, dataset: 'companies', canonical: '{}', created_at: '2024-01-31 00:00:00' }).execute()
      expect(await enforceOwnerBound(vdb.db, 'a', 'a1', 300)).toEqual([])
      expect(await enforceOwnerBound(vdb.db, 'a', 'a1', 150)).toEqual(['a2', 'a3'])
      // The query just stored is never the one to go, even when it alone is over the bound.
      expect(await enforceOwnerBound(vdb.db, 'a', 'a1', 50)).toEqual([])
      expect(await enforceOwnerBound(vdb.db, null, 'x', 100)).toEqual(['n1'])
      expect(await enforceOwnerBound(vdb.db, 'b', 'x', Number.POSITIVE_INFINITY)).toEqual([])
      expect(await expireStoredQueries(vdb.db, { days: 30, now: new Date('2024-02-01T00:00:00Z') })).toEqual(['b1'])
      expect(await vdb.db.selectFrom('stored_queries').select('query_id').orderBy('query_id').execute()).toEqual([{ query_id: 'a1' }, { query_id: 'legacy' }])
    } finally {
      await vdb.close()
    }
  })
})

storedQueryStorageSuite('SQLite', async () => {
  const vdb = openDatabase(':memory:')
  return { vdb, close: () => vdb.close() }
})
