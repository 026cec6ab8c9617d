/**
 * @module The company detail record (spec 2.3) as stored: the company row with its raw spellings
 * (`companies_extra`), tags, store apps, funding items with their investors, acquisitions, the
 * latest stories and the time series. Values come back as the database holds them; the HTTP view
 * (`http/views/company-detail.ts`) turns them into the wire forms of spec section 2. Also the
 * lookup of a company by its canonical domain (spec 4.3).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { DETAIL_TABLES, TIME_SERIES_NAMES, type TimeSeriesName } from '../store/schema/detail-tables.js'
import { COMPANY_ID, COMPANY_TABLE, FUNDING_INVESTORS } from './company-sql.js'
import { columnOf, COMPANIES, FUNDINGS, INVESTORS, prepared, tagTableOf } from '../store/sql-names.js'
import { latestStories, STORY_LIMIT, type StoryRow } from './stories.js'

/** The scalar fields of spec 2.3, by their catalog names, in the spec's order. */
export const DETAIL_SCALAR_FIELDS = Object.freeze([
  'name', 'id', 'description', 'website', 'svc_score', 'employees', 'employees_month_ago', 'employees_6_months_ago',
  'website_uniques', 'mobile_downloads', 'mobile_score', 'stage', 'total_funding', 'last_funding_amount',
  'last_funding_date', 'location', 'city', 'state', 'zip', 'country', 'microblog_handle', 'socialnet_handle',
  'professionalnet_id', 'added_date', 'revenue_range', 'est_founding_date',
] as const)
export type DetailScalarField = (typeof DETAIL_SCALAR_FIELDS)[number]

/** The company row: every 2.3 scalar as stored (numbers as numbers, dates as ISO text, NULL as null). */
export type CompanyRow = { readonly [K in DetailScalarField]: K extends 'id' ? number : string | number | null } & {
  /** The record's own spelling of last_funding_date (YYYYMMDD) when it differed from the stored form. */
  readonly last_funding_date_raw: string | null
  /** The record's own spelling of the stage ('exited (acquired)') when it differed from the stored form. */
  readonly stage_raw: string | null
}

export interface IosAppRow {
  readonly developer_url: string | null
  readonly ios_store_id: string | null
  readonly ios_store_url: string | null
  readonly app_name: string | null
}

export interface AndroidAppRow {
  readonly id: number | null
  readonly app_name: string | null
  readonly package_id: string | null
  readonly play_url: string | null
}

export interface FundingItemRow {
  readonly id: number
  readonly amount: number | null
  readonly currency: string | null
  /** NULL where the record gave an empty series (spec 4.11 shows empty strings). */
  readonly series: string | null
  readonly funding_date: string | null
  readonly news_url: string | null
  readonly source: string | null
  readonly investor_ids: readonly number[]
  /** Names of the linked investors, in investor_ids order; names the record gave when no investor is linked. */
  readonly investor_names: readonly string[]
}

/** One acquisition seen from the company's side: the other party. */
export interface AcquisitionRow {
  readonly event_id: number
  readonly closed_date: string | null
  readonly company_id: number | null
  readonly company_name: string | null
  readonly company_domain: string | null
}

export interface PointRow {
  readonly recorded_at: string
  /** The score's text as imported. */
  readonly score: string | null
  /** Whether the score arrived as a JSON string (spec 2.3.5: "string or integer"). */
  readonly score_is_string: boolean
}

export interface CompanyDetailRecord {
  readonly company: CompanyRow
  readonly industries: readonly string[]
  readonly business_models: readonly string[]
  readonly ios_store_apps: readonly IosAppRow[]
  readonly android_store_apps: readonly AndroidAppRow[]
  readonly funding: readonly FundingItemRow[]
  readonly acquired_by: readonly AcquisitionRow[]
  readonly acquired_companies: readonly AcquisitionRow[]
  /** The latest stories, newest first (the same 50 as GET /companies/:id/stories). */
  readonly stories: readonly StoryRow[]
  readonly time_series: Readonly<Record<TimeSeriesName, readonly PointRow[]>>
}

const T = DETAIL_TABLES
const c = (name: string) => `c.${columnOf(COMPANIES, name)}`
const f = (name: string) => `e.${columnOf(FUNDINGS, name)}`

const COMPANY_SQL = `select ${DETAIL_SCALAR_FIELDS.map((name) => `${c(name)} as "${name}"`).join(', ')},
    x.last_funding_date_raw, x.stage_raw
  from ${COMPANY_TABLE} c left join ${T.companyExtra} x on x.company_id = c.${COMPANY_ID}
  where c.${COMPANY_ID} = ?`

