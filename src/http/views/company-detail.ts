/**
 * @module The wire form of a company detail (spec 2.3): the stored record shaped exactly as the
 * spec's table shows it. Numerics the spec shows as strings become strings, the raw spellings of
 * last_funding_date and stage win over the stored forms, funding items name their investors, and
 * `microblog_mentions` is always `[]` (deprecated, spec 9).
 */
import type { z } from 'zod'
import type { AcquisitionRow, CompanyDetailRecord, FundingItemRow, PointRow } from '../../records/company.js'
import type { StoryRow } from '../../records/stories.js'
import { TIME_SERIES_NAMES, type TimeSeriesName } from '../../store/schema/detail-tables.js'
import type { acquisitionItemSchema, companyDetailSchema, fundingItemSchema, timeSeriesPointSchema } from '../schemas/company.js'

export type CompanyDetail = z.infer<typeof companyDetailSchema>

/** A stored number as the spec's "string (numeric)"; null stays null. */
export function numericText(value: unknown): string | null {
  if (value === null || value === undefined) return null
  return String(value)
}

function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value)
}

function integerOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null
  const n = Number(value)
  return Number.isFinite(n) ? Math.trunc(n) : null
}

/** 'YYYY-MM-DD HH:MM:SS' as stored → the 'YYYY-MM-DD HH:MM:SS UTC' of spec 2.4 and 2.3.5. */
export function utcText(stored: string | null): string | null {
  if (stored === null) return null
  return /(UTC|[+-]\d{4})$/.test(stored) ? stored : `${stored} UTC`
}

/** The stage as the record spelled it, else as stored; "Unknown" (a stage of spec 3) when none is known. */
export function stageText(stage: string | number | null): string {
  return stage === null ? 'Unknown' : String(stage)
}

export function toCompanyDetail(record: CompanyDetailRecord): CompanyDetail {
  const c = record.company
  const series = Object.fromEntries(TIME_SERIES_NAMES.map((name) => [name, toSeries(name, record.time_series[name])])) as Record<TimeSeriesName, z.infer<typeof timeSeriesPointSchema>[]>
  return {
    name: textOrNull(c.name),
    id: String(c.id),
    description: textOrNull(c.description),
    website: textOrNull(c.website),
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
    last_funding_date: textOrNull(c.last_funding_date_raw ?? c.last_funding_date),
    location: textOrNull(c.location),
    city: textOrNull(c.city),
    state: textOrNull(c.state),
    zip: textOrNull(c.zip),
    country: textOrNull(c.country),
    microblog_handle: textOrNull(c.microblog_handle),
    socialnet_handle: textOrNull(c.socialnet_handle),
    professionalnet_id: integerOrNull(c.professionalnet_id),
    added_date: textOrNull(c.added_date),
    revenue_range: textOrNull(c.revenue_range),
    ios_store_apps: record.ios_store_apps.map((a) => ({ ...a })),
    android_store_apps: record.android_store_apps.map((a) => ({
      id: a.id, app_name: a.app_name, package_id: a.package_id,
      // 2.3.2 repeats the owning company on each app.
      company_id: c.id, company_name: textOrNull(c.name), company_domain: textOrNull(c.website),
      play_url: a.play_url,
    })),
    funding: record.funding.map(toFundingItem),
    acquired_by: record.acquired_by.map(toAcquisition),
    acquired_companies: record.acquired_companies.map(toAcquisition),
    est_founding_date: textOrNull(c.est_founding_date),
    business_models: [...record.business_models],
    industries: [...record.industries],
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
    amount: f.amount,
    currency: f.currency,
    series: f.series ?? '',
    funding_date: f.funding_date,
    news_url: f.news_url,
    source: f.source,
    investor_ids: [...f.investor_ids],
    investors: f.investor_names.join(', '),
  }
}

function toAcquisition(a: AcquisitionRow): z.infer<typeof acquisitionItemSchema> {
  return { event_id: a.event_id, closed_date: a.closed_date, company_id: a.company_id, company_name: a.company_name, company_domain: a.company_domain }
}

function toDetailStory(s: StoryRow) {
  return { title: s.title, url: s.url, date: utcText(s.published_at), source: s.source_title }
}
