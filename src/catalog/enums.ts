/**
 * @module The enumerations of the service (spec sections 3, 2.11 and 4.11).
 */
import { enumOf } from './field-types.js'

/**
 * Company stage (spec 3). The values are the ones GET /companies accepts as a filter; the other
 * spellings responses show ('exited (acquired)', 'no known funding', ...) are aliases.
 */
export const STAGE = enumOf(
  ['Unknown', 'No Known Funding', 'Pre Series A', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'Late', 'Exited'],
  {
    'exited (acquired)': 'Exited',
    'exited (other)': 'Exited',
    'exited (ipo)': 'Exited',
    'pre-series a': 'Pre Series A',
  },
)

/**
 * Investor type (spec 2.11 shows vc, angel, accelerator and says other values exist; we add the two
 * kinds any venture dataset has, corporate and private_equity, and document them in grammar-docs).
 */
export const INVESTOR_TYPE = enumOf(['vc', 'angel', 'accelerator', 'corporate', 'private_equity'])

/** Funding series (spec 4.11): the accepted filter values plus the ones responses show. */
export const SERIES = enumOf([
  'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i',
  'angel', 'seed', 'debt_financing', 'private_equity', 'undisclosed', 'venture', 'convertible_note',
])
