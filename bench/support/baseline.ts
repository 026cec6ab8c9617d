/**
 * @module The naive baseline of design section 8: the same records preloaded into plain JS objects,
 * filtered with `Array.filter` and sorted with a comparator (NULLs last, id as tiebreaker, like the
 * engine). An engine that cannot beat this on its own data has no reason to exist. Preloading is
 * not timed; only filter + sort + slice is.
 */
import type BetterSqlite3 from 'better-sqlite3'

export type Row = Record<string, number | string | null> & { id: number }

export interface Preloaded {
  readonly companies: readonly CompanyRow[]
  readonly investors: readonly Row[]
  /** investor id -> company ids (the `investments` link). */
  readonly portfolio: ReadonlyMap<number, readonly number[]>
  readonly companyById: ReadonlyMap<number, CompanyRow>
}

export type CompanyRow = Row & { readonly industries: ReadonlySet<string> }

/** Reads companies (every scalar column, plus industries) and investors with their portfolios. */
export function preload(sqlite: BetterSqlite3.Database): Preloaded {
  const companies = sqlite.prepare('select * from companies').all() as CompanyRow[]
  const companyById = new Map<number, CompanyRow>()
  for (const c of companies) {
    ;(c as unknown as { industries: Set<string> }).industries = new Set()
    companyById.set(c.id, c)
  }
  for (const t of sqlite.prepare('select company_id, value from company_industries').iterate() as Iterable<{ company_id: number; value: string }>) {
    ;(companyById.get(t.company_id)?.industries as Set<string> | undefined)?.add(t.value)
  }
  const investors = sqlite.prepare('select * from investors').all() as Row[]
  const portfolio = new Map<number, number[]>()
  for (const l of sqlite.prepare('select investor_id, company_id from investments').iterate() as Iterable<{ investor_id: number; company_id: number }>) {
    let list = portfolio.get(l.investor_id)
    if (!list) portfolio.set(l.investor_id, (list = []))
    list.push(l.company_id)
  }
  return { companies, investors, portfolio, companyById }
}

/** A comparator over one column (NULLs last in both directions), then id ascending. */
export function byColumn(column: string, direction: 'asc' | 'desc'): (a: Row, b: Row) => number {
  const sign = direction === 'asc' ? 1 : -1
  return (a, b) => {
    const x = a[column] ?? null
    const y = b[column] ?? null
    if (x !== y) {
      if (x === null) return 1
      if (y === null) return -1
      return (x < y ? -1 : 1) * sign
    }
    return a.id - b.id
  }
}

/** The naive page: filter everything, sort, slice. Returns the ids of page 1 and the total. */
export function naivePage<R extends Row>(rows: readonly R[], where: (r: R) => boolean, order: (a: R, b: R) => number, perPage: number): { ids: number[]; total: number } {
  const hits = rows.filter(where)
  hits.sort(order)
  return { ids: hits.slice(0, perPage).map((r) => r.id), total: hits.length }
}
