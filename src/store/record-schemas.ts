/**
 * @module Decoders of the three record shapes the loader accepts, as the spec shows them: company
 * detail (2.3, with its arrays and time series), investor (2.11 and the detail fields of 2.12) and
 * funding event (2.10). The scalar fields are derived from the catalog, one coercer per field type,
 * so a field added to the catalog is accepted by the loader without touching this file. What one
 * value becomes is decided by the catalog's parsers (`src/catalog/values.ts`, the forms listed in
 * grammar-docs/language.md, "Values"), the same the filter checker uses, so a value means the same
 * in a record and in a filter; this file adds what is particular to records (a blank or absent
 * value is NULL, tags come as arrays or comma-separated text) and names, for a rejected record,
 * what was expected and what was got.
 *
 * Why plain functions and not zod: every record of `import` and of `generate` (a million companies,
 * each ~100 fields) passes through here. The zod 4 schemas this replaced (one transform pipe per
 * field) cost ~115 µs per record, a third of a million-company build, most of it allocation;
 * these decoders are built once from the catalog, allocate only the output, and keep exactly the
 * same normalisation and messages.
 */
import { datasets, type DatasetDef, type EnumType, type FieldDef } from '../catalog/index.js'
import {
  enumParser, isInvalid, isNumericText, parseBoolean, parseDate, parseDatetime, parseInteger, parseNumber, parseString,
  type FieldValue, type Invalid, type ValueParser,
} from '../catalog/values.js'
import { previewValue } from '../errors/format.js'
import { suggestionList } from '../errors/did-you-mean.js'
import { TIME_SERIES_NAMES } from './schema/detail-tables.js'

//// decoder kit ////

interface Issue { readonly path: readonly (string | number)[]; readonly message: string }

/** Decoding state of one record: where we are (for messages) and what went wrong. */
class Ctx {
  readonly path: (string | number)[] = []
  readonly issues: Issue[] = []
}

/** Decodes one value; on failure records an issue in `ctx` and returns a placeholder. */
type Decoder<T> = (v: unknown, ctx: Ctx) => T

function reject(ctx: Ctx, value: unknown, expected: string, why?: Invalid): never {
  const reason = why?.reason ? `, ${why.reason}` : ''
  ctx.issues.push({ path: [...ctx.path], message: `expected ${expected}, got ${previewValue(value)}${reason}` })
  return null as never
}

type Shape = Readonly<Record<string, Decoder<unknown>>>
type Out<S extends Shape> = { -readonly [K in keyof S]: ReturnType<S[K]> }

/**
 * An object with the shape's keys (others are dropped); absent keys go to their decoder as
 * undefined. The fast path is an object literal compiled once per shape (one hidden class, reads
 * and writes by constant key: a company record has ~90 keys, and a loop of `out[key] = ...` with
 * path bookkeeping per key was half the decoding time). Only when a field failed is the record
 * decoded again key by key, to say where.
 */
function object<S extends Shape>(shape: S): Decoder<Out<S>> {
  const keys = Object.keys(shape)
  const decoders = keys.map((k) => shape[k]!)
  const literal = keys.map((k, i) => `${JSON.stringify(k)}: d[${i}](v[${JSON.stringify(k)}], ctx)`).join(', ')
  // Keys are the catalog's and this file's own names, never input.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const fast = new Function('d', `return (v, ctx) => ({ ${literal} })`)(decoders) as (v: Record<string, unknown>, ctx: Ctx) => Out<S>
  return (v, ctx) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return reject(ctx, v, 'an object')
    const input = v as Record<string, unknown>
    const before = ctx.issues.length
    const out = fast(input, ctx)
    if (ctx.issues.length === before) return out
    ctx.issues.length = before
    const path = ctx.path
    for (let i = 0; i < keys.length; i++) {
      path.push(keys[i]!)
      decoders[i]!(input[keys[i]!], ctx)
      path.pop()
    }
    return out
  }
}

/** An array of items; absent or null is the empty array. */
function arrayOf<T>(item: Decoder<T>): Decoder<T[]> {
  return (v, ctx) => {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v)) return reject(ctx, v, 'an array')
    const out: T[] = new Array(v.length)
    for (let i = 0; i < v.length; i++) {
      ctx.path.push(i)
      out[i] = item(v[i], ctx)
      ctx.path.pop()
    }
    return out
  }
}

