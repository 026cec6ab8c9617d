/**
 * @module What a bound LIMIT costs on SQLite: the same statement run with `limit ?` bound and with
 * the number written into its text (`execute/statements.ts`, `withLiteralLimit`), interleaved
 * (`suite/timing.ts`), medians in µs. A bound LIMIT costs about a prepare on every run with the
 * SQLite better-sqlite3 bundles (3.51.2), which this measures. Statements: the
 * owner count's probe (one investor by slug, at most 2), the company detail's latest stories,
 * and the first-page keys statement of the suite's listings that take under 20 ms (the others are
 * dominated by their scan).
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/literal-limit.ts
 */
import { and, condition, foreign } from '../src/ast/factory.js'
import { datasets } from '../src/catalog/index.js'
import { DEFAULT_LIMITS } from '../src/check/limits.js'
import { planQuery, sqliteDialect } from '../src/compile/index.js'
import { createEngine } from '../src/engine.js'
import { parseAndCheck } from '../src/execute/pipeline.js'
import { keysFromStart } from '../src/execute/run.js'
import { LiteralLimits, withLiteralLimit } from '../src/execute/statements.js'
import { LATEST_STORIES, STORY_LIMIT } from '../src/records/stories.js'
import { benchCompanies, benchDatabaseFile, openBenchDatabase } from './support/dataset.js'
import { buildMix, mixParams, PER_PAGE } from './suite/mix.js'
import { timeVariants } from './suite/timing.js'

const companies = benchCompanies()
benchDatabaseFile(companies)
const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb, workers: 0 })
const params = await mixParams(engine, companies)

interface Pair { readonly name: string; readonly bound: () => unknown; readonly literal: () => unknown }
const pairs: Pair[] = []
// The owner count's probe as the engine compiles it for GET /fundings?investor_slugs= (its limit
// written as 2, compile/owner-count.ts), and the same with that limit bound.
const probe = planQuery({ dataset: datasets.fundings, filter: and([foreign('investors', condition('svc_slug', 'in', [params.investorSlug], '/filter'), 'any', '/filter')], '/filter'), sort: [] }, sqliteDialect)
  .ownerCount!.byProbe!.probe(vdb.db).compile()
if (!probe.sql.includes(' limit 2)')) throw new Error('bench: the probe no longer writes its limit as 2')
const probeBound = vdb.sqlite.prepare(probe.sql.replace(' limit 2)', ' limit ?)')).raw()
const probeLiteral = vdb.sqlite.prepare(probe.sql).raw()
pairs.push({ name: 'owner count probe', bound: () => probeBound.all(...probe.parameters, 2), literal: () => probeLiteral.all(...probe.parameters) })

// The company detail's latest stories (a query shape with its limit as a parameter, STORY_LIMIT).
const stories = LATEST_STORIES.bind('sqlite', { companyId: params.companyId, limit: STORY_LIMIT })
const storiesBound = vdb.sqlite.prepare(stories.sql).raw()
const storiesLiteral = vdb.sqlite.prepare(withLiteralLimit(new LiteralLimits(), stories).sql).raw()
if (!stories.sql.endsWith(' limit ?')) throw new Error('bench: the stories statement no longer ends with its limit')
pairs.push({ name: 'company detail: latest stories', bound: () => storiesBound.all(...stories.parameters), literal: () => storiesLiteral.all(...stories.parameters.slice(0, -1)) })

for (const r of buildMix(engine, params)) {
  if (!r.request) continue
  const checked = parseAndCheck(r.request, DEFAULT_LIMITS)
  if (!checked.ok) throw new Error(`bench: ${r.id} does not check: ${JSON.stringify(checked.issues)}`)
  const keys = keysFromStart(vdb.db, planQuery(checked.value, sqliteDialect), false, PER_PAGE + 1)
  if (!keys.sql.endsWith(' limit ?')) continue
  const bound = vdb.sqlite.prepare(keys.sql).raw()
  const literal = vdb.sqlite.prepare(withLiteralLimit(new LiteralLimits(), keys).sql).raw()
  const args = [...keys.parameters]
  const started = performance.now()
  const rows = bound.all(...args)
  if (performance.now() - started > 20) continue
  if (JSON.stringify(literal.all(...args.slice(0, -1))) !== JSON.stringify(rows)) throw new Error(`bench: ${r.id}: the literal limit gave other rows`)
  pairs.push({ name: `${r.id} keys, page 1`, bound: () => bound.all(...args), literal: () => literal.all(...args.slice(0, -1)) })
}

console.log('| statement | limit ? (µs) | literal limit (µs) | bound / literal |')
console.log('|---|---|---|---|')
for (const p of pairs) {
  const t = await timeVariants([{ name: 'bound', run: p.bound }, { name: 'literal', run: p.literal }])
  console.log(`| ${p.name} | ${(t.bound!.median * 1000).toFixed(1)} | ${(t.literal!.median * 1000).toFixed(1)} | ${(t.bound!.median / t.literal!.median).toFixed(2)} |`)
}
await engine.close()
