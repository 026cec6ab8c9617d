/**
 * @module Similar companies (spec 2.5, 4.5): a weighted Jaccard similarity over industries,
 * business models and keywords, blended with the word overlap of the descriptions.
 *
 * - A tag's weight is its inverse document frequency, ln(1 + N / df): sharing a rare keyword says
 *   more than sharing "Software". N is the number of companies and df the tag's, both counted
 *   through indexes and cached per connection and data version.
 * - Candidates are the companies that share at least one tag, gathered rarest tag first from the
 *   value indexes until a postings budget is spent (a common tag alone has up to 175,000
 *   companies on a million rows). Tags whose postings did not fit are then probed for those
 *   candidates only, so each candidate's shared tag weight is complete.
 * - The candidates are ranked by their exact weighted Jaccard of tags, from every company's total
 *   tag weight kept per connection and data version (`TagTotals`; 9 bytes a company, built a slice
 *   per call, ranking by shared weight until they are ready). Where totals cannot be kept the best
 *   by shared weight have their tags read instead (`ranking: 'shared'`), which favours companies
 *   with many tags. The budgets trade recall of the exact answer for time: the suite's similar phase (`npm run bench`)
 *   measures both for the default and other budgets.
 * - The best-ranked candidates (capped) are scored in full: descriptions are read only for those
 *   that can still reach the best `limit` with the description's part at its most, and the other
 *   fields for the answer only, so the rows read stay narrow.
 * - Probing is by bitmap, and postings read in full are kept, per connection and data version
 *   (16 MB at most): a bit test per candidate instead of an SQL probe per tag
 *   (the suite's similar phase). The first calls of a process read cold pages, count weights and
 *   build bitmaps.
 * - score = 0.8 · weighted Jaccard of the tag sets + 0.2 · Jaccard of the description words (when
 *   the company has a description); best first, equal scores by id. Never the company itself.
 *
 * - Where the similarity index holds the company at the current data version, a call at the
 *   defaults reads its answer there instead (similar-index.ts; built by similar-index-build.ts,
 *   `ventureql similar-index`): the same score, with candidates found by LSH (similar/lsh.ts).
 *
 * The same statements run on SQLite and PostgreSQL, and every row order the arithmetic depends on
 * is explicit (tag values in binary order, owners ascending): weights are summed in the same order
 * on both backends, so equal scores stay equal and the results are the same to the last bit.
 *
 * This file holds the search and the answer; the parts it calls live in similar/, each apart
 * because it is shared or outlives a call: the statements (statements.ts), the weights and kept
 * totals (weights.ts), the kept postings and bitmaps (postings.ts), the candidates' ranking
 * (candidates.ts) and the description words (scoring.ts). Every name exported here stays exported here.
 */
import type { VentureDb } from '../store/open.js'
import { recordSession, type RecordSession } from './session.js'
import { indexedNeighbours, SIMILAR_LIMIT } from './similar-index.js'
import { rankByJaccard, rankByShared, SharedWeights } from './similar/candidates.js'
import { addMembers, partOfTag, tagMembers, tagPostings } from './similar/postings.js'
import { descriptionWords, jaccard, mix } from './similar/scoring.js'
import { COMPANY_FIELDS, DESCRIPTIONS, keyOf, PROBE, splitKey, TAGS_OF_MANY, TAGS_OF_ONE, type CompanyFields, type TagKey } from './similar/statements.js'
import { keptTagTotals, TagWeights, weightCache } from './similar/weights.js'

export { SIMILAR_LIMIT }
export { rankByJaccard, SharedWeights, type Ranked } from './similar/candidates.js'
export { inAscendingOrder, keepEveryPosting, partOf } from './similar/postings.js'
export { descriptionWords, mix, plainText } from './similar/scoring.js'
export { TAG_TABLES } from './similar/statements.js'
export { completeTagTotals, tagWeight, type TagTotals } from './similar/weights.js'

