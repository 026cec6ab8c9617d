/**
 * @module SQL names and lookups specific to companies (tables, ids, the funding-investor link), on
 * top of the shared helpers of sql-names.ts.
 */
import { primaryKeyColumn } from '../catalog/index.js'
import type { VentureDb } from '../store/open.js'
import { COMPANIES, linkNames } from '../store/sql-names.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'

export const COMPANY_TABLE = COMPANIES.table
export const COMPANY_ID = primaryKeyColumn(COMPANIES)

/** The link table of funding events and their investors (2.3.3 investor_ids). */
export const FUNDING_INVESTORS = linkNames('fundings', 'investors')

const EXISTS = queryShape<{ id: number }, { found: number }>('company exists', (db, _d, p) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.lit(1).as('found')).where(COMPANY_ID, '=', p.id))

/** Whether a company with this id exists (the sub-resources answer 404 otherwise). */
export async function companyExists(vdb: VentureDb, id: number): Promise<boolean> {
  // Only a whole number can be an id (PostgreSQL would refuse 1.5 or 2 ** 70 as a bigint).
  return Number.isSafeInteger(id) && (await recordSession(vdb).first(EXISTS, { id })) !== undefined
}
