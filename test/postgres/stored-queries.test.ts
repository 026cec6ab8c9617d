/**
 * The bounds on stored queries on PostgreSQL (size limit, per-owner bound with least recently used
 * first, expiry of unused queries, `last_used_at` refreshed at most hourly): the same suite as on
 * SQLite (test/support/stored-query-storage.ts), each test in a fresh schema.
 */
import { storedQueryStorageSuite } from '../support/stored-query-storage.js'
import { testSchema } from './support.js'

storedQueryStorageSuite('PostgreSQL', async () => {
  const schema = await testSchema('stored')
  const vdb = await schema.open()
  return { vdb, close: () => schema.drop() }
})
