/**
 * @module The company detail record (spec 2.3) as stored: the company row with its raw spellings
 * (`companies_extra`), tags, store apps, funding items with their investors, acquisitions, the
 * latest stories and the time series. Values come back as the database holds them; the HTTP view
 * (`http/views/company-detail.ts`) turns them into the wire forms of spec section 2. Also the
 * lookup of a company by its canonical domain (spec 4.3).
 */
import { sql } from 'kysely'
import { primaryKeyColumn } from '../catalog/index.js'
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES, TIME_SERIES_NAMES, type TimeSeriesName } from '../store/schema/detail-tables.js'
import { columnName, COMPANIES, FUNDINGS, INVESTORS, tagTableOf } from '../store/sql-names.js'
import { COMPANY_ID, COMPANY_TABLE, FUNDING_INVESTORS } from './company-sql.js'
import { nullsLast } from './order.js'
import { queryBatch, queryShape } from './query-shape.js'
import { recordSession } from './session.js'
import { LATEST_STORIES, STORY_LIMIT, type StoryRow } from './stories.js'

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
const cCol = (name: string) => `c.${columnName(COMPANIES, name)}`
const fCol = (name: string) => `e.${columnName(FUNDINGS, name)}`
const INVESTOR_ID = primaryKeyColumn(INVESTORS)

const COMPANY = queryShape<{ id: number }, CompanyRow>('company detail: row', (db, _d, p) =>
  db.selectFrom(`${COMPANY_TABLE} as c`).leftJoin(`${T.companyExtra} as x`, 'x.company_id', `c.${COMPANY_ID}`)
    .select([...DETAIL_SCALAR_FIELDS.map((name) => `${cCol(name)} as ${name}`), 'x.last_funding_date_raw', 'x.stage_raw'])
    .where(`c.${COMPANY_ID}`, '=', p.id))

/** The values of one tags field of one company, in binary order (the tag columns are "C" on PostgreSQL). */
const tagValues = (field: 'industries' | 'business_models') => {
  const t = tagTableOf(COMPANIES, field)
  return queryShape<{ id: number }, { value: string }>(`company detail: ${field}`, (db, _d, p) =>
    db.selectFrom(t.table).select(`${t.valueColumn} as value`).where(t.ownerColumn, '=', p.id).orderBy(t.valueColumn))
}
const INDUSTRIES = tagValues('industries')
const BUSINESS_MODELS = tagValues('business_models')

// Funding items: the company's events, oldest first (undated last), as the record listed its rounds,
// each with its linked investors in id order: one row per event and investor (one row for an event
// without any), so the items cost one statement, not a second one for the investors of the events.
type FundingRow = Omit<FundingItemRow, 'investor_ids' | 'investor_names'> & {
  investor_names: string | null
  investor_id: number | null
  investor_name: string | null
}
const FUNDING = queryShape<{ id: number }, FundingRow>('company detail: funding', (db, d, p) =>
  db.selectFrom(`${FUNDINGS.table} as e`)
    .leftJoin(`${T.fundingExtra} as x`, 'x.funding_id', fCol('id'))
    .leftJoin(`${FUNDING_INVESTORS.table} as l`, `l.${FUNDING_INVESTORS.fromKey}`, fCol('id'))
    .leftJoin(`${INVESTORS.table} as i`, `i.${INVESTOR_ID}`, `l.${FUNDING_INVESTORS.toKey}`)
    .select([`${fCol('id')} as id`, `${fCol('amount')} as amount`, `${fCol('currency')} as currency`, `${fCol('series')} as series`,
      `${fCol('rounds_funding_date')} as funding_date`, `${fCol('news_url')} as news_url`, 'x.source as source', 'x.investor_names as investor_names',
      `l.${FUNDING_INVESTORS.toKey} as investor_id`, `i.${columnName(INVESTORS, 'name')} as investor_name`])
    .where(fCol('company_id'), '=', p.id)
    .orderBy(fCol('rounds_funding_date'), nullsLast(d, 'asc')).orderBy(fCol('id')).orderBy(`l.${FUNDING_INVESTORS.toKey}`))

