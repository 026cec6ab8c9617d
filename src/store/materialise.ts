/**
 * @module Derived data, computed in SQL at the end of every ingest so that it can be filtered,
 * sorted and indexed like stored data: funding investors named by slug, the denormalised company
 * fields of funding events (2.10), `investments` (2.13 first_invested_on), the company funding
 * fields of 2.3 (total_funding counts disclosed U.S.-dollar amounts: 0 without rounds, NULL when
 * every amount is undisclosed) and the investor aggregates of 2.11.
 * Column names come from the catalog; the statements are plain SQL that SQLite and PostgreSQL
 * both accept (UPDATE ... FROM, window functions, NULLS LAST), but for the few spellings that differ
 * (`insert or ignore`, the temporary table's schema, the integer of a rounded mean). The steps are a
 * generator of statements so the synchronous SQLite loader and the asynchronous PostgreSQL one run
 * the same list: `materialise` (SQLite) and `materialiseSteps('postgres')` (ingest-postgres.ts).
 */
import type BetterSqlite3 from 'better-sqlite3'
import { datasets } from '../catalog/index.js'
import { columnOf, linkOf } from './sql-names.js'
import { DETAIL_TABLES } from './schema/detail-tables.js'

/** The date three years before an ISO date (for three_year_funds_*). */
function threeYearsBefore(isoDate: string): string {
  const y = Number(isoDate.slice(0, 4)) - 3
  return `${String(y).padStart(4, '0')}${isoDate.slice(4)}`
}

/** One step of the derivation: a phase name, a statement to run, or a one-value query whose answer is sent back. */
export type MaterialiseStep =
  | { readonly step: string }
  | { readonly exec: string; readonly params?: readonly unknown[] }
  | { readonly value: string }

/** Runs the derivation on SQLite (inside the caller's transaction). */
export function materialise(sqlite: BetterSqlite3.Database, onStep?: (step: string) => void): void {
  const steps = materialiseSteps('sqlite')
  let next = steps.next()
  while (!next.done) {
    const s = next.value
    let answer: unknown
    if ('step' in s) onStep?.(s.step)
    else if ('exec' in s) {
      if (s.params) sqlite.prepare(s.exec).run(...s.params)
      else sqlite.exec(s.exec)
    } else answer = sqlite.prepare(s.value).pluck().get()
    next = steps.next(answer)
  }
}

