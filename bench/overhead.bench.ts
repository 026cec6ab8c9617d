/**
 * @module Per-call overhead: what the engine adds (parse, check, canonical id, store, plan, Kysely
 * build, cached total, keys, rows, tags, record mapping) to a primary-key lookup that SQLite
 * answers in microseconds, against raw better-sqlite3 prepared statements reading the same row
 * and its tags. Also Kysely alone, with and without the prepared-statement cache of
 * `store/open.ts`, against the raw statement: the cache is what makes Kysely cheap for lookups
 * (design section 8: ~0.03-0.09 ms of Kysely overhead per query against ~0.01 ms raw).
 */
import { Kysely, SqliteDialect } from 'kysely'
import { createEngine } from '../src/engine.js'
import { benchCompanies, freshCaches, openBenchDatabase } from './support/dataset.js'
import { runBench } from './support/measure.js'

const vdb = openBenchDatabase()
freshCaches(vdb)
const engine = createEngine({ database: vdb })
const n = benchCompanies()
// A different id per call, from a fixed sequence: the same work each run, no single hot row.
let i = 0
const nextId = () => 1 + ((i++ * 7919) % n)

const rawRow = vdb.sqlite.prepare('select * from companies where id = ?')
const TAG_TABLES = ['company_industries', 'company_business_models', 'company_keywords', 'company_play_categories', 'company_ios_store_categories']
const rawTags = TAG_TABLES.map((t) => vdb.sqlite.prepare(`select value from ${t} where company_id = ? order by value`))
const rawRecord = () => {
  const id = nextId()
  const row = rawRow.get(id) as Record<string, unknown>
  for (const [k, s] of rawTags.entries()) row[TAG_TABLES[k]!] = s.pluck().all(id)
  return row
}

// Kysely over the same connection without the statement cache: a fresh prepare per query.
const uncached = new Kysely<any>({ dialect: new SqliteDialect({ database: vdb.sqlite }) })
const lookup = (db: Kysely<any>) => () => db.selectFrom('companies').selectAll().where('id', '=', nextId()).executeTakeFirst()

// The engine answers the same stored query (and its cached total) on repeated calls; distinct ids
// make distinct queries, each counted once, which is the realistic case for a lookup by id.
const engineLookup = async () => {
  const r = await engine.query({ dataset: 'companies', filter: { id: nextId() }, per_page: 1 })
  if (!r.ok || r.value.results.length !== 1) throw new Error('lookup failed')
}

await runBench(`per-call overhead, primary-key lookup on ${n.toLocaleString('en-US')} companies`, [
  { name: 'Kysely select, statement cache', subject: lookup(vdb.db), baseline: () => rawRow.get(nextId()), baselineName: 'raw prepared stmt', maxRatio: 3 },
  { name: 'Kysely select, fresh prepare', subject: lookup(uncached), baseline: () => rawRow.get(nextId()), baselineName: 'raw prepared stmt', maxRatio: 6 },
  { name: 'Kysely select: cache vs none', subject: lookup(vdb.db), baseline: lookup(uncached), baselineName: 'fresh prepare', maxRatio: 0.8 },
  { name: 'engine.query by id (full record)', subject: engineLookup, baseline: rawRecord, baselineName: 'raw row + 5 tag stmts', maxRatio: 60 },
], { runs: 301 })
await engine.close()
await vdb.close()
