/**
 * @module The wire form of a company detail (spec 2.3): the stored record shaped exactly as the
 * spec's table shows it. Numerics the spec shows as strings become strings, the raw spellings of
 * last_funding_date and stage win over the stored forms, funding items name their investors, and
 * `microblog_mentions` is always `[]` (deprecated, spec 9). Unknown values follow missing-values.ts:
 * '' for plain strings, null for numbers, numeric strings and dates, [] for arrays.
 */
import type { z } from 'zod'
import type { AcquisitionRow, CompanyDetailRecord, FundingItemRow, PointRow } from '../../records/company.js'
import type { StoryRow } from '../../records/stories.js'
import { TIME_SERIES_NAMES, type TimeSeriesName } from '../../store/schema/detail-tables.js'
import type { acquisitionItemSchema, companyDetailSchema, fundingItemSchema, timeSeriesPointSchema } from '../schemas/company.js'
import { dateOrNull, integerOrNull, list, numericText, stageText, text } from './missing-values.js'

export type CompanyDetail = z.infer<typeof companyDetailSchema>

/** 'YYYY-MM-DD HH:MM:SS' as stored → the 'YYYY-MM-DD HH:MM:SS UTC' of spec 2.4 and 2.3.5. */
export function utcText(stored: string | null): string | null {
  if (stored === null || stored === '') return null
  return /(UTC|[+-]\d{4})$/.test(stored) ? stored : `${stored} UTC`
}

export function toCompanyDetail(record: CompanyDetailRecord): CompanyDetail {
  const c = record.company
  const series = Object.fromEntries(TIME_SERIES_NAMES.map((name) => [name, toSeries(name, record.time_series[name])])) as Record<TimeSeriesName, z.infer<typeof timeSeriesPointSchema>[]>
  return {
    name: text(c.name),
    id: String(c.id),
    description: text(c.description),
    website: text(c.website),
    svc_score: numericText(c.svc_score),
    employees: numericText(c.employees),
    employees_month_ago: numericText(c.employees_month_ago),
    employees_6_months_ago: numericText(c.employees_6_months_ago),
    website_uniques: numericText(c.website_uniques),
    mobile_downloads: numericText(c.mobile_downloads),
    mobile_score: numericText(c.mobile_score),
    stage: stageText(c.stage_raw ?? c.stage),
    total_funding: integerOrNull(c.total_funding),
    last_funding_amount: integerOrNull(c.last_funding_amount),
    last_funding_date: dateOrNull(c.last_funding_date_raw ?? c.last_funding_date),
    location: text(c.location),
    city: text(c.city),
    state: text(c.state),
    zip: text(c.zip),
    country: text(c.country),
    microblog_handle: text(c.microblog_handle),
    socialnet_handle: text(c.socialnet_handle),
    professionalnet_id: integerOrNull(c.professionalnet_id),
    added_date: dateOrNull(c.added_date),
    revenue_range: text(c.revenue_range),
    ios_store_apps: record.ios_store_apps.map((a) => ({
      developer_url: text(a.developer_url), ios_store_id: text(a.ios_store_id), ios_store_url: text(a.ios_store_url), app_name: text(a.app_name),
    })),
    android_store_apps: record.android_store_apps.map((a) => ({
      id: integerOrNull(a.id), app_name: text(a.app_name), package_id: text(a.package_id),
      // 2.3.2 repeats the owning company on each app.
      company_id: c.id, company_name: text(c.name), company_domain: text(c.website),
      play_url: text(a.play_url),
    })),
    funding: record.funding.map(toFundingItem),
    acquired_by: record.acquired_by.map(toAcquisition),
    acquired_companies: record.acquired_companies.map(toAcquisition),
    est_founding_date: dateOrNull(c.est_founding_date),
    business_models: list(record.business_models),
    industries: list(record.industries),
    stories: record.stories.map(toDetailStory),
    ...series,
  }
}

function toSeries(name: TimeSeriesName, points: readonly PointRow[]): z.infer<typeof timeSeriesPointSchema>[] {
  // Deprecated (spec 2.3, 9): current responses return [] so that existing clients keep working.
  if (name === 'microblog_mentions') return []
  return points.map((p) => ({
    recorded_at: p.recorded_at,
    score: p.score === null ? null : p.score_is_string ? p.score : Number(p.score),
  }))
}

function toFundingItem(f: FundingItemRow): z.infer<typeof fundingItemSchema> {
  return {
    amount: integerOrNull(f.amount),
    currency: text(f.currency),
    // '' is the spec's own spelling of an unknown series (4.11).
    series: text(f.series),
    funding_date: dateOrNull(f.funding_date),
    news_url: text(f.news_url),
    source: text(f.source),
    investor_ids: list(f.investor_ids),
    investors: f.investor_names.join(', '),
  }
}

function toAcquisition(a: AcquisitionRow): z.infer<typeof acquisitionItemSchema> {
  return { event_id: a.event_id, closed_date: dateOrNull(a.closed_date), company_id: integerOrNull(a.company_id), company_name: text(a.company_name), company_domain: text(a.company_domain) }
}

function toDetailStory(s: StoryRow) {
  return { title: text(s.title), url: text(s.url), date: utcText(s.published_at), source: text(s.source_title) }
}
