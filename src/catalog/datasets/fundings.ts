/**
 * @module The fundings dataset: funding events (spec 2.10, 4.10).
 */
import { dataset, field } from '../define.js'
import { SERIES } from '../enums.js'
import { date, datetime, integer, string } from '../field-types.js'

export const fundings = dataset({
  name: 'fundings',
  aliases: ['funding'],
  table: 'fundings',
  primaryKey: 'id',
  description: 'Funding events: one round of one company.',
  defaultSort: [{ field: 'rounds_funding_date', direction: 'desc' }],
  fields: [
    field('id', integer, 'Funding event identifier.', { nullable: false, wire: 'string' }),
    field('company_id', integer, 'The company that raised the round.', { indexed: true, wire: 'string' }),
    field('company_name', string, 'Name of that company (denormalised for listing).'),
    field('series', SERIES, 'Series of the round. NULL where responses show an empty string.', { indexed: true }),
    field('rounds_funding_date', date, 'Date of the funding event.', { indexed: true }),
    field('amount', integer, 'Money reported raised in the round.', { indexed: true }),
    field('currency', string, 'Currency code of `amount`.'),
    field('news_url', string, 'Address of the news item reporting the round.'),
    field('region', string, 'Metro region of the company.'),
    field('city', string, 'City of the company.'),
    field('state', string, 'State of the company (U.S.).'),
    field('country', string, 'Three-letter country code of the company.', { indexed: true, facet: 'value' }),
    field('created_on', datetime, 'When the event was recorded.'),
  ],
})
