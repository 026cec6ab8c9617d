/**
 * @module The similarity index, read side: a company's similar companies as the index's build
 * computed them (`similar-index-build.ts`: the search's score, candidates found by LSH), when they
 * are of the current data version.
 *
 * Why an index: an answer is a search over the candidates sharing the company's tags, many times
 * a detail lookup on a million companies, with no one part of the search most of it; and the tag
 * sets barely repeat between companies, so answers cannot be shared. Read from the index, an
 * answer is one primary-key lookup and the answer's records, about a detail lookup's cost (the
 * suite's similar phase measures both, `npm run bench`).
 */
import { sql } from 'kysely'
import { currentDataVersion } from '../store/schema/stored-query-tables.js'
import { SIMILAR_INDEX_TABLE } from '../store/schema/similar-index-tables.js'
import { dataVersion, tableExists, type VentureDb } from '../store/open.js'
import { COMPANY_ID, COMPANY_TABLE } from './company-sql.js'
import { queryShape } from './query-shape.js'
import { recordSession, type RecordSession } from './session.js'

/** Spec 4.5 and section 8: at most 20 similar companies (similar.ts re-exports it). */
export const SIMILAR_LIMIT = 20

/** An indexed answer: ids best first, with their scores. */
export type Neighbours = readonly (readonly [id: number, score: number])[]

/** The row of a company, only when it is of the current data version (one statement: one round trip on PostgreSQL). */
const INDEXED = queryShape<{ id: number }, { neighbours: string }>('similar: indexed answer', (db, _d, p) =>
  db.selectFrom(SIMILAR_INDEX_TABLE)
    .select('neighbours')
    .where('company_id', '=', p.id)
    .where('data_version', '=', currentDataVersion(db)))

/** Whether the connection's database has the table, by connection: a found table is remembered, a missing one asked again after a minute. */
const presence = new WeakMap<object, { readonly found: boolean; readonly at: number }>()
const RECHECK_MISSING_MS = 60_000

/**
 * A database opened read-only runs no migrations: one from before the index (migration 014) has no
 * table, and its calls search as they did. PostgreSQL resolves the name in the connection's
 * search_path, as every statement does.
 */
async function indexPresent(vdb: VentureDb): Promise<boolean> {
  const known = presence.get(vdb.db)
  if (known && (known.found || performance.now() - known.at < RECHECK_MISSING_MS)) return known.found
  const found = await tableExists(vdb, SIMILAR_INDEX_TABLE)
  presence.set(vdb.db, { found, at: performance.now() })
  return found
}

/** The company's indexed answer at the current data version, or undefined (no index, not built, built for older data, or a row that is not an answer). */
export async function indexedNeighbours(vdb: VentureDb, s: RecordSession, companyId: number): Promise<Neighbours | undefined> {
  if (!(await indexPresent(vdb))) return undefined
  const row = await s.first(INDEXED, { id: companyId })
  return row === undefined ? undefined : decodeNeighbours(row.neighbours, companyId)
}

export function encodeNeighbours(neighbours: Neighbours): string {
  return JSON.stringify(neighbours)
}

/**
 * The stored JSON, checked: what the search answers, at most `SIMILAR_LIMIT` pairs of a company id
 * (each once, never the company itself) and a score in (0, 1], best first, equal scores by id. Any
 * other row is not served (the search runs instead): a hand-edited or damaged row must not give a
 * probability outside (0, 1] or the same company twice.
 */
export function decodeNeighbours(text: string, companyId: number): Neighbours | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(value) || value.length > SIMILAR_LIMIT) return undefined
  const seen = new Set<number>()
  let previous: readonly [number, number] | undefined
  for (const pair of value) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined
    const [id, score] = pair as [unknown, unknown]
    if (!Number.isSafeInteger(id) || typeof score !== 'number' || !(score > 0 && score <= 1)) return undefined
    if (id === companyId || seen.has(id as number)) return undefined
    if (previous && (score > previous[1] || (score === previous[1] && (id as number) < previous[0]))) return undefined
    seen.add(id as number)
    previous = [id as number, score]
  }
  return value as Neighbours
}

/** How much of the index is of the current data version. */
export type SimilarIndexCoverage = 'current' | 'partial' | 'none'

export type MissingParams = { after: number; count: number; index: number; version: number; limit: number }

/** The companies of a shard: `id % count = index`. */
export const shardFilter = (p: Pick<MissingParams, 'count' | 'index'>) => sql<boolean>`${sql.ref(`c.${COMPANY_ID}`)} % ${p.count} = ${p.index}`

/**
 * The next companies of a shard (`id % count = index`) after `after` whose row is missing or of
 * another data version than `version`, in id order: what a build computes next
 * (similar-index-build.ts), and whether the index is complete (`similarIndexCoverage`).
 */
export const MISSING = queryShape<MissingParams, { id: number }>('similar index: companies without a current answer', (db, _d, p) =>
  db.selectFrom(`${COMPANY_TABLE} as c`)
    .leftJoin(`${SIMILAR_INDEX_TABLE} as n`, (join) => join.onRef('n.company_id', '=', `c.${COMPANY_ID}`))
    .select(`c.${COMPANY_ID} as id`)
    .where(`c.${COMPANY_ID}`, '>', p.after)
    .where(shardFilter(p))
    .where((eb) => eb.or([eb('n.company_id', 'is', null), eb('n.data_version', '<>', p.version)]))
    .orderBy(`c.${COMPANY_ID}`)
    .limit(p.limit))

export const SHARD_SIZE = queryShape<MissingParams, { n: number | string }>('similar index: companies of the shard', (db, _d, p) =>
  db.selectFrom(`${COMPANY_TABLE} as c`).select((eb) => eb.fn.countAll().as('n')).where(shardFilter(p)))

/** Whether some company's row is of the current data version: the first company's or the last one's (primary-key lookups). */
const EDGE_CURRENT = queryShape<object, { n: number | string }>('similar index: the first or last company built', (db) =>
  db.selectFrom(SIMILAR_INDEX_TABLE)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('company_id', 'in', db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.min(COMPANY_ID).as('id'))
      .union(db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.max(COMPANY_ID).as('id'))))
    .where('data_version', '=', currentDataVersion(db)))

/**
 * Whether every company has its answer at the current data version (`current`), some do (`partial`:
 * a build under way or stopped part-way, seen by the first or the last company having one), or
 * neither of those does (`none`: never built, or built for older data). A complete index is confirmed by reading every company's row
 * (0.46 s warm, 1.6 s cold, at a million companies: once, at a server's start); an incomplete one
 * stops at the first gap.
 */
export async function similarIndexCoverage(vdb: VentureDb): Promise<SimilarIndexCoverage> {
  if (!(await tableExists(vdb, SIMILAR_INDEX_TABLE))) return 'none'
  const s = recordSession(vdb)
  const version = await dataVersion(vdb)
  const [gap] = await s.column(MISSING, { after: Number.MIN_SAFE_INTEGER, count: 1, index: 0, version, limit: 1 })
  if (gap === undefined) return 'current'
  return Number((await s.first(EDGE_CURRENT, {}))?.n ?? 0) > 0 ? 'partial' : 'none'
}