export interface SimilarityOptions {
  /** Results (default 20). */
  readonly limit?: number
  /** Tag postings read to find candidates (default 50,000 when ranked by Jaccard, 25,000 by shared weight). */
  readonly postingsBudget?: number
  /**
   * Candidate × unread-tag lookups to complete each candidate's shared weight with the common tags
   * (default 1,000,000 when ranked by Jaccard with bitmap probes, each a bit test; 100,000 otherwise,
   * ~13 ms per 25,000 SQL lookups on a million companies). Past it the candidates rank by shared weight.
   */
  readonly probeBudget?: number
  /** Candidates scored in full (default 200 when ranked by Jaccard, 500 by shared weight). */
  readonly candidateCap?: number
  /**
   * How the candidates found are ranked before the best `candidateCap` are scored in full:
   * - `jaccard` (the default): by their exact weighted Jaccard of tags, from each company's total
   *   tag weight, kept per connection and data version (`TagTotals`);
   * - `shared`: by the tag weight they share with the company, then their tags read to score them.
   *   What runs where totals cannot be kept (ids beyond a bitmap, sparse ids, a huge vocabulary),
   *   while they are being built (`totalsBuildMs`), and when the probes do not fit `probeBudget`;
   *   the budgets stay those of the Jaccard ranking in the last two cases.
   */
  readonly ranking?: 'jaccard' | 'shared'
  /**
   * How long a call may spend building the kept totals before it answers ranked by shared weight
   * (default 250 ms): a target, not a limit. The first call also counts every tag in one statement,
   * each call reads at least one whole tag's postings, and a call finding another's slice under way
   * waits for it. Tests and benchmarks set it.
   */
  readonly totalsBuildMs?: number
  /**
   * How candidates are probed for the common tags: `bitmap` (the default; kept per connection and
   * data version) or `sql`, one statement per tag, which ids too large for a bitmap use. The same
   * results either way under the same ranking and budgets (the default probe budget is smaller with
   * `sql`); `sql` is here so tests and benchmarks can compare the two.
   */
  readonly probe?: 'bitmap' | 'sql'
  /**
   * Whether the answer may come from the similarity index (`buildSimilarIndex`, `ventureql
   * similar-index`; default true). It does when the index holds the company at the current data
   * version, `limit` is at most `SIMILAR_LIMIT` and none of the options above is set: the index holds
   * each company's best `SIMILAR_LIMIT` by the same score (candidates found by LSH), best first, so a
   * smaller limit takes the first of them. False: always search.
   */
  readonly index?: boolean
}
export interface SimilarCompanyRow extends CompanyFields {
  /** 1 for the best match, the others relative to it (0 < p ≤ 1). */
  readonly probability: number
  /** The similarity itself (0 < score ≤ 1), before normalising by the best; not on the wire. */
  readonly score: number
}

const TAG_WEIGHT = 0.8
const DESCRIPTION_WEIGHT = 0.2
/** The budgets when ranking by Jaccard (the suite's similar phase measures them against an exhaustive search: `npm run bench`). */
const JACCARD_DEFAULTS = Object.freeze({ postingsBudget: 50_000, probeBudget: 1_000_000, candidateCap: 200 })
/** What a call may spend building the totals before it answers by shared weight (ms). */
const TOTALS_BUILD_MS = 250

/**
 * The companies most similar to `companyId`, best first; empty when the company has no tags (no
 * candidate shares anything with it) or does not exist.
 */
