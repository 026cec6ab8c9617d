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
import type { Statement } from 'better-sqlite3'
import { datasets, findRelation, getField, type FieldDef } from '../catalog/index.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import type { SqliteVentureDb } from '../store/open.js'

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

function catalogField(dataset: keyof typeof datasets, name: string): FieldDef {
  const f = getField(datasets[dataset], name)
  if (!f) throw new Error(`funding-extras: ${dataset}.${name} is not in the catalog`)
  return f
}

function column(f: FieldDef): string {
  if (!f.column) throw new Error(`funding-extras: ${f.name} has no column`)
  return `"${f.column}"`
}

/** The one statement, built from catalog names (identifiers never come from input). */
function buildSql(): string {
  const fundings = datasets.fundings
  const investors = datasets.investors
  const link = findRelation('fundings', 'investors')
  if (!link || link.kind !== 'link') throw new Error('funding-extras: no fundings→investors link relation in the catalog')
  const industries = catalogField('companies', 'industries').tags
  if (!industries) throw new Error('funding-extras: companies.industries is not a tags field')
  const fId = column(catalogField('fundings', fundings.primaryKey))
  const fCompany = column(catalogField('fundings', 'company_id'))
  const iId = column(catalogField('investors', investors.primaryKey))
  const iName = column(catalogField('investors', 'name'))
  const iSlug = column(catalogField('investors', 'svc_slug'))
  const investorsOf = (col: string, sep: string) => `(
      select group_concat(i.${col}, '${sep}' order by i.${iId})
      from "${link.table}" fi join "${investors.table}" i on i.${iId} = fi."${link.toKey}"
      where fi."${link.fromKey}" = f.${fId})`
  return `
    select f.${fId} as id,
      coalesce(x.investor_names, ${investorsOf(iName, NAME_SEPARATOR)}) as investors,
      coalesce(x.investor_slugs, ${investorsOf(iSlug, SLUG_SEPARATOR)}) as investor_slugs,
      (select group_concat(t."${industries.valueColumn}", '${NAME_SEPARATOR}' order by t."${industries.valueColumn}")
         from "${industries.table}" t where t."${industries.ownerColumn}" = f.${fCompany}) as industry
    from json_each(?) j
    join "${fundings.table}" f on f.${fId} = j.value
    left join "${DETAIL_TABLES.fundingExtra}" x on x.funding_id = f.${fId}`
}

const statements = new WeakMap<SqliteVentureDb, Statement>()

/**
 * The extras of each funding event in `ids`, by id. Ids that are not funding events are absent
 * from the map; an event without investors or industries gets empty strings.
 */
export function fundingExtras(vdb: SqliteVentureDb, ids: readonly number[]): ReadonlyMap<number, FundingExtras> {
  const out = new Map<number, FundingExtras>()
  if (ids.length === 0) return out
  let statement = statements.get(vdb)
  if (!statement) statements.set(vdb, (statement = vdb.sqlite.prepare(buildSql())))
  // The ids travel as one JSON array parameter: no bind-variable ceiling, one prepared statement.
  const rows = statement.all(JSON.stringify(ids)) as { id: number; investors: string | null; investor_slugs: string | null; industry: string | null }[]
  for (const r of rows) {
    out.set(Number(r.id), Object.freeze({ investors: r.investors ?? '', investor_slugs: r.investor_slugs ?? '', industry: r.industry ?? '' }))
  }
  return out
}

/** Extras for one id from a `fundingExtras` map, or empty strings when it had none. */
export function extrasOf(map: ReadonlyMap<number, FundingExtras>, id: number): FundingExtras {
  return map.get(id) ?? NO_EXTRAS
}
