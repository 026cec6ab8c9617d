/**
 * @module A company's news stories (spec 2.4, 4.4): the latest ones, newest first.
 */
import { sql } from 'kysely'
import type { VentureDb } from '../store/open.js'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { nullsLast } from './order.js'
import { queryShape } from './query-shape.js'
import { recordSession, type RecordSession } from './session.js'

/** Spec 4.4 and section 8: "the 50 latest". */
export const STORY_LIMIT = 50

export interface StoryRow {
  readonly id: number
  readonly title: string
  readonly url: string | null
  /** Stored 'YYYY-MM-DD HH:MM:SS' (UTC), or null when the record gave no date. */
  readonly published_at: string | null
  readonly source_title: string | null
}

// Served on SQLite by the (company_id, published_at) index, walked backwards; undated stories come
// last, and equal dates by the newer id first so the order is total.
export const LATEST_STORIES = queryShape<{ companyId: number; limit: number }, StoryRow>('latest stories', (db, d, p) =>
  db.selectFrom(DETAIL_TABLES.stories).select(['id', 'title', 'url', 'published_at', 'source_title'])
    .where('company_id', '=', p.companyId)
    .orderBy(d.binaryText(sql.ref('published_at')), nullsLast(d, 'desc')).orderBy('id', 'desc')
    .limit(p.limit))

/** The latest stories of a company, newest first (empty for a company without stories or an unknown id). */
export async function latestStories(vdb: VentureDb, companyId: number, limit = STORY_LIMIT): Promise<StoryRow[]> {
  return storiesOf(recordSession(vdb), companyId, limit)
}

export function storiesOf(session: RecordSession, companyId: number, limit: number): Promise<StoryRow[]> {
  return session.all(LATEST_STORIES, { companyId, limit })
}
