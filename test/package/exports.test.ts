/**
 * The package index exports the public API the embedding guide documents, and the guide's library example
 * runs as written (on the fixture database instead of a file).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as ventureql from '../../src/index.js'
import * as internal from '../../src/internal.js'

describe('package index', () => {
  it('exports every name the embedding guide documents', () => {
    const guide = readFileSync(new URL('../../grammar-docs/guides/embedding.md', import.meta.url), 'utf8')
    const documented = [
      'createEngine', 'formatIssues', 'parseQuery', 'parseFilter', 'checkQuery', 'checkFilter', 'planQuery',
      'compileFilter', 'printFilter', 'canonicalQuery', 'queryIdOf', 'datasets', 'relations', 'OPERATORS', 'toProblem',
    ]
    for (const name of documented) {
      expect(guide, `the embedding guide mentions ${name}`).toContain(name)
      expect(ventureql, `index exports ${name}`).toHaveProperty(name)
    }
    // What the guides name besides: the typed entry, the errors calls reject with, the databases.
    for (const name of [
      'typedEngine', 'openDatabase', 'openPostgres', 'copyToPostgres', 'refreshPostgresSearchIndex', 'buildSimilarIndex',
      'KeyRefusedError', 'QueryTimeoutError', 'QueryCancelledError', 'EngineClosedError', 'PostgresConnectionError',
    ]) {
      expect(ventureql, `index exports ${name}`).toHaveProperty(name)
    }
  })

  it('keeps internals out of the root: they are under ventureql/internal', () => {
    for (const name of ['bumpDataVersion', 'dataVersion', 'createFixtureDatabase', 'Ingestor', 'PostgresIngestor', 'generateRecords', 'evaluate', 'loadSnapshot', 'sortRecords', 'querySchema', 'specifiedRules', 'build']) {
      expect(ventureql, `the root does not export ${name}`).not.toHaveProperty(name)
      expect(internal, `ventureql/internal exports ${name}`).toHaveProperty(name)
    }
  })

  it('the errors are the classes calls reject with', async () => {
    const vdb = await internal.createFixtureDatabase()
    const engine = ventureql.createEngine({ database: vdb, workers: 0 })
    await engine.close()
    await expect(engine.count({ dataset: 'companies' })).rejects.toBeInstanceOf(ventureql.EngineClosedError)
    await vdb.close()
  })

  it('runs the embedding guide\'s library example: a query, then page 2 by its id', async () => {
    const vdb = await internal.createFixtureDatabase()
    const engine = ventureql.createEngine({ database: vdb })
    try {
      const result = await engine.query({
        dataset: 'investor',
        filter: { and: [
          { portfolio_size: { gte: 2 } },
          { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech'] } } } },
        ] },
        sort: [{ portfolio_size: 'desc' }],
        per_page: 5,
      })
      if (!result.ok) throw new Error(ventureql.formatIssues(result.issues))
      const { query_id, meta, results } = result.value
      expect(meta.total_record_count).toBeGreaterThan(5)
      expect(results).toHaveLength(5)
      const page2 = await engine.page(query_id, { page: 2, per_page: 5 })
      if (!page2.ok) throw new Error(ventureql.formatIssues(page2.issues))
      expect(page2.value.meta.current_page).toBe(2)
      const ids = [...results, ...page2.value.results].map((r) => r.investor_id)
      expect(new Set(ids).size).toBe(ids.length)
    } finally {
      await engine.close()
      await vdb.close()
    }
  })
})
