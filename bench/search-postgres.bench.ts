/**
 * @module GET /search's lookup on PostgreSQL (`searchRecordsPostgres`, b-tree postings) against the
 * same lookup on SQLite (`searchRecords`, FTS5), same data, same run, as ratios: the one- to
 * four-letter prefixes a type-ahead sends first, longer prefixes (listed words), whole words, two
 * words and a whole name; both types, 10 results with their fields. Answers are checked equal
 * before timing.
 *
 * The PostgreSQL copy is the one of postgres.bench.ts (schema `vq_bench_<companies>` of
 * `VENTUREQL_PG_URL`), copied once and reused while it matches the SQLite file; a copy made before
 * the PostgreSQL search index existed gets the index built here (once).
 *
 * Targets: SQLite's lookup is 0.05-0.3 ms in-process; PostgreSQL's is 5-8 statements, each a round
 * trip (three tiers per type, details with the type's count, keywords), about 0.1-0.2 ms each
 * before any reading, so a ratio of ~10-25 is round trips over a plan that reads ten postings per
 * tier. A plan that read and sorted every match of `a` (a GIN/trigram index, or a range of word
 * keys) costs tens of ms at 100,000 companies and hundreds at a million: ratios in the hundreds.
 * Bound: 40 for every case. Absolute medians are printed, not checked (support/measure.ts: the
 * machine is shared); bench/README.md has them.
 */
import { sql } from 'kysely'
import { searchRecords, type SearchObjectType } from '../src/records/search.js'
import { searchRecordsPostgres } from '../src/records/search-postgres.js'
import { copyToPostgres } from '../src/store/copy.js'
import { dataVersion, dataVersionSync } from '../src/store/open.js'
import { openPostgres, PostgresConnectionError } from '../src/store/open-postgres.js'
import { refreshPostgresSearchIndex } from '../src/store/search-index-postgres.js'
import { postgresSearchIndexReady } from '../src/records/search-postgres.js'
import { benchCompanies, openBenchDatabase } from './support/dataset.js'
import { runBench, type Case } from './support/measure.js'

const PG_URL = process.env.VENTUREQL_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'
const companies = benchCompanies()
const SCHEMA = `vq_bench_${companies}`
const MAX_RATIO = 40

const vdb = openBenchDatabase()
let pgdb
try {
  pgdb = await openPostgres({ connectionString: PG_URL, schema: SCHEMA })
} catch (error) {
  if (error instanceof PostgresConnectionError) {
    console.error(`bench search-postgres: FAILED, ${error.message} (set VENTUREQL_PG_URL to another server)`)
    process.exit(1)
  }
  throw error
}
const sourceRows = vdb.sqlite.prepare('select count(*) from companies').pluck().get() as number
const pgRows = Number((await sql<{ n: string }>`select count(*) as n from companies`.execute(pgdb.db)).rows[0]?.n ?? 0)
if (pgRows !== sourceRows || (await dataVersion(pgdb)) !== dataVersionSync(vdb.sqlite)) {
  process.stderr.write(`bench search-postgres: copying the benchmark database into schema ${SCHEMA} (once) ...\n`)
  const summary = await copyToPostgres(vdb, pgdb)
  process.stderr.write(`bench search-postgres: copied ${summary.rows} rows in ${(summary.ms / 1000).toFixed(1)} s\n`)
} else if (!(await postgresSearchIndexReady(pgdb))) {
  process.stderr.write(`bench search-postgres: building the search index in schema ${SCHEMA} (once) ...\n`)
  const summary = await refreshPostgresSearchIndex(pgdb.db)
  process.stderr.write(`bench search-postgres: built in ${(summary.ms / 1000).toFixed(1)} s\n`)
}
const sizes = await sql<{ relname: string; size: string; rows: number }>`select c.relname, pg_size_pretty(pg_total_relation_size(c.oid)) as size, c.reltuples::bigint as rows
  from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${SCHEMA} and c.relkind = 'r' and c.relname like 'search_%' order by c.relname`.execute(pgdb.db)
process.stderr.write(`bench search-postgres: index tables ${sizes.rows.map((r) => `${r.relname} ${r.size} (${r.rows} rows)`).join(', ')}\n`)

const both: readonly SearchObjectType[] = ['company', 'investor']
const someName = vdb.sqlite.prepare('select name from companies where id = ?').pluck().get(Math.ceil(companies / 2)) as string
// Two words of one name, the second cut short, in the other order: the AND of two posting lists.
const [w1, w2] = someName.split(/\s+/)
const twoWords = w2 === undefined ? `${w1} com` : `${w2} ${w1!.slice(0, 3)}`
const TERMS = ['a', 'q', 'in', 'to', 'tec', 'tech', 'labs', 'health', 'technologies', 'com', twoWords, someName]

const lite = (term: string) => () => searchRecords(vdb, { term, objectTypes: both, limit: 10 })
const post = (term: string) => () => searchRecordsPostgres(pgdb, { term, objectTypes: both, limit: 10 })

const cases: Case[] = []
for (const term of TERMS) {
  const expected = JSON.stringify(lite(term)())
  const got = JSON.stringify(await post(term)())
  if (expected !== got) throw new Error(`bench search-postgres: ${JSON.stringify(term)}: PostgreSQL and SQLite disagree`)
  if (expected === '[]') throw new Error(`bench search-postgres: ${JSON.stringify(term)} matches nothing on this database`)
  cases.push({ name: `search ${JSON.stringify(term)}`, subject: post(term), baseline: lite(term), baselineName: 'SQLite', maxRatio: MAX_RATIO })
}

await runBench(`search, PostgreSQL / SQLite, ${companies.toLocaleString('en-US')} companies`, cases)
await pgdb.close()
await vdb.close()
