/**
 * @module Loader throughput: `Ingestor` (zod validation, upserts, tags, links, details, derived
 * aggregates, index rebuild, ANALYZE, data version) on generated records held in memory, against
 * inserting the resulting dataset rows raw (prepared statements in one transaction, no validation,
 * no derived data, no secondary indexes) into the same schema. Design section 8 measured ~130k
 * companies/s for a raw load; the target bounds what validation and derivation may cost on top.
 * Size: `BENCH_INGEST_COMPANIES` (default 10000), runs: `BENCH_INGEST_RUNS` (default 3); both sides write to `:memory:`, so disk noise
 * stays out.
 */
import { generateRecords } from '../src/store/generate/generator.js'
import { Ingestor } from '../src/store/ingest.js'
import { openDatabase } from '../src/store/open.js'
import { parseRecord } from '../src/store/record-schemas.js'
import { runBench } from './support/measure.js'

const companies = Number(process.env.BENCH_INGEST_COMPANIES ?? 10_000)
const envelopes = [...generateRecords({ companies, seed: 1 })]

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
const TABLES = (loaded.sqlite.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' and name not in ('meta', 'stored_queries', 'query_totals', 'query_page_boundaries')`).pluck().all() as string[])
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
  {
    name: 'Ingestor (validate, derive, index, analyze)',
    subject: async () => (await ingest()).close(),
    baseline: async () => (await raw()).close(),
    baselineName: 'raw prepared inserts',
    maxRatio: 6,
    runs: Number(process.env.BENCH_INGEST_RUNS ?? 3),
  },
])
const r = results[0]!
console.log(`Ingestor: ${Math.round(companies / (r.subject.median / 1000)).toLocaleString('en-US')} companies/s, ${Math.round(totalRows / (r.subject.median / 1000)).toLocaleString('en-US')} rows/s; raw: ${Math.round(totalRows / (r.baseline.median / 1000)).toLocaleString('en-US')} rows/s`)
