/**
 * @module zod schemas of the three record shapes the loader accepts, as the spec shows them:
 * company detail (2.3, with its arrays and time series), investor (2.11 and the detail fields of
 * 2.12) and funding event (2.10). The scalar fields are derived from the catalog, one coercer per
 * field type, so a field added to the catalog is accepted by the loader without touching this file.
 * Coercers accept the forms the spec says occur (numerics as strings, `last_funding_date` as
 * YYYYMMDD or YYYY-MM-DD, timestamps with ' UTC' or '+0000', stage spellings such as
 * 'exited (acquired)') and normalise them to the stored form; anything else is an issue naming
 * what was expected and what was got.
 */
import { z } from 'zod'
import { datasets, type DatasetDef, type EnumType, type FieldDef } from '../catalog/index.js'
import { describeValue } from '../errors/issue.js'
import { TIME_SERIES_NAMES } from './schema/detail-tables.js'

type Ctx = z.core.$RefinementCtx<unknown>

function reject(ctx: Ctx, value: unknown, expected: string): never {
  ctx.issues.push({ code: 'custom', message: `expected ${expected}, got ${describeValue(value)}`, input: value })
  return z.NEVER as never
}

const INTEGER_TEXT = /^-?\d+(?:\.0+)?$/
const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/
const DATE_DASHED = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_COMPACT = /^(\d{4})(\d{2})(\d{2})$/
const DATETIME = /^((\d{4})-(\d{2})-(\d{2}))[ T]((\d{2}):(\d{2}):(\d{2}))(?:\.\d+)?\s*(?:UTC|Z|[+-]00:?00)?$/

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '')
}

/** Integer: a number or a numeric string (spec: "numeric values are often serialised as strings"). */
const integer = z.any().transform((v, ctx): number | null => {
  if (isBlank(v)) return null
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v
  if (typeof v === 'string' && INTEGER_TEXT.test(v.trim())) {
    const n = Number(v.trim())
    if (Number.isSafeInteger(n)) return n
  }
  return reject(ctx, v, 'an integer (number or numeric string)')
}).optional()

const number = z.any().transform((v, ctx): number | null => {
  if (isBlank(v)) return null
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string' && NUMBER_TEXT.test(v.trim())) return Number(v.trim())
  return reject(ctx, v, 'a number (number or numeric string)')
}).optional()

const text = z.any().transform((v, ctx): string | null => {
  if (v === undefined || v === null) return null
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return reject(ctx, v, 'a string')
}).optional()

/** `YYYY-MM-DD` when y-m-d is a day of the calendar (`2023-02-30` is not), else null. */
function validDate(y: string, m: string, d: string): string | null {
  const [yy, mm, dd] = [Number(y), Number(m), Number(d)]
  if (mm < 1 || mm > 12 || dd < 1) return null
  // Day 0 of the next month is the last day of this one; setUTCFullYear keeps years below 100.
  if (dd > new Date(new Date(0).setUTCFullYear(yy, mm, 0)).getUTCDate()) return null
  return `${y}-${m}-${d}`
}

/** Calendar date; both YYYY-MM-DD and YYYYMMDD occur (spec 2.3), stored as YYYY-MM-DD. */
const date = z.any().transform((v, ctx): string | null => {
  if (isBlank(v)) return null
  const s = typeof v === 'number' && Number.isInteger(v) ? String(v) : typeof v === 'string' ? v.trim() : undefined
  if (s !== undefined) {
    const m = DATE_DASHED.exec(s) ?? DATE_COMPACT.exec(s)
    const out = m ? validDate(m[1]!, m[2]!, m[3]!) : null
    if (out) return out
  }
  return reject(ctx, v, 'a date YYYY-MM-DD or YYYYMMDD')
}).optional()

