/**
 * @module The similarity index, read side: a company's similar companies as `similarCompanies`
 * answered them when the index was built (`similar-index-build.ts`), when they are of the current
 * data version.
 *
 * Why an index: an answer is a search over the candidates sharing the company's tags, 2.8-4.1 ms a
 * call on a million companies at the default budgets (`bench/similar-quality.ts`) and 4.2-6.5 ms in
 * the suite, where the caches are cold: 26-38x a detail lookup (issue 9 asks for at most 10x). No
 * part of the search is most of it (bench/README.md, stops 21-25), and the tag sets barely repeat
 * (827,243 distinct among the 996,956 companies with tags of the 1M bench database), so answers
 * cannot be shared between companies. Read from the index, an answer is one primary-key lookup and
 * the answer's records: 0.16 ms in the suite, 1.00-1.19x a detail lookup.
 */
import { sql } from 'kysely'
import { DATA_VERSION_KEY, META_TABLE } from '../store/schema/stored-query-tables.js'
import { SIMILAR_INDEX_TABLE } from '../store/schema/similar-index-tables.js'
import type { VentureDb } from '../store/open.js'
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
    // meta holds text; the cast is to the column's integer type on both dialects.
    .where('data_version', '=', db.selectFrom(META_TABLE).select(sql<number>`cast(${sql.ref('value')} as bigint)`.as('v')).where('key', '=', DATA_VERSION_KEY)))

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
  const row = vdb.dialect === 'sqlite'
    ? vdb.sqlite.prepare("select count(*) from sqlite_master where type = 'table' and name = ?").pluck().get(SIMILAR_INDEX_TABLE) as number
    : (await sql<{ found: boolean }>`select to_regclass(${SIMILAR_INDEX_TABLE}) is not null as found`.execute(vdb.db)).rows[0]?.found
  const found = row === true || (typeof row === 'number' && row > 0)
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

/** How much of the index is of the current data version, as far as a server's startup looks. */
export type SimilarIndexCoverage = 'current' | 'partial' | 'none'

const edgeCompany = (edge: 'min' | 'max') => queryShape<object, { current: number | string | null }>(`similar index: the ${edge === 'min' ? 'first' : 'last'} company's row`, (db) =>
  db.selectFrom(SIMILAR_INDEX_TABLE)
    .select((eb) => eb.fn.countAll().as('current'))
    .where('company_id', '=', db.selectFrom(COMPANY_TABLE).select((e) => e.fn[edge](COMPANY_ID).as('id')))
    .where('data_version', '=', db.selectFrom(META_TABLE).select(sql<number>`cast(${sql.ref('value')} as bigint)`.as('v')).where('key', '=', DATA_VERSION_KEY)))
const FIRST_COMPANY = edgeCompany('min')
const LAST_COMPANY = edgeCompany('max')

/**
 * Whether the index holds the lowest and the highest company id at the current data version: both
 * (`current`: built for this data, as a build goes through the ids in order), one (`partial`: a
 * build under way, or stopped part-way), neither (`none`: never built, or built for older data). Two primary-key
 * lookups, for a server's startup line: counting the rows would read the whole table.
 */
export async function similarIndexCoverage(vdb: VentureDb): Promise<SimilarIndexCoverage> {
  if (!(await indexPresent(vdb))) return 'none'
  const s = recordSession(vdb)
  const found = await Promise.all([s.first(FIRST_COMPANY, {}), s.first(LAST_COMPANY, {})])
  const current = found.filter((row) => Number(row?.current ?? 0) > 0).length
  return current === 2 ? 'current' : current === 1 ? 'partial' : 'none'
}