const industries = tagTableOf(COMPANIES, 'industries')
const businessModels = tagTableOf(COMPANIES, 'business_models')
const tagSql = (t: ReturnType<typeof tagTableOf>) => `select "${t.valueColumn}" from "${t.table}" where "${t.ownerColumn}" = ? order by "${t.valueColumn}"`

// Funding items: the company's events, oldest first, as the record listed its rounds.
const FUNDING_SQL = `select ${f('id')} as id, ${f('amount')} as amount, ${f('currency')} as currency, ${f('series')} as series,
    ${f('rounds_funding_date')} as funding_date, ${f('news_url')} as news_url, x.source as source, x.investor_names as investor_names
  from "${FUNDINGS.table}" e left join ${T.fundingExtra} x on x.funding_id = ${f('id')}
  where ${f('company_id')} = ?
  order by ${f('rounds_funding_date')} is null, ${f('rounds_funding_date')}, ${f('id')}`

const FUNDING_INVESTORS_SQL = `select l.${FUNDING_INVESTORS.fundingKey} as funding_id, l.${FUNDING_INVESTORS.investorKey} as investor_id, i.${columnOf(INVESTORS, 'name')} as name
  from ${FUNDING_INVESTORS.table} l
  left join "${INVESTORS.table}" i on i.${columnOf(INVESTORS, INVESTORS.primaryKey)} = l.${FUNDING_INVESTORS.investorKey}
  where l.${FUNDING_INVESTORS.fundingKey} in (select value from json_each(?))
  order by l.${FUNDING_INVESTORS.fundingKey}, l.${FUNDING_INVESTORS.investorKey}`

// The other party's name and domain come from its company row when the acquisition did not give them.
const acquisitionSql = (self: 'acquirer' | 'acquired', other: 'acquirer' | 'acquired') => `select a.event_id as event_id, a.closed_date as closed_date,
    a.${other}_id as company_id, coalesce(a.${other}_name, o.${columnOf(COMPANIES, 'name')}) as company_name,
    coalesce(a.${other}_domain, o.${columnOf(COMPANIES, 'website')}) as company_domain
  from ${T.acquisitions} a left join ${COMPANY_TABLE} o on o.${COMPANY_ID} = a.${other}_id
  where a.${self}_id = ?
  order by a.closed_date is null, a.closed_date, a.event_id`

const POINTS_SQL = `select series, recorded_at, score, score_is_string from ${T.timeSeries} where company_id = ? order by series, position`

/** The whole detail record of one company, or undefined when no company has this id. */
export function companyDetail(sqlite: BetterSqlite3.Database, id: number): CompanyDetailRecord | undefined {
  const company = prepared(sqlite, COMPANY_SQL).get(id) as CompanyRow | undefined
  if (!company) return undefined

  const funding = fundingItems(sqlite, id)
  const time_series = Object.fromEntries(TIME_SERIES_NAMES.map((name) => [name, [] as PointRow[]])) as Record<TimeSeriesName, PointRow[]>
  for (const p of prepared(sqlite, POINTS_SQL).all(id) as { series: string; recorded_at: string; score: string | null; score_is_string: number }[]) {
    const list = time_series[p.series as TimeSeriesName] as PointRow[] | undefined
    // Points of a series this build does not know are ignored rather than invented into the shape.
    if (list) list.push({ recorded_at: p.recorded_at, score: p.score, score_is_string: p.score_is_string === 1 })
  }

  return {
    company,
    industries: prepared(sqlite, tagSql(industries)).pluck().all(id) as string[],
    business_models: prepared(sqlite, tagSql(businessModels)).pluck().all(id) as string[],
    ios_store_apps: prepared(sqlite, `select developer_url, ios_store_id, ios_store_url, app_name from ${T.iosApps} where company_id = ? order by position`).all(id) as IosAppRow[],
    android_store_apps: prepared(sqlite, `select id, app_name, package_id, play_url from ${T.androidApps} where company_id = ? order by position`).all(id) as AndroidAppRow[],
    funding,
    acquired_by: prepared(sqlite, acquisitionSql('acquired', 'acquirer')).all(id) as AcquisitionRow[],
    acquired_companies: prepared(sqlite, acquisitionSql('acquirer', 'acquired')).all(id) as AcquisitionRow[],
    stories: latestStories(sqlite, id, STORY_LIMIT),
    time_series,
  }
}

