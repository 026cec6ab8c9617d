/**
 * @module One GET /search hit in the wire shape of spec 2.9 (schemas/search.ts). Unknown values
 * follow missing-values.ts: '' for plain strings, null for unknown numbers, [] for a company
 * without keywords, and null for the fields that do not apply to the hit's kind (a company has no
 * investor_funding, an investor no company_* values).
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
      // total_funding, as GET /companies/:id shows it: null when no funding is known, never a made-up 0.
      company_funding: integerOrNull(hit.companyFunding),
      company_keywords: list(hit.keywords),
      company_mattermark_score: hit.svcScore === null ? null : Math.round(hit.svcScore),
      investor_funding: null,
      object_id: hit.id,
    }
  }
  return {
    object_type: 'investor',
    object_name: text(hit.name),
    object_slug: text(hit.slug),
    company_domain: null,
    company_funding: null,
    company_keywords: null,
    company_mattermark_score: null,
    investor_funding: integerOrNull(hit.investorFunding),
    object_id: hit.id,
  }
}
