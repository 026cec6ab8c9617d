/**
 * The count of one investor's funding events from the link table (compile/owner-count.ts), in its
 * two forms on SQLite: the probe as a statement of its own and then the one count it picks (what
 * `execute/counts.ts` runs where `SqlDialect.localStatements`), against one statement holding both
 * counts under the probe (what PostgreSQL runs), with the hand-written count beside them. The
 * investor is the suite's (`mixParams`: the largest portfolio). Interleaved, medians, ratios:
 *
 *   BENCH_RUNS=2001 BENCH_COMPANIES=1000000 npx tsx bench/owner-count-forms.ts
 */
import { and, condition, foreign } from '../src/ast/factory.js'
import { datasets } from '../src/catalog/index.js'
import { planQuery, sqliteDialect } from '../src/compile/index.js'
import { createEngine } from '../src/engine.js'
import { countRows, type ExecContext } from '../src/execute/index.js'
import { dataVersionSync } from '../src/store/open.js'
import { benchCompanies, benchDatabaseFile, openBenchDatabase } from './support/dataset.js'
import { mixParams } from './suite/mix.js'
import { timeVariants } from './suite/timing.js'

const companies = benchCompanies()
benchDatabaseFile(companies)
const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb })
const { investorSlug } = await mixParams(engine, companies)
// As GET /fundings?investor_slugs= sends it.
const filter = and([foreign('investors', condition('svc_slug', 'in', [investorSlug], '/filter'), 'any', '/filter')], '/filter')
const plan = planQuery({ dataset: datasets.fundings, filter, sort: [] }, sqliteDialect)
const ctx: ExecContext = { db: vdb.db, dialect: sqliteDialect, dataVersion: dataVersionSync(vdb.sqlite), sqlite: vdb.sqlite }
const oneStatement: ExecContext = { ...ctx, dialect: { ...sqliteDialect, localStatements: false } }
const hand = vdb.sqlite.prepare('select count(*) from funding_investors indexed by funding_investors_by_investor_id where investor_id = (select id from investors where svc_slug = ?)').pluck()

const total = hand.get(investorSlug) as number
for (const c of [ctx, oneStatement]) {
  const counted = await countRows(c, plan)
  if (counted !== total) throw new Error(`bench: the owner count gave ${counted}, the hand count ${total}`)
}
const t = await timeVariants([
  { name: 'probe, then one count', run: () => countRows(ctx, plan) },
  { name: 'one statement', run: () => countRows(oneStatement, plan) },
  { name: 'hand-written', run: () => hand.get(investorSlug) },
])
const hand0 = t['hand-written']!.median
console.log(`${companies} companies, investor ${investorSlug}, ${total} funding events`)
for (const [name, timed] of Object.entries(t)) console.log(`  ${name}: ${(timed.median * 1000).toFixed(1)} µs (${timed.runs} runs), ${(timed.median / hand0).toFixed(2)}x the hand-written count`)
await engine.close()
await vdb.close()
