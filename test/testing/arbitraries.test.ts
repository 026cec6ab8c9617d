/**
 * @module The arbitraries of ventureql/testing: every filter, query and sort they generate passes
 * the checker; most generated filters select some but not all records of the fixture; the options
 * (depth, width, operators, foreign, values) hold; list parameters are accepted by the list
 * front-end; import lines pass the loader's record schema and load without a reject; and
 * `loadSnapshot` reads a database file as it reads the open database.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest'
import { checkQuery, datasets, DATASET_NAMES, formatIssues, OPERATOR_NAMES, parseQuery, resolveLimits, type CheckedQuery, type DatasetName, type Filter, type OperatorName, type QueryRequest } from '../../src/index.js'
import { QueryParams } from '../../src/http/params.js'
import { parseListParams } from '../../src/parse/list-params.js'
import { ingestAll } from '../../src/store/ingest.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { parseRecord } from '../../src/store/record-schemas.js'
import {
  createFixtureDatabase, filterArbitrary, importLinesArbitrary, listParamsArbitrary, loadSnapshot, queryArbitrary, recordArbitrary, referenceRows,
  sortArbitrary, type Snapshot,
} from '../../src/testing/index.js'
import { numRuns } from '../support/num-runs.js'

const LIMITS = resolveLimits({ maxPerPage: 100_000, maxCost: Number.MAX_SAFE_INTEGER })

let vdb: SqliteVentureDb
let snapshot: Snapshot
beforeAll(async () => {
  vdb = await createFixtureDatabase()
  snapshot = await loadSnapshot(vdb)
})
afterAll(async () => {
  await vdb?.close()
})

function checked(request: unknown): CheckedQuery {
  const parsed = parseQuery(request, LIMITS)
  if (!parsed.ok) throw new Error(`${JSON.stringify(request)}\n${formatIssues(parsed.issues)}`)
  const result = checkQuery(parsed.value, LIMITS)
  if (!result.ok) throw new Error(`${JSON.stringify(request)}\n${formatIssues(result.issues)}`)
  return result.value
}

/** Every key of every hash in a filter, with the path of hashes to it. */
function keysOf(filter: unknown, into: string[] = []): string[] {
  if (Array.isArray(filter)) for (const item of filter) keysOf(item, into)
  else if (typeof filter === 'object' && filter !== null) {
    for (const [key, value] of Object.entries(filter)) {
      into.push(key)
      keysOf(value, into)
    }
  }
  return into
}

/** The largest `and`/`or` in a filter, and its nesting depth of logical keys. */
function shape(filter: unknown): { widest: number; depth: number } {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return { widest: 0, depth: 0 }
  let widest = 0
  let depth = 0
  for (const [key, value] of Object.entries(filter)) {
    const children = key === 'and' || key === 'or' ? (value as unknown[]) : key === 'not' ? [value] : key === 'foreign' ? [(value as { filter: unknown }).filter] : []
    if (key === 'and' || key === 'or') widest = Math.max(widest, children.length)
    for (const child of children) {
      const inner = shape(child)
      widest = Math.max(widest, inner.widest)
      depth = Math.max(depth, inner.depth + 1)
    }
  }
  return { widest, depth }
}

