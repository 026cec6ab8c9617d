/**
 * @module The company list item of GET /companies (spec 2.2): name, domain, id as a string, and
 * the absolute, fetchable address of the company's detail (design section 6).
 */
import type { ResultRecord } from '../../execute/records.js'

export interface CompanyListItem {
  readonly company_name: string
  readonly domain: string
  readonly id: string
  readonly url: string
}

/**
 * `record` is a companies result record of the engine (`id` already a string, spec 2.3); `baseUrl`
 * has no trailing slash. A company without a known website shows `domain: ''` (spec 2.2 types it
 * string, not nullable).
 */
export function companyListItem(record: ResultRecord, baseUrl: string): CompanyListItem {
  const id = String(record.id)
  return {
    company_name: stringOr(record.name),
    domain: stringOr(record.website),
    id,
    url: `${baseUrl}/companies/${encodeURIComponent(id)}`,
  }
}

function stringOr(value: unknown): string {
  return value === null || value === undefined ? '' : String(value)
}