/** Timestamp 'YYYY-MM-DD HH:MM:SS' (a ' UTC' or '+0000' suffix is accepted), stored without suffix. */
const datetime = z.any().transform((v, ctx): string | null => {
  if (isBlank(v)) return null
  if (typeof v === 'string') {
    const s = v.trim()
    const m = DATETIME.exec(s)
    if (m && validDate(m[2]!, m[3]!, m[4]!) && Number(m[6]) < 24 && Number(m[7]) < 60 && Number(m[8]) < 60) return `${m[1]} ${m[5]}`
    const d = DATE_DASHED.exec(s)
    if (d && s.length === 10 && validDate(d[1]!, d[2]!, d[3]!)) return `${s} 00:00:00`
  }
  return reject(ctx, v, "a timestamp 'YYYY-MM-DD HH:MM:SS'")
}).optional()

const boolean = z.any().transform((v, ctx): number | null => {
  if (v === undefined || v === null) return null
  if (v === true || v === 1 || v === '1' || v === 'true') return 1
  if (v === false || v === 0 || v === '0' || v === 'false') return 0
  return reject(ctx, v, 'a boolean (true, false, 0 or 1)')
}).optional()

function enumeration(type: EnumType) {
  const lookup = new Map<string, string>()
  for (const value of type.values) lookup.set(value.toLowerCase(), value)
  for (const [alias, value] of Object.entries(type.aliases ?? {})) lookup.set(alias.toLowerCase(), value)
  const allowed = type.values.join(', ')
  return z.any().transform((v, ctx): string | null => {
    if (isBlank(v)) return null
    if (typeof v === 'string') {
      const found = lookup.get(v.trim().toLowerCase())
      if (found) return found
    }
    return reject(ctx, v, `one of: ${allowed}`)
  }).optional()
}

/** Multi-valued strings: an array (or one comma-separated string); trimmed, de-duplicated, blanks dropped. */
const tagList = z.any().transform((v, ctx): string[] => {
  if (v === undefined || v === null) return []
  const items = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : undefined
  if (!items || items.some((x) => typeof x !== 'string')) return reject(ctx, v, 'an array of strings')
  const out: string[] = []
  for (const raw of items as string[]) {
    const s = raw.trim()
    if (s !== '' && !out.includes(s)) out.push(s)
  }
  return out
}).default([])

function coercerFor(f: FieldDef): z.ZodType {
  switch (f.type.kind) {
    case 'integer': return integer
    case 'number': return number
    case 'string': return text
    case 'date': return date
    case 'datetime': return datetime
    case 'boolean': return boolean
    case 'enum': return enumeration(f.type)
    case 'tags': return tagList
  }
}

/**
 * One coercing entry per catalog field, keyed by the field's public name; all optional except
 * the primary key.
 */
function catalogObject(ds: DatasetDef, pkExpected: string) {
  const shape: Record<string, z.ZodType> = {}
  for (const f of Object.values(ds.fields)) shape[f.name] = coercerFor(f)
  shape[ds.primaryKey] = required(integer, pkExpected)
  return z.object(shape)
}

function required<T extends z.ZodType>(schema: T, what: string) {
  return z.any().superRefine((v, ctx) => {
    if (isBlank(v)) ctx.addIssue({ code: 'custom', message: `expected ${what}, got ${describeValue(v)}`, input: v })
  }).pipe(schema)
}

function arrayOf<T extends z.ZodType>(item: T) {
  return z.array(item).nullable().transform((v) => v ?? []).default([])
}

const integerList = z.any().transform((v, ctx): number[] => {
  if (isBlank(v)) return []
  const items = typeof v === 'string' ? v.split(/[,|]/).map((s) => s.trim()).filter((s) => s !== '') : Array.isArray(v) ? v : undefined
  const out: number[] = []
  for (const x of items ?? [null]) {
    const n = typeof x === 'number' ? x : typeof x === 'string' && INTEGER_TEXT.test(x) ? Number(x) : NaN
    if (!Number.isSafeInteger(n)) return reject(ctx, v, 'an array of integer identifiers')
    if (!out.includes(n)) out.push(n)
  }
  return out
}).default([])

