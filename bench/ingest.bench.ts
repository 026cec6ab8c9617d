/**
 * @module Loader throughput. Three cases, each against a baseline measured in the same run:
 * - decoding (the loader's validation of every record) against merely generating the records:
 *   pure JavaScript of the same size, so the ratio survives a loaded machine;
 * - everything `ventureql generate` does (a fresh file, unsafe-fast load, derived data, index
 *   rebuild, ANALYZE) against generating alone;
 * - the `Ingestor` on records held in memory against inserting the resulting rows raw (prepared
 *   statements in one transaction, no validation, no derived data, no secondary indexes) into the
 *   same schema: what validation and derivation cost on top of SQLite's own work. Design section 8
 *   measured ~130k companies/s for a raw load.
 * Size: `BENCH_INGEST_COMPANIES` (default 10000); runs: `BENCH_INGEST_RUNS` (default 3).
 * `npx tsx bench/ingest.bench.ts` or `npm run bench -- ingest`.
 */
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateInto } from '../src/store/generate/build.js'
import { generateRecords } from '../src/store/generate/generator.js'
import { Ingestor } from '../src/store/ingest.js'
import { openDatabase } from '../src/store/open.js'
import { parseRecord } from '../src/store/record-schemas.js'
import { BENCH_AS_OF } from './support/dataset.js'
import { runBench } from './support/measure.js'

const companies = Number(process.env.BENCH_INGEST_COMPANIES ?? 10_000)
if (!Number.isSafeInteger(companies) || companies < 1000) throw new Error(`BENCH_INGEST_COMPANIES must be an integer >= 1000, got ${JSON.stringify(process.env.BENCH_INGEST_COMPANIES)}`)
const runs = Number(process.env.BENCH_INGEST_RUNS ?? 3)
const envelopes = [...generateRecords({ companies, seed: 1, asOf: BENCH_AS_OF })]

const generateOnly = () => {
  let records = 0
  for (const _ of generateRecords({ companies, seed: 1, asOf: BENCH_AS_OF })) records++
  return records
}

const decodeAll = () => {
  for (const envelope of generateRecords({ companies, seed: 1, asOf: BENCH_AS_OF })) {
    const parsed = parseRecord(envelope)
    if (!parsed.ok) throw new Error(parsed.reason)
  }
}

const file = join(tmpdir(), `ventureql-ingest-bench-${process.pid}.db`)
const removeFile = () => { for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, { force: true }) }

/** The `ventureql generate` path. */
const generateFile = async () => {
  removeFile()
  const vdb = openDatabase(file)
  try {
    generateInto(vdb, { companies, seed: 1, asOf: BENCH_AS_OF, ingest: { unsafeFast: true } })
  } finally {
    await vdb.close()
  }
}

function ingest() {
  const vdb = openDatabase(':memory:')
  const ingestor = new Ingestor(vdb)
  for (const envelope of envelopes) {
    const parsed = parseRecord(envelope)
    if (!parsed.ok) throw new Error(parsed.reason)
    ingestor.write(parsed.value)
  }
  ingestor.finish()
  return vdb
}

// The rows the loader produced, per dataset, tag and link table: what the raw side inserts.
const loaded = ingest()
// Ordinary tables only: a full-text index's shadow tables (`pragma table_list` type 'shadow') refuse
// direct writes, and its virtual table is filled through the loader's search index step.
const TABLES = (loaded.sqlite.prepare(`select name from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' and name not in ('meta', 'stored_queries', 'query_totals', 'query_checkpoints')`).pluck().all() as string[])
const rows = new Map(TABLES.map((t) => [t, loaded.sqlite.prepare(`select * from "${t}"`).raw().all() as unknown[][]]))
const totalRows = [...rows.values()].reduce((n, r) => n + r.length, 0)
await loaded.close()

function raw() {
  const vdb = openDatabase(':memory:')
  // Secondary indexes dropped, as the loader does for a bulk load (it rebuilds them; raw does not).
  for (const name of vdb.sqlite.prepare(`select name from sqlite_master where type = 'index' and sql is not null`).pluck().all() as string[]) vdb.sqlite.exec(`drop index "${name}"`)
  vdb.sqlite.transaction(() => {
    for (const [table, list] of rows) {
      if (list.length === 0) continue
      const insert = vdb.sqlite.prepare(`insert into "${table}" values (${list[0]!.map(() => '?').join(', ')})`)
      for (const row of list) insert.run(row)
    }
  })()
  return vdb
}

const results = await runBench(`ingest of ${companies.toLocaleString('en-US')} generated companies (${totalRows.toLocaleString('en-US')} rows)`, [
  // Validation must cost less than making the records: generating and decoding under twice generating.
  { name: 'generate + decode every record', subject: decodeAll, baseline: generateOnly, baselineName: 'generate only', maxRatio: 2, runs },
  { name: 'generate into a file (full load)', subject: generateFile, baseline: generateOnly, baselineName: 'generate only', maxRatio: 7, runs },
  {
    name: 'Ingestor (validate, derive, index, analyze)',
    subject: async () => (await ingest()).close(),
    baseline: async () => (await raw()).close(),
    baselineName: 'raw prepared inserts',
    maxRatio: 3,
    runs,
  },
])
removeFile()
const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString('en-US')
const full = results[1]!
const mem = results[2]!
console.log(`generate into a file: ${perSecond(companies, full.subject.median)} companies/s`)
console.log(`Ingestor: ${perSecond(companies, mem.subject.median)} companies/s, ${perSecond(totalRows, mem.subject.median)} rows/s; raw: ${perSecond(totalRows, mem.baseline.median)} rows/s`)
