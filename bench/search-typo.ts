/**
 * Typo-tolerant search on the benchmark database (BENCH_COMPANIES, default 100,000), both
 * backends, every figure a ratio from the same run:
 *
 * - recall@5 of a generated misspelling corpus (bench/README.md defines it): company names of 5-8
 *   letters and digits with one random edit (insert, delete, substitute, swap), of 9+ with two;
 *   counted twice, the intended company among the first 5 results (`typo=auto`), and a company
 *   with the intended name among them (the generator gives one name to several companies), on
 *   SQLite and on PostgreSQL;
 * - exact prefix terms (1-4 letter prefixes and whole names) against a company detail lookup, and
 *   that their answers with typos allowed start with their exact answers;
 * - a typo term against the exact prefix of the same length (the name cut there), by wall time
 *   (medians) and by the process's CPU time (each term called once more, summed per round);
 * - the typo term on PostgreSQL against SQLite.
 *
 * Each round times every term of each kind once (kinds interleaved term by term) and takes the
 * median per kind; the ratios are reported as the median of the rounds and their range.
 *
 *   npx tsx bench/search-typo.ts             # BENCH_ROUNDS (5), BENCH_TERMS (120), BENCH_SEED (33)
 *
 * BENCH_TYPO_DB: the SQLite file to search (default the benchmark database; opening it runs the
 * migrations, so point this at a copy to leave the shared file as it is). The PostgreSQL copy lives
 * in schema BENCH_TYPO_SCHEMA (default `vq_bench_typo_<companies>`) of VENTUREQL_PG_URL, made once.
 */
import { sql } from 'kysely'
import { companyDetail } from '../src/records/company.js'
import { searchRecords, type SearchRequest, type TypoMode } from '../src/records/search.js'
import { searchRecordsPostgres } from '../src/records/search-postgres.js'
import { copyToPostgres } from '../src/store/copy.js'
import { openDatabase } from '../src/store/open.js'
import { openPostgres } from '../src/store/open-postgres.js'
import { prng } from '../src/testing/arbitraries.js'
import { tokenize } from '../src/store/search-tokens.js'
import { osaDistance, prefixDistance, termBudget } from '../src/store/search-typo.js'
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'
import { BENCH_PG_URL } from './support/postgres-copy.js'

const companies = benchCompanies()
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const termCount = Number(process.env.BENCH_TERMS ?? 120)
const seed = Number(process.env.BENCH_SEED ?? 33)

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