// The other party's name and domain come from its company row when the acquisition did not give them.
const acquisitions = (self: 'acquirer' | 'acquired', other: 'acquirer' | 'acquired') =>
  queryShape<{ id: number }, AcquisitionRow>(`company detail: ${self} side of acquisitions`, (db, d, p) =>
    db.selectFrom(`${T.acquisitions} as a`).leftJoin(`${COMPANY_TABLE} as o`, `o.${COMPANY_ID}`, `a.${other}_id`)
      .select((eb) => [
        'a.event_id as event_id', 'a.closed_date as closed_date', `a.${other}_id as company_id`,
        eb.fn.coalesce(`a.${other}_name`, `o.${columnName(COMPANIES, 'name')}`).as('company_name'),
        eb.fn.coalesce(`a.${other}_domain`, `o.${columnName(COMPANIES, 'website')}`).as('company_domain'),
      ])
      .where(`a.${self}_id`, '=', p.id)
      .orderBy(d.binaryText(sql.ref('a.closed_date')), nullsLast(d, 'asc')).orderBy('a.event_id'))
const ACQUIRED_BY = acquisitions('acquired', 'acquirer')
const ACQUIRED_COMPANIES = acquisitions('acquirer', 'acquired')

// Only the order within a series matters (position); the series are sorted by the primary key's order.
const POINTS = queryShape<{ id: number }, { series: string; recorded_at: string; score: string | null; score_is_string: number }>('company detail: time series', (db, _d, p) =>
  db.selectFrom(T.timeSeries).select(['series', 'recorded_at', 'score', 'score_is_string']).where('company_id', '=', p.id).orderBy('series').orderBy('position'))

const IOS_APPS = queryShape<{ id: number }, IosAppRow>('company detail: iOS apps', (db, _d, p) =>
  db.selectFrom(T.iosApps).select(['developer_url', 'ios_store_id', 'ios_store_url', 'app_name']).where('company_id', '=', p.id).orderBy('position'))

const ANDROID_APPS = queryShape<{ id: number }, AndroidAppRow>('company detail: Android apps', (db, _d, p) =>
  db.selectFrom(T.androidApps).select(['id', 'app_name', 'package_id', 'play_url']).where('company_id', '=', p.id).orderBy('position'))

/** Every part of a detail record, read together (one statement on PostgreSQL: `queryBatch`). */
const DETAIL = queryBatch('company detail', {
  company: { shape: COMPANY, params: (p: { id: number }) => ({ id: p.id }) },
  funding: { shape: FUNDING, params: (p: { id: number }) => ({ id: p.id }) },
  points: { shape: POINTS, params: (p: { id: number }) => ({ id: p.id }) },
  industries: { shape: INDUSTRIES, params: (p: { id: number }) => ({ id: p.id }) },
  businessModels: { shape: BUSINESS_MODELS, params: (p: { id: number }) => ({ id: p.id }) },
  iosApps: { shape: IOS_APPS, params: (p: { id: number }) => ({ id: p.id }) },
  androidApps: { shape: ANDROID_APPS, params: (p: { id: number }) => ({ id: p.id }) },
  acquiredBy: { shape: ACQUIRED_BY, params: (p: { id: number }) => ({ id: p.id }) },
  acquiredCompanies: { shape: ACQUIRED_COMPANIES, params: (p: { id: number }) => ({ id: p.id }) },
  stories: { shape: LATEST_STORIES, params: (p: { id: number }) => ({ companyId: p.id, limit: STORY_LIMIT }) },
})

/** The whole detail record of one company, or undefined when no company has this id. */
export async function companyDetail(vdb: VentureDb, id: number): Promise<CompanyDetailRecord | undefined> {
  if (!Number.isSafeInteger(id)) return undefined
  // Every part at once, the company row included (the parts of an unknown id come back empty and
  // are dropped): one statement on PostgreSQL, one round trip.
  const parts = await recordSession(vdb).batch(DETAIL, { id })
  const company = parts.company[0]
  if (!company) return undefined
  const time_series = Object.fromEntries(TIME_SERIES_NAMES.map((name) => [name, [] as PointRow[]])) as Record<TimeSeriesName, PointRow[]>
  for (const p of parts.points) {
    const list = time_series[p.series as TimeSeriesName] as PointRow[] | undefined
    // Points of a series this build does not know are ignored rather than invented into the shape.
    if (list) list.push({ recorded_at: p.recorded_at, score: p.score, score_is_string: p.score_is_string === 1 })
  }

  return {
    company,
    industries: parts.industries.map((r) => r.value),
    business_models: parts.businessModels.map((r) => r.value),
    ios_store_apps: parts.iosApps,
    android_store_apps: parts.androidApps,
    funding: fundingItems(parts.funding),
    acquired_by: parts.acquiredBy,
    acquired_companies: parts.acquiredCompanies,
    stories: parts.stories,
    time_series,
  }
}

