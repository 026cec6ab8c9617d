/**
 * Composite indexes (store/schema/composite-indexes.ts): created by the migrations, rebuilt after
 * a bulk load, and used by SQLite for the filter families they exist for, as covering indexes of
 * the count (the count never reads table rows).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { and, condition as c } from '../../src/ast/factory.js'
import { datasets } from '../../src/catalog/index.js'
import { planQuery, sqliteDialect } from '../../src/compile/index.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { COMPOSITE_INDEXES } from '../../src/store/schema/composite-indexes.js'

const vdb = await createFixtureDatabase({ companies: 300 })
afterAll(() => vdb.close())
const p = '/filter'

function countPlan(dataset: 'companies' | 'investors', filter: Parameters<typeof planQuery>[0]['filter']): string {
  const compiled = planQuery({ dataset: datasets[dataset], filter, sort: [] }, sqliteDialect).countQuery(vdb.db).compile()
  return (vdb.sqlite.prepare(`explain query plan ${compiled.sql}`).all(...(compiled.parameters as unknown[])) as { detail: string }[]).map((r) => r.detail).join('\n')
}

describe('composite indexes', () => {
  it('exist after a bulk load (which drops and rebuilds indexes)', () => {
    const names = vdb.sqlite.prepare(`select name from sqlite_master where type = 'index'`).pluck().all() as string[]
    expect(COMPOSITE_INDEXES.length).toBeGreaterThan(0)
    expect(names).toContain('companies_by_country_stage_employees_svc_score')
    expect(names).toContain('investors_by_type_portfolio_size')
  })

  it('cover the count of the design section 8 filter', () => {
    const filter = and([c('country', 'eq', 'USA', p), c('stage', 'in', ['a', 'b'], p), c('employees', 'between', [50, 200], p)], p)
    expect(countPlan('companies', filter)).toMatch(/USING COVERING INDEX companies_by_country_stage_employees_svc_score \(country=\? AND stage=\? AND employees>\? AND employees<\?\)/)
  })

  it('cover the count of the spec example\'s investor conditions', () => {
    const filter = and([c('type', 'in', ['vc', 'accelerator'], p), c('portfolio_size', 'gte', 2, p)], p)
    expect(countPlan('investors', filter)).toMatch(/USING COVERING INDEX investors_by_type_portfolio_size \(type=\? AND portfolio_size>\?\)/)
  })
})
