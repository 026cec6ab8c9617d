/**
 * @module The funding event record of GET /fundings (spec 2.10), also used for fundings results of
 * POST /queries. Exactly the fields of 2.10 in its order; the investors, slugs and industries come
 * from one batched lookup per page (`records/funding-extras.ts`).
 *
 * Absent values follow missing-values.ts: `region` and `state` are nullable (spec) and show null;
 * the plain string fields show '' (as spec 4.11 shows for `series`); `amount`, `rounds_funding_date`
 * and `created_on` show null when unknown (an undisclosed amount is not 0, and '' is not a date).
 */
import type { ResultRecord } from '../../execute/records.js'
import { extrasOf, type FundingExtras } from '../../records/funding-extras.js'
import { dateOrNull, integerOrNull, nullableText, text } from './missing-values.js'

export interface FundingView {
  readonly id: string
  readonly funding_id: string
  readonly company_id: string
  readonly company_name: string
  readonly investors: string
  readonly investor_slugs: string
  readonly series: string
  readonly rounds_funding_date: string | null
  readonly amount: number | null
  readonly currency: string
  readonly news_url: string
  readonly industry: string
  readonly region: string | null
  readonly city: string
  readonly state: string | null
  readonly country: string
  readonly created_on: string | null
}

/** One funding event; `record` is a fundings result record of the engine. */
export function fundingView(record: ResultRecord, extras: FundingExtras): FundingView {
  const id = String(record.id)
  return {
    id,
    funding_id: id,
    company_id: text(record.company_id),
    company_name: text(record.company_name),
    investors: extras.investors,
    investor_slugs: extras.investor_slugs,
    series: text(record.series),
    rounds_funding_date: dateOrNull(record.rounds_funding_date),
    amount: integerOrNull(record.amount),
    currency: text(record.currency),
    news_url: text(record.news_url),
    industry: extras.industry,
    region: nullableText(record.region),
    city: text(record.city),
    state: nullableText(record.state),
    country: text(record.country),
    created_on: dateOrNull(record.created_on),
  }
}

/** A page of funding events, with their extras (`engine.records.fundingExtras`, one statement for the page). */
export function fundingViews(extras: ReadonlyMap<number, FundingExtras>, records: readonly ResultRecord[]): FundingView[] {
  return records.map((r) => fundingView(r, extrasOf(extras, Number(r.id))))
}

/** The ids of a page of funding events, for `engine.records.fundingExtras`. */
export const fundingIds = (records: readonly ResultRecord[]): number[] => records.map((r) => Number(r.id))