function required<T>(decoder: Decoder<T>, what: string): Decoder<NonNullable<T>> {
  return (v, ctx) => (isBlank(v) ? reject(ctx, v, what) : (decoder(v, ctx) as NonNullable<T>))
}

//// scalar coercers ////

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '')
}

/**
 * A decoder for a non-text field type: an absent value is NULL at once (most optional fields of a
 * record are), then the catalog's parser (a well-formed value returns from it), then a blank string
 * is NULL too, and anything else is rejected with the parser's reason. Built once per type.
 */
function nullable<T extends FieldValue>(parse: ValueParser<T>, expected: string): Decoder<T | null> {
  return (v, ctx) => {
    if (v === undefined || v === null) return null
    const parsed = parse(v)
    if (!isInvalid(parsed)) return parsed
    return isBlank(v) ? null : reject(ctx, v, expected, parsed)
  }
}

const integer = nullable(parseInteger, 'an integer (number or numeric string)')
const number = nullable(parseNumber, 'a number (number or numeric string)')
const date = nullable(parseDate, 'a date YYYY-MM-DD or YYYYMMDD')
const datetime = nullable(parseDatetime, "a timestamp 'YYYY-MM-DD HH:MM:SS'")

/**
 * Text is kept as sent (spaces included), but a blank text (`""`, `"  "`) is NULL like a blank
 * value of any other type: every view shows an unknown text as `""`, and a filter's `""` means "no
 * value" (grammar-docs/guides/serving.md, "Missing values"), so a stored blank would be shown like a missing value and
 * filtered unlike one.
 */
const text: Decoder<string | null> = (v, ctx) => {
  const s = parseString(v)
  if (typeof s === 'string') return s.trim() === '' ? null : s
  return v === undefined || v === null ? null : reject(ctx, v, 'a string', s)
}

/** Stored as 0/1. */
const boolean: Decoder<number | null> = (v, ctx) => {
  const b = parseBoolean(v)
  if (typeof b === 'boolean') return b ? 1 : 0
  return v === undefined || v === null ? null : reject(ctx, v, 'a boolean (true, false, 0 or 1)', b)
}

function enumeration(type: EnumType): Decoder<string | null> {
  return nullable(enumParser(type), `one of: ${type.values.join(', ')}`)
}

/** Multi-valued strings: an array (or one comma-separated string); trimmed, de-duplicated, blanks dropped. */
const tagList: Decoder<string[]> = (v, ctx) => {
  if (v === undefined || v === null) return []
  const items = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : undefined
  if (!items || items.some((x) => typeof x !== 'string')) return reject(ctx, v, 'an array of strings')
  const out: string[] = []
  for (const raw of items as string[]) {
    const s = raw.trim()
    if (s !== '' && !out.includes(s)) out.push(s)
  }
  return out
}

