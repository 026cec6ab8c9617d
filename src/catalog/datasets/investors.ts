/**
 * @module The investors dataset (spec 2.11 and the field lists of 4.14). Aggregates are
 * materialised at ingest so they can be filtered and sorted with indexes.
 */
import { dataset, field, tagsField } from '../define.js'
import { INVESTOR_TYPE } from '../enums.js'
import { date, integer, number, string } from '../field-types.js'

const aggregate = { role: 'aggregate' } as const

export const investors = dataset({
  name: 'investors',
  aliases: ['investor'],
  table: 'investors',
  primaryKey: 'investor_id',
  description: 'Investors: venture firms, angels, accelerators.',
  defaultSort: [{ field: 'portfolio_size', direction: 'desc' }],
  fields: [
    field('investor_id', integer, 'Investor identifier; :id of GET /investors/:id.', { column: 'id', nullable: false }),
    field('name', string, 'Investor name.', { indexed: true }),
    field('investor_domain', string, 'Website domain of the investor.'),
    field('angel_platform_page', string, 'Address of the investor\'s angel platform page.'),
    field('location', string, 'Metro region.'),
    field('type', INVESTOR_TYPE, 'Kind of investor.', { indexed: true }),
    field('city', string, 'City.'),
    field('state', string, 'State (U.S.).'),
    field('country', string, 'Three-letter country code.', { indexed: true, facet: 'value' }),
    field('website', string, 'Website address.'),
    field('svc_slug', string, 'Investor slug, used to filter companies and fundings by investor.', { identifying: true }),
    field('est_most_recent_fund_size', integer, 'Estimated size of the most recent fund (U.S. dollars).', aggregate),
    field('est_most_recent_fund_date', date, 'Estimated date of the most recent fund.', aggregate),
    field('three_year_funds_offered', integer, 'Fund offerings over the past three years (U.S. dollars).', aggregate),
    field('three_year_funds_sold', integer, 'Fund sales over the past three years (U.S. dollars).', aggregate),
    field('most_recent_deal', date, 'Date of the most recent deal.', { ...aggregate, indexed: true }),
    field('number_of_deals', integer, 'Number of funding events the investor took part in.', { ...aggregate, indexed: true }),
    field('avg_deal_size', integer, 'Average amount of those funding events (U.S. dollars).', aggregate),
    field('portfolio_size', integer, 'Number of distinct companies invested in.', { ...aggregate, indexed: true }),
    field('avg_growth_score', number, 'Average growth score of the portfolio companies.', aggregate),
    field('deals_per_company', number, 'number_of_deals / portfolio_size.', aggregate),
    tagsField('industries', 'investor_industries', 'investor_id', 'Industries of the portfolio companies.'),
  ],
})
