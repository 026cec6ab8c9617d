/**
 * @module One GET /search hit in the wire shape of spec 2.9 (schemas/search.ts). Missing values
 * follow missing-values.ts, whether unknown or not applying to the hit's kind: '' for the plain
 * strings (an investor's `company_domain` too: spec 2.9 types it as a string), null for numbers
 * (an investor's `company_funding` and `company_mattermark_score`) and for the spec's nullable
 * `company_keywords` of an investor, [] for a company without keywords. A company's
 * `investor_funding` is 0, as the original service showed it (NUMBERS_WHEN_UNKNOWN).
 */
import type { z } from 'zod'
import type { SearchHit } from '../../records/search.js'
import type { searchResponseSchema } from '../schemas/search.js'
import { integerOrNull, list, text } from './missing-values.js'

type SearchResult = z.infer<typeof searchResponseSchema>[number]

export function searchResultView(hit: SearchHit): SearchResult {
  if (hit.objectType === 'company') {
    return {
      object_type: 'company',
      object_name: text(hit.name),
      object_slug: text(hit.slug),
      company_domain: text(hit.domain),
      // total_funding, as GET /companies/:id shows it: 0 for a company that never raised, null when
      // its rounds' amounts are undisclosed.
      company_funding: integerOrNull(hit.companyFunding),
      company_keywords: list(hit.keywords),
      company_mattermark_score: hit.svcScore === null ? null : Math.round(hit.svcScore),
      investor_funding: 0,
      object_id: hit.id,
    }
  }
  return {
    object_type: 'investor',
    object_name: text(hit.name),
    object_slug: text(hit.slug),
    // A plain string in spec 2.9: '' (no company domain), as every plain string the data lacks.
    company_domain: '',
    company_funding: null,
    company_keywords: null,
    company_mattermark_score: null,
    investor_funding: integerOrNull(hit.investorFunding),
    object_id: hit.id,
  }
}
