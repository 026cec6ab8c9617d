/**
 * @module Wire forms of a company's sub-resources: stories (2.4), similar companies (2.5),
 * people (2.6), the contact (2.7) and the technology stack (2.8).
 */
import type { z } from 'zod'
import type { PersonRow } from '../../records/people.js'
import { plainText, type SimilarCompanyRow } from '../../records/similar.js'
import type { StoryRow } from '../../records/stories.js'
import type { contactSchema, personSchema, similarCompanySchema, storySchema, techItemSchema } from '../schemas/company.js'
import { utcText } from './company-detail.js'
import { integerOrNull, nullableText, stageText, text } from './missing-values.js'

export function toStory(s: StoryRow): z.infer<typeof storySchema> {
  return { id: s.id, title: text(s.title), url: text(s.url), published_at: utcText(s.published_at), source_title: text(s.source_title) }
}

/** 2.5 lists every text as a plain string ('' when missing); total_funding is nullable (null when unknown). */
export function toSimilarCompany(s: SimilarCompanyRow): z.infer<typeof similarCompanySchema> {
  const description = text(s.description)
  return {
    company_name: text(s.name),
    description,
    description_plain_text: plainText(description),
    domain: text(s.website),
    id: s.id,
    probability: s.probability,
    stage: stageText(s.stage),
    total_funding: integerOrNull(s.total_funding),
  }
}

export function toPerson(p: PersonRow): z.infer<typeof personSchema> {
  return { name: text(p.name), title: text(p.title), path: text(p.path) }
}

export function toContact(companyId: number, name: string, email: string | null): z.infer<typeof contactSchema> {
  // 2.7 marks email nullable, and null is its documented "unavailable".
  return { company_id: companyId, name: text(name), email: nullableText(email) }
}

export function toTechItem(companyId: number, title: string): z.infer<typeof techItemSchema> {
  return { company_id: companyId, title }
}