//// company detail (spec 2.3) ////

export const fundingItemSchema = z.object({
  /** Not in spec 2.3.3; accepted so a funding event keeps a stable id across imports. */
  id: integer,
  amount: integer,
  currency: text,
  series: enumeration(datasets.fundings.fields.series!.type as EnumType),
  funding_date: date,
  news_url: text,
  source: text,
  investor_ids: integerList,
  investors: text,
  /** Not in spec 2.3.3; the 2.10 `created_on` of the event. */
  created_on: datetime,
})

const iosAppSchema = z.object({
  developer_url: text, ios_store_id: text, ios_store_url: text, app_name: text,
  /** Not in spec 2.3.1: the app's store category, the source of `ios_store_categories`. */
  category: text,
})

const androidAppSchema = z.object({
  id: integer, app_name: text, package_id: text, company_id: integer, company_name: text, company_domain: text, play_url: text,
  /** Not in spec 2.3.2: the app's store category, the source of `play_categories`. */
  category: text,
})

const acquisitionSchema = z.object({
  event_id: required(integer, 'an integer event_id'), closed_date: date, company_id: integer, company_name: text, company_domain: text,
})

/** Spec 2.3 `stories` ({title, url, date, source}); the 2.4 names (published_at, source_title, id) are accepted too. */
const storySchema = z.object({
  id: integer, title: required(text, 'a story title'), url: text, date: datetime, published_at: datetime, source: text, source_title: text,
})

const personSchema = z.object({ name: required(text, 'a person name'), title: text, path: text })
const contactSchema = z.object({ name: required(text, 'a contact name'), email: text })
const techItemSchema = z.union([z.string(), z.object({ title: z.string() })]).transform((v) => (typeof v === 'string' ? v : v.title))

/** Time series point (2.3.5): the raw text is kept; only the shape is checked. */
const pointSchema = z.object({
  recorded_at: z.any().transform((v, ctx): string => (typeof v === 'string' && v.trim() !== '' ? v : reject(ctx, v, 'a timestamp string'))),
  score: z.any().transform((v, ctx): { text: string; isString: boolean } | null => {
    if (v === null || v === undefined) return null
    if (typeof v === 'number' && Number.isFinite(v)) return { text: String(v), isString: false }
    if (typeof v === 'string' && NUMBER_TEXT.test(v.trim())) return { text: v, isString: true }
    return reject(ctx, v, 'a numeric score (string or number)')
  }).optional(),
})

const timeSeriesShape: Record<string, z.ZodType> = {}
for (const name of TIME_SERIES_NAMES) timeSeriesShape[name] = arrayOf(pointSchema)

const companyParts = z.object({
  ios_store_apps: arrayOf(iosAppSchema),
  android_store_apps: arrayOf(androidAppSchema),
  funding: arrayOf(fundingItemSchema),
  acquired_by: arrayOf(acquisitionSchema),
  acquired_companies: arrayOf(acquisitionSchema),
  stories: arrayOf(storySchema),
  /** Spec 2.6 / 2.7 / 2.8, carried on the company record in our JSON Lines format. */
  people: arrayOf(personSchema),
  contacts: arrayOf(contactSchema),
  tech_stack: arrayOf(techItemSchema),
})

export const companyRecordSchema = catalogObject(datasets.companies, 'an integer company id').extend(companyParts.shape).extend(timeSeriesShape)

//// investor (spec 2.11, 2.12) ////

const filingSchema = z.object({ entity_name: text, total_offering: integer, total_sold: integer, filing_date: date, form: text })

/** 2.11 names the identifier investor_id, 2.12 id; the loader takes either (see `normaliseInvestorId`). */
const investorParts = z.object({
  portfolio_path: text,
  funding_rounds_path: text,
  resource_type: text,
  most_recent_filings: arrayOf(filingSchema),
})
export const investorRecordSchema = catalogObject(datasets.investors, 'an integer investor_id (or id)').extend(investorParts.shape)

