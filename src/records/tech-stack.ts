/**
 * @module A company's technology stack (spec 2.8, 4.8), by title.
 */
import { sql } from 'kysely'
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'

const TITLES = queryShape<{ companyId: number }, { title: string }>('tech stack', (db, d, p) =>
  db.selectFrom(DETAIL_TABLES.techStack).select('title').where('company_id', '=', p.companyId).orderBy(d.binaryText(sql.ref('title'))))

export function companyTechStack(vdb: VentureDb, companyId: number): Promise<string[]> {
  return recordSession(vdb).column(TITLES, { companyId })
}
