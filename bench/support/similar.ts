/**
 * @module The yardstick of similar companies' quality (issue 9: "with the same quality"): the same
 * similarity with every posting read and probed and up to 50,000 candidates scored in full, and the
 * share of its 20 that a call found. Used by the suite and by `similar-quality.ts`.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { similarCompanies, type SimilarCompanyRow } from '../../src/records/similar.js'
import type { VentureDb } from '../../src/store/open.js'

/**
 * Candidates the exhaustive search scores in full (ranked by their shared tag weight first). An
 * uncapped run throws on 1,000,000 companies: RangeError (call stack) from `picked.push(...group)`
 * in topCandidates (src/records/similar.ts).
 */
export const EXHAUSTIVE_CAP = 50_000

export function exhaustiveSimilar(vdb: VentureDb, companyId: number): Promise<SimilarCompanyRow[]> {
  return similarCompanies(vdb, companyId, { postingsBudget: Number.MAX_SAFE_INTEGER, probeBudget: Number.MAX_SAFE_INTEGER, candidateCap: EXHAUSTIVE_CAP })
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