function fundingItems(rows: readonly FundingRow[]): FundingItemRow[] {
  const items: FundingItemRow[] = []
  let current: (FundingItemRow & { investor_ids: number[]; investor_names: string[] }) | undefined
  for (const { investor_names, investor_id, investor_name, ...event } of rows) {
    if (current?.id !== event.id) {
      // The loader keeps the record's names only for events without investor ids (ingest.ts).
      const names = investor_id === null && investor_names ? investor_names.split(',').map((n) => n.trim()).filter((n) => n !== '') : []
      items.push((current = { ...event, investor_ids: [], investor_names: names }))
    }
    if (investor_id === null) continue
    current.investor_ids.push(investor_id)
    if (investor_name != null) current.investor_names.push(investor_name)
  }
  return items
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

const WEBSITE = columnName(COMPANIES, 'website')
const BY_EXACT_WEBSITE = queryShape<{ bare: string; www: string }, { id: number }>('company by domain: exact', (db, _d, p) =>
  db.selectFrom(COMPANY_TABLE).select(`${COMPANY_ID} as id`).where(WEBSITE, 'in', [p.bare, p.www]).orderBy(COMPANY_ID).limit(1))
const HAS_WEBSITE_PREFIX = queryShape<{ from: string; to: string }, { found: number }>('company by domain: prefix probe', (db, _d, p) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.lit(1).as('found')).where(WEBSITE, '>=', p.from).where(WEBSITE, '<', p.to).limit(1))
const BY_WEBSITES = queryShape<{ websites: string }, { id: number; website: string }>('company by domain: spellings', (db, d, p) =>
  db.selectFrom(COMPANY_TABLE).select([`${COMPANY_ID} as id`, `${WEBSITE} as website`])
    .where(d.inList(sql.ref(WEBSITE), p.websites, 'string')).orderBy(COMPANY_ID))
/** Sorts after every character a website can hold, so `prefix` .. `prefix + PREFIX_END` is every text starting with `prefix`. */
const PREFIX_END = '\u{10FFFF}'

/**
 * The id of the company whose website is `domain` (any case, with or without `www.` and a trailing
 * dot), the lowest id when several share it; undefined when none does. Served by the website
 * index only: first the stored spellings a loader normally writes (lower case, with or without
 * `www.`), then, for websites stored in mixed case, the stored spellings found by
 * `storedCaseSpellings`. A 1M-row scan with `lower(website) = ?` would cost ~100 ms per unknown
 * domain, which a client could send in a loop. The website column compares bytes on both
 * backends (BINARY, "C"), so the prefix ranges are the same ranges.
 */
export async function companyIdByDomain(vdb: VentureDb, domain: string): Promise<number | undefined> {
  const d = canonicalDomain(domain)
  if (d === undefined) return undefined
  const s = recordSession(vdb)
  const exact = await s.first(BY_EXACT_WEBSITE, { bare: d, www: `www.${d}` })
  if (exact !== undefined) return exact.id
  const exists = async (prefix: string) => (await s.first(HAS_WEBSITE_PREFIX, { from: prefix, to: prefix + PREFIX_END })) !== undefined
  const spellings = (await Promise.all([d, `www.${d}`].map((lower) => storedCaseSpellingsOf(lower, exists)))).flat()
  if (spellings.length === 0) return undefined
  // A stored trailing dot (`Example.com.`) is the same domain.
  const candidates = spellings.flatMap((sp) => [sp, `${sp}.`])
  const rows = await s.all(BY_WEBSITES, { websites: JSON.stringify(candidates) })
  return rows.find((row) => canonicalDomain(row.website) === d)?.id
}

/**
 * `storedCaseSpellings` with an asynchronous probe. The search is replayed over the answers known
 * so far until it asks nothing new: each replay stops at the first character whose prefixes are
 * unknown (every one of them then answers "no" for now), those prefixes are probed together, and
 * the next replay gets one character further. So each prefix is probed once, the probes of one
 * character run at the same time (one round trip on PostgreSQL), and the search itself stays the
 * one pure function below.
 */
async function storedCaseSpellingsOf(lower: string, exists: (prefix: string) => Promise<boolean>): Promise<string[]> {
  const known = new Map<string, boolean>()
  for (;;) {
    const unknown: string[] = []
    const found = storedCaseSpellings(lower, (prefix) => {
      const answer = known.get(prefix)
      if (answer === undefined) unknown.push(prefix)
      return answer ?? false
    })
    if (unknown.length === 0) return found
    const answers = await Promise.all(unknown.map(exists))
    unknown.forEach((prefix, i) => known.set(prefix, answers[i]!))
  }
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
