/**
 * @module The statements of similar companies (`similarCompanies`), one of each per tags field
 * where a field is read: kept apart from the search so the query shapes can be read in one place,
 * and so the weights, postings and ranking modules share them without importing the search.
 * Every row order the arithmetic depends on is explicit (tag values in binary order, owners
 * ascending), so both backends sum weights in the same order.
 */
import { sql } from 'kysely'
import { DETAIL_TABLES } from '../../store/schema/detail-tables.js'
import { columnName, COMPANIES, tagTableOf } from '../../store/sql-names.js'
import { COMPANY_ID, COMPANY_TABLE } from '../company-sql.js'
import { queryShape, type ShapeBuilder } from '../query-shape.js'

/** The multi-valued fields compared, by catalog name. */
const TAG_FIELDS = Object.freeze(['industries', 'business_models', 'keywords'] as const)
/** The tag tables of the fields similarity reads (from the catalog); exported for the benchmarks. */
export const TAG_TABLES = TAG_FIELDS.map((name) => tagTableOf(COMPANIES, name))
/** Distinct tags past which the totals are not kept (`TagTotals`): `ALL_TAG_COUNTS` reads one row past it at most. */
export const MAX_TOTALS_TAGS = 200_000

/** A tag of one field, as one string key: field index, NUL, value. */
export type TagKey = string
export const keyOf = (field: number, value: string): TagKey => `${field}\u0000${value}`

export function splitKey(key: TagKey): [number, string] {
  const nul = key.indexOf('\u0000')
  return [Number(key.slice(0, nul)), key.slice(nul + 1)]
}

//// Statements, one of each per tags field ////

type Owner = { owner: number }
const perField = <P extends object, R>(name: string, build: (t: (typeof TAG_TABLES)[number]) => ShapeBuilder<P>) =>
  TAG_TABLES.map((t) => queryShape<P, R>(`similar: ${name} (${t.table})`, build(t)))

/** The company's own tags, in binary order. */
export const TAGS_OF_ONE = perField<{ id: number }, { value: string }>('tags of the company', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.valueColumn} as value`).where(t.ownerColumn, '=', p.id).orderBy(t.valueColumn))
/** The tags of the candidates, by owner then value (the order their weights are summed in). */
export const TAGS_OF_MANY = perField<{ ids: string }, { owner: number; value: string }>('tags of the candidates', (t) => (db, d, p) =>
  db.selectFrom(t.table).select([`${t.ownerColumn} as owner`, `${t.valueColumn} as value`])
    .where(d.inList(sql.ref(t.ownerColumn), p.ids, 'integer')).orderBy(t.ownerColumn).orderBy(t.valueColumn))
/** df of several tags at once, through the value index. */
export const COUNTS_OF_TAGS = perField<{ values: string }, { value: string; n: number | string }>('tag counts', (t) => (db, d, p) =>
  db.selectFrom(t.table).select((eb) => [`${t.valueColumn} as value`, eb.fn.countAll().as('n')])
    .where(d.inList(sql.ref(t.valueColumn), p.values, 'tags')).groupBy(t.valueColumn))
export const POSTINGS = perField<{ value: string }, Owner>('postings', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value).orderBy(t.ownerColumn))
export const PROBE = perField<{ value: string; ids: string }, Owner>('probe', (t) => (db, d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value)
    .where(d.inList(sql.ref(t.ownerColumn), p.ids, 'integer')))
export const POSTINGS_FROM = perField<{ value: string; pivot: number; limit: number }, Owner>('postings from a pivot', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value).where(t.ownerColumn, '>=', p.pivot)
    .orderBy(t.ownerColumn).limit(p.limit))
export const POSTINGS_BEFORE = perField<{ value: string; pivot: number; limit: number }, Owner>('postings before a pivot', (t) => (db, _d, p) =>
  db.selectFrom(t.table).select(`${t.ownerColumn} as owner`).where(t.valueColumn, '=', p.value).where(t.ownerColumn, '<', p.pivot)
    .orderBy(t.ownerColumn).limit(p.limit))

/** df of every tag of a field, for the totals (`TagTotals`): every tag with its count; one row past `MAX_TOTALS_TAGS` at most, so a huge vocabulary is not read in full. */
export const ALL_TAG_COUNTS = perField<object, { value: string; n: number | string }>('every tag count', (t) => (db) =>
  db.selectFrom(t.table).select((eb) => [`${t.valueColumn} as value`, eb.fn.countAll().as('n')]).groupBy(t.valueColumn).limit(MAX_TOTALS_TAGS + 1))

/** N of the weights: exact, so both backends weigh alike (ANALYZE's estimates differ between them). */
export const COMPANY_COUNT = queryShape<object, { n: number | string }>('similar: companies', (db) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.countAll().as('n')))
export const MAX_COMPANY_ID = queryShape<object, { id: number | string | null }>('similar: highest company id', (db) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.max(COMPANY_ID).as('id')))
export const MIN_COMPANY_ID = queryShape<object, { id: number | string | null }>('similar: lowest company id', (db) =>
  db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.min(COMPANY_ID).as('id')))

export const COMPANY_FIELDS = queryShape<{ ids: string }, CompanyFields>('similar: companies by id', (db, d, p) =>
  db.selectFrom(`${COMPANY_TABLE} as c`).leftJoin(`${DETAIL_TABLES.companyExtra} as x`, 'x.company_id', `c.${COMPANY_ID}`)
    .select((eb) => [
      `c.${COMPANY_ID} as id`, `c.${columnName(COMPANIES, 'name')} as name`, `c.${columnName(COMPANIES, 'description')} as description`,
      `c.${columnName(COMPANIES, 'website')} as website`, eb.fn.coalesce('x.stage_raw', `c.${columnName(COMPANIES, 'stage')}`).as('stage'),
      `c.${columnName(COMPANIES, 'total_funding')} as total_funding`,
    ])
    .where(d.inList(sql.ref(`c.${COMPANY_ID}`), p.ids, 'integer')))

/** The fields of a company an answer carries (`SimilarCompanyRow` adds its scores). */
export interface CompanyFields {
  readonly id: number
  readonly name: string | null
  readonly description: string | null
  readonly website: string | null
  /** The stage as the record spelled it ('exited (acquired)') when kept, else as stored. */
  readonly stage: string | null
  readonly total_funding: number | null
}

/** What scoring reads of a candidate: its description (the other fields only for the answer). */
export const DESCRIPTIONS = queryShape<{ ids: string }, { id: number; description: string | null }>('similar: descriptions by id', (db, d, p) =>
  db.selectFrom(COMPANY_TABLE).select([`${COMPANY_ID} as id`, `${columnName(COMPANIES, 'description')} as description`])
    .where(d.inList(sql.ref(COMPANY_ID), p.ids, 'integer')))