function fundingItems(sqlite: BetterSqlite3.Database, companyId: number): FundingItemRow[] {
  const events = prepared(sqlite, FUNDING_SQL).all(companyId) as (Omit<FundingItemRow, 'investor_ids' | 'investor_names'> & { investor_names: string | null })[]
  if (events.length === 0) return []
  const linked = new Map<number, { ids: number[]; names: string[] }>()
  const links = prepared(sqlite, FUNDING_INVESTORS_SQL).all(JSON.stringify(events.map((e) => e.id))) as { funding_id: number; investor_id: number; name: string | null }[]
  for (const l of links) {
    let entry = linked.get(l.funding_id)
    if (!entry) linked.set(l.funding_id, (entry = { ids: [], names: [] }))
    entry.ids.push(l.investor_id)
    if (l.name != null) entry.names.push(l.name)
  }
  return events.map(({ investor_names, ...e }) => {
    const entry = linked.get(e.id)
    // The loader keeps the record's names only for events without investor ids (ingest.ts).
    const names = entry ? entry.names : investor_names ? investor_names.split(',').map((s) => s.trim()).filter((s) => s !== '') : []
    return { ...e, investor_ids: entry?.ids ?? [], investor_names: names }
  })
}

//// lookup by domain (spec 4.3) ////

/**
 * The canonical form of a domain as clients send it: lower case, no trailing dot, no leading
 * `www.`. Undefined when the text cannot be a domain at all (spaces, slashes, NUL, empty labels),
 * so nothing that could not match reaches the database.
 */
export function canonicalDomain(text: string): string | undefined {
  let d = text.trim().toLowerCase()
  if (d.endsWith('.')) d = d.slice(0, -1)
  if (d.startsWith('www.')) d = d.slice(4)
  if (d.length === 0 || d.length > 253) return undefined
  return /^[\p{L}\p{N}_-]+(\.[\p{L}\p{N}_-]+)*$/u.test(d) ? d : undefined
}

const WEBSITE = columnOf(COMPANIES, 'website')
const BY_EXACT_WEBSITE = `select ${COMPANY_ID} from ${COMPANY_TABLE} where ${WEBSITE} in (?, ?) order by ${COMPANY_ID} limit 1`
const HAS_WEBSITE_PREFIX = `select 1 from ${COMPANY_TABLE} where ${WEBSITE} >= ? and ${WEBSITE} < ? limit 1`
const BY_WEBSITES = `select ${COMPANY_ID} as id, ${WEBSITE} as website from ${COMPANY_TABLE} where ${WEBSITE} in (select value from json_each(?)) order by ${COMPANY_ID}`
/** Sorts after every character a website can hold, so `prefix` .. `prefix + PREFIX_END` is every text starting with `prefix`. */
const PREFIX_END = '\u{10FFFF}'

/**
 * The id of the company whose website is `domain` (any case, with or without `www.` and a trailing
 * dot), the lowest id when several share it; undefined when none does. Served by the website
 * index only: first the stored spellings a loader normally writes (lower case, with or without
 * `www.`), then, for websites stored in mixed case, the stored spellings found by
 * `storedCaseSpellings`. A 1M-row scan with `lower(website) = ?` would cost ~100 ms per unknown
 * domain, which a client could send in a loop.
 */
export function companyIdByDomain(sqlite: BetterSqlite3.Database, domain: string): number | undefined {
  const d = canonicalDomain(domain)
  if (d === undefined) return undefined
  const exact = prepared(sqlite, BY_EXACT_WEBSITE).pluck().get(d, `www.${d}`) as number | undefined
  if (exact !== undefined) return exact
  const hasPrefix = prepared(sqlite, HAS_WEBSITE_PREFIX)
  const exists = (prefix: string) => hasPrefix.get(prefix, prefix + PREFIX_END) !== undefined
  const spellings = [d, `www.${d}`].flatMap((lower) => storedCaseSpellings(lower, exists))
  if (spellings.length === 0) return undefined
  // A stored trailing dot (`Example.com.`) is the same domain.
  const candidates = spellings.flatMap((s) => [s, `${s}.`])
  const rows = prepared(sqlite, BY_WEBSITES).all(JSON.stringify(candidates)) as { id: number; website: string }[]
  return rows.find((row) => canonicalDomain(row.website) === d)?.id
}

/**
 * The ASCII upper/lower case spellings of `lower` that some stored text starts with, found one
 * character at a time: a spelling is extended only while a stored website starts with it (one
 * index seek each). The work is bounded by the domain's length times the stored spellings that
 * share its letters in some case, usually one or two, however many websites share its first
 * letters: a range from `quinZZZ` to `quinzzz` would return every `quin...` website in between.
 */
export function storedCaseSpellings(lower: string, exists: (prefix: string) => boolean): string[] {
  let live = ['']
  for (const ch of lower) {
    const up = /[a-z]/.test(ch) ? ch.toUpperCase() : ch
    const next: string[] = []
    for (const prefix of live) {
      for (const variant of up === ch ? [ch] : [up, ch]) if (exists(prefix + variant)) next.push(prefix + variant)
    }
    if (next.length === 0) return []
    live = next
  }
  return live
}
