/**
 * @module The company list item of GET /companies (spec 2.2): name, domain, id as a string, and
 * the absolute, fetchable address of the company's detail (design section 6).
 */
import type { ResultRecord } from '../../execute/records.js'
import { text } from './missing-values.js'

export interface CompanyListItem {
  readonly company_name: string
  readonly domain: string
  readonly id: string
  readonly url: string
}

/**
 * `record` is a companies result record of the engine (`id` already a string, spec 2.3); `baseUrl`
 * has no trailing slash. A company without a known name or website shows '' there (spec 2.2 types
 * both as plain strings; missing-values.ts).
 */
export function companyListItem(record: ResultRecord, baseUrl: string): CompanyListItem {
  const id = String(record.id)
  return {
    company_name: text(record.name),
    domain: text(record.website),
    id,
    url: `${baseUrl}/companies/${encodeURIComponent(id)}`,
  }
}
