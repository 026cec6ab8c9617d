/**
 * @module The contact e-mail of a person at a company (spec 2.7, 4.7). Unknown is a normal
 * answer (null), not an error: the person may not be a known contact, or a known contact may have
 * no address.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { prepared } from '../store/sql-names.js'

/** Names compare without regard to case or runs of white space ("jamie  SMITH" is "Jamie Smith"). */
export function normalisePersonName(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase()
}

/**
 * The stored e-mail of `fullName` at the company, or null. The exact spelling is one primary-key
 * probe; otherwise the company's few contacts are compared by normalised name.
 */
export function contactEmail(sqlite: BetterSqlite3.Database, companyId: number, fullName: string): string | null {
  const t = DETAIL_TABLES.contacts
  const exact = prepared(sqlite, `select email from ${t} where company_id = ? and name = ?`).get(companyId, fullName) as { email: string | null } | undefined
  if (exact) return exact.email
  const wanted = normalisePersonName(fullName)
  const all = prepared(sqlite, `select name, email from ${t} where company_id = ? order by name`).all(companyId) as { name: string; email: string | null }[]
  return all.find((c) => normalisePersonName(c.name) === wanted)?.email ?? null
}
