/**
 * @module One request of the mix as the suite's counts phase times it, for the scripts that look at
 * a single first count (`first-count-interleaving.ts`, `first-count-rounds.ts`): an inline engine on
 * the bench database, and the engine's first count (totals emptied before each run), the hand-tuned
 * count and the plain count as timing variants.
 */
import { createEngine, type Engine } from '../../src/engine.js'
import { benchDatabaseFile, forgetTotals, freshCaches, openBenchDatabase } from '../support/dataset.js'
import { keyBefore, sqlForms } from './hand-sql.js'
import { buildMix, mixParams } from './mix.js'
import type { Variant } from './timing.js'

export interface FirstCountVariants {
  readonly engine: Engine
  readonly engineCount: Variant
  readonly hand: Variant
  /** Undefined when the request has no plain form with a count. */
  readonly plain: Variant | undefined
}

export async function firstCountVariants(id: string): Promise<FirstCountVariants> {
  benchDatabaseFile()
  const vdb = openBenchDatabase()
  freshCaches(vdb)
  const engine = createEngine({ database: vdb })
  const params = await mixParams(engine, Number(process.env.BENCH_COMPANIES ?? 100000))
  const request = buildMix(engine, params).find((m) => m.id === id)?.request
  const forms = sqlForms(vdb.sqlite, params, keyBefore(vdb.sqlite, params.deepPage), keyBefore(vdb.sqlite, 2))[id]
  if (!request || !forms?.hand.count) throw new Error(`${id}: not a request of the mix with a hand-tuned count`)
  const engineCount: Variant = {
    name: 'engine',
    setup: () => forgetTotals(vdb),
    run: async () => {
      const c = await engine.count(request)
      if (!c.ok) throw new Error(JSON.stringify(c.issues))
    },
  }
  const plainCount = forms.plain?.count
  return { engine, engineCount, hand: { name: 'hand', run: forms.hand.count }, plain: plainCount ? { name: 'plain', run: plainCount } : undefined }
}