describe('filters, queries and sorts', () => {
  test('filterArbitrary: every filter checks, and most select some but not all records', () => {
    // Pooled over the datasets the share is measured on 450 filters, so the bound holds with a wide
    // margin (it is about 0.58); each dataset on its own must clear a lower one.
    const shares: number[] = []
    let pooled = 0
    for (const dataset of DATASET_NAMES) {
      let partial = 0
      const runs = numRuns(150)
      fc.assert(fc.property(filterArbitrary(dataset, { values: snapshot }), (filter) => {
        const query = checked({ dataset, filter })
        const matched = referenceRows(query.filter, query.dataset, [], snapshot).length
        if (matched > 0 && matched < snapshot.datasets[dataset].ids.length) partial++
      }), { numRuns: runs })
      console.info(`filterArbitrary(${dataset}): ${partial} of ${runs} filters selected some but not all records`)
      shares.push(partial / runs)
      pooled += partial
    }
    expect(pooled / (numRuns(150) * DATASET_NAMES.length), 'share over every dataset').toBeGreaterThan(0.5)
    for (const [i, share] of shares.entries()) expect(share, DATASET_NAMES[i]).toBeGreaterThanOrEqual(0.4)
  })

  test('without values, filters still check (operands from a few values per type)', () => {
    fc.assert(fc.property(fc.constantFrom(...DATASET_NAMES).chain((dataset) => filterArbitrary(dataset).map((filter) => ({ dataset, filter }))), (request) => {
      checked(request)
    }), { numRuns: numRuns(100) })
  })

  test('depth, width, operators and foreign bound what is generated', () => {
    const allowed: OperatorName[] = ['eq', 'gte', 'is_null']
    const seen = { depth: 0, widest: 0, operators: new Set<string>() }
    fc.assert(fc.property(filterArbitrary('companies', { values: snapshot, depth: 2, width: 2, operators: allowed, foreign: false }), (filter) => {
      checked({ dataset: 'companies', filter })
      const keys = keysOf(filter)
      expect(keys).not.toContain('foreign')
      for (const key of keys) if ((OPERATOR_NAMES as readonly string[]).includes(key)) seen.operators.add(key)
      const { widest, depth } = shape(filter)
      expect(widest).toBeLessThanOrEqual(2)
      expect(depth).toBeLessThanOrEqual(2)
      seen.depth = Math.max(seen.depth, depth)
      seen.widest = Math.max(seen.widest, widest)
    }), { numRuns: numRuns(200) })
    expect([...seen.operators].sort()).toEqual(['eq', 'gte', 'is_null'])
    expect(seen.depth).toBe(2)
    expect(seen.widest).toBe(2)
    fc.assert(fc.property(filterArbitrary('fundings', { depth: 0 }), (filter) => {
      expect(keysOf(filter).filter((k) => ['and', 'or', 'not', 'foreign'].includes(k))).toEqual([])
    }), { numRuns: numRuns(50) })
  })

  test('with foreign on, foreign conditions appear in every mode', () => {
    const modes = new Set<string>()
    fc.assert(fc.property(filterArbitrary('investors', { values: snapshot, depth: 2 }), (filter) => {
      JSON.stringify(filter, (key, value: unknown) => {
        if (key === 'foreign') modes.add((value as { match?: string }).match ?? 'any')
        return value
      })
    }), { numRuns: numRuns(200) })
    expect([...modes].sort()).toEqual(['all', 'any', 'none'])
  })

  test('queryArbitrary and sortArbitrary: requests that check, sorts on distinct sortable fields', () => {
    fc.assert(fc.property(queryArbitrary('fundings', { values: snapshot, sugar: false }), sortArbitrary('investors'), (request, sort) => {
      expect(request.dataset).toBe('fundings')
      checked(request)
      const fields = sort.map((clause) => Object.keys(clause)[0]!)
      expect(new Set(fields).size).toBe(fields.length)
      for (const field of fields) expect(datasets.investors.fields[field]?.sortable, field).toBe(true)
      checked({ dataset: 'investors', sort })
    }), { numRuns: numRuns(100) })
  })

  test('they are typed per dataset', () => {
    expectTypeOf(filterArbitrary('companies')).toEqualTypeOf<fc.Arbitrary<Filter<'companies'>>>()
    expectTypeOf(queryArbitrary('investors')).toEqualTypeOf<fc.Arbitrary<QueryRequest<'investors'>>>()
    // @ts-expect-error 'company' is an alias the language accepts, not a dataset name the arbitraries take
    expect(() => filterArbitrary('company')).toThrow(/dataset: expected one of companies, investors, fundings, got "company"/)
  })

  test('bad options are refused, naming the option', () => {
    expect(() => filterArbitrary('companies', { depth: -1 })).toThrow(/maxDepth: expected an integer of at least 0, got -1/)
    expect(() => filterArbitrary('companies', { width: 0 })).toThrow(/width: expected an integer of at least 1, got 0/)
    expect(() => filterArbitrary('companies', { operators: [] })).toThrow(/operators: expected at least one operator name/)
    expect(() => filterArbitrary('companies', { operators: ['like' as OperatorName] })).toThrow(/operators: expected operator names .*got "like"/)
    expect(() => filterArbitrary('fundings', { operators: ['has_all'] })).toThrow(/no field of fundings allows any of the operators has_all/)
  })
})

