/**
 * What a search costs at its worst (`SHORT_OPERATIONS` in execute/operations.ts counts on a small
 * bound): the engine's search (inline, both types) for common, rare and adversarial terms at limits
 * 10 and 100, mean of 5 calls after one untimed. Then, for one term (BENCH_TERM, default "a"), the
 * median time of each statement it runs, timed by wrapping better-sqlite3's statements. Last, what
 * the answered companies' statement spends on what: 10 companies read by rank through the rank
 * table alone, with the fields a hit shows, and with their keywords too (medians of 3,001 runs):
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/search-worst.ts
 */
import BetterSqlite3 from 'better-sqlite3'

type Wrapped = Record<'all' | 'get' | 'run', (...args: unknown[]) => unknown>
const statementTimes = new Map<string, number[]>()
let timing = false
const prepare = BetterSqlite3.prototype.prepare
BetterSqlite3.prototype.prepare = function (this: BetterSqlite3.Database, source: string) {
  const statement = prepare.call(this, source) as unknown as Wrapped
  const key = source.replace(/\s+/g, ' ').slice(0, 80)
  for (const method of ['all', 'get', 'run'] as const) {
    const original = statement[method].bind(statement)
    statement[method] = (...args: unknown[]) => {
      if (!timing) return original(...args)
      const started = performance.now()
      try {
        return original(...args)
      } finally {
        const list = statementTimes.get(key) ?? []
        list.push(performance.now() - started)
        statementTimes.set(key, list)
      }
    }
  }
  return statement as unknown as BetterSqlite3.Statement
} as typeof prepare

const { createEngine } = await import('../src/engine.js')
const { benchDatabaseFile, openBenchDatabase } = await import('./support/dataset.js')
benchDatabaseFile()
const vdb = openBenchDatabase()
const engine = createEngine({ database: vdb })
const search = (term: string, limit: number) => engine.records.search({ term, objectTypes: ['company', 'investor'], limit })

const TERMS = ['a', 'q', 'co', 'inc', 'tech', 'a b', 'x y z', '1 2 3', 'zzzz', 'the and of', 'a b c d e f g h i j k l', 'ab ab ab ab ab ab ab ab ab ab ab ab']
for (const term of TERMS) {
  const cells: string[] = []
  for (const limit of [10, 100]) {
    await search(term, limit)
    const started = performance.now()
    let hits = 0
    for (let i = 0; i < 5; i++) hits = (await search(term, limit))?.length ?? 0
    cells.push(`limit ${limit}: ${((performance.now() - started) / 5).toFixed(2)} ms, ${hits} hits`)
  }
  console.log(`${JSON.stringify(term)}: ${cells.join('; ')}`)
}

const term = process.env.BENCH_TERM ?? 'a'
const calls = 2000
for (let i = 0; i < calls; i++) await search(term, 10)
timing = true
const started = performance.now()
for (let i = 0; i < calls; i++) await search(term, 10)
timing = false
console.log(`\n${JSON.stringify(term)}, limit 10: ${(((performance.now() - started) / calls) * 1000).toFixed(0)} µs a search (statements timed), by statement:`)
for (const [source, times] of statementTimes) {
  times.sort((a, b) => a - b)
  console.log(`  ${(times.length / calls).toFixed(1)} a search, median ${(times[times.length >> 1]! * 1000).toFixed(1)} µs: ${source}`)
}

const ranks = JSON.stringify(vdb.sqlite.prepare('select rank from search_companies where rank % 997 = 1 limit 10').pluck().all())
const parts: [string, BetterSqlite3.Statement][] = [
  ['the rank table alone', vdb.sqlite.prepare('select s.rank, s.company_id from search_companies s where s.rank in (select value from json_each(?))')],
  ['+ the companies\' name', vdb.sqlite.prepare('select s.rank, x.name from search_companies s join companies x on x.id = s.company_id where s.rank in (select value from json_each(?))')],
  ['+ website, total_funding, svc_score', vdb.sqlite.prepare('select s.rank, x.id, x.name, x.website, x.total_funding, x.svc_score from search_companies s join companies x on x.id = s.company_id where s.rank in (select value from json_each(?))')],
  ['+ keywords (as search reads them)', vdb.sqlite.prepare(`select s.rank, x.id, x.name, x.website, x.total_funding, x.svc_score,
      (select json_group_array(k.value order by k.value) from company_keywords k where k.company_id = x.id) as keywords
    from search_companies s join companies x on x.id = s.company_id where s.rank in (select value from json_each(?))`)],
]
console.log('\nThe answered companies\' statement, 10 companies:')
for (const [name, statement] of parts) {
  const times: number[] = []
  for (let i = 0; i < 3001; i++) {
    const t = performance.now()
    statement.all(ranks)
    times.push(performance.now() - t)
  }
  console.log(`  ${name}: ${(times.sort((a, b) => a - b)[1500]! * 1000).toFixed(1)} µs`)
}
await engine.close()
await vdb.close()
