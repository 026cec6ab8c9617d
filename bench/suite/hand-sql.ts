/**
 * @module Per request of the mix, the same query written by hand as prepared better-sqlite3
 * statements on the same file and indexes, in two forms:
 *
 * - **hand**: what a database engineer would write for this query knowing the data: the plan
 *   fixed with `INDEXED BY`, unary `+` on columns that must not drive, `EXISTS` probes while
 *   walking a sort index, semi-joins and covering-index counts, the page's ids first in a
 *   `MATERIALIZED` CTE and the page's records (every column and the five tag lists as JSON arrays)
 *   read for those 50 ids only: one statement per page, one per count.
 * - **plain**: the same query as one first writes it, with SQLite choosing its own plan: no index
 *   hints, no `+`, no `MATERIALIZED`, relations as joins (`DISTINCT` / `LEFT JOIN ... IS NULL`),
 *   deep pages as `LIMIT/OFFSET`, counts as `COUNT(*)` (`COUNT(DISTINCT)` over joins) of the same
 *   `WHERE`. Still exact: negations are written NULL-safe, as the engine's semantics require.
 *
 * Listings and pages are checked against the engine (same ids in the same order, same total)
 * before anything is timed. Detail lookups check the record id; search checks nothing (the
 * engine's three ranking tiers are not a query one writes by hand: "hand" is the FTS5 prefix
 * match in importance order, 10 per type, the floor the lookup can reach); similar companies
 * have no SQL form (a weighted Jaccard over tags computed in JS) and are compared with the detail
 * lookup as the issue's target says.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { COMPANIES_DEFAULT_PER_PAGE, PER_PAGE, type MixParams, type Out } from './mix.js'

export interface SqlForm {
  /** Page 1 (or the request's page), or the lookup. */
  readonly page: () => Out
  /** The total of a listing, counted. */
  readonly count?: () => number
  /** What the text of the statements is, for the report. */
  readonly sql: string
}

export interface SqlForms {
  readonly hand: SqlForm
  readonly plain?: SqlForm
}

const COMPANY_TAGS = ['industries', 'business_models', 'keywords', 'play_categories', 'ios_store_categories'] as const
const tagLists = (alias: string) => COMPANY_TAGS.map((t) => `(select json_group_array(value) from company_${t} where company_id = ${alias}.id) as ${t}`).join(', ')
const INVESTOR_EXTRA = `(select json_group_array(value) from investor_industries where investor_id = i.id) as industries, (select resource_type from investor_details where investor_id = i.id) as resource_type`

/** A page: the keys statement (`id`, sort key `k`) in a CTE, then the records of those ids in that order. */
function companyPage(keys: string, order: string, materialized: boolean): string {
  return `with page as ${materialized ? 'materialized ' : ''}(${keys}) select c.*, ${tagLists('c')} from page join companies c on c.id = page.id order by ${order}`
}
function investorPage(keys: string, order: string, materialized: boolean): string {
  return `with page as ${materialized ? 'materialized ' : ''}(${keys}) select i.*, ${INVESTOR_EXTRA} from page join investors i on i.id = page.id order by ${order}`
}
function fundingPage(keys: string, order: string, materialized: boolean): string {
  return `with page as ${materialized ? 'materialized ' : ''}(${keys}) select f.* from page join fundings f on f.id = page.id order by ${order}`
}

const ids = (rows: readonly { id: number }[]) => rows.map((r) => String(r.id))

function form(db: BetterSqlite3.Database, pageSql: string, countSql: string | undefined, args: readonly unknown[] = [], countArgs: readonly unknown[] = args): SqlForm {
  const page = db.prepare(pageSql)
  const count = countSql === undefined ? undefined : db.prepare(countSql).pluck()
  return {
    page: () => ({ ids: ids(page.all(...args) as { id: number }[]) }),
    ...(count ? { count: () => count.get(...countArgs) as number } : {}),
    sql: countSql === undefined ? pageSql : `${pageSql};\n${countSql}`,
  }
}

