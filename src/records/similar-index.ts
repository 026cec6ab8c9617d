/**
 * @module The similarity index, read side: a company's similar companies as `similarCompanies`
 * answered them when the index was built (`similar-index-build.ts`), when they are of the current
 * data version.
 *
 * Why an index: an answer is a search over the candidates sharing the company's tags, 2.8 ms a call
 * on a million companies at the default budgets (`bench/similar-quality.ts`) and 5-6.5 ms in the
 * suite, where the caches are cold: 36-38x a detail lookup (issue 9 asks for at most 10x). No part
 * of the search is most of it (bench/README.md, stops 21-25), and the tag sets barely repeat (827,243
 * distinct among the 996,956 companies with tags of the 1M bench database), so answers cannot be
 * shared between companies. Read from the index, an answer is one primary-key lookup and the
 * answer's records.
 */
import { sql } from 'kysely'
import { DATA_VERSION_KEY, META_TABLE } from '../store/schema/stored-query-tables.js'
import { SIMILAR_INDEX_TABLE } from '../store/schema/similar-index-tables.js'
import { queryShape } from './query-shape.js'
import type { RecordSession } from './session.js'

/** An indexed answer: ids best first, with their scores. */
export type Neighbours = readonly (readonly [id: number, score: number])[]

/** The row of a company, only when it is of the current data version (one statement: one round trip on PostgreSQL). */
const INDEXED = queryShape<{ id: number }, { neighbours: string }>('similar: indexed answer', (db, _d, p) =>
  db.selectFrom(SIMILAR_INDEX_TABLE)
    .select('neighbours')
    .where('company_id', '=', p.id)
    // meta holds text; the cast is to the column's integer type on both dialects.
    .where('data_version', '=', db.selectFrom(META_TABLE).select(sql<number>`cast(${sql.ref('value')} as bigint)`.as('v')).where('key', '=', DATA_VERSION_KEY)))

/** The company's indexed answer at the current data version, or undefined (not built, or built for older data). */
export async function indexedNeighbours(s: RecordSession, companyId: number): Promise<Neighbours | undefined> {
  const row = await s.first(INDEXED, { id: companyId })
  return row === undefined ? undefined : decodeNeighbours(row.neighbours)
}

export function encodeNeighbours(neighbours: Neighbours): string {
  return JSON.stringify(neighbours)
}

/** The stored JSON, checked: a row that is not a list of [id, score] pairs is not served (the search runs instead). */
export function decodeNeighbours(text: string): Neighbours | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(value)) return undefined
  for (const pair of value) {
    if (!Array.isArray(pair) || pair.length !== 2 || !Number.isSafeInteger(pair[0]) || typeof pair[1] !== 'number' || !Number.isFinite(pair[1])) return undefined
  }
  return value as Neighbours
}