function coercerFor(f: FieldDef): Decoder<unknown> {
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

/** One coercing entry per catalog field, keyed by the field's public name; all optional except the primary key. */
function catalogShape(ds: DatasetDef, pkExpected: string): Record<string, Decoder<unknown>> {
  const shape: Record<string, Decoder<unknown>> = {}
  for (const f of Object.values(ds.fields)) shape[f.name] = coercerFor(f)
  shape[ds.primaryKey] = identifier(pkExpected)
  return shape
}

/**
 * A record's identifier: a positive integer. The API reaches records by ids in paths, which are
 * positive integers (`/companies/-5` is a 404), so a record stored under 0 or -5 could never be
 * fetched; such a line is rejected instead.
 */
function identifier(what: string): Decoder<number> {
  return required((v, ctx) => {
    const n = integer(v, ctx)
    return n !== null && n < 1 ? reject(ctx, v, `${what}, at least 1`) : n
  }, what) as Decoder<number>
}

const integerList: Decoder<number[]> = (v, ctx) => {
  if (isBlank(v)) return []
  const items = typeof v === 'string' ? v.split(/[,|]/).map((s) => s.trim()).filter((s) => s !== '') : Array.isArray(v) ? v : undefined
  const out: number[] = []
  for (const x of items ?? [null]) {
    const n = parseInteger(x)
    if (typeof n !== 'number') return reject(ctx, v, 'an array of integer identifiers')
    if (!out.includes(n)) out.push(n)
  }
  return out
}

//// company detail (spec 2.3) ////

const fundingItem = object({
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

const iosApp = object({
  developer_url: text, ios_store_id: text, ios_store_url: text, app_name: text,
  /** Not in spec 2.3.1: the app's store category, the source of `ios_store_categories`. */
  category: text,
})

const androidApp = object({
  id: integer, app_name: text, package_id: text, company_id: integer, company_name: text, company_domain: text, play_url: text,
  /** Not in spec 2.3.2: the app's store category, the source of `play_categories`. */
  category: text,
})

const acquisition = object({
  event_id: required(integer, 'an integer event_id'), closed_date: date, company_id: integer, company_name: text, company_domain: text,
})

/** Spec 2.3 `stories` ({title, url, date, source}); the 2.4 names (published_at, source_title, id) are accepted too. */
const story = object({
  id: integer, title: required(text, 'a story title'), url: text, date: datetime, published_at: datetime, source: text, source_title: text,
})

const person = object({ name: required(text, 'a person name'), title: text, path: text })
const contact = object({ name: required(text, 'a contact name'), email: text })
const techItem: Decoder<string> = (v, ctx) => {
  if (typeof v === 'string') return v
  if (typeof v === 'object' && v !== null && typeof (v as { title?: unknown }).title === 'string') return (v as { title: string }).title
  return reject(ctx, v, 'a string or {"title": string}')
}

/** A time series point's score (2.3.5): the raw text is kept, with whether it came as a string. */
export interface Score { readonly text: string; readonly isString: boolean }
export interface Point { readonly recorded_at: string; readonly score: Score | null }

/** Time series point (2.3.5): the raw text is kept; only the shape is checked. */
const point = object({
  recorded_at: (v, ctx): string => (typeof v === 'string' && v.trim() !== '' ? v : reject(ctx, v, 'a timestamp string')),
  score: (v, ctx): Score | null => {
    if (v === null || v === undefined) return null
    if (typeof v === 'number' && Number.isFinite(v)) return { text: String(v), isString: false }
    if (typeof v === 'string' && isNumericText(v.trim())) return { text: v, isString: true }
    return reject(ctx, v, 'a numeric score (string or number)')
  },
}) as Decoder<Point>

const companyParts = {
  ios_store_apps: arrayOf(iosApp),
  android_store_apps: arrayOf(androidApp),
  funding: arrayOf(fundingItem),
  acquired_by: arrayOf(acquisition),
  acquired_companies: arrayOf(acquisition),
  stories: arrayOf(story),
  /** Spec 2.6 / 2.7 / 2.8, carried on the company record in our JSON Lines format. */
  people: arrayOf(person),
  contacts: arrayOf(contact),
  tech_stack: arrayOf(techItem),
}

const timeSeriesShape: Record<string, Decoder<Point[]>> = {}
for (const name of TIME_SERIES_NAMES) timeSeriesShape[name] = arrayOf(point)

const companyRecord = object({
  ...catalogShape(datasets.companies, 'an integer company id'), ...companyParts, ...timeSeriesShape,
})

//// investor (spec 2.11, 2.12) ////

const filing = object({ entity_name: text, total_offering: integer, total_sold: integer, filing_date: date, form: text })

/** 2.11 names the identifier investor_id, 2.12 id; the loader takes either (see `normaliseInvestorId`). */
const investorParts = {
  portfolio_path: text,
  funding_rounds_path: text,
  resource_type: text,
  most_recent_filings: arrayOf(filing),
}
const investorRecord = object({ ...catalogShape(datasets.investors, 'an integer investor_id (or id)'), ...investorParts })

//// funding event (spec 2.10) ////

const fundingParts = {
  company_id: identifier('an integer company_id'),
  investors: text,
  investor_slugs: tagList,
  /** Not in spec 2.10 (which names investors by slug); accepted as ids. */
  investor_ids: integerList,
  source: text,
}
const fundingRecord = object({ ...catalogShape(datasets.fundings, 'an integer funding id'), ...fundingParts })

/** The typed parts are the spec's arrays; catalog fields are reached by name (`record[field.name]`). */
export type CompanyRecord = Out<typeof companyParts> & Record<string, unknown>
export type InvestorRecord = Out<typeof investorParts> & Record<string, unknown>
export type FundingRecord = Out<typeof fundingParts> & Record<string, unknown>
export type FundingItem = ReturnType<typeof fundingItem>

export const RECORD_TYPES = ['company', 'investor', 'funding'] as const
export type RecordType = (typeof RECORD_TYPES)[number]

export type ParsedRecord =
  | { readonly type: 'company'; readonly record: CompanyRecord; readonly raw: Record<string, unknown> }
  | { readonly type: 'investor'; readonly record: InvestorRecord; readonly raw: Record<string, unknown> }
  | { readonly type: 'funding'; readonly record: FundingRecord; readonly raw: Record<string, unknown> }

export type ParseOutcome = { readonly ok: true; readonly value: ParsedRecord } | { readonly ok: false; readonly reason: string }

const DECODERS: Readonly<Record<RecordType, Decoder<Record<string, unknown>>>> = {
  company: companyRecord, investor: investorRecord, funding: fundingRecord,
}

/**
 * The fields a record of each type may carry: its decoder's, the other name of its id, and what the
 * API shows but derives from other records (an investor's aggregates, a funding event's industries),
 * so that a record saved from an answer loads without a warning.
 */
const KNOWN_FIELDS: Readonly<Record<RecordType, ReadonlySet<string>>> = {
  company: new Set([...Object.keys(catalogShape(datasets.companies, '')), ...Object.keys(companyParts), ...Object.keys(timeSeriesShape)]),
  investor: new Set([
    ...Object.keys(catalogShape(datasets.investors, '')), ...Object.keys(investorParts), 'id',
    'most_recent_funding', 'portfolio_aggregates', 'deal_aggregates', 'top_industries',
  ]),
  funding: new Set([...Object.keys(catalogShape(datasets.fundings, '')), ...Object.keys(fundingParts), 'funding_id', 'industry']),
}

export interface UnknownField {
  readonly field: string
  /** The known fields it may be a misspelling of, best first (did-you-mean). */
  readonly suggestions: readonly string[]
}

/**
 * The top-level fields of an envelope's record that its type does not have: the loader drops them,
 * so a misspelt field (`employes`) would be stored as absent. Empty for an envelope `parseRecord`
 * refuses anyway (no such type, no record object).
 */
export function unknownFields(envelope: unknown): UnknownField[] {
  if (typeof envelope !== 'object' || envelope === null) return []
  const { type, record } = envelope as { type?: unknown; record?: unknown }
  if (typeof type !== 'string' || !Object.hasOwn(KNOWN_FIELDS, type) || typeof record !== 'object' || record === null || Array.isArray(record)) return []
  const known = KNOWN_FIELDS[type as RecordType]
  const out: UnknownField[] = []
  for (const field of Object.keys(record)) {
    if (!known.has(field)) out.push({ field, suggestions: suggestionList(field, known, 3) })
  }
  return out
}

/**
 * Validates one envelope `{type, record}` of the JSON Lines format. The reason of a rejection
 * names the field (a dotted path inside the record), what was expected and what was got.
 */
export function parseRecord(envelope: unknown): ParseOutcome {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    return { ok: false, reason: `expected an object {"type": ..., "record": {...}}, got ${previewValue(envelope)}` }
  }
  const { type, record } = envelope as { type?: unknown; record?: unknown }
  if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
    return { ok: false, reason: `type: expected one of: ${RECORD_TYPES.join(', ')}, got ${previewValue(type)}` }
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return { ok: false, reason: `record: expected an object, got ${previewValue(record)}` }
  }
  const raw = type === 'investor' ? normaliseInvestorId(record as Record<string, unknown>)
    : type === 'funding' ? normaliseFundingId(record as Record<string, unknown>)
      : (record as Record<string, unknown>)
  const ctx = new Ctx()
  const data = DECODERS[type as RecordType](raw, ctx)
  if (ctx.issues.length > 0) {
    const reasons = ctx.issues.slice(0, 3).map((i) => `${type}.${i.path.length ? i.path.map(String).join('.') : 'record'}: ${i.message}`)
    const more = ctx.issues.length > 3 ? ` (and ${ctx.issues.length - 3} more)` : ''
    return { ok: false, reason: reasons.join('; ') + more }
  }
  return { ok: true, value: { type: type as RecordType, record: data, raw } as ParsedRecord }
}

function normaliseInvestorId(record: Record<string, unknown>): Record<string, unknown> {
  const pk = datasets.investors.primaryKey
  return record[pk] === undefined && record.id !== undefined ? { ...record, [pk]: record.id } : record
}

function normaliseFundingId(record: Record<string, unknown>): Record<string, unknown> {
  const pk = datasets.fundings.primaryKey
  return record[pk] === undefined && record.funding_id !== undefined ? { ...record, [pk]: record.funding_id } : record
}
