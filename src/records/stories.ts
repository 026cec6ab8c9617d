/**
 * @module A company's news stories (spec 2.4, 4.4): the latest ones, newest first.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { DETAIL_TABLES } from '../store/schema/detail-tables.js'
import { prepared } from '../store/sql-names.js'

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

// Served by the (company_id, published_at) index, walked backwards; undated stories come last
// (NULL sorts lowest), and equal dates by the newer id first so the order is total.
const LATEST_SQL = `select id, title, url, published_at, source_title from ${DETAIL_TABLES.stories}
  where company_id = ? order by published_at desc, id desc limit ?`

export function latestStories(sqlite: BetterSqlite3.Database, companyId: number, limit = STORY_LIMIT): StoryRow[] {
  return prepared(sqlite, LATEST_SQL).all(companyId, limit) as StoryRow[]
}
