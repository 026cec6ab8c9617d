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
 *   engine's whole fixed cost per page. Also the same page with the total forgotten;
 * - **sorted**: walked and cold page N of the same filter sorted by `added_date` and by
 *   `last_funding_date` (descending; ties, and NULLs in the second), against page 1 of that sort.
 */
import type BetterSqlite3 from 'better-sqlite3'
import type { Engine } from '../../src/engine.js'
import { checkpointSpacing } from '../../src/execute/cursor.js'
import type { SqliteVentureDb } from '../../src/store/open.js'
import { forgetTotals } from '../support/dataset.js'
import type { SqlForms } from './hand-sql.js'
import { DEEP_FILTER, PER_PAGE, type MixParams } from './mix.js'
import { timeVariants, type Timed } from './timing.js'

export interface PagesResult {
  readonly page: number
  readonly hits: number
  readonly deep: Record<string, Timed>
  readonly firstJump: Record<string, Timed>
  readonly repeated: Record<string, Timed>
  /**
   * The same filter sorted by fields with ties (and NULLs): walked and cold page N against page 1
   * of the same sort, by sort (`-added_date`, `-last_funding_date`). Absent in older runs.
   */
  readonly sorted?: Record<string, Record<string, Timed>>
}

/** Sorts of the deep query besides its default, each with ties: walked and cold pages are timed on them too. */
export const DEEP_SORTS = Object.freeze(['added_date', 'last_funding_date'] as const)

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
  const sorted: Record<string, Record<string, Timed>> = {}
  for (const field of DEEP_SORTS) {
    const stored = await engine.store({ dataset: 'companies', filter: DEEP_FILTER, sort: [{ [field]: 'desc' }] })
    if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
    const sid = stored.value.query_id
    const sortedPage = async (k: number) => {
      const r = await engine.page(sid, { page: k, per_page: PER_PAGE })
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      return r.value.results.length
    }
    const forgetNearSorted = () => db.prepare('delete from query_checkpoints where query_id = ? and position > ? and position <= ? and position % ? <> 0').run(sid, offset - 2 * spacing, offset + PER_PAGE, spacing)
    await sortedPage(n)
    await sortedPage(1)
    process.stderr.write(`  suite: deep page ${n} by -${field}: walked, cold, page 1 ...\n`)
    sorted[`-${field}`] = await timeVariants([
      { name: 'walked', setup: () => sortedPage(n - 1), run: () => sortedPage(n) },
      { name: 'cold', setup: forgetNearSorted, run: () => sortedPage(n) },
      { name: 'page1', run: () => sortedPage(1) },
    ])
  }
  return { page: n, hits: p.deepHits, deep, firstJump, repeated, sorted }
}