export async function similarCompanies(vdb: VentureDb, companyId: number, options: SimilarityOptions = {}): Promise<SimilarCompanyRow[]> {
  if (!Number.isSafeInteger(companyId)) return []
  const limit = options.limit ?? SIMILAR_LIMIT
  const s = recordSession(vdb)
  if (answersFromIndex(options, limit)) {
    const neighbours = await indexedNeighbours(vdb, s, companyId)
    if (neighbours !== undefined) return answerOf(s, neighbours.slice(0, limit).map(([id, score]) => ({ id, score })))
  }
  const cache = await weightCache(vdb, s)
  const totals = options.ranking === 'shared' ? undefined : await keptTagTotals(vdb, s, cache, options.totalsBuildMs ?? TOTALS_BUILD_MS)
  const byJaccard = totals !== undefined
  const budget = options.postingsBudget ?? (byJaccard ? JACCARD_DEFAULTS.postingsBudget : 25_000)
  // A bitmap probe is a bit test: ranking by Jaccard needs the whole shared weight of a candidate.
  const probeBudget = options.probeBudget ?? (byJaccard && options.probe !== 'sql' ? JACCARD_DEFAULTS.probeBudget : 100_000)
  const cap = options.candidateCap ?? (byJaccard ? JACCARD_DEFAULTS.candidateCap : 500)
  const weights = new TagWeights(cache, totals?.df)

  const target: TagKey[] = []
  const own = await Promise.all(TAGS_OF_ONE.map((shape) => s.column(shape, { id: companyId })))
  own.forEach((values, field) => { for (const value of values) target.push(keyOf(field, value)) })
  if (target.length === 0) return []
  // Every tag of the company is counted, whatever the budget (as it is read or probed below).
  await weights.count(s, target)

  // Rarest first: the postings of rare tags are short and the most telling. A tag with more
  // postings than the budget has left is skipped, except the rarest one, which is read in part,
  // starting at a point derived from the company (not always the lowest ids) and wrapping around.
  const byRarity = target.map((key) => ({ key, df: weights.df(key) })).sort((a, b) => a.df - b.df || (a.key < b.key ? -1 : 1))
  const shared = new SharedWeights(budget)
  const unread: TagKey[] = []
  let read = 0
  for (const { key, df } of byRarity) {
    const remaining = budget - read
    if (read > 0 && df > remaining) {
      unread.push(key)
      continue
    }
    const w = weights.of(key)
    let owners: ArrayLike<number>
    if (df <= remaining) owners = await tagPostings(vdb, s, cache.version, key)
    else owners = await partOfTag(vdb, s, cache.version, key, mix(companyId, df) % (cache.maxId + 1), remaining)
    read += owners.length
    shared.addPostings(owners, w, companyId)
  }
  // The common tags whose postings did not fit still rank the candidates found: each is probed for
  // the candidates only (primary-key lookups), so a company sharing "Software" and "B2C" on top of
  // the rare tag comes before one sharing the rare tag alone. The probes run together; their
  // weights are added in the tags' order, as the sums must not depend on which answers first.
  const probed = unread.length === 0 || shared.size * unread.length <= probeBudget
  if (unread.length > 0 && shared.size > 0 && probed) {
    let ids: string | undefined
    const members = await Promise.all(unread.map(async (key) => {
      const bits = options.probe === 'sql' ? undefined : await tagMembers(vdb, s, cache.version, key)
      if (bits) return bits
      // Ids too large for a bitmap (imported data): the candidates probed in SQL.
      const [field, value] = splitKey(key)
      return new Set(await s.column(PROBE[field]!, { value, ids: (ids ??= JSON.stringify(shared.ids())) }))
    }))
    // Each candidate's weights are added in the tags' order, whichever lookup answered first.
    const { ids: owners, sums } = shared.entries()
    unread.forEach((key, i) => {
      const w = weights.of(key)
      const found = members[i]!
      if (found instanceof Set) {
        for (let i = 0; i < owners.length; i++) if (found.has(owners[i]!)) sums[i] = sums[i]! + w
      } else {
        addMembers(found, w, owners, sums)
      }
    })
  }
  const [selfRows, found] = await Promise.all([
    s.all(COMPANY_FIELDS, { ids: JSON.stringify([companyId]) }),
    // (A company beyond the totals' ids cannot be: they are of this data version. Guarded all the same.)
    totals && probed && companyId < totals.totals.length ? Promise.resolve(rankByJaccard(shared, totals, cap, companyId)) : rankByShared(s, weights, shared, target, cap, companyId),
  ])
  const self = selfRows[0]
  if (!self) return []
  const { candidates, tagScores } = found
  if (candidates.length === 0) return []

  // The description's part is at most DESCRIPTION_WEIGHT, so a candidate whose tag part plus that
  // falls short of the `limit`-th best tag part alone cannot be among the best: only the others'
  // records (their descriptions) are read. In floating point too: the score is
  // TAG_WEIGHT·t + DESCRIPTION_WEIGHT·j with 0 <= j <= 1, which lies between TAG_WEIGHT·t and
  // TAG_WEIGHT·t + DESCRIPTION_WEIGHT as computed. A candidate without a record (tags of a deleted
  // company) is dropped, and the bound is taken again over the rest until nothing more is needed.
  const targetWords = descriptionWords(self.description)
  const withWords = targetWords.size > 0
  const lower = (id: number) => (withWords ? TAG_WEIGHT * tagScores.get(id)! : tagScores.get(id)!)
  const upper = (id: number) => (withWords ? TAG_WEIGHT * tagScores.get(id)! + DESCRIPTION_WEIGHT : tagScores.get(id)!)
  const descriptions = new Map<number, string | null>()
  const missing = new Set<number>()
  for (;;) {
    const alive = candidates.filter((id) => !missing.has(id))
    const lows = alive.map(lower).sort((a, b) => b - a)
    const bar = lows.length >= limit ? lows[limit - 1]! : -Infinity
    const needed = alive.filter((id) => !descriptions.has(id) && upper(id) >= bar)
    if (needed.length === 0) break
    for (const [id, description] of await s.rows(DESCRIPTIONS, { ids: JSON.stringify(needed) }) as [number, string | null][]) descriptions.set(id, description)
    for (const id of needed) if (!descriptions.has(id)) missing.add(id)
  }

  const ranked: { id: number; score: number }[] = []
  for (const id of candidates) {
    if (!descriptions.has(id)) continue
    const tagScore = tagScores.get(id)!
    const score = withWords ? TAG_WEIGHT * tagScore + DESCRIPTION_WEIGHT * jaccard(targetWords, descriptionWords(descriptions.get(id)!)) : tagScore
    if (score > 0) ranked.push({ id, score })
  }
  ranked.sort((a, b) => b.score - a.score || a.id - b.id)
  return answerOf(s, ranked.slice(0, limit))
}

