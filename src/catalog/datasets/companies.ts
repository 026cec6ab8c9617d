/**
 * @module The companies dataset: the filterable and sortable fields of the company detail
 * (spec 2.3) and of the GET /companies parameters (spec 4.1) that 2.3 does not name.
 */
import { dataset, field, tagsField } from '../define.js'
import { STAGE } from '../enums.js'
import { boolean, date, datetime, integer, number, string } from '../field-types.js'

const asString = { wire: 'string' } as const

export const companies = dataset({
  name: 'companies',
  aliases: ['company'],
  table: 'companies',
  primaryKey: 'id',
  description: 'Companies tracked by the service.',
  defaultSort: [{ field: 'svc_score', direction: 'desc' }],
  fields: [
    field('id', integer, 'Company identifier; :id of GET /companies/:id.', { nullable: false, wire: 'string' }),
    field('name', string, 'Company name.', { indexed: true }),
    field('website', string, 'Canonical website domain (the `domain` of list items and of GET /domains/:domain/companies).', { identifying: true }),
    field('description', string, 'Free-text description.'),
    field('svc_score', number, 'Current service score (GET /companies `svc_score`).', { indexed: true, ...asString }),
    field('momentum_score', number, 'Latest weekly momentum score; may be negative (GET /companies `momentum_score`).', { indexed: true }),
    field('mobile_score', number, 'Mobile score.', asString),
    field('employees', integer, 'Current employee count.', { indexed: true, ...asString }),
    field('employees_month_ago', integer, 'Employee count one month ago.', asString),
    field('employees_6_months_ago', integer, 'Employee count six months ago.', asString),
    field('employees_added_in_month', integer, 'Employees added this month (employees minus employees_month_ago).'),
    field('employees_mom', number, 'Percent employee growth over the month.'),
    field('website_uniques', integer, 'Estimated monthly unique visitors (GET /companies `cached_uniques`).', asString),
    field('cached_uniques_week_ago', integer, 'Estimated monthly unique visitors, as of 7 days ago.'),
    field('uniques_wow', number, 'Percent change of unique visitors over 7 days.'),
    field('cached_uniques_month_ago', integer, 'Estimated monthly unique visitors, as of a month ago.'),
    field('uniques_mom', number, 'Percent change of unique visitors over a month.'),
    field('mobile_downloads', integer, 'Estimated monthly U.S. ios store downloads (GET /companies `cached_mobile_downloads`).', asString),
    field('cached_mobile_downloads_week_ago', integer, 'Estimated monthly downloads, as of a week ago.'),
    field('mobile_downloads_wow', number, 'Change in downloads over the past week (percent).'),
    field('cached_mobile_downloads_month_ago', integer, 'Estimated monthly downloads, as of a month ago.'),
    field('mobile_downloads_mom', number, 'Change in downloads over a month (percent).'),
    field('stage', STAGE, 'Most recent funding stage.', { indexed: true }),
    field('total_funding', integer, 'Total publicly reported funding in U.S. dollars (other currencies excluded).', { indexed: true }),
    field('last_funding_amount', integer, 'Amount of the most recent funding event.'),
    field('last_funding_date', date, 'Date of the most recent funding event.', { indexed: true }),
    field('location', string, 'Metro region.', { indexed: true }),
    field('city', string, 'City of headquarters.'),
    field('state', string, 'State of headquarters (U.S.).'),
    field('zip', string, 'Postal code.'),
    field('country', string, 'Three-letter country code.', { indexed: true, facet: 'value' }),
    field('microblog_handle', string, 'Microblog handle.'),
    field('socialnet_handle', string, 'Social network handle.'),
    field('professionalnet_id', integer, 'Professional network identifier.'),
    field('added_date', datetime, 'When the company started being tracked.', { indexed: true }),
    field('revenue_range', string, 'Revenue range, e.g. "$1M-$10M".'),
    field('est_founding_date', date, 'Estimated founding date.'),
    field('has_mobile', boolean, 'Whether the company has a mobile app in either store.'),
    field('has_android_store', boolean, 'Whether the company has an android store app.'),
    field('has_ios_store', boolean, 'Whether the company has an ios store app.'),
    tagsField('industries', 'company_industries', 'company_id', 'Industries.'),
    tagsField('business_models', 'company_business_models', 'company_id', 'Business models.'),
    tagsField('keywords', 'company_keywords', 'company_id', 'Keywords associated with the company.'),
    tagsField('play_categories', 'company_play_categories', 'company_id', 'Android store categories of the company\'s apps (GET /companies `play_category`).'),
    tagsField('ios_store_categories', 'company_ios_store_categories', 'company_id', 'Ios store categories of the company\'s apps (GET /companies `ios_store_category`).'),
  ],
})
