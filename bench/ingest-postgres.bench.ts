/**
 * @module Build time of a generated dataset on both backends, in one run on one machine (issue 8,
 * items 4 and 8): what `ventureql generate --out FILE.db` does (a fresh SQLite file, unsafe-fast
 * load, derived data, index rebuild, ANALYZE), what `ventureql generate --database postgres://...`
 * does (COPY in one transaction, derived data in SQL, index rebuild, data version, VACUUM ANALYZE),
 * and `ventureql copy` of that SQLite file into PostgreSQL.
 *
 *   BENCH_PG_INGEST_COMPANIES=1000000 npx tsx bench/ingest-postgres.bench.ts
 *   npm run bench -- ingest-postgres          (default 50,000 companies)
 *
 * Environment: `BENCH_PG_INGEST_COMPANIES` (default 50000), `VENTUREQL_PG_URL` (default
 * postgresql://postgres@127.0.0.1:5432/test), `BENCH_PG_INGEST_COPY=0` to skip the copy,
 * `BENCH_KEEP=1` to keep the file and the schemas (bench_ingest_pg, bench_ingest_copy),
 * `BENCH_PG_INGEST_DEFER=0|1` to force the PostgreSQL load to keep (0) or drop and rebuild (1) the
 * secondary indexes (default: the loader's, drop them when the schema holds no companies),
 * `BENCH_PG_INGEST_SQLITE=0` to skip the SQLite build (and the copy, which reads its file).
 * Prints wall-clock seconds per build and the PostgreSQL/SQLite ratio, with the load average
 * (the machine may be shared).
 */
import { rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { copyToPostgres } from '../src/store/copy.js'
import { generateInto, generateIntoDatabase } from '../src/store/generate/build.js'
import { openPostgres } from '../src/store/open-postgres.js'
import { openDatabase } from '../src/store/open.js'
import { BENCH_AS_OF } from './support/dataset.js'

const companies = Number(process.env.BENCH_PG_INGEST_COMPANIES ?? 50_000)
if (!Number.isSafeInteger(companies) || companies < 1) throw new Error(`BENCH_PG_INGEST_COMPANIES must be a positive integer, got ${JSON.stringify(process.env.BENCH_PG_INGEST_COMPANIES)}`)
const url = process.env.VENTUREQL_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'
const withCopy = process.env.BENCH_PG_INGEST_COPY !== '0'
const keep = process.env.BENCH_KEEP === '1'
const defer = process.env.BENCH_PG_INGEST_DEFER === undefined ? undefined : process.env.BENCH_PG_INGEST_DEFER === '1'
const withSqlite = process.env.BENCH_PG_INGEST_SQLITE !== '0'
const file = join(tmpdir(), `ventureql-ingest-bench-${companies}.db`)
const SCHEMAS = ['bench_ingest_pg', 'bench_ingest_copy'] as const

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ')
const seconds = (ms: number) => (ms / 1000).toFixed(1)

async function dropSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (const schema of SCHEMAS) await client.query(`drop schema if exists "${schema}" cascade`)
  } finally {
    await client.end()
  }
}

function removeFile(): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, { force: true })
}

function phases(label: string) {
  const started = performance.now()
  let last = started
  const steps: string[] = []
  return {
    step(name: string | undefined) {
      if (name === undefined) return
      const now = performance.now()
      steps.push(`${name} @${seconds(now - started)}`)
      last = now
    },
    done() {
      void last
      return { ms: performance.now() - started, steps: `${label}: ${steps.join(', ')}` }
    },
  }
}

console.log(`ingest-postgres: ${companies.toLocaleString('en-US')} companies; load average ${load()}`)
await dropSchemas()
removeFile()

// SQLite: as `ventureql generate --out FILE.db`.
let sqlite: { ms: number; steps: string } | undefined
if (withSqlite) {
  const sqliteRun = phases('sqlite')
  const vdb = openDatabase(file)
  try {
    generateInto(vdb, { companies, seed: 1, asOf: BENCH_AS_OF, ingest: { unsafeFast: true }, onProgress: (p) => sqliteRun.step(p.step) })
  } finally {
    await vdb.close()
  }
  sqlite = sqliteRun.done()
  console.log(`  SQLite generate:      ${seconds(sqlite.ms)} s (${Math.round(companies / (sqlite.ms / 1000))} companies/s, ${(statSync(file).size / 1e6).toFixed(0)} MB); load ${load()}`)
  console.log(`    ${sqlite.steps}`)
}

// PostgreSQL: as `ventureql generate --database postgres://... --schema bench_ingest_pg`.
const pgRun = phases('postgres')
{
  const vdb = await openPostgres({ connectionString: url, schema: SCHEMAS[0] })
  try {
    await generateIntoDatabase(vdb, {
      companies, seed: 1, asOf: BENCH_AS_OF, postgres: { replace: true, ...(defer === undefined ? {} : { deferIndexes: defer }) }, onProgress: (p) => pgRun.step(p.step),
    })
  } finally {
    await vdb.close()
  }
}
const postgres = pgRun.done()
const versus = sqlite ? `; ${(postgres.ms / sqlite.ms).toFixed(2)}x SQLite` : ''
const indexes = defer === undefined ? '' : defer ? ', indexes dropped and rebuilt' : ', indexes kept during the load'
console.log(`  PostgreSQL generate:  ${seconds(postgres.ms)} s (${Math.round(companies / (postgres.ms / 1000))} companies/s${indexes})${versus}; load ${load()}`)
console.log(`    ${postgres.steps}`)

if (withCopy && sqlite) {
  const source = openDatabase(file, { readonly: true })
  const target = await openPostgres({ connectionString: url, schema: SCHEMAS[1] })
  try {
    const summary = await copyToPostgres(source, target)
    console.log(`  copy SQLite -> PostgreSQL: ${seconds(summary.ms)} s (${summary.rows.toLocaleString('en-US')} rows); ${(summary.ms / sqlite.ms).toFixed(2)}x the SQLite generate; load ${load()}`)
  } finally {
    await target.close()
    await source.close()
  }
}

if (!keep) {
  await dropSchemas()
  removeFile()
}