//// funding event (spec 2.10) ////

const fundingParts = z.object({
  company_id: required(integer, 'an integer company_id'),
  investors: text,
  investor_slugs: tagList,
  /** Not in spec 2.10 (which names investors by slug); accepted as ids. */
  investor_ids: integerList,
  source: text,
})
export const fundingRecordSchema = catalogObject(datasets.fundings, 'an integer funding id').extend(fundingParts.shape)

/** The typed parts are the spec's arrays; catalog fields are reached by name (`record[field.name]`). */
export type CompanyRecord = z.output<typeof companyParts> & Record<string, unknown>
export type InvestorRecord = z.output<typeof investorParts> & Record<string, unknown>
export type FundingRecord = z.output<typeof fundingParts> & Record<string, unknown>
export type FundingItem = z.output<typeof fundingItemSchema>
export type Point = z.output<typeof pointSchema>

export const RECORD_TYPES = ['company', 'investor', 'funding'] as const
export type RecordType = (typeof RECORD_TYPES)[number]

export type ParsedRecord =
  | { readonly type: 'company'; readonly record: CompanyRecord; readonly raw: Record<string, unknown> }
  | { readonly type: 'investor'; readonly record: InvestorRecord; readonly raw: Record<string, unknown> }
  | { readonly type: 'funding'; readonly record: FundingRecord; readonly raw: Record<string, unknown> }

export type ParseOutcome = { readonly ok: true; readonly value: ParsedRecord } | { readonly ok: false; readonly reason: string }

const SCHEMAS = { company: companyRecordSchema, investor: investorRecordSchema, funding: fundingRecordSchema } as const

/**
 * Validates one envelope `{type, record}` of the JSON Lines format. The reason of a rejection
 * names the field (a dotted path inside the record), what was expected and what was got.
 */
export function parseRecord(envelope: unknown): ParseOutcome {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    return { ok: false, reason: `expected an object {"type": ..., "record": {...}}, got ${describeValue(envelope)}` }
  }
  const { type, record } = envelope as { type?: unknown; record?: unknown }
  if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
    return { ok: false, reason: `type: expected one of: ${RECORD_TYPES.join(', ')}, got ${describeValue(type)}` }
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return { ok: false, reason: `record: expected an object, got ${describeValue(record)}` }
  }
  const raw = type === 'investor' ? normaliseInvestorId(record as Record<string, unknown>)
    : type === 'funding' ? normaliseFundingId(record as Record<string, unknown>)
      : (record as Record<string, unknown>)
  const parsed = SCHEMAS[type as RecordType].safeParse(raw)
  if (!parsed.success) {
    const reasons = parsed.error.issues.slice(0, 3).map((i) => {
      const where = i.path.length ? i.path.map(String).join('.') : 'record'
      const message = i.code === 'custom' ? i.message : i.message.replace(/^Invalid input: /, '')
      return `${type}.${where}: ${message}`
    })
    const more = parsed.error.issues.length > 3 ? ` (and ${parsed.error.issues.length - 3} more)` : ''
    return { ok: false, reason: reasons.join('; ') + more }
  }
  return { ok: true, value: { type: type as RecordType, record: parsed.data, raw } as ParsedRecord }
}

function normaliseInvestorId(record: Record<string, unknown>): Record<string, unknown> {
  const pk = datasets.investors.primaryKey
  return record[pk] === undefined && record.id !== undefined ? { ...record, [pk]: record.id } : record
}

function normaliseFundingId(record: Record<string, unknown>): Record<string, unknown> {
  const pk = datasets.fundings.primaryKey
  return record[pk] === undefined && record.funding_id !== undefined ? { ...record, [pk]: record.funding_id } : record
}