export function sqlForms(db: BetterSqlite3.Database, p: MixParams, deepAfter: { k: number | null; id: number }, page1After: { k: number | null; id: number }): Record<string, SqlForms> {
  const L = PER_PAGE
  const json = (xs: readonly unknown[]) => JSON.stringify(xs)
  const inds = json(p.industries)
  const forms: Record<string, SqlForms> = {}

  forms['companies-design'] = {
    // 1,789 hits at 100k: the composite (country, stage, employees, svc_score) index holds every
    // column, so the hits are read from it alone and only they are sorted.
    hand: form(db,
      companyPage(`select id, svc_score as k from companies indexed by companies_by_country_stage_employees_svc_score where country = 'USA' and stage in ('a', 'b') and employees between 50 and 200 order by svc_score desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select count(*) from companies indexed by companies_by_country_stage_employees_svc_score where country = 'USA' and stage in ('a', 'b') and employees between 50 and 200`),
    plain: form(db,
      companyPage(`select id, svc_score as k from companies where country = 'USA' and stage in ('a', 'b') and employees between 50 and 200 order by svc_score desc, id limit ${L}`, 'page.k desc, page.id', false),
      `select count(*) from companies where country = 'USA' and stage in ('a', 'b') and employees between 50 and 200`),
  }
  forms['companies-usa-lfd'] = {
    // 64% of the rows match: walk the sort index and test each row.
    hand: form(db,
      companyPage(`select id, last_funding_date as k from companies indexed by companies_last_funding_date where +country = 'USA' and +employees >= 5 order by last_funding_date desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select count(*) from companies indexed by companies_by_country_stage_employees_svc_score where country = 'USA' and employees >= 5`),
    plain: form(db,
      companyPage(`select id, last_funding_date as k from companies where country = 'USA' and employees >= 5 order by last_funding_date desc, id limit ${L}`, 'page.k desc, page.id', false),
      `select count(*) from companies where country = 'USA' and employees >= 5`),
  }
  forms['companies-usa'] = {
    // Most rows match: walk the sort index and test each row's country. GET /companies's page size.
    hand: form(db,
      companyPage(`select id, svc_score as k from companies indexed by companies_svc_score where +country = 'USA' order by svc_score desc, id limit ${COMPANIES_DEFAULT_PER_PAGE}`, 'page.k desc, page.id', true),
      `select count(*) from companies indexed by companies_country where country = 'USA'`),
    plain: form(db,
      companyPage(`select id, svc_score as k from companies where country = 'USA' order by svc_score desc, id limit ${COMPANIES_DEFAULT_PER_PAGE}`, 'page.k desc, page.id', false),
      `select count(*) from companies where country = 'USA'`),
  }
  forms['companies-all'] = {
    hand: form(db,
      companyPage(`select id, svc_score as k from companies indexed by companies_svc_score order by svc_score desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select count(*) from companies`),
    plain: form(db,
      `select c.*, ${tagLists('c')} from companies c order by svc_score desc, id limit ${L}`,
      `select count(*) from companies`),
  }
  forms['companies-industries'] = {
    // Walk svc_score, probing each company's (company_id, value) keys; count from the value index.
    hand: form(db,
      companyPage(`select id, svc_score as k from companies c indexed by companies_svc_score where exists (select 1 from company_industries t where t.company_id = c.id and t.value in (select value from json_each(?)) limit 1) order by svc_score desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select count(distinct company_id) from company_industries indexed by company_industries_by_value where value in (select value from json_each(?))`, [inds]),
    plain: form(db,
      companyPage(`select distinct c.id, c.svc_score as k from companies c join company_industries t on t.company_id = c.id where t.value in (select value from json_each(?)) order by c.svc_score desc, c.id limit ${L}`, 'page.k desc, page.id', false),
      `select count(distinct c.id) from companies c join company_industries t on t.company_id = c.id where t.value in (select value from json_each(?))`, [inds]),
  }
  const investorWhere = `portfolio_size >= 2 and type in ('vc', 'accelerator')`
  forms['investors-foreign'] = {
    // Walk portfolio_size; per investor, probe its portfolio for a company with either industry.
    hand: form(db,
      investorPage(`select id, portfolio_size as k from investors i indexed by investors_portfolio_size where portfolio_size >= 2 and +type in ('vc', 'accelerator') and exists (select 1 from investments l where l.investor_id = i.id and exists (select 1 from company_industries t where t.company_id = l.company_id and t.value in (select value from json_each(?)) limit 1) limit 1) order by portfolio_size desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select count(*) from investors i indexed by investors_by_type_portfolio_size where type in ('vc', 'accelerator') and portfolio_size >= 2 and exists (select 1 from investments l where l.investor_id = i.id and +l.company_id in (select company_id from company_industries where value in (select value from json_each(?))))`, [inds]),
    plain: form(db,
      investorPage(`select distinct i.id, i.portfolio_size as k from investors i join investments l on l.investor_id = i.id join company_industries t on t.company_id = l.company_id where ${investorWhere} and t.value in (select value from json_each(?)) order by i.portfolio_size desc, i.id limit ${L}`, 'page.k desc, page.id', false),
      `select count(distinct i.id) from investors i join investments l on l.investor_id = i.id join company_industries t on t.company_id = l.company_id where ${investorWhere} and t.value in (select value from json_each(?))`, [inds]),
  }
  forms['companies-none-seed'] = {
    // Walk total_funding, probing each company's rounds; count as all minus the companies with a seed round.
    hand: form(db,
      companyPage(`select id, total_funding as k from companies c indexed by companies_total_funding where not exists (select 1 from fundings f indexed by fundings_company_id where f.company_id = c.id and f.series = 'seed') order by total_funding desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select (select count(*) from companies) - (select count(*) from companies where id in (select company_id from fundings indexed by fundings_series where series = 'seed'))`),
    plain: form(db,
      companyPage(`select c.id, c.total_funding as k from companies c left join fundings f on f.company_id = c.id and f.series = 'seed' where f.id is null order by c.total_funding desc, c.id limit ${L}`, 'page.k desc, page.id', false),
      `select count(*) from companies c left join fundings f on f.company_id = c.id and f.series = 'seed' where f.id is null`),
  }
  // Counted as the three ranges of the composite index outside USA (NULL, below, above), each
  // testing employees from the index entry: a quarter of the entries instead of all of them.
  const notUsa = (range: string) => `(select count(*) from companies indexed by companies_by_country_stage_employees_svc_score where ${range} and (employees is null or employees >= 10))`
  forms['companies-not-or'] = {
    hand: form(db,
      companyPage(`select id, svc_score as k from companies indexed by companies_svc_score where (+country is null or +country <> 'USA') and (+employees is null or +employees >= 10) order by svc_score desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select ${notUsa('country is null')} + ${notUsa(`country < 'USA'`)} + ${notUsa(`country > 'USA'`)}`),
    plain: form(db,
      companyPage(`select id, svc_score as k from companies where not (coalesce(country = 'USA', 0) or coalesce(employees < 10, 0)) order by svc_score desc, id limit ${L}`, 'page.k desc, page.id', false),
      `select count(*) from companies where not (coalesce(country = 'USA', 0) or coalesce(employees < 10, 0))`),
  }
  const sites = json(p.websites)
  forms['companies-website-in'] = {
    hand: form(db,
      companyPage(`select id, svc_score as k from companies indexed by companies_website where website in (select value from json_each(?)) order by svc_score desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select count(*) from companies indexed by companies_website where website in (select value from json_each(?))`, [sites]),
    plain: form(db,
      companyPage(`select c.id, c.svc_score as k from companies c join json_each(?) j on c.website = j.value order by c.svc_score desc, c.id limit ${L}`, 'page.k desc, page.id', false),
      `select count(*) from companies c join (select distinct value from json_each(?)) j on c.website = j.value`, [sites]),
  }
  forms['fundings-investor'] = {
    // The investor's rounds through its link-table range, sorted; counted from the link index alone.
    hand: form(db,
      fundingPage(`select f.id, f.rounds_funding_date as k from funding_investors l indexed by funding_investors_by_investor_id join fundings f on f.id = l.funding_id where l.investor_id = (select id from investors where svc_slug = ?) order by f.rounds_funding_date desc, f.id limit ${L}`, 'page.k desc, page.id', true),
      `select count(*) from funding_investors indexed by funding_investors_by_investor_id where investor_id = (select id from investors where svc_slug = ?)`, [p.investorSlug]),
    plain: form(db,
      fundingPage(`select f.id, f.rounds_funding_date as k from fundings f join funding_investors l on l.funding_id = f.id join investors i on i.id = l.investor_id where i.svc_slug = ? order by f.rounds_funding_date desc, f.id limit ${L}`, 'page.k desc, page.id', false),
      `select count(*) from fundings f join funding_investors l on l.funding_id = f.id join investors i on i.id = l.investor_id where i.svc_slug = ?`, [p.investorSlug]),
  }
  forms['fundings-dates'] = {
    hand: form(db,
      fundingPage(`select id, rounds_funding_date as k from fundings indexed by fundings_rounds_funding_date where rounds_funding_date between '2020-01-01' and '2020-12-31' order by rounds_funding_date desc, id limit ${L}`, 'page.k desc, page.id', true),
      `select count(*) from fundings indexed by fundings_rounds_funding_date where rounds_funding_date between '2020-01-01' and '2020-12-31'`),
    plain: form(db,
      `select * from fundings where rounds_funding_date between '2020-01-01' and '2020-12-31' order by rounds_funding_date desc, id limit ${L}`,
      `select count(*) from fundings where rounds_funding_date between '2020-01-01' and '2020-12-31'`),
  }

  // Company detail: the record, its tags, apps, rounds with their investors, acquisitions, the
  // latest stories and the time series, as one statement of JSON sub-selects.
  const detail = db.prepare(`select c.*, x.last_funding_date_raw, x.stage_raw, ${tagLists('c')},
    (select json_group_array(json_array(position, ios_store_id, app_name, developer_url, ios_store_url)) from company_ios_store_apps where company_id = c.id) as ios,
    (select json_group_array(json_array(position, id, app_name, package_id, play_url)) from company_android_store_apps where company_id = c.id) as android,
    (select json_group_array(json_array(f.id, f.amount, f.currency, f.series, f.rounds_funding_date, f.news_url, fx.source,
       (select json_group_array(json_array(v.id, v.name)) from funding_investors l join investors v on v.id = l.investor_id where l.funding_id = f.id)))
       from fundings f indexed by fundings_company_id left join fundings_extra fx on fx.funding_id = f.id where f.company_id = c.id) as funding,
    (select json_group_array(json_array(event_id, closed_date, acquirer_id, acquirer_name, acquirer_domain)) from acquisitions where acquired_id = c.id) as acquired_by,
    (select json_group_array(json_array(event_id, closed_date, acquired_id, acquired_name, acquired_domain)) from acquisitions where acquirer_id = c.id) as acquired,
    (select json_group_array(json_array(id, title, url, published_at, source_title)) from (select * from company_stories where company_id = c.id order by published_at desc limit 10)) as stories,
    (select json_group_array(json_array(series, position, recorded_at, score, score_is_string)) from time_series_points where company_id = c.id) as time_series
    from companies c left join companies_extra x on x.company_id = c.id where c.id = ?`)
  const detailForm: SqlForm = { page: () => ({ ids: ids(detail.all(p.companyId) as { id: number }[]) }), sql: detail.source }
  forms['company-detail'] = { hand: detailForm }

  // Investor detail: the record, its latest round with that round's investors, the portfolio's
  // aggregates (stages, locations, business models, industries), the rounds by series and by
  // quarter with the companies' stages and industries, and the latest filings.
  const inv = [
    db.prepare('select i.*, d.portfolio_path, d.funding_rounds_path, d.resource_type from investors i left join investor_details d on d.investor_id = i.id where i.id = @id'),
    db.prepare(`select f.id, f.rounds_funding_date, f.amount, f.series, f.company_id, f.company_name,
      (select json_group_array(json_array(v.svc_slug, v.name)) from funding_investors l2 join investors v on v.id = l2.investor_id where l2.funding_id = f.id) as investors
      from funding_investors l indexed by funding_investors_by_investor_id join fundings f on f.id = l.funding_id where l.investor_id = @id order by f.rounds_funding_date desc, f.id desc limit 1`),
    db.prepare(`select 'stage' as d, c.stage as name, count(*) as n from investments l join companies c on c.id = l.company_id where l.investor_id = @id group by c.stage
      union all select 'location', c.location, count(*) from investments l join companies c on c.id = l.company_id where l.investor_id = @id group by c.location
      union all select 'business_model', t.value, count(*) from investments l join company_business_models t on t.company_id = l.company_id where l.investor_id = @id group by t.value
      union all select 'industry', t.value, count(*) from investments l join company_industries t on t.company_id = l.company_id where l.investor_id = @id group by t.value`),
    db.prepare(`select f.series, count(*) from funding_investors l indexed by funding_investors_by_investor_id join fundings f on f.id = l.funding_id where l.investor_id = @id group by f.series`),
    db.prepare(`with q as (select distinct substr(f.rounds_funding_date, 1, 4) || '-' || ((cast(substr(f.rounds_funding_date, 6, 2) as integer) + 2) / 3) as quarter, f.company_id
        from funding_investors l indexed by funding_investors_by_investor_id join fundings f on f.id = l.funding_id where l.investor_id = @id)
      select quarter, 'stage', c.stage, count(*) from q join companies c on c.id = q.company_id group by quarter, c.stage
      union all select quarter, 'industry', t.value, count(*) from q join company_industries t on t.company_id = q.company_id group by quarter, t.value`),
    db.prepare('select * from investor_filings where investor_id = @id order by filing_date desc limit 5'),
  ]
  forms['investor-detail'] = {
    hand: {
      page: () => {
        const row = inv[0]!.get({ id: p.investorId }) as { id: number } | undefined
        for (const s of inv.slice(1)) s.all({ id: p.investorId })
        return { ids: row ? [String(row.id)] : [] }
      },
      sql: inv.map((s) => s.source).join(';\n'),
    },
  }
  // The floor of a prefix search: the FTS5 prefix index in importance order (rank), 10 per type,
  // with the fields the answer shows; plain: LIKE on the name, SQLite's own plan (a scan).
  const searchHand = [
    db.prepare(`select s.company_id as id, c.name, c.website, c.total_funding, c.svc_score from search_companies_fts f join search_companies s on s.rank = f.rowid join companies c on c.id = s.company_id where search_companies_fts match ? order by f.rowid limit 10`),
    db.prepare(`select s.investor_id as id, v.name, v.svc_slug, s.funding from search_investors_fts f join search_investors s on s.rank = f.rowid join investors v on v.id = s.investor_id where search_investors_fts match ? order by f.rowid limit 10`),
  ]
  const searchPlain = [
    db.prepare(`select id, name, website, total_funding, svc_score from companies where name like ? order by svc_score desc, id limit 10`),
    db.prepare(`select id, name, svc_slug from investors where name like ? order by portfolio_size desc, id limit 10`),
  ]
  for (const term of ['a', 'te', 'tec', 'tech']) {
    forms[`search-${term}`] = {
      hand: { page: () => ({ ids: searchHand.flatMap((s) => ids(s.all(`"${term}"*`) as { id: number }[])) }), sql: searchHand.map((s) => s.source).join(';\n') },
      plain: { page: () => ({ ids: searchPlain.flatMap((s) => ids(s.all(`${term}%`) as { id: number }[])) }), sql: searchPlain.map((s) => s.source).join(';\n') },
    }
  }

  // Pages of the stored query (country = USA AND employees >= 5, svc_score desc, NULLs last): the
  // keyset seek after the previous page's last key, as a client cursor holds it, split as SQLite
  // needs it (a range on the non-NULL keys, then the NULL tail only if the page is not full), and
  // the page's records by id.
  const seekNonNull = db.prepare(`select id from companies indexed by companies_svc_score where svc_score <= @k and (svc_score < @k or id > @after) and +country = 'USA' and +employees >= 5 order by svc_score desc, id limit @limit`)
  const nullTail = db.prepare(`select id from companies indexed by companies_svc_score where svc_score is null and id > @after and +country = 'USA' and +employees >= 5 order by id limit @limit`)
  const rowsById = db.prepare(`select c.*, ${tagLists('c')} from json_each(?) j join companies c on c.id = j.value order by j.key`)
  const seek = (after: { k: number | null; id: number }) => (): Out => {
    let pageIds: number[] = after.k === null ? [] : (seekNonNull.pluck().all({ k: after.k, after: after.id, limit: L }) as number[])
    if (pageIds.length < L) pageIds = pageIds.concat(nullTail.pluck().all({ after: after.k === null ? after.id : 0, limit: L - pageIds.length }) as number[])
    return { ids: ids(rowsById.all(JSON.stringify(pageIds)) as { id: number }[]) }
  }
  const offsetPage = db.prepare(`select c.*, ${tagLists('c')} from companies c where country = 'USA' and employees >= 5 order by svc_score desc, id limit ? offset ?`)
  const seekSql = [seekNonNull.source, nullTail.source, rowsById.source].join(';\n')
  forms['deep-page'] = {
    hand: { page: seek(deepAfter), sql: seekSql },
    plain: { page: () => ({ ids: ids(offsetPage.all(L, (p.deepPage - 1) * L) as { id: number }[]) }), sql: offsetPage.source },
  }
  forms['repeated-page'] = {
    hand: { page: seek(page1After), sql: seekSql },
    plain: { page: () => ({ ids: ids(offsetPage.all(L, L) as { id: number }[]) }), sql: offsetPage.source },
  }
  return forms
}

/** The last sort key of page `n - 1` of the deep query (what a client cursor holds before page n). */
export function keyBefore(db: BetterSqlite3.Database, page: number): { k: number | null; id: number } {
  return db.prepare(`select svc_score as k, id from companies where country = 'USA' and employees >= 5 order by svc_score desc, id limit 1 offset ?`).get((page - 1) * PER_PAGE - 1) as { k: number | null; id: number }
}
