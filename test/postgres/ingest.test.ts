/**
 * Import and generate straight into PostgreSQL (`PostgresIngestor`, COPY): the same rows in every
 * table as the SQLite loader writes for the same input (generated data, a JSON Lines file with bad
 * lines, a second import that replaces records of a loaded schema), the same rejects, the data
 * version moving, a failed COPY rolling the whole load back, the `changed` summary and the
 * `afterLoad` hook, and the CLI (`generate`/`import --database postgres://...`, an unreachable
 * server, a database that does not exist).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importFiles } from '../../src/cli/import.js'
import { createEngine } from '../../src/engine.js'
import { tablesToCopy } from '../../src/store/copy.js'
import { generateInto, generateIntoDatabase } from '../../src/store/generate/build.js'
import { generateRecords } from '../../src/store/generate/generator.js'
import { loadPhases, RECORDS_PHASE } from '../../src/store/load-phases.js'
import type { IngestChanged } from '../../src/store/ingest.js'
import { PostgresIngestor } from '../../src/store/ingest-postgres.js'
import { dataVersion, openDatabase, type PostgresVentureDb, type SqliteVentureDb } from '../../src/store/open.js'
import { parseRecord } from '../../src/store/record-schemas.js'
import { PG_URL, testSchema, type TestSchema } from './support.js'

let dir: string
const schemas: TestSchema[] = []
const sqlites: SqliteVentureDb[] = []

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ventureql-pgingest-'))
})
afterAll(async () => {
  for (const s of sqlites.splice(0)) await s.close()
  for (const s of schemas.splice(0)) await s.drop()
  rmSync(dir, { recursive: true, force: true })
})

async function freshSchema(label: string): Promise<{ schema: TestSchema; pg: PostgresVentureDb }> {
  const schema = await testSchema(label)
  schemas.push(schema)
  return { schema, pg: await schema.open() }
}

function sqliteFile(name: string): SqliteVentureDb {
  const vdb = openDatabase(join(dir, name))
  sqlites.push(vdb)
  return vdb
}

/** Every row of a table as sorted JSON lines (order-independent; numbers compare as numbers). */
function normalise(rows: readonly unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r.map((v) => (typeof v === 'bigint' ? Number(v) : v)))).sort()
}

async function pgTable(pg: PostgresVentureDb, table: string, columns: readonly string[]): Promise<string[]> {
  const { rows } = await sql<Record<string, unknown>>`select ${sql.join(columns.map((c) => sql.ref(c)))} from ${sql.table(table)}`.execute(pg.db)
  return normalise(rows.map((r) => columns.map((c) => r[c])))
}

function sqliteTable(vdb: SqliteVentureDb, table: string, columns: readonly string[]): string[] {
  return normalise(vdb.sqlite.prepare(`select ${columns.map((c) => `"${c}"`).join(', ')} from "${table}"`).raw(true).all() as unknown[][])
}

/** Every loaded table holds the same rows on both backends; returns the total row count. */
async function expectSameTables(lite: SqliteVentureDb, pg: PostgresVentureDb): Promise<number> {
  let total = 0
  for (const { table, columns } of tablesToCopy()) {
    const expected = sqliteTable(lite, table, columns)
    const actual = await pgTable(pg, table, columns)
    expect(actual.length, `${table} rows`).toBe(expected.length)
    expect(actual, table).toEqual(expected)
    total += expected.length
  }
  return total
}