/** The options a call may set and still be answered by the index (any other, present or added later, searches). */
const INDEX_OPTIONS: ReadonlySet<string> = new Set<keyof SimilarityOptions>(['limit', 'index'])

/** Whether a call with these options is answered by the similarity index when it holds the company. */
function answersFromIndex(options: SimilarityOptions, limit: number): boolean {
  return options.index !== false && Number.isInteger(limit) && limit >= 1 && limit <= SIMILAR_LIMIT &&
    Object.entries(options).every(([name, value]) => value === undefined || INDEX_OPTIONS.has(name))
}

/**
 * The answer's rows for the best companies found (best first), searched or from the index: the
 * records are read for the answer only, a company without one is left out (tags of a deleted
 * company), and `probability` is each score relative to the best.
 */
async function answerOf(s: RecordSession, top: readonly { id: number; score: number }[]): Promise<SimilarCompanyRow[]> {
  if (top.length === 0) return []
  const rows = new Map<number, CompanyFields>()
  for (const row of await s.all(COMPANY_FIELDS, { ids: JSON.stringify(top.map((r) => r.id)) }) as CompanyFields[]) rows.set(row.id, row)
  const scored = top.flatMap(({ id, score }) => (rows.has(id) ? [{ row: rows.get(id)!, score }] : []))
  const best = scored[0]?.score ?? 0
  const alsoBest = await identicalToBest(s, scored.filter(({ score }) => score === best).map(({ row }) => row))
  return scored.map(({ row, score }, i) => ({
    ...row,
    score,
    // Rounded for the wire, and 1 only for the best and what is identical to it in every scored
    // field: a company that merely ties (other words, the same overlap) or rounds up to the best
    // stays below it, so a client taking "probability 1" for "the match" gets one match.
    probability: i === 0 || alsoBest.has(row.id) ? 1 : Math.min(BELOW_BEST, Math.round((score / best) * 10_000) / 10_000),
  }))
}

/** The highest probability of a company that is not the best's equal (four decimals, as on the wire). */
const BELOW_BEST = 0.9999

/**
 * The ids among `tied` (the best first, then the others with its exact score) whose tags in every
 * field and description words are those of the best: what the score compares, so they are its equals.
 */
async function identicalToBest(s: RecordSession, tied: readonly CompanyFields[]): Promise<Set<number>> {
  const same = new Set<number>()
  if (tied.length < 2) return same
  const ids = JSON.stringify(tied.map((row) => row.id))
  const tags = new Map<number, string[]>(tied.map((row) => [row.id, []]))
  for (const [field, shape] of TAGS_OF_MANY.entries()) {
    for (const { owner, value } of await s.all(shape, { ids }) as { owner: number; value: string }[]) tags.get(Number(owner))?.push(keyOf(field, value))
  }
  const signature = (row: CompanyFields) => JSON.stringify([tags.get(row.id), [...descriptionWords(row.description)].sort()])
  const best = signature(tied[0]!)
  for (const row of tied.slice(1)) if (signature(row) === best) same.add(row.id)
  return same
}