/** One random edit at a letter of the text (spaces and punctuation left alone). */
function edit(text: string, random: () => number): string {
  const letters = [...text].map((c, i) => (/[\p{L}\p{N}]/u.test(c) ? i : -1)).filter((i) => i >= 0)
  const i = letters[Math.floor(random() * letters.length)]!
  const letter = LETTERS[Math.floor(random() * LETTERS.length)]!
  const kind = Math.floor(random() * 4)
  if (kind === 0) return text.slice(0, i) + letter + text.slice(i)
  if (kind === 1) return text.slice(0, i) + text.slice(i + 1)
  if (kind === 2) return text.slice(0, i) + (text[i]!.toLowerCase() === letter ? LETTERS[(LETTERS.indexOf(letter) + 1) % 26] : letter) + text.slice(i + 1)
  const j = i + 1 < text.length && /[\p{L}\p{N}]/u.test(text[i + 1]!) ? i + 1 : i - 1
  if (j < 0 || text[i] === text[j]) return text.slice(0, i) + text.slice(i + 1)
  const [a, b] = [Math.min(i, j), Math.max(i, j)]
  return text.slice(0, a) + text[b] + text[a] + text.slice(b + 1)
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const fmt = (xs: readonly number[]) => `${median(xs).toFixed(2)}x (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)} over ${xs.length} rounds)`

async function main() {
  const lite = openDatabase(process.env.BENCH_TYPO_DB ?? benchDatabaseFile(companies))
  const schema = process.env.BENCH_TYPO_SCHEMA ?? `vq_bench_typo_${companies}`
  const pg = await openPostgres({ connectionString: BENCH_PG_URL, schema })
  const pgCount = Number((await sql<{ n: string }>`select count(*) as n from companies`.execute(pg.db)).rows[0]?.n ?? 0)
  if (pgCount !== companies) {
    process.stderr.write(`search-typo: copying into schema ${schema} (once) ...\n`)
    await copyToPostgres(lite, pg)
  }

  const random = prng(seed)
  const maxId = lite.sqlite.prepare('select max(id) from companies').pluck().get() as number
  const byId = lite.sqlite.prepare('select id, name from companies where id >= ? and name is not null order by id limit 1')
  const corpus: { id: number; name: string; term: string; exact: string }[] = []
  // A name's length is its letters and digits: the characters the edits fall on, and what the term's edit budget counts.
  const letters = (text: string) => [...text].filter((c) => /[\p{L}\p{N}]/u.test(c)).length
  while (corpus.length < termCount) {
    const row = byId.get(1 + Math.floor(random() * maxId)) as { id: number; name: string } | undefined
    if (!row || letters(row.name) < 5 || corpus.some((c) => c.id === row.id)) continue
    let term = edit(row.name, random)
    if (letters(row.name) >= 9) term = edit(term, random)
    if (term.toLowerCase() === row.name.toLowerCase()) continue
    corpus.push({ id: row.id, name: row.name, term, exact: row.name.slice(0, term.length) })
  }
  const prefixTerms = corpus.map((c, i) => (i % 2 === 0 ? c.name.slice(0, 1 + (i % 4)) : c.name))

  const typo = (process.env.BENCH_TYPO === undefined ? 'auto' : process.env.BENCH_TYPO === 'auto' ? 'auto' : Number(process.env.BENCH_TYPO)) as TypoMode
  const request = (term: string, limit: number): SearchRequest => ({ term, objectTypes: ['company', 'investor'], limit, typo })

  // Exact prefix terms: with typos allowed, the exact answer comes first, unchanged.
  let prefixChanged = 0
  for (const term of prefixTerms) {
    const exact = searchRecords(lite, { ...request(term, 10), typo: 0 }).map((h) => `${h.objectType}:${h.id}`)
    const tolerant = searchRecords(lite, request(term, 10)).map((h) => `${h.objectType}:${h.id}`)
    if (JSON.stringify(tolerant.slice(0, exact.length)) !== JSON.stringify(exact)) prefixChanged++
  }

  // Recall@5, both backends.
  let liteFound = 0
  let pgFound = 0
  let liteByName = 0
  let pgByName = 0
  const misses: string[] = []
  for (const c of corpus) {
    const a = searchRecords(lite, request(c.term, 5))
    const b = await searchRecordsPostgres(pg, request(c.term, 5))
    const hit = (hits: typeof a) => hits.some((h) => h.objectType === 'company' && h.id === c.id)
    // The generator gives some names to several companies: any of them is the answer the user meant.
    const named = (hits: typeof a) => hits.some((h) => h.objectType === 'company' && h.name === c.name)
    if (hit(a)) liteFound++
    if (!named(a) && misses.length < 8) misses.push(`${JSON.stringify(c.term)} for ${JSON.stringify(c.name)}`)
    if (hit(b)) pgFound++
    if (named(a)) liteByName++
    if (named(b)) pgByName++
  }

  const time = (f: () => unknown) => {
    const t = performance.now()
    f()
    return performance.now() - t
  }
  const timeAsync = async (f: () => Promise<unknown>) => {
    const t = performance.now()
    await f()
    return performance.now() - t
  }
  // CPU time of this process around a SQLite call (user + system, µs): on a loaded machine the
  // wall time of a call includes waits for a core, its CPU time does not.
  const cpu = (f: () => unknown) => {
    const c = process.cpuUsage()
    f()
    const d = process.cpuUsage(c)
    return d.user + d.system
  }
  const ratios = { prefixVsDetail: [] as number[], shortVsDetail: [] as number[], wholeVsDetail: [] as number[], typoVsPrefix: [] as number[], typoVsPrefixCpu: [] as number[], pgVsLite: [] as number[] }
  // Mean CPU ms per call of the typo terms and of their exact prefixes, per round.
  const cpuMeans = { typo: [] as number[], exactSameLength: [] as number[] }
  const medians = { detail: [] as number[], prefix: [] as number[], typo: [] as number[], exactSameLength: [] as number[], pgTypo: [] as number[] }
  // Each typo term's PostgreSQL times over the rounds, to name the slowest terms.
  const pgTimes = corpus.map(() => [] as number[])
  for (let r = 0; r < rounds; r++) {
    const detail: number[] = [], prefix: number[] = [], typo: number[] = [], same: number[] = [], pgTypo: number[] = []
    // CPU µs of the typo terms and of their exact prefixes of the same length, summed over the round (a second call each).
    let typoCpu = 0
    let sameCpu = 0
    for (let i = 0; i < corpus.length; i++) {
      const c = corpus[i]!
      detail.push(await timeAsync(() => companyDetail(lite, c.id)))
      prefix.push(time(() => searchRecords(lite, request(prefixTerms[i]!, 10))))
      typo.push(time(() => searchRecords(lite, request(c.term, 10))))
      same.push(time(() => searchRecords(lite, request(c.exact, 10))))
      typoCpu += cpu(() => searchRecords(lite, request(c.term, 10)))
      sameCpu += cpu(() => searchRecords(lite, request(c.exact, 10)))
      pgTypo.push(await timeAsync(() => searchRecordsPostgres(pg, request(c.term, 10))))
      pgTimes[i]!.push(pgTypo[pgTypo.length - 1]!)
    }
    const m = { detail: median(detail), prefix: median(prefix), typo: median(typo), exactSameLength: median(same), pgTypo: median(pgTypo) }
    for (const k of Object.keys(m) as (keyof typeof m)[]) medians[k].push(m[k])
    ratios.prefixVsDetail.push(m.prefix / m.detail)
    // The two halves of the exact terms: 1-4 letter prefixes (even places) and whole names (odd).
    ratios.shortVsDetail.push(median(prefix.filter((_, i) => i % 2 === 0)) / m.detail)
    ratios.wholeVsDetail.push(median(prefix.filter((_, i) => i % 2 === 1)) / m.detail)
    ratios.typoVsPrefix.push(m.typo / m.exactSameLength)
    ratios.typoVsPrefixCpu.push(typoCpu / sameCpu)
    cpuMeans.typo.push(typoCpu / corpus.length / 1000)
    cpuMeans.exactSameLength.push(sameCpu / corpus.length / 1000)
    ratios.pgVsLite.push(m.pgTypo / m.typo)
  }

  const twoEdits = corpus.filter((c) => letters(c.name) >= 9).length
  // Terms the rule cannot reach: more edits from the name than the term's own length allows (a
  // deletion takes a 9-letter name with two edits below 9 letters, where one edit is allowed).
  const beyond = corpus.filter((c) => {
    const term = tokenize(c.term)
    return osaDistance(term.join(''), tokenize(c.name).join('')) > termBudget(term, typo === 0 ? 0 : typo)
  }).length
  console.log(`search-typo at ${companies} companies, seed ${seed}, ${corpus.length} terms (${corpus.length - twoEdits} with one edit, ${twoEdits} with two), ${rounds} rounds`)
  // Terms a search cannot be blamed for missing: another name starts closer to the term than the
  // intended one (fewer typos rank first), e.g. "doroo" is a start of "Doroos" for "Doroio".
  const names = (lite.sqlite.prepare('select distinct name from companies where name is not null').pluck().all() as string[]).map((n) => [n, tokenize(n).join('')] as const)
  const closer = corpus.filter((c) => {
    const term = tokenize(c.term).join('')
    const own = prefixDistance(term, tokenize(c.name).join(''))
    return names.some(([n, letters]) => n !== c.name && prefixDistance(term, letters) < own)
  }).length
  console.log(`terms further from their name than their own length allows: ${beyond}/${corpus.length}; terms with another name starting closer to them than their own: ${closer}/${corpus.length}`)
  console.log(`exact prefix terms whose typo=${String(typo)} answer does not start with their exact answer: ${prefixChanged}/${prefixTerms.length}`)
  console.log(`recall@5 SQLite: ${liteFound}/${corpus.length} = ${((100 * liteFound) / corpus.length).toFixed(1)}%`)
  console.log(`recall@5 PostgreSQL: ${pgFound}/${corpus.length} = ${((100 * pgFound) / corpus.length).toFixed(1)}%`)
  console.log(`recall@5 counting a company of the same name: SQLite ${((100 * liteByName) / corpus.length).toFixed(1)}%, PostgreSQL ${((100 * pgByName) / corpus.length).toFixed(1)}%`)
  if (misses.length > 0) console.log(`some misses: ${misses.join('; ')}`)
  console.log(`exact prefix terms / company detail (SQLite): ${fmt(ratios.prefixVsDetail)}`)
  console.log(`  of which 1-4 letter prefixes / company detail: ${fmt(ratios.shortVsDetail)}; whole names / company detail: ${fmt(ratios.wholeVsDetail)}`)
  console.log(`typo term / exact prefix of the same length (SQLite): ${fmt(ratios.typoVsPrefix)}; by CPU time (summed over the round): ${fmt(ratios.typoVsPrefixCpu)}`)
  console.log(`typo term PostgreSQL / SQLite: ${fmt(ratios.pgVsLite)}`)
  const slowest = corpus.map((c, i) => ({ term: c.term, ms: median(pgTimes[i]!) })).sort((a, b) => b.ms - a.ms).slice(0, 5)
  console.log(`slowest PostgreSQL typo terms (median over the rounds, ms): ${slowest.map((s) => `${JSON.stringify(s.term)} ${s.ms.toFixed(1)}`).join('; ')}`)
  console.log(`medians per round, ms: ${JSON.stringify(Object.fromEntries(Object.entries(medians).map(([k, v]) => [k, v.map((x) => Number(x.toFixed(3)))])))}`)
  console.log(`CPU per call per round, ms: ${JSON.stringify(Object.fromEntries(Object.entries(cpuMeans).map(([k, v]) => [k, v.map((x) => Number(x.toFixed(3)))])))}`)
  await pg.close()
  await lite.close()
}

await main()
