/**
 * @module Deep and repeated pages of the stored query of the mix (`country = USA AND employees >=
 * 5`, default sort `svc_score desc`, nullable), 50 per page, page N = the mix's deep page:
 *
 * - **walked**: page N with page N-1 served just before (the engine seeks from the boundary it
 *   remembered); **cold**: the checkpoints an earlier pass left, but nothing near page N; both against page 1 of the same query (the issue's <= 1.5x), and
 *   the hand keyset seek and `LIMIT/OFFSET` reported beside them;
 * - **first jump**: nothing remembered for the query (the pass that writes the checkpoints is
 *   included), against OFFSET; reported, no target;
 * - **repeated page**: page 2 again with its total cached, against the same page without any
 *   counting, `engine.pageWithoutTotal` (the target: what the cached total costs); the hand
 *   keyset seek of page 2 (its ids and records, no count) beside them, whose ratio holds the
 *   engine's whole fixed cost per page. Also the same page with the total forgotten.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { Engine } from '../../src/engine.js'
import { checkpointSpacing } from '../../src/execute/cursor.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { forgetTotals } from '../support/dataset.js'
import type { SqlForms } from './hand-sql.js'
import { PER_PAGE, type MixParams } from './mix.js'
import { timeVariants, type Timed } from './timing.js'

export interface PagesResult {
  readonly page: number
  readonly hits: number
  readonly deep: Record<string, Timed>
  readonly firstJump: Record<string, Timed>
  readonly repeated: Record<string, Timed>
}

export async function measurePages(engine: Engine<SqliteVentureDb>, db: BetterSqlite3.Database, p: MixParams, forms: Record<string, SqlForms>): Promise<PagesResult> {
  const id = p.deepQueryId
  const n = p.deepPage
  const offset = (n - 1) * PER_PAGE
  const page = async (k: number) => {
    const r = await engine.page(id, { page: k, per_page: PER_PAGE })
    if (!r.ok) throw new Error(JSON.stringify(r.issues))
    return r.value.results.length
  }
  const pageWithoutTotal = async (k: number) => {
    const r = await engine.pageWithoutTotal(id, { page: k, per_page: PER_PAGE })
    if (!r.ok) throw new Error(JSON.stringify(r.issues))
    return r.value.results.length
  }
  const spacing = checkpointSpacing(p.deepHits)
  const forgetNear = () => db.prepare('delete from query_checkpoints where query_id = ? and position > ? and position <= ? and position % ? <> 0').run(id, offset - 2 * spacing, offset + PER_PAGE, spacing)
  const forgetAll = () => db.prepare('delete from query_checkpoints where query_id = ?').run(id)
  const offsetSql = forms['deep-page']!.plain!.page
  const handDeep = forms['deep-page']!.hand.page
  await page(n)
  await page(1)
  process.stderr.write(`  suite: deep page ${n}: walked, cold, page 1 ...\n`)
  const deep = await timeVariants([
    { name: 'walked', setup: () => page(n - 1), run: () => page(n) },
    { name: 'cold', setup: forgetNear, run: () => page(n) },
    { name: 'page1', run: () => page(1) },
    { name: 'hand seek', run: handDeep },
    { name: 'offset', run: offsetSql },
  ])
  process.stderr.write(`  suite: deep page ${n}: first jump ...\n`)
  const firstJump = await timeVariants([
    { name: 'first jump', setup: forgetAll, run: () => page(n), warmup: false },
    { name: 'offset', run: offsetSql },
    { name: 'page1', run: () => page(1) },
  ], { runs: 5, minRuns: 3 })
  process.stderr.write('  suite: repeated page ...\n')
  await page(2)
  const repeated = await timeVariants([
    { name: 'repeated (total cached)', run: () => page(2) },
    { name: 'no count (engine)', run: () => pageWithoutTotal(2) },
    { name: 'no count (hand seek)', run: forms['repeated-page']!.hand.page },
    { name: 'total forgotten', setup: () => forgetTotals(engine.database), run: () => page(2) },
  ])
  return { page: n, hits: p.deepHits, deep, firstJump, repeated }
}