function writeJsonl(name: string, lines: readonly string[]): string {
  const file = join(dir, name)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

/** Good and bad lines: the same as test/store/import.test.ts, plus a repeated company and bad JSON. */
const MIXED = [
  { type: 'investor', record: { investor_id: 7, name: 'Acme VC', type: 'vc', svc_slug: 'acme-vc' } },
  { type: 'investor', record: { id: '8', name: 'Bea Angel', type: 'Angel', svc_slug: 'bea' } },
  { type: 'company', record: { id: '1', name: 'Foo', employees: '40', stage: 'exited (acquired)', last_funding_date: '20200105', industries: ['SaaS', 'SaaS', 'AI'],
    funding: [{ id: 11, amount: 1000, currency: 'USD', series: 'a', funding_date: '2019-01-01', investor_ids: [7] }],
    acquired_companies: [{ event_id: 90, company_id: 2, company_name: 'Bar' }], tech_stack: ['react', 'react', { title: 'go' }],
    contacts: [{ name: 'Ann', email: 'a@x' }, { name: 'Ann', email: 'ann@x' }] } },
  { type: 'company', record: { id: '2', name: 'Bar', employees: 'many' } }, // bad employees
  { type: 'funding', record: { id: '12', company_id: '1', amount: '500', currency: 'EUR', series: '', rounds_funding_date: '2020-01-05', investor_slugs: 'bea,acme-vc' } },
  { type: 'investor', record: { name: 'No id' } }, // missing id
  { type: 'company', record: { id: 3, stage: 'series z' } }, // bad enum
  { type: 'company', record: { id: 4, name: 'Baz', acquired_by: [{ event_id: 90, company_id: 1, closed_date: '2021-02-03' }], stories: [{ id: 5, title: 'News', url: 'https://x' }] } },
  { type: 'company', record: { id: '1', name: 'Foo again', employees: 41, industries: ['AI'], funding: [{ id: 11, amount: 2000, currency: 'USD', series: 'b', funding_date: '2019-06-01', investor_ids: [8] }] } },
].map((l) => JSON.stringify(l))
const MIXED_LINES = [...MIXED, '', '{not json']

const VERSION = /; data version \d+$/

describe('import into PostgreSQL', () => {
  it('a file with bad lines: the same summary, the same rejects and the same rows as on SQLite', async () => {
    const file = writeJsonl('mixed.jsonl', MIXED_LINES)
    const { pg, schema } = await freshSchema('imp')
    const liteOut: string[] = []
    const pgOut: string[] = []
    const liteResult = await importFiles(join(dir, 'mixed.db'), [file], (l) => liteOut.push(l))
    const pgResult = await importFiles(PG_URL, [file], (l) => pgOut.push(l), { schema: schema.name, postgres: {} })
    expect(pgResult.rejected).toBe(4)
    expect(pgResult.rejected).toBe(liteResult.rejected)
    // The data version differs by design (SQLite moves it at the start of a load too).
    expect(pgOut[0]!.replace(VERSION, '')).toBe(liteOut[0]!.replace(VERSION, ''))
    expect(pgOut.slice(1)).toEqual(liteOut.slice(1))
    // Every record stored, funding items of company records included; the repeated company and its item are updates.
    expect(pgOut[0]).toBe('imported 3 companies (2 new, 1 update), 2 investors, 3 funding events (2 in company records, 1 funding records; 2 new, 1 update), '
      + '3 investor links; rejected 4; data version 1')
    // What the tables gained, counted by both loaders, is what they hold (the schema and the file were empty).
    const rows = { companies: 2, investors: 2, fundings: 2, fundingInvestors: 3 }
    expect(pgResult.summary.added).toEqual(rows)
    expect(liteResult.summary.added).toEqual(rows)
    for (const [table, n] of [['companies', 2], ['investors', 2], ['fundings', 2], ['funding_investors', 3]] as const) {
      expect(Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(pg.db)).rows[0]!.n), table).toBe(n)
    }
    const lite = sqliteFile('mixed.db')
    expect(await expectSameTables(lite, pg)).toBeGreaterThan(15)
    // The acquisition seen from both sides merged into one row; slugs resolved; derived totals.
    expect(await pgTable(pg, 'acquisitions', ['event_id', 'acquirer_id', 'acquired_id', 'closed_date'])).toEqual([JSON.stringify([90, 1, 4, '2021-02-03'])])
    expect(await pgTable(pg, 'funding_investors', ['funding_id', 'investor_id'])).toEqual(['[11,8]', '[12,7]', '[12,8]'])
  })

  it('into a loaded schema: replaced records, changed ids, the afterLoad hook and a new data version, as on SQLite', async () => {
    const { pg } = await freshSchema('repl')
    const lite = sqliteFile('repl.db')
    generateInto(lite, { companies: 120, seed: 1, asOf: '2024-06-30' })
    await generateIntoDatabase(pg, { companies: 120, seed: 1, asOf: '2024-06-30', postgres: {} })
    await expectSameTables(lite, pg)
    const before = await dataVersion(pg)

    // Other records under the same ids (another seed), one company twice, small batches so the
    // replacements span batches and the schema's stored rows.
    const envelopes = [...generateRecords({ companies: 30, seed: 9 })].map((e) => JSON.stringify(e))
    const firstCompany = envelopes.find((l) => l.startsWith('{"type":"company"'))!
    const file = writeJsonl('replace.jsonl', [...envelopes, firstCompany, ...MIXED])

    const liteOut: string[] = []
    await importFiles(join(dir, 'repl.db'), [file], (l) => liteOut.push(l))
    const calls: (IngestChanged | undefined)[] = []
    const pgOut: string[] = []
    const pgIngest = await PostgresIngestor.open(pg, { batchSize: 7, afterLoad: async (_vdb, changed) => { calls.push(changed) } })
    const lines = [...envelopes, firstCompany, ...MIXED]
    lines.forEach((l, k) => pgIngest.add(JSON.parse(l), k + 1))
    await pgIngest.drain()
    const summary = await pgIngest.finish()
    pgOut.push(`rejected ${summary.rejected.length}`)
    expect(summary.rejected.map((r) => r.line)).toEqual([envelopes.length + 2 + 3, envelopes.length + 2 + 5, envelopes.length + 2 + 6])

    await expectSameTables(lite, pg)
    expect(summary.dataVersion).toBeGreaterThan(before)
    expect(await dataVersion(pg)).toBe(summary.dataVersion)
    expect(calls).toHaveLength(1)
    expect(calls[0]).toEqual(summary.changed)
    const changed = summary.changed!
    expect(changed.companyIds).toEqual(expect.arrayContaining([1, 4, 30]))
    expect(changed.companyIds).not.toContain(31)
    expect(changed.investorIds).toEqual(expect.arrayContaining([7, 8]))

    // The engine answers the same on both.
    const liteEngine = createEngine({ database: lite })
    const pgEngine = createEngine({ database: pg })
    try {
      for (const query of [
        { dataset: 'companies', filter: { total_funding: { gt: 0 } }, sort: [{ field: 'total_funding', direction: 'desc' }], page: { size: 20 } },
        { dataset: 'investors', filter: {}, sort: [{ field: 'portfolio_size', direction: 'desc' }], page: { size: 10 } },
      ] as const) {
        expect(await pgEngine.list(query as never)).toEqual(await liteEngine.list(query as never))
      }
    } finally {
      await liteEngine.close()
      await pgEngine.close()
    }
  })

  it('a COPY the server refuses mid-load rolls the whole load back and says so', async () => {
    const { pg } = await freshSchema('fail')
    await generateIntoDatabase(pg, { companies: 20, seed: 1, postgres: {} })
    const version = await dataVersion(pg)
    const count = async () => Number((await sql<{ n: string }>`select count(*) as n from companies`.execute(pg.db)).rows[0]!.n)
    const before = await count()
    await sql`alter table companies add constraint no_boom check (name <> 'Boom')`.execute(pg.db)
    const ingest = await PostgresIngestor.open(pg, { batchSize: 3 })
    let error: unknown
    try {
      for (let id = 100; id < 130; id++) {
        ingest.add({ type: 'company', record: { id, name: id === 120 ? 'Boom' : `C${id}` } }, id)
        const wait = ingest.drain()
        if (wait) await wait
      }
      await ingest.finish()
    } catch (e) {
      error = e
      await ingest.abort()
    }
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(/rolled back \(nothing of it was kept\).*no_boom/)
    expect(await count()).toBe(before)
    expect(await dataVersion(pg)).toBe(version)
  })

  it('two loads into one schema run one after the other: the second sees what the first wrote', async () => {
    const { pg } = await freshSchema('two')
    const first = await PostgresIngestor.open(pg)
    let secondOpen = false
    const second = PostgresIngestor.open(pg).then((ingest) => { secondOpen = true; return ingest })
    first.add({ type: 'company', record: { id: 500, name: 'First' } }, 1)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(secondOpen).toBe(false)
    await first.finish()
    const next = await second
    next.add({ type: 'company', record: { id: 500, name: 'Second' } }, 1)
    const summary = await next.finish()
    expect(summary.changed?.companyIds).toEqual([500])
    expect(await pgTable(pg, 'companies', ['id', 'name'])).toEqual(['[500,"Second"]'])
  })

  it('text PostgreSQL cannot store is a rejected line (as on SQLite: the decoders refuse it), not a failed load', async () => {
    const { pg } = await freshSchema('nul')
    const ingest = await PostgresIngestor.open(pg)
    expect(ingest.add({ type: 'company', record: { id: 1, name: 'a\u0000b' } }, 1)).toBe(false)
    expect(ingest.add({ type: 'company', record: { id: 2, name: 'ok' } }, 2)).toBe(true)
    const summary = await ingest.finish()
    expect(summary.rejected).toEqual([{ line: 1, reason: expect.stringMatching(/^company\.name: .*NUL character/) }])
    expect(summary.companies).toBe(1)
  })
})

