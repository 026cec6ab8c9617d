/**
 * @module The execute stage: pages (`run.ts`), totals (`counts.ts`), stored queries
 * (`stored-queries.ts`) and paging by id with remembered boundaries (`cursor.ts`).
 */
export type { ExecContext } from './context.js'
export { toRecord, type ResultRecord } from './records.js'
export { fetchPage, fetchKeys, loadRecords, type FetchedPage, type KeyRow, type KeysRequest } from './run.js'
export { countRows, cachedTotal, datasetRows } from './counts.js'
export { pageByCursor, type PageRequest } from './cursor.js'
export {
  LANGUAGE_VERSION, QUERY_VERSION, canonicalFilter, canonicalQuery, canonicalJson, queryIdOf, storeQuery, loadStoredQuery,
  type CanonicalFilter, type CanonicalQuery, type StoredQuery, type LoadedQuery, type Recheck,
} from './stored-queries.js'
