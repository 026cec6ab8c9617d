/**
 * @module Key personnel of a company (spec 2.6, 4.6), in the order the record listed them.
 */
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'

export interface PersonRow {
  readonly name: string
  readonly title: string | null
  readonly path: string | null
}

const PEOPLE = queryShape<{ companyId: number }, PersonRow>('people', (db, _d, p) =>
  db.selectFrom(DETAIL_TABLES.people).select(['name', 'title', 'path']).where('company_id', '=', p.companyId).orderBy('position'))

export function companyPeople(vdb: VentureDb, companyId: number): Promise<PersonRow[]> {
  return recordSession(vdb).all(PEOPLE, { companyId })
}
