/**
 * @module Phrase parameters (`last_funding_date=raised in past 3 months`): phrases normalised and
 * turned into date comparisons against the injected clock.
 */
import { type FilterHash, type FundingPhrase } from './table.js'

/** Lower case, `+` and runs of white space as one space: `Raised+in++past  Year` → `raised in past year`. */
export function normalisePhrase(text: string): string {
  return text.replace(/\+/g, ' ').trim().replace(/\s+/g, ' ').toLowerCase()
}

/**
 * The UTC calendar day `months` months before `now`'s UTC day, as YYYY-MM-DD. A day that the
 * earlier month does not have is clamped to its last day (May 31 minus 3 months is Feb 28/29).
 */
export function monthsBefore(now: Date, months: number): string {
  const total = now.getUTCFullYear() * 12 + now.getUTCMonth() - months
  const year = Math.floor(total / 12)
  const month = total - year * 12 // 0-based
  const day = Math.min(now.getUTCDate(), daysInMonth(year, month))
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

export const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

export function daysInMonth(year: number, month0: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month0 === 1 && leap ? 29 : MONTH_DAYS[month0]!
}

export function fundingPhraseFilter(field: string, phrase: FundingPhrase, now: Date): FilterHash {
  switch (phrase.kind) {
    case 'raised_within': return { [field]: { gte: monthsBefore(now, phrase.months) } }
    // `not` is the exact complement in the language: a company that never raised is included.
    case 'not_raised_within': return { not: { [field]: { gte: monthsBefore(now, phrase.months) } } }
    case 'never_raised': return { [field]: { is_null: true } }
    case 'ever_raised': return { [field]: { is_null: false } }
  }
}

/** Labels of letters (any script: internationalised domains), digits, `_` and inner `-`; two or more labels. */