describe('generate into PostgreSQL', () => {
  it('the same seed and size give the same rows as on SQLite, and record lookups agree', async () => {
    const { pg } = await freshSchema('gen')
    const lite = sqliteFile('gen.db')
    const liteSummary = generateInto(lite, { companies: 400, seed: 5, asOf: '2024-06-30' })
    const steps: string[] = []
    const pgSummary = await generateIntoDatabase(pg, { companies: 400, seed: 5, asOf: '2024-06-30', postgres: {}, onProgress: (p) => { if (p.step && steps.at(-1) !== p.step) steps.push(p.step) } })
    expect({ ...pgSummary, dataVersion: 0 }).toEqual({ ...liteSummary, dataVersion: 0 })
    expect(pgSummary.changed).toBeUndefined()
    // The phases progress estimates against (store/load-phases.ts), in the loader's order; no afterLoad hook here.
    expect([RECORDS_PHASE, ...steps, 'after load']).toEqual(loadPhases('postgres', { rebuildsIndexes: true }).map((p) => p.name))
    expect(pgSummary.added.fundings).toBe(pgSummary.fundings)
    expect(pgSummary.added.fundings).toBe(Number((await sql<{ n: string }>`select count(*) as n from fundings`.execute(pg.db)).rows[0]!.n))
    expect(await expectSameTables(lite, pg)).toBeGreaterThan(5000)
    // Indexes dropped for the load are back.
    const indexes = async () => Number((await sql<{ n: string }>`select count(*) as n from pg_indexes where schemaname = current_schema()`.execute(pg.db)).rows[0]!.n)
    const other = await freshSchema('gen_idx')
    expect(await indexes()).toBe(await (async () => Number((await sql<{ n: string }>`select count(*) as n from pg_indexes where schemaname = current_schema()`.execute(other.pg.db)).rows[0]!.n))())
  })

  it('parses generated records once: every generated envelope validates', () => {
    for (const e of generateRecords({ companies: 30, seed: 2 })) expect(parseRecord(e).ok).toBe(true)
  })
})