describe('list parameters', () => {
  const NOW = new Date('2024-07-01T12:00:00Z')
  test.each(['companies', 'fundings'] as const)('listParamsArbitrary(%s): every set is accepted, and most filtering sets select some but not all records', (endpoint) => {
    let filtering = 0
    let partial = 0
    const names = new Set<string>()
    fc.assert(fc.property(listParamsArbitrary(endpoint, { values: snapshot }), (params) => {
      const read = parseListParams(endpoint, new QueryParams(new URLSearchParams(params)), { now: NOW })
      if (!read.ok) throw new Error(`${new URLSearchParams(params)}\n${formatIssues(read.issues)}`)
      const query = checked({ dataset: read.value.dataset, filter: read.value.filter, ...(read.value.sort ? { sort: read.value.sort } : {}) })
      for (const name of Object.keys(params)) names.add(name)
      if (read.value.parameters.length === 0) return
      filtering++
      const matched = referenceRows(query.filter, query.dataset, query.sort, snapshot).length
      if (matched > 0 && matched < snapshot.datasets[query.dataset.name].ids.length) partial++
    }), { numRuns: numRuns(200) })
    console.info(`listParamsArbitrary(${endpoint}): ${partial} of ${filtering} filtering sets selected some but not all records; ${names.size} parameter names seen`)
    expect(partial / filtering).toBeGreaterThanOrEqual(0.5)
    expect(names).toContain('sort')
    expect(names).toContain('per_page')
  })
})

describe('import lines', () => {
  test.each(DATASET_NAMES)('recordArbitrary(%s): every line passes the record schema', (dataset: DatasetName) => {
    let nulls = 0
    fc.assert(fc.property(recordArbitrary(dataset, { values: snapshot }), (line) => {
      const parsed = parseRecord(JSON.parse(JSON.stringify(line)))
      if (!parsed.ok) throw new Error(`${JSON.stringify(line)}\n${parsed.reason}`)
      expect(parsed.value.type).toBe(line.type)
      nulls += Object.values(line.record).filter((v) => v === null).length
    }), { numRuns: numRuns(100) })
    expect(nulls, 'no record left a nullable field null').toBeGreaterThan(0)
  })

  test('importLinesArbitrary: a consistent load that stores every record, funding events linked to their investors', () => {
    fc.assert(fc.property(importLinesArbitrary({ values: snapshot, maxPerDataset: 5 }), (lines) => {
      const target = openDatabase(':memory:')
      try {
        const summary = ingestAll(target, lines.map((line) => JSON.parse(JSON.stringify(line)) as unknown))
        expect(summary.rejected).toEqual([])
        const count = (type: string) => lines.filter((line) => line.type === type).length
        expect({ companies: summary.companies, investors: summary.investors, fundings: summary.fundings })
          .toEqual({ companies: count('company'), investors: count('investor'), fundings: count('funding') })
        const links = lines.filter((line) => line.type === 'funding').reduce((sum, line) => sum + ((line.record.investor_ids as unknown[] | undefined)?.length ?? 0), 0)
        expect(target.sqlite.prepare('select count(*) from funding_investors').pluck().get()).toBe(links)
      } finally {
        target.sqlite.close()
      }
    }), { numRuns: numRuns(15) })
  })
})

describe('loadSnapshot', () => {
  test('reads a SQLite file by path as it reads the open database, and closes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vql-snapshot-'))
    try {
      const file = join(dir, 'fixture.db')
      const written = await createFixtureDatabase({ file, companies: 40 })
      const fromOpen = await loadSnapshot(written)
      await written.close()
      const fromPath = await loadSnapshot(file)
      for (const name of DATASET_NAMES) {
        expect(fromPath.datasets[name].ids).toEqual(fromOpen.datasets[name].ids)
        expect([...fromPath.datasets[name].rows]).toEqual([...fromOpen.datasets[name].rows])
      }
      expect([...fromPath.links.keys()].sort()).toEqual([...fromOpen.links.keys()].sort())
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('refuses what is not a database, saying what it expected', async () => {
    await expect(loadSnapshot(join(tmpdir(), 'vql-no-such-file.db'))).rejects.toThrow(/does not exist/)
    await expect(loadSnapshot({} as never)).rejects.toThrow(/expected an open ventureql database, a SQLite file path or a postgres:\/\/ URL, got object/)
    await expect(loadSnapshot(42 as never)).rejects.toThrow(/got number/)
  })
})
