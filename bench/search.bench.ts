/**
 * @module GET /search's lookup (`searchRecords`: three tiers, companies and investors, 10 results
 * with their fields) on the bench database, for the one- to three-letter prefixes a type-ahead
 * sends first and for whole words and names.
 *
 * Baselines, in the same run:
 * - "rank every hit": the straightforward ranked query over the same FTS5 index, every word a
 *   prefix (the same match as the lookup's widest tier), all hits joined to their records and
 *   sorted by importance, LIMIT 10, per type. This is what the index layout avoids (design section
 *   8: 25 ms against 1 ms on a million companies), so short prefixes must beat it by far.
 * - "name range": the cheapest prefix lookup SQLite has, a b-tree range on companies.name
 *   (case-sensitive, one type, unranked, LIMIT 10): the floor, to see how far above it the full
 *   lookup sits.
 */
import { anyWordsQuery, searchRecords, searchWords, type SearchObjectType } from '../src/records/search.js'
import { SEARCH_TABLES } from '../src/store/schema/search-tables.js'
import { benchCompanies, openBenchDatabase } from './support/dataset.js'
import { runBench, type Case } from './support/measure.js'

const vdb = openBenchDatabase()
const db = vdb.sqlite
const n = benchCompanies()
const both: readonly SearchObjectType[] = ['company', 'investor']

const sc = SEARCH_TABLES.company
const si = SEARCH_TABLES.investor
const rankedCompanies = db.prepare(`select x.id from "${sc.fts}" f join "${sc.ranks}" s on s.rank = f.rowid join companies x on x.id = s."${sc.idColumn}"
  where "${sc.fts}" match ? order by x.svc_score desc nulls last, x.total_funding desc nulls last, x.id limit 10`).pluck()
const rankedInvestors = db.prepare(`select x.id from "${si.fts}" f join "${si.ranks}" s on s.rank = f.rowid join investors x on x.id = s."${si.idColumn}"
  where "${si.fts}" match ? order by x.portfolio_size desc nulls last, x.number_of_deals desc nulls last, x.id limit 10`).pluck()
const rankEveryHit = (term: string) => {
  const query = anyWordsQuery(searchWords(term)) ?? '""'
  return () => [...rankedCompanies.all(query), ...rankedInvestors.all(query)]
}

const nameRange = db.prepare('select id, name, website from companies where name >= ? and name < ? order by name limit 10')
const nameRangeOf = (term: string) => {
  const from = term.charAt(0).toUpperCase() + term.slice(1)
  const to = from.slice(0, -1) + String.fromCharCode(from.charCodeAt(from.length - 1) + 1)
  return () => nameRange.all(from, to)
}

const lookup = (term: string) => () => searchRecords(vdb, { term, objectTypes: both, limit: 10 })

// A real name from the data, and the words most names end with.
const someName = db.prepare('select name from companies where id = ?').pluck().get(Math.ceil(n / 2)) as string
const PREFIXES = ['a', 'q', 'in', 'to', 'tec']
const WORDS = ['health', 'labs', 'technologies', someName]

// Sanity first: every term finds something, and the baseline agrees there is something to rank.
for (const term of [...PREFIXES, ...WORDS]) {
  const hits = lookup(term)()
  if (hits.length === 0 || rankEveryHit(term)().length === 0) throw new Error(`bench: ${JSON.stringify(term)} matches nothing on this database`)
}
for (const prefix of ['a', 'q']) {
  if (nameRangeOf(prefix)().length !== 10) throw new Error(`bench: fewer than 10 names start with ${JSON.stringify(prefix)}; the floor would be an empty range`)
}
if (lookup(someName)()[0]?.name !== someName) throw new Error(`bench: the exact name ${JSON.stringify(someName)} is not the first result`)

const cases: Case[] = [
  ...PREFIXES.map((term) => ({
    name: `prefix ${JSON.stringify(term)}`, subject: lookup(term), baseline: rankEveryHit(term), baselineName: 'rank every hit', maxRatio: 0.25,
  })),
  ...WORDS.map((term) => ({
    name: `word ${JSON.stringify(term)}`, subject: lookup(term), baseline: rankEveryHit(term), baselineName: 'rank every hit',
    // A whole name has few hits, so ranking them all is cheap; the lookup still runs its three tiers per type.
    maxRatio: term === someName ? 6 : 0.5,
  })),
  { name: 'prefix "a"', subject: lookup('a'), baseline: nameRangeOf('a'), baselineName: 'name range', maxRatio: 40 },
  { name: 'prefix "q"', subject: lookup('q'), baseline: nameRangeOf('q'), baselineName: 'name range', maxRatio: 40 },
]

await runBench(`search lookup (10 results, companies and investors) on ${n.toLocaleString('en-US')} companies`, cases, { runs: 101 })
await vdb.close()
