import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import type { SqliteVentureDb } from '../../src/store/open.js'

let vdb: SqliteVentureDb
beforeAll(async () => { vdb = await createFixtureDatabase({ companies: 600, seed: 5 }) })
afterAll(async () => { await vdb.close() })

interface Funding { id: number; company_id: number; amount: number | null; currency: string | null; rounds_funding_date: string | null }

describe('materialised aggregates equal aggregates recomputed in JS from the links', () => {
  test('investments are the (investor, company) pairs of funding_investors with the first funding date', () => {
    const fundings = new Map((vdb.sqlite.prepare('select id, company_id, amount, currency, rounds_funding_date from fundings').all() as Funding[]).map((f) => [f.id, f]))
    const links = vdb.sqlite.prepare('select funding_id, investor_id from funding_investors').all() as { funding_id: number; investor_id: number }[]
    const expected = new Map<string, string | null>()
    for (const l of links) {
      const f = fundings.get(l.funding_id)!
      const key = `${l.investor_id}:${f.company_id}`
      const prev = expected.get(key)
      const d = f.rounds_funding_date
      expected.set(key, prev === undefined ? d : prev === null ? d : d === null ? prev : d < prev ? d : prev)
    }
    const actual = new Map((vdb.sqlite.prepare('select investor_id, company_id, first_invested_on from investments').all() as { investor_id: number; company_id: number; first_invested_on: string | null }[])
      .map((r) => [`${r.investor_id}:${r.company_id}`, r.first_invested_on]))
    expect(actual.size).toBeGreaterThan(100)
    expect(actual).toEqual(expected)
  })

  test('investor number_of_deals, portfolio_size, avg_deal_size, deals_per_company, most_recent_deal, avg_growth_score', () => {
    const fundings = new Map((vdb.sqlite.prepare('select id, company_id, amount, currency, rounds_funding_date from fundings').all() as Funding[]).map((f) => [f.id, f]))
    const growth = new Map((vdb.sqlite.prepare('select company_id, growth_score from companies_extra where growth_score is not null').all() as { company_id: number; growth_score: number }[]).map((r) => [r.company_id, r.growth_score]))
    const links = vdb.sqlite.prepare('select funding_id, investor_id from funding_investors').all() as { funding_id: number; investor_id: number }[]
    const investors = vdb.sqlite.prepare('select * from investors').all() as Record<string, number | string | null>[]
    let checked = 0
    for (const inv of investors) {
      const mine = links.filter((l) => l.investor_id === inv.id).map((l) => fundings.get(l.funding_id)!)
      const companies = [...new Set(mine.map((f) => f.company_id))]
      const usd = mine.filter((f) => f.currency?.toUpperCase() === 'USD' && f.amount !== null).map((f) => f.amount!)
      const dates = mine.map((f) => f.rounds_funding_date).filter((d): d is string => d !== null).sort()
      const scores = companies.map((c) => growth.get(c)).filter((g): g is number => g !== undefined)
      expect(inv.number_of_deals).toBe(mine.length)
      expect(inv.portfolio_size).toBe(companies.length)
      expect(inv.most_recent_deal).toBe(dates.length ? dates[dates.length - 1] : null)
      expect(inv.avg_deal_size).toBe(usd.length ? Math.round(usd.reduce((a, b) => a + b, 0) / usd.length) : null)
      if (companies.length) expect(inv.deals_per_company as number).toBeCloseTo(mine.length / companies.length, 9)
      else expect(inv.deals_per_company).toBeNull()
      if (scores.length) expect(inv.avg_growth_score as number).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / scores.length, 9)
      else expect(inv.avg_growth_score).toBeNull()
      checked++
    }
    expect(checked).toBe(30)
  })

  test('company total_funding counts disclosed U.S. dollars only (0 without rounds, null when all are undisclosed); last_funding_* is the latest event', () => {
    const fundings = vdb.sqlite.prepare('select id, company_id, amount, currency, rounds_funding_date from fundings').all() as Funding[]
    const byCompany = new Map<number, Funding[]>()
    for (const f of fundings) byCompany.set(f.company_id, [...(byCompany.get(f.company_id) ?? []), f])
    const rows = vdb.sqlite.prepare('select id, total_funding, last_funding_amount, last_funding_date from companies').all() as { id: number; total_funding: number | null; last_funding_amount: number | null; last_funding_date: string | null }[]
    let withForeign = 0
    let neverRaised = 0
    let undisclosed = 0
    for (const c of rows) {
      const fs = byCompany.get(c.id)
      if (!fs) {
        // Never raised: nothing to add up, a known 0 (grammar-docs/guides/serving.md, "Missing values").
        expect(c.total_funding).toBe(0)
        neverRaised++
        continue
      }
      if (fs.some((f) => f.currency !== 'USD')) withForeign++
      if (fs.every((f) => f.amount === null)) {
        // Rounds whose amounts are all undisclosed: the total is unknown, not 0.
        expect(c.total_funding).toBeNull()
        undisclosed++
      } else {
        expect(c.total_funding).toBe(fs.filter((f) => f.currency === 'USD').reduce((a, f) => a + (f.amount ?? 0), 0))
      }
      const latest = [...fs].sort((a, b) => (b.rounds_funding_date ?? '').localeCompare(a.rounds_funding_date ?? '') || b.id - a.id)[0]!
      expect(c.last_funding_date).toBe(latest.rounds_funding_date)
      expect(c.last_funding_amount).toBe(latest.amount)
    }
    expect(withForeign).toBeGreaterThan(0)
    expect(neverRaised).toBeGreaterThan(0)
    expect(undisclosed).toBeGreaterThan(0)
  })
})
