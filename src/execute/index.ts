/**
 * @module The execute stage: pages (`run.ts`), totals (`counts.ts`), stored queries
 * (`stored-queries.ts`), paging by id from remembered sort keys (`cursor.ts`) and the best-effort
 * cache writes they share (`cache-write.ts`).
 */
export type { ExecContext } from './context.js'
export { recordMapper, type RecordMapper, type ResultRecord } from './records.js'
export { fetchPage, fetchKeys, loadRecords, type FetchedPage, type KeyRow, type KeysRequest } from './run.js'
export { countRows, cachedTotal, datasetRows } from './counts.js'
export { pageByCursor, checkpointSpacing, DEFAULT_PAGING, type PageRequest, type PagingPolicy } from './cursor.js'
export { writeCache, isLockBusy } from './cache-write.js'
export {
  LANGUAGE_VERSION, QUERY_VERSION, canonicalFilter, canonicalQuery, canonicalJson, queryIdOf, storeQuery, loadStoredQuery,
  type CanonicalFilter, type CanonicalQuery, type StoredQuery, type LoadedQuery, type Recheck,
} from './stored-queries.js'