/** Runs the CLI in a child process through tsx, as a user would. */
function cli(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 120_000 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('ventureql generate/import --database postgres://...', () => {
  it('generate, then import a file with bad lines, into one schema', async () => {
    const { pg, schema } = await freshSchema('cli')
    const gen = cli(['generate', '--companies', '60', '--database', PG_URL, '--schema', schema.name])
    expect(gen.stderr).not.toMatch(/error/i)
    expect(gen.status).toBe(0)
    expect(gen.stdout).toMatch(new RegExp(`\\(schema ${schema.name}\\): 60 companies, 6 investors, \\d+ funding events, data version 1, .* \\(dated as of \\d{4}-\\d{2}-\\d{2}\\)\n$`))
    const file = writeJsonl('cli.jsonl', MIXED_LINES)
    const counts = async () => Object.values((await sql<Record<string, string>>`select (select count(*) from companies) as c, (select count(*) from investors) as i,
      (select count(*) from fundings) as f, (select count(*) from funding_investors) as l`.execute(pg.db)).rows[0]!).map(Number)
    const before = await counts()
    const imp = cli(['import', '--database', PG_URL, '--schema', schema.name, file])
    expect(imp.status).toBe(1) // lines were rejected
    // Companies 1 and 4 and funding events 11 and 12 were generated already: the file updates them.
    const [c, i, f, l] = (await counts()).map((n, k) => n - before[k]!)
    expect([c, i, f]).toEqual([0, 2, 0])
    expect(imp.stdout).toMatch(new RegExp('^imported 3 companies \\(0 new, 3 updates\\), 2 investors, 3 funding events \\(2 in company records, 1 funding records; 0 new, 3 updates\\), '
      + `${l! >= 0 ? l : `${-l!} fewer`} investor links; rejected 4; data version 2\n`))
    // Progress on stderr: the records, then the phases after them, each with an estimate.
    expect(imp.stderr).toMatch(/^import: 0% \| records .*\n(?:.*\n)*import: \d+% \| investments \(phase \d+ of \d+\) \| .*\n(?:.*\n)*import: done in /)
    expect(imp.stderr).not.toMatch(/\b0s left|LLs/)
    expect(imp.stdout).toContain(`${file}:4: company.employees: expected an integer (number or numeric string), got "many"`)
    expect(await dataVersion(pg)).toBe(2)
    // generate replaces the schema's data, as it replaces its output file.
    const again = cli(['generate', '--companies', '10', '--database', PG_URL, '--schema', schema.name])
    expect(again.status).toBe(0)
    expect(Number((await sql<{ n: string }>`select count(*) as n from companies`.execute(pg.db)).rows[0]!.n)).toBe(10)
  })

  it('an unreachable server: one line and exit code 1', () => {
    for (const command of [['generate', '--companies', '5'], ['import', join(dir, 'mixed.jsonl')]]) {
      const r = cli([...command, '--database', 'postgres://postgres@127.0.0.1:1/test'])
      expect(r.status).toBe(1)
      expect(r.stderr.trim().split('\n').filter((l) => !/^generate: /.test(l))).toEqual([expect.stringMatching(/^ventureql: cannot reach PostgreSQL at 127\.0\.0\.1:1\/test: .*is the server running/)])
    }
  })

  it('a database that does not exist is named, with how to create it', () => {
    writeJsonl('one.jsonl', [MIXED[0]!])
    const r = cli(['import', '--database', 'postgres://postgres@127.0.0.1:5432/vq_no_such_db', join(dir, 'one.jsonl')])
    expect(r.status).toBe(1)
    expect(r.stderr.trim()).toMatch(/^ventureql: PostgreSQL at 127\.0\.0\.1:5432\/vq_no_such_db has no database "vq_no_such_db".*createdb vq_no_such_db/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
})
