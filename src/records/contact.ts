/**
 * @module The contact e-mail of a person at a company (spec 2.7, 4.7). Unknown is a normal
 * answer (null), not an error: the person may not be a known contact, or a known contact may have
 * no address.
 */
import { sql } from 'kysely'
import { isInvalid, parseString } from '../catalog/values.js'
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'

/** Names compare without regard to case or runs of white space ("jamie  SMITH" is "Jamie Smith"). */
export function normalisePersonName(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase()
}

const T = DETAIL_TABLES.contacts
const EXACT = queryShape<{ companyId: number; name: string }, { email: string | null }>('contact: exact name', (db, _d, p) =>
  db.selectFrom(T).select('email').where('company_id', '=', p.companyId).where('name', '=', p.name))
// In binary order, so that of two contacts whose names normalise alike the same one answers on both backends.
const ALL = queryShape<{ companyId: number }, { name: string; email: string | null }>('contact: every name', (db, d, p) =>
  db.selectFrom(T).select(['name', 'email']).where('company_id', '=', p.companyId).orderBy(d.binaryText(sql.ref('name'))))

/**
 * The stored e-mail of `fullName` at the company, or null. The exact spelling is one primary-key
 * probe; otherwise the company's few contacts are compared by normalised name.
 */
export async function contactEmail(vdb: VentureDb, companyId: number, fullName: string): Promise<string | null> {
  // Text no backend can store (a NUL, a lone surrogate) names no contact; PostgreSQL would refuse
  // it as a parameter rather than answer.
  if (!Number.isSafeInteger(companyId) || isInvalid(parseString(fullName))) return null
  const s = recordSession(vdb)
  const exact = await s.first(EXACT, { companyId, name: fullName })
  if (exact) return exact.email
  const wanted = normalisePersonName(fullName)
  return (await s.all(ALL, { companyId })).find((c) => normalisePersonName(c.name) === wanted)?.email ?? null
}
