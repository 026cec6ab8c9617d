/**
 * @module The parts of a funding event record (spec 2.10) that are not columns of the fundings
 * table: the investors' names and slugs (comma-joined) and the company's industries
 * (`industry`, comma-joined). One statement for a whole page of ids, not one per row: a page of
 * 50 fundings costs one round trip however many investors and industries it has.
 *
 * Where they come from: the loader keeps a round's investor names and slugs in `fundings_extra`
 * only when they cannot be derived (a record that named investors by name or slug without ids);
 * otherwise they are read through the fundings→investors link table, in investor id order. The
 * industries are the company's tags, in alphabetical order.
 */
import { sql } from 'kysely'
import { datasets, primaryKeyColumn } from '../catalog/index.js'
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { columnName, linkNames, tagTableOf } from '../store/sql-names.js'
import { queryShape } from './query-shape.js'
import { recordSession } from './session.js'

export interface FundingExtras {
  /** Investor names separated by ', ' ('' when the round names none). */
  readonly investors: string
  /** Investor slugs separated by ',' ('' when none). */
  readonly investor_slugs: string
  /** The company's industries separated by ', ' ('' when none). */
  readonly industry: string
}

const NO_EXTRAS: FundingExtras = Object.freeze({ investors: '', investor_slugs: '', industry: '' })

/** Separators as the generator and the original service's responses write them. */
const NAME_SEPARATOR = ', '
const SLUG_SEPARATOR = ','

interface ExtrasRow { id: number; investors: string | null; investor_slugs: string | null; industry: string | null }

const FUNDINGS = datasets.fundings
const INVESTORS = datasets.investors
const LINK = linkNames('fundings', 'investors')
const INDUSTRIES = tagTableOf(datasets.companies, 'industries')
const F_ID = `f.${primaryKeyColumn(FUNDINGS)}`
const I_ID = `i.${primaryKeyColumn(INVESTORS)}`

/** The one statement, built from catalog names (identifiers never come from input). */
const EXTRAS = queryShape<{ ids: string }, ExtrasRow>('funding extras', (db, d, p) => {
  // A round's investors joined in investor id order, when the loader kept no names of its own.
  const investorsOf = (field: 'name' | 'svc_slug', separator: string) =>
    db.selectFrom(`${LINK.table} as fi`).innerJoin(`${INVESTORS.table} as i`, I_ID, `fi.${LINK.toKey}`)
      .select(d.stringAgg(sql.ref(`i.${columnName(INVESTORS, field)}`), separator, sql.ref(I_ID)).as('joined'))
      .whereRef(`fi.${LINK.fromKey}`, '=', sql.ref(F_ID))
  const industry = db.selectFrom(`${INDUSTRIES.table} as t`)
    .select(d.stringAgg(sql.ref(`t.${INDUSTRIES.valueColumn}`), NAME_SEPARATOR, sql.ref(`t.${INDUSTRIES.valueColumn}`)).as('joined'))
    .whereRef(`t.${INDUSTRIES.ownerColumn}`, '=', sql.ref(`f.${columnName(FUNDINGS, 'company_id')}`))
  return db.selectFrom(`${FUNDINGS.table} as f`)
    .leftJoin(`${DETAIL_TABLES.fundingExtra} as x`, 'x.funding_id', F_ID)
    .select((eb) => [
      sql.ref(F_ID).as('id'),
      eb.fn.coalesce('x.investor_names', investorsOf('name', NAME_SEPARATOR)).as('investors'),
      eb.fn.coalesce('x.investor_slugs', investorsOf('svc_slug', SLUG_SEPARATOR)).as('investor_slugs'),
      industry.as('industry'),
    ])
    // The ids travel as one JSON array parameter: no bind-variable ceiling, one compiled statement.
    .where(d.inList(sql.ref(F_ID), p.ids, 'integer'))
})

/**
 * The extras of each funding event in `ids`, by id. Ids that are not funding events are absent
 * from the map; an event without investors or industries gets empty strings.
 */
export async function fundingExtras(vdb: VentureDb, ids: readonly number[]): Promise<ReadonlyMap<number, FundingExtras>> {
  const out = new Map<number, FundingExtras>()
  // Only whole numbers can be funding ids (PostgreSQL would refuse 1.5 as a bigint).
  const wanted = ids.filter((id) => Number.isSafeInteger(id))
  if (wanted.length === 0) return out
  for (const r of await recordSession(vdb).all(EXTRAS, { ids: JSON.stringify(wanted) })) {
    out.set(Number(r.id), Object.freeze({ investors: r.investors ?? '', investor_slugs: r.investor_slugs ?? '', industry: r.industry ?? '' }))
  }
  return out
}

/** Extras for one id from a `fundingExtras` map, or empty strings when it had none. */
export function extrasOf(map: ReadonlyMap<number, FundingExtras>, id: number): FundingExtras {
  return map.get(id) ?? NO_EXTRAS
}
