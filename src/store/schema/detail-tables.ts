/**
 * @module Tables for the parts of spec section 2 that no filter reaches: stories, people, contacts,
 * tech stack, store apps, acquisitions, time series, investor details and filings, and the
 * detail-only forms of company and funding fields. Record lookups (the detail endpoints) read them;
 * the loader writes them. They are keyed by the owning record so a re-import can replace them.
 */
import { sql, type Compilable, type Kysely } from 'kysely'
import { idType, type DialectName } from './column-types.js'
import { withoutRowid } from './dataset-tables.js'

/** The time series of a company detail (spec 2.3), in the order the spec lists them. */
export const TIME_SERIES_NAMES = Object.freeze([
  'growth_scores', 'mindshare_scores', 'svc_weekly_momentum', 'employee_count', 'web_rank',
  'socialnet_talking_count', 'socialnet_like_count', 'microblog_follower_count', 'microblog_mentions',
  'professionalnet_follower_count', 'ios_store_usa_weekly_downloads', 'inbound_links', 'est_monthly_uniques',
] as const)
export type TimeSeriesName = (typeof TIME_SERIES_NAMES)[number]

/** Table names of the detail tables, one place for the loader and the record lookups. */
export const DETAIL_TABLES = Object.freeze({
  companyExtra: 'companies_extra',
  stories: 'company_stories',
  people: 'company_people',
  contacts: 'company_contacts',
  techStack: 'company_tech_stack',
  iosApps: 'company_ios_store_apps',
  androidApps: 'company_android_store_apps',
  acquisitions: 'acquisitions',
  timeSeries: 'time_series_points',
  fundingExtra: 'fundings_extra',
  investorDetails: 'investor_details',
  investorFilings: 'investor_filings',
})

export function detailTableStatements(db: Kysely<any>, dialect: DialectName): Compilable[] {
  const id = sql.raw(idType(dialect))
  const real = sql.raw(dialect === 'sqlite' ? 'real' : 'double precision')
  const t = DETAIL_TABLES
  return [
    // Detail-only company fields: raw spellings the catalog normalises away (the
    // `last_funding_date` text form of spec 2.3, the stage as shown) and the latest growth
    // score, which investor avg_growth_score averages. A raw column is null when the record's
    // text was the stored form itself, and there is no row when all three would be null: a
    // detail response shows `coalesce(raw, companies column)`.
    db.schema.createTable(t.companyExtra).ifNotExists()
      .addColumn('company_id', id, (c) => c.primaryKey())
      .addColumn('last_funding_date_raw', 'text')
      .addColumn('stage_raw', 'text')
      .addColumn('growth_score', real),
    db.schema.createTable(t.stories).ifNotExists()
      .addColumn('id', id, (c) => c.primaryKey())
      .addColumn('company_id', id, (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('published_at', 'text')
      .addColumn('source_title', 'text'),
    db.schema.createIndex(`${t.stories}_by_company`).ifNotExists().on(t.stories).columns(['company_id', 'published_at']),
    db.schema.createTable(t.people).ifNotExists()
      .addColumn('company_id', id, (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('path', 'text')
      .addPrimaryKeyConstraint(`${t.people}_pk`, ['company_id', 'position'] as never)
      .$call((x) => withoutRowid(x, dialect)),
    db.schema.createTable(t.contacts).ifNotExists()
      .addColumn('company_id', id, (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('email', 'text') // null: contact information unavailable (spec 2.7)
      .addPrimaryKeyConstraint(`${t.contacts}_pk`, ['company_id', 'name'] as never)
      .$call((x) => withoutRowid(x, dialect)),
    db.schema.createTable(t.techStack).ifNotExists()
      .addColumn('company_id', id, (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${t.techStack}_pk`, ['company_id', 'title'] as never)
      .$call((x) => withoutRowid(x, dialect)),
    db.schema.createTable(t.iosApps).ifNotExists()
      .addColumn('company_id', id, (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('ios_store_id', 'text')
      .addColumn('app_name', 'text')
      .addColumn('developer_url', 'text')
      .addColumn('ios_store_url', 'text')
      .addColumn('category', 'text')
      .addPrimaryKeyConstraint(`${t.iosApps}_pk`, ['company_id', 'position'] as never)
      .$call((x) => withoutRowid(x, dialect)),
    db.schema.createTable(t.androidApps).ifNotExists()
      .addColumn('company_id', id, (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('id', id)
      .addColumn('app_name', 'text')
      .addColumn('package_id', 'text')
      .addColumn('play_url', 'text')
      .addColumn('category', 'text')
      .addPrimaryKeyConstraint(`${t.androidApps}_pk`, ['company_id', 'position'] as never)
      .$call((x) => withoutRowid(x, dialect)),
    // One row per acquisition event, seen from either side (acquired_by of the acquired company,
    // acquired_companies of the acquirer); the other party need not be a tracked company.
    db.schema.createTable(t.acquisitions).ifNotExists()
      .addColumn('event_id', id, (c) => c.primaryKey())
      .addColumn('acquirer_id', id)
      .addColumn('acquirer_name', 'text')
      .addColumn('acquirer_domain', 'text')
      .addColumn('acquired_id', id)
      .addColumn('acquired_name', 'text')
      .addColumn('acquired_domain', 'text')
      .addColumn('closed_date', 'text'),
    db.schema.createIndex(`${t.acquisitions}_by_acquirer`).ifNotExists().on(t.acquisitions).columns(['acquirer_id']),
    db.schema.createIndex(`${t.acquisitions}_by_acquired`).ifNotExists().on(t.acquisitions).columns(['acquired_id']),
    // Points keep their raw text (spec 2.3.5: the score is a string or an integer, timestamps carry
    // ' UTC' or '+0000') so detail responses reproduce them exactly.
    db.schema.createTable(t.timeSeries).ifNotExists()
      .addColumn('company_id', id, (c) => c.notNull())
      .addColumn('series', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('recorded_at', 'text', (c) => c.notNull())
      .addColumn('score', 'text')
      .addColumn('score_is_string', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint(`${t.timeSeries}_pk`, ['company_id', 'series', 'position'] as never)
      .$call((x) => withoutRowid(x, dialect)),
    db.schema.createTable(t.fundingExtra).ifNotExists()
      .addColumn('funding_id', id, (c) => c.primaryKey())
      .addColumn('source', 'text')
      .addColumn('investor_names', 'text')
      .addColumn('investor_slugs', 'text'),
    db.schema.createTable(t.investorDetails).ifNotExists()
      .addColumn('investor_id', id, (c) => c.primaryKey())
      .addColumn('portfolio_path', 'text')
      .addColumn('funding_rounds_path', 'text')
      .addColumn('resource_type', 'text')
      // 1 when the record gave no industries: the loader derives them from the portfolio.
      .addColumn('industries_derived', 'integer', (c) => c.notNull().defaultTo(0)),
    db.schema.createTable(t.investorFilings).ifNotExists()
      .addColumn('investor_id', id, (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('entity_name', 'text')
      .addColumn('total_offering', id)
      .addColumn('total_sold', id)
      .addColumn('filing_date', 'text')
      .addColumn('form', 'text')
      .addPrimaryKeyConstraint(`${t.investorFilings}_pk`, ['investor_id', 'position'] as never)
      .$call((x) => withoutRowid(x, dialect)),
  ]
}
