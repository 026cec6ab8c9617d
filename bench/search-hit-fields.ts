/**
 * What reading a search's answered companies costs from the rank table alone (migration 013 copied
 * what a hit shows there: src/store/schema/search-tables.ts) against the companies and their
 * keywords by id (the form before, still used on a file opened read-only before 013): the ten hits
 * of "a", warm (medians of 2,000 runs) and right after a scan of the companies has pushed other
 * pages out of the cache (medians of 30), each form twice, alternately. Both forms must return the
 * same rows.
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/search-hit-fields.ts
 */
import { companyDetailsSql, namePrefixQuery, RANKS_IN } from '../src/records/search.js'
import { SEARCH_TABLES } from '../src/store/schema/search-tables.js'
import { benchDatabaseFile, openBenchDatabase } from './support/dataset.js'
import { stats } from './support/measure.js'

benchDatabaseFile()
const vdb = openBenchDatabase()
const t = SEARCH_TABLES.company
const sql = { copied: companyDetailsSql(vdb.sqlite, t, RANKS_IN), joined: companyDetailsSql(vdb.sqlite, t, RANKS_IN, 'joined') }
if (sql.copied === sql.joined) throw new Error('bench: the rank table has no hit fields (migration 013 not applied?)')
const forms = { copied: vdb.sqlite.prepare(sql.copied), joined: vdb.sqlite.prepare(sql.joined) }
// The hits of "a" in the name tier, as the search finds them (ranks in order).
const nameMatch = namePrefixQuery(['a'], t.ftsColumns[0])!
const ranks = JSON.stringify(vdb.sqlite.prepare(`select rowid from "${t.fts}" where "${t.fts}" match ? order by rowid limit 10`).pluck().all(nameMatch))
if (JSON.stringify(forms.copied.all(ranks)) !== JSON.stringify(forms.joined.all(ranks))) throw new Error('bench: the two forms disagree')
const scan = vdb.sqlite.prepare('select count(*) from companies where employees > ?').pluck()

console.log(`ten hits of "a" (ranks ${ranks}), µs`)
console.log('| form | warm | after a scan |')
console.log('|---|---|---|')
for (const name of ['copied', 'joined', 'copied', 'joined'] as const) {
  const statement = forms[name]
  const warm: number[] = []
  const cold: number[] = []
  for (let i = 0; i < 2000; i++) {
    const started = performance.now()
    statement.all(ranks)
    warm.push(performance.now() - started)
  }
  for (let i = 0; i < 30; i++) {
    scan.get(i)
    const started = performance.now()
    statement.all(ranks)
    cold.push(performance.now() - started)
  }
  console.log(`| ${name === 'copied' ? 'rank table alone (013)' : 'companies and keywords by id'} | ${(stats(warm).median * 1000).toFixed(1)} | ${(stats(cold).median * 1000).toFixed(1)} |`)
}
await vdb.close()
