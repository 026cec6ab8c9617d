/**
 * @module The yardstick of similar companies' quality (issue 9: "with the same quality"): the same
 * similarity with nothing budgeted (every posting read, every candidate ranked and none capped), and
 * the share of its 20 that a call found. Used by the suite's similar phase.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { similarCompanies, type SimilarCompanyRow } from '../../src/records/similar.js'
import type { VentureDb } from '../../src/store/open.js'

/**
 * The exact answer: no budget and no candidate cap. Every company sharing a tag is a candidate; with
 * the kept tag totals (built in full by the first call: `totalsBuildMs`) each is ranked by its exact
 * tag Jaccard, and the description bound of `similarCompanies` reads the description of every
 * candidate that could still reach the 20 (the others cannot: their tag part plus the description's
 * largest part falls short). Without totals every candidate's tags are read and scored; the same
 * answer, slower (test/records/company-similar.test.ts compares the two).
 */
export function exhaustiveSimilar(vdb: VentureDb, companyId: number): Promise<SimilarCompanyRow[]> {
  return similarCompanies(vdb, companyId, { postingsBudget: Number.MAX_SAFE_INTEGER, probeBudget: Number.MAX_SAFE_INTEGER, candidateCap: Number.MAX_SAFE_INTEGER, totalsBuildMs: Number.POSITIVE_INFINITY })
}

/** The share of the exhaustive search's companies among those found. */
export function overlapWith(found: readonly { id: number }[], exhaustive: readonly { id: number }[]): number {
  const ids = new Set(exhaustive.map((x) => x.id))
  return found.filter((x) => ids.has(x.id)).length / Math.max(1, ids.size)
}

/** Up to `count` companies with industries spread over the ids of `companies` (id ≡ 7 modulo a step), `except` left out. */
export function spreadCompanyIds(db: BetterSqlite3.Database, companies: number, count: number, except = -1): number[] {
  const step = Math.max(8, Math.floor(companies / count))
  return db.prepare('select id from companies where id % ? = 7 and id <> ? and id in (select company_id from company_industries) limit ?')
    .pluck().all(step, except, count) as number[]
}