/** The derivation's statements for a dialect; `value` steps are sent their answer. */
export function* materialiseSteps(dialect: 'sqlite' | 'postgres'): Generator<MaterialiseStep, void, unknown> {
  const pg = dialect === 'postgres'
  const C = datasets.companies
  const I = datasets.investors
  const F = datasets.fundings
  const c = (n: string) => columnOf(C, n)
  const i = (n: string) => columnOf(I, n)
  const f = (n: string) => columnOf(F, n)
  const companies = `"${C.table}"`
  const investors = `"${I.table}"`
  const fundings = `"${F.table}"`
  const fi = linkOf('fundings', 'investors')
  const inv = linkOf('investors', 'companies')
  const firstInvested = '"first_invested_on"'
  const t = DETAIL_TABLES
  const industries = I.fields.industries!.tags!
  const companyIndustries = C.fields.industries!.tags!

  yield { step: 'funding investors' }
  // The pending slugs are a temporary table of the loading connection (pg_temp on PostgreSQL).
  const pending = pg ? 'pg_temp.pending_funding_slugs' : 'temp.pending_funding_slugs'
  yield { exec: `insert ${pg ? '' : 'or ignore '}into ${fi.table} (${fi.fromKey}, ${fi.toKey})
    select p.funding_id, x.${i('investor_id')} from ${pending} p join ${investors} x on x.${i('svc_slug')} = p.slug${pg ? ' on conflict do nothing' : ''}` }
  yield { exec: `delete from ${pending}` }

  yield { step: 'funding events' }
  yield { exec: `update ${fundings} set
      ${f('company_name')} = coalesce(${fundings}.${f('company_name')}, x.${c('name')}),
      ${f('region')} = coalesce(${fundings}.${f('region')}, x.${c('location')}),
      ${f('city')} = coalesce(${fundings}.${f('city')}, x.${c('city')}),
      ${f('state')} = coalesce(${fundings}.${f('state')}, x.${c('state')}),
      ${f('country')} = coalesce(${fundings}.${f('country')}, x.${c('country')})
    from ${companies} x
    where x.${c('id')} = ${fundings}.${f('company_id')}
      and (${fundings}.${f('company_name')} is null or ${fundings}.${f('region')} is null or ${fundings}.${f('city')} is null
        or ${fundings}.${f('state')} is null or ${fundings}.${f('country')} is null)` }

  yield { step: 'investments' }
  yield { exec: `delete from ${inv.table}` }
  yield { exec: `insert into ${inv.table} (${inv.fromKey}, ${inv.toKey}, ${firstInvested})
    select l.${fi.toKey}, e.${f('company_id')}, min(e.${f('rounds_funding_date')})
    from ${fi.table} l join ${fundings} e on e.${f('id')} = l.${fi.fromKey}
    group by l.${fi.toKey}, e.${f('company_id')}` }

  yield { step: 'company funding' }
  // total_funding (grammar-docs/guides/serving.md, "Missing values"): the sum of the disclosed amounts in U.S. dollars. A
  // round in another currency adds 0 (spec 2.3 excludes it), an undisclosed amount adds nothing
  // known: so a company whose rounds are all undisclosed has an unknown total (NULL), and one with no
  // round on record has raised nothing, 0 (unless its record stated a total). Every unknown total
  // becomes 0 first and the next statement sets the total of each company with rounds again: the
  // same outcome as "0 where no round exists", without a per-company probe of the fundings table,
  // whose company index is still deferred during a load (that probe made generating quadratic:
  // 100,000 companies took over 14 minutes).
  yield { exec: `update ${companies} set ${c('total_funding')} = 0 where ${c('total_funding')} is null` }
  // Likewise the amount of the last round of a company without rounds (and without a stated total)
  // is a known nothing, 0; a company with rounds gets its last round's amount (NULL if undisclosed)
  // from the next statement.
  yield { exec: `update ${companies} set ${c('last_funding_amount')} = 0 where ${c('last_funding_amount')} is null and ${c('total_funding')} = 0` }
  yield { exec: `update ${companies} set
      ${c('total_funding')} = a.total, ${c('last_funding_date')} = a.last_date, ${c('last_funding_amount')} = a.last_amount
    from (
      select company_id,
        sum(case when amount is null then null when upper(currency) = 'USD' then amount else 0 end) as total,
        max(funding_date) as last_date,
        max(case when rn = 1 then amount end) as last_amount
      from (
        select ${f('company_id')} as company_id, ${f('amount')} as amount, ${f('currency')} as currency, ${f('rounds_funding_date')} as funding_date,
          row_number() over (partition by ${f('company_id')} order by ${f('rounds_funding_date')} desc nulls last, ${f('id')} desc) as rn
        from ${fundings}
      ) ranked
      group by company_id
    ) a
    where ${companies}.${c('id')} = a.company_id` }

  yield { step: 'investor aggregates' }
  yield { exec: `update ${investors} set ${i('number_of_deals')} = 0, ${i('portfolio_size')} = 0, ${i('avg_deal_size')} = null,
    ${i('deals_per_company')} = null, ${i('most_recent_deal')} = null, ${i('avg_growth_score')} = null` }
  yield { exec: `update ${investors} set ${i('number_of_deals')} = a.deals, ${i('avg_deal_size')} = a.avg_amount, ${i('most_recent_deal')} = a.last_date
    from (
      select l.${fi.toKey} as investor_id, count(*) as deals,
        cast(round(avg(case when upper(e.${f('currency')}) = 'USD' then e.${f('amount')} end)) as ${pg ? 'bigint' : 'integer'}) as avg_amount,
        max(e.${f('rounds_funding_date')}) as last_date
      from ${fi.table} l join ${fundings} e on e.${f('id')} = l.${fi.fromKey}
      group by l.${fi.toKey}
    ) a
    where ${investors}.${i('investor_id')} = a.investor_id` }
  yield { exec: `update ${investors} set ${i('portfolio_size')} = a.n, ${i('avg_growth_score')} = a.g,
      ${i('deals_per_company')} = ${pg ? `cast(${investors}.${i('number_of_deals')} as double precision)` : `${investors}.${i('number_of_deals')} * 1.0`} / a.n
    from (
      select p.${inv.fromKey} as investor_id, count(*) as n, avg(x.growth_score) as g
      from ${inv.table} p left join ${t.companyExtra} x on x.company_id = p.${inv.toKey}
      group by p.${inv.fromKey}
    ) a
    where ${investors}.${i('investor_id')} = a.investor_id` }

  // Fund figures from filings, where the investor record did not state them. "Three years" is
  // counted back from the latest filing date in the data, so a rebuild gives the same numbers.
  const ref = (yield { value: `select max(filing_date) from ${t.investorFilings}` }) as string | null | undefined
  if (ref) {
    yield { exec: `update ${investors} set
        ${i('three_year_funds_offered')} = coalesce(${investors}.${i('three_year_funds_offered')}, a.offered),
        ${i('three_year_funds_sold')} = coalesce(${investors}.${i('three_year_funds_sold')}, a.sold)
      from (
        select investor_id, sum(total_offering) as offered, sum(total_sold) as sold
        from ${t.investorFilings} where filing_date > ${pg ? '$1' : '?'} group by investor_id
      ) a
      where ${investors}.${i('investor_id')} = a.investor_id`, params: [threeYearsBefore(ref)] }
    yield { exec: `update ${investors} set
        ${i('est_most_recent_fund_date')} = coalesce(${investors}.${i('est_most_recent_fund_date')}, a.d),
        ${i('est_most_recent_fund_size')} = coalesce(${investors}.${i('est_most_recent_fund_size')}, a.s)
      from (
        select investor_id, filing_date as d, total_offering as s,
          row_number() over (partition by investor_id order by filing_date desc nulls last, position) as rn
        from ${t.investorFilings}
      ) a
      where a.rn = 1 and ${investors}.${i('investor_id')} = a.investor_id` }
  }

  yield { step: 'investor industries' }
  // Investors whose record named no industries get the five most frequent of their portfolio.
  yield { exec: `delete from "${industries.table}" where "${industries.ownerColumn}" in
    (select investor_id from ${t.investorDetails} where industries_derived = 1)` }
  yield { exec: `insert into "${industries.table}" ("${industries.ownerColumn}", "${industries.valueColumn}")
    select investor_id, value from (
      select p.${inv.fromKey} as investor_id, ci."${companyIndustries.valueColumn}" as value,
        row_number() over (partition by p.${inv.fromKey} order by count(*) desc, ci."${companyIndustries.valueColumn}") as rn
      from ${inv.table} p
      join ${t.investorDetails} d on d.investor_id = p.${inv.fromKey} and d.industries_derived = 1
      join "${companyIndustries.table}" ci on ci."${companyIndustries.ownerColumn}" = p.${inv.toKey}
      group by p.${inv.fromKey}, ci."${companyIndustries.valueColumn}"
    ) ranked
    where rn <= 5` }
}
